/* job_state.c — every job state transition, and nothing else (but the
 * SUSPENDED ones of scontrol suspend/resume, in job_suspend.c). Each one
 * updates the record, queues it for the turn's commit, and releases effects
 * on the world (launches, signals) only after that commit.
 * Drawn in docs/state-machines.md. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/job_req.h"
#include "ctld/job_tres.h"
#include "ctld/prio.h"
#include "ctld/rpc_handlers.h"

/* Slurm's priority/basic: the earlier the submit, the higher. */
#define PRIORITY_BASE 4294901760ULL

void job_set_reason(struct job *j, const char *reason)
{
	j->reason = reason;
}

uint64_t job_submit_priority(const struct job *j)
{
	int64_t prio = (int64_t)PRIORITY_BASE - (int64_t)j->id - j->req.nice;
	return prio > 0 ? (uint64_t)prio : 1;
}

void job_accept(struct ctld *c, struct job *j, int64_t now)
{
	j->state = JOB_PENDING;
	j->submit_time = now;
	/* Slurm: unknown while a dependency waits or a held job has no begin
	 * time; the begin time when there is one, else now */
	if (j->req.deps.n)
		j->eligible_time = 0;
	else if (j->req.begin_time > now)
		j->eligible_time = j->req.begin_time;
	else
		j->eligible_time = j->hold ? 0 : now;
	j->priority = job_submit_priority(j);
	prio_job_update(c, j); /* priority/multifactor's */
	j->reason = j->hold == HOLD_USER      ? "JobHeldUser"
		    : j->req.begin_time > now ? "BeginTime"
		    : j->req.deps.n	      ? "Dependency"
					      : "None";
	free(j->req_tres);
	j->req_tres = job_tres_requested(j);
	job_table_add(&c->jobs, j);
	commit_job(c, j);
	c->stats.jobs_submitted++;
	sched_request_new(c, j);
	log_info("job=%u submitted by uid=%u name=%s partition=%s nodes=%u%s%s", j->id,
		 j->uid, j->name, j->partition, j->num_nodes, j->array ? " array=" : "",
		 j->array ? (j->array_task_str ? j->array_task_str : "1 task") : "");
}

struct launch_ref {
	uint32_t id, restart;
};

static void launch_after_commit(struct ctld *c, void *arg)
{
	struct launch_ref *ref = arg;
	struct job *j = job_table_find(&c->jobs, ref->id);
	if (j && j->state == JOB_RUNNING && j->restart_count == ref->restart &&
	    !j->completing && !j->prolog_pending)
		link_send_launch(c, j);
	free(ref);
}

void job_launch(struct ctld *c, struct job *j)
{
	struct launch_ref *ref = malloc(sizeof(*ref));
	if (!ref)
		abort();
	ref->id = j->id;
	ref->restart = j->restart_count;
	commit_defer(c, launch_after_commit, ref);
}

/* The strings the batch environment and scontrol show, kept after the end. */
static void describe_alloc(struct ctld *c, struct job *j)
{
	uint32_t *tasks = calloc(j->n_alloc, sizeof(*tasks));
	uint32_t *cpus = calloc(j->n_alloc, sizeof(*cpus));
	uint32_t *idx = calloc(j->n_alloc, sizeof(*idx));
	if (!tasks || !cpus || !idx)
		abort();
	j->alloc_cpus_total = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++) {
		tasks[i] = j->alloc[i].tasks;
		cpus[i] = j->alloc[i].cpus;
		idx[i] = j->alloc[i].node;
		j->alloc_cpus_total += cpus[i];
	}
	free(j->nodelist);
	j->nodelist = ctld_alloc_hostlist(c, idx, j->n_alloc);
	free(j->batch_host);
	j->batch_host = strdup(c->nodes.names[idx[0]]);
	free(j->tasks_per_node);
	j->tasks_per_node = job_counts_string(tasks, j->n_alloc);
	free(j->cpus_per_node);
	j->cpus_per_node = job_counts_string(cpus, j->n_alloc);
	char gpus[DRV_MAX_NODE_GPUS * 4] = "";
	size_t len = 0;
	for (uint32_t g = 0; g < DRV_MAX_NODE_GPUS; g++)
		if (j->alloc[0].gpus >> g & 1)
			len += (size_t)snprintf(gpus + len, sizeof(gpus) - len, "%s%u",
						len ? "," : "", g);
	free(j->alloc_gpus);
	j->alloc_gpus = strdup(gpus);
	free(j->alloc_tres);
	j->alloc_tres = job_tres_allocated(j);
	free(tasks);
	free(cpus);
	free(idx);
}

/* PrologSlurmctld runs once the allocation is durable; with EpilogSlurmctld
 * the same after the end. */
static void hook_after_commit(struct ctld *c, void *arg)
{
	struct launch_ref *ref = arg;
	struct job *j = job_table_find(&c->jobs, ref->id);
	bool epilog = ref->restart == UINT32_MAX;
	if (j && (epilog || (j->prolog_pending && j->restart_count == ref->restart))) {
		int rc = hook_start(c, j, epilog);
		if (rc < 0 && !epilog)
			job_prolog_slurmctld_done(c, j, j->restart_count, false);
		else if (rc < 0)
			log_error("job=%u cannot run EpilogSlurmctld: %s", j->id,
				  strerror(-rc));
	}
	free(ref);
}

static void hook_later(struct ctld *c, const struct job *j, bool epilog)
{
	struct launch_ref *ref = malloc(sizeof(*ref));
	if (!ref)
		abort();
	ref->id = j->id;
	ref->restart = epilog ? UINT32_MAX : j->restart_count;
	commit_defer(c, hook_after_commit, ref);
}

static void prolog_later(struct ctld *c, const struct job *j)
{
	hook_later(c, j, false);
}

void job_resume_prologs(struct ctld *c)
{
	for (struct job *j = c->jobs.head; j; j = j->next)
		if (j->state == JOB_RUNNING && j->prolog_pending && !j->completing)
			prolog_later(c, j);
}

/* Takes the job's resources on each node. */
void job_hold_nodes(struct ctld *c, struct job *j)
{
	for (uint32_t i = 0; i < j->n_alloc; i++) {
		struct node *n = &c->nodes.nodes[j->alloc[i].node];
		n->cpus_alloc += j->alloc[i].cpus;
		n->mem_alloc += j->alloc[i].mem;
		n->gpus_alloc |= j->alloc[i].gpus;
		if (node_add_job(n, j) < 0)
			abort();
	}
}

/* What the scheduler gave on one node, as ctld keeps it: the CPU set
 * copied, the GPU units as a mask of devices. */
static struct job_alloc alloc_from_sched(const struct ctld *c,
					 const struct sched_alloc *a)
{
	const struct node *nd = &c->nodes.nodes[a->node];
	size_t words = SCHED_WORDS((uint32_t)nd->conf->cpus);
	struct job_alloc out = {
	    a->node, a->cpus, a->tasks, a->mem, 0, NULL, (uint32_t)nd->conf->cpus};
	out.cpu_ids = calloc(words ? words : 1, sizeof(uint64_t));
	if (!out.cpu_ids)
		abort();
	if (a->cpu_ids)
		memcpy(out.cpu_ids, a->cpu_ids, words * sizeof(uint64_t));
	for (uint32_t g = 0; a->gpu_units && g < nd->n_gpus; g++)
		if (a->gpu_units[g])
			out.gpus |= 1ULL << g;
	return out;
}

void job_start(struct ctld *c, struct job *j, const struct sched_alloc *a, uint32_t n,
	       int64_t time_limit, int64_t now)
{
	j->alloc = calloc(n, sizeof(*j->alloc));
	if (!j->alloc)
		abort();
	for (uint32_t i = 0; i < n; i++)
		j->alloc[i] = alloc_from_sched(c, &a[i]);
	j->n_alloc = n;
	/* backfill may start a job with less than its limit, down to --time-min */
	j->time_limit = time_limit;
	j->plan_start = 0;
	free(j->plan_nodes);
	j->plan_nodes = NULL;
	j->lacks = 0;
	/* Slurm trims the limit of a job with a deadline to end by it. */
	if (j->req.deadline &&
	    (j->time_limit == DRV_INFINITE || now + j->time_limit > j->req.deadline))
		j->time_limit = (j->req.deadline - now) / 60 * 60;
	job_hold_nodes(c, j);
	describe_alloc(c, j);
	j->state = JOB_RUNNING;
	j->reason = "None";
	j->start_time = now;
	c->stats.jobs_started++;
	/* srun and salloc allocations run no batch script: nothing to launch */
	j->launch_acked = j->interactive;
	j->prolog_pending = c->conf->prolog_slurmctld != NULL && !j->interactive;
	commit_job(c, j);
	depend_started(c, j);
	if (j->interactive)
		;
	else if (j->prolog_pending)
		prolog_later(c, j); /* the launch waits for PrologSlurmctld */
	else
		job_launch(c, j);
	log_info("job=%u started on %s", j->id, j->nodelist);
}

const char job_reason_requeue_held[] = "job requeued in held state";

static void finish(struct ctld *c, struct job *j)
{
	/* first: a step ending below must not finish the job again
	 * (job_steps_ended) */
	j->completing = false;
	steps_end_all(c, j, j->state == JOB_TIMEOUT, true,
		      j->end_time ? j->end_time : time(NULL));
	if (j->state == JOB_PENDING) { /* a requeued run ended: queued again */
		free(j->nodelist);
		j->nodelist = strdup("");
		if (j->reason && !strcmp(j->reason, "None"))
			j->reason = "BeginTime";
	}
	node_release_job(c, j);
	commit_job(c, j);
	sched_request(c);
	if (job_state_final(j->state) && c->conf->epilog_slurmctld)
		hook_later(c, j, true);
}

static void end_run(struct ctld *c, struct job *j, int exit_code, int sig, bool timed_out,
		    bool oom, int64_t now)
{
	if (j->state == JOB_PENDING) {
		/* The killed run of a requeued job ended: its nodes are free.
		 * The job itself already waits for its next start. */
		finish(c, j);
		log_info("job=%u requeued run ended exit=%d:%d", j->id, exit_code, sig);
		return;
	}
	j->exit_code = exit_code;
	j->exit_signal = sig;
	if (j->state == JOB_RUNNING) {
		prio_job_stop(c, j, now); /* its last fair-share usage */
		job_suspend_end(j, now, NULL);
		j->state = exit_code == 0 && sig == 0 ? JOB_COMPLETED : JOB_FAILED;
		if (timed_out) {
			j->state = JOB_TIMEOUT;
		} else if (oom) { /* Slurm: OUT_OF_MEMORY with ExitCode 0:125 */
			j->state = JOB_OUT_OF_MEMORY;
			j->exit_code = exit_code = 0;
			j->exit_signal = sig = DRV_SIG_OOM;
			j->reason = "OutOfMemory";
		}
		j->end_time = now;
		if (j->state == JOB_FAILED)
			j->reason = sig ? "RaisedSignal" : "NonZeroExitCode";
		else if (j->state == JOB_TIMEOUT)
			j->reason = "TimeLimit";
		stats_job_end(&c->stats, j->state == JOB_COMPLETED ? STATS_END_COMPLETED
								   : STATS_END_FAILED);
	}
	finish(c, j);
	log_info("job=%u ended %s exit=%d:%d", j->id, job_state_name(j->state), exit_code,
		 sig);
}

void job_end(struct ctld *c, struct job *j, int exit_code, int sig, bool timed_out,
	     int64_t now)
{
	end_run(c, j, exit_code, sig, timed_out, false, now);
}

void job_end_oom(struct ctld *c, struct job *j, int exit_code, int sig, bool timed_out,
		 int64_t now)
{
	end_run(c, j, exit_code, sig, timed_out, true, now);
}

struct signal_ref {
	uint32_t id;
	int sig;
	bool batch_only, kill;
	const char *reason; /* static: "cancel", or NULL */
};

static void signal_after_commit(struct ctld *c, void *arg)
{
	struct signal_ref *ref = arg;
	struct job *j = job_table_find(&c->jobs, ref->id);
	if (j && j->n_alloc)
		link_send_signal_why(c, j, ref->sig, ref->batch_only, ref->kill,
				     ref->reason);
	free(ref);
}

static void signal_later(struct ctld *c, struct job *j, int sig, bool batch_only,
			 bool kill, const char *reason)
{
	struct signal_ref *ref = malloc(sizeof(*ref));
	if (!ref)
		abort();
	*ref = (struct signal_ref){j->id, sig, batch_only, kill, reason};
	commit_defer(c, signal_after_commit, ref);
}

int job_cancel(struct ctld *c, struct job *j, uid_t by, int64_t now)
{
	bool running = j->state == JOB_RUNNING;
	if (running)
		prio_job_stop(c, j, now);
	j->state = JOB_CANCELLED;
	j->end_time = now;
	job_suspend_end(j, now, &j->end_time); /* noded thaws it to kill it */
	j->cancel_uid = by;
	stats_job_end(&c->stats, STATS_END_CANCELED);
	if (running) /* a pending job keeps why it waited, as in Slurm */
		j->reason = "None";
	bool kill_batch = running && j->n_alloc && !j->prolog_pending && !j->interactive;
	/* an srun/salloc allocation completes when its steps' nodes report */
	bool wait_steps = running && j->n_alloc && j->interactive && steps_running(j);
	j->completing |= wait_steps;
	steps_end_all_why(c, j, "cancel", kill_batch, false, true, now);
	if (kill_batch) {
		/* The nodes stay held until noded reports the processes gone. */
		j->completing = true;
		commit_job(c, j);
		signal_later(c, j, SIGKILL, false, true, "cancel");
	} else if (wait_steps) {
		if (j->completing) /* (else its last step ended already) */
			commit_job(c, j);
	} else {
		finish(c, j);
	}
	log_info("job=%u cancelled by uid=%u", j->id, (unsigned)by);
	return 0;
}

void job_time_limit(struct ctld *c, struct job *j, int64_t now)
{
	log_info("job=%u reached its time limit", j->id);
	bool wait_steps = j->interactive && j->n_alloc && steps_running(j);
	if (!wait_steps && (j->interactive || j->prolog_pending || !j->n_alloc)) {
		job_end(c, j, 0, 0, true, now); /* nothing of its own to kill */
		return;
	}
	/* Slurm: TIMEOUT at once, COMPLETING until the node reports the end;
	 * the shepherd writes "... DUE TO TIME LIMIT ***" and ends the run (it
	 * would at its own deadline anyway, a moment later). */
	prio_job_stop(c, j, now);
	j->state = JOB_TIMEOUT;
	j->reason = "TimeLimit";
	j->end_time = now;
	if (wait_steps) { /* an srun/salloc allocation: its steps' ends end it */
		j->exit_code = j->exit_signal = 0;
		j->completing = true;
		steps_end_all_why(c, j, "time_limit", false, true, true, now);
		if (j->completing) /* (else its last step ended already) */
			commit_job(c, j);
		return;
	}
	steps_end_all_why(c, j, "time_limit", true, true, true, now);
	j->completing = true;
	commit_job(c, j);
	signal_later(c, j, SIGKILL, false, true, "time_limit");
}

void job_steps_ended(struct ctld *c, struct job *j)
{
	if (j->interactive && j->completing && job_state_final(j->state) &&
	    !steps_running(j))
		finish(c, j);
}

int job_signal(struct ctld *c, struct job *j, int sig, bool batch_only)
{
	if (j->state != JOB_RUNNING || !j->n_alloc)
		return DRV_RC_JOB_PENDING;
	if (!batch_only)
		steps_signal(c, j, sig);
	if (!j->interactive)
		link_send_signal(c, j, sig, batch_only, false);
	log_info("job=%u signal %d%s", j->id, sig, batch_only ? " (batch shell)" : "");
	return 0;
}

/* The job back to PENDING with the same id: its finished (or killed) run
 * is kept for sacct -D as a row of run_state (REQUEUED, or NODE_FAIL), and
 * it may not start again before cred_expire + 1 seconds have passed, as in
 * Slurm (reason BeginTime). */
static void requeue(struct ctld *c, struct job *j, enum job_state run_state, bool hold,
		    bool kill_batch, int64_t now)
{
	if (j->state == JOB_RUNNING)
		prio_job_stop(c, j, now);
	/* the next run starts over */
	steps_end_all_why(c, j, "requeue", kill_batch, false, false, now);
	job_suspend_end(j, now, NULL);
	commit_run(c, j, job_state_name(run_state), now);
	j->suspend_time = j->pre_sus_time = j->suspended_secs = 0;
	steps_free(j); /* the next run numbers its steps from 0 again */
	memset(&j->batch_usage, 0, sizeof(j->batch_usage));
	j->next_step_id = 0;
	j->state = JOB_PENDING;
	part_job_requeued(j); /* pending again: it shows its -p list */
	j->restart_count++;
	j->submit_time = now;
	j->req.begin_time = now + c->conf->cred_expire + 1;
	j->eligible_time = j->req.begin_time;
	j->start_time = j->end_time = 0;
	j->exit_code = j->exit_signal = 0;
	j->launch_acked = false;
	j->prolog_pending = false;
	j->missing_pings = 0;
	j->cancel_uid = 0;
	if (!kill_batch) { /* else it shows its nodes while they end the run */
		free(j->nodelist);
		j->nodelist = strdup("");
	}
	free(j->batch_host);
	j->batch_host = NULL;
	free(j->alloc_tres);
	j->alloc_tres = strdup("");
	/* Slurm: Reason=None while the run is being killed (COMPLETING) */
	j->reason = kill_batch ? "None" : "BeginTime";
	if (hold) {
		j->hold = HOLD_USER;
		j->reason = job_reason_requeue_held;
	}
	prio_job_update(c, j);
	commit_job(c, j);
	sched_request(c);
}

void job_node_fail(struct ctld *c, struct job *j, int64_t now)
{
	if (j->state == JOB_RUNNING && !j->completing && j->req.requeue) {
		/* Slurm: the run ends NODE_FAIL in the accounting and the job
		 * goes back to the queue, to run elsewhere. */
		requeue(c, j, JOB_NODE_FAIL, false, false, now);
		node_release_job(c, j);
		log_info("job=%u requeued after the failure of its node", j->id);
		return;
	}
	if (j->state == JOB_PENDING && j->completing) {
		finish(c, j); /* a requeued run whose node died: nothing to wait for */
		return;
	}
	if (!job_state_final(j->state)) {
		if (j->state == JOB_RUNNING)
			prio_job_stop(c, j, now);
		j->state = JOB_NODE_FAIL;
		j->end_time = now;
		job_suspend_end(j, now, &j->end_time);
		j->reason = "NodeDown";
		stats_job_end(&c->stats, STATS_END_FAILED);
	}
	finish(c, j);
	log_info("job=%u ended NODE_FAIL", j->id);
}

void job_deadline(struct ctld *c, struct job *j, int64_t now)
{
	j->state = JOB_DEADLINE;
	j->reason = "DeadLine";
	stats_job_end(&c->stats, STATS_END_FAILED);
	j->start_time = now;
	j->end_time = now;
	j->exit_signal = 1; /* Slurm shows ExitCode=0:1 */
	finish(c, j);
	log_info("job=%u ended DEADLINE", j->id);
}

void job_cancel_invalid_dep(struct ctld *c, struct job *j, int64_t now)
{
	j->reason = "DependencyNeverSatisfied";
	j->start_time = now;
	job_cancel(c, j, (uid_t)-1, now);
	log_info("job=%u cancelled: its dependency can never be satisfied", j->id);
}

int job_requeue(struct ctld *c, struct job *j, bool hold, int64_t now)
{
	if (!j->req.requeue)
		return DRV_RC_DISABLED;
	if (j->state == JOB_PENDING)
		return DRV_RC_JOB_PENDING;
	bool running = j->state == JOB_RUNNING && j->n_alloc;
	bool launched = running && !j->prolog_pending;
	hold |= j->suspended; /* Slurm: a suspended job is requeued held */
	requeue(c, j, JOB_REQUEUED, hold, launched, now);
	if (launched) {
		/* The run is killed as a cancel would kill it; the nodes stay
		 * held until noded reports it gone (job_end). */
		j->completing = true;
		signal_later(c, j, SIGKILL, false, true, "requeue");
	} else if (running) {
		finish(c, j); /* its PrologSlurmctld ran: nothing launched yet */
	}
	log_info("job=%u requeued%s", j->id, hold ? " held" : "");
	return 0;
}

void job_prolog_failed(struct ctld *c, struct job *j, int64_t now)
{
	if (j->state != JOB_RUNNING || !j->req.requeue) {
		job_end(c, j, 1, 0, false, now);
		return;
	}
	requeue(c, j, JOB_REQUEUED, true, false, now);
	finish(c, j); /* no run to wait for: the nodes are free */
	log_info("job=%u requeued held after its prolog failed", j->id);
}

void job_prolog_slurmctld_done(struct ctld *c, struct job *j, uint32_t restart, bool ok)
{
	int64_t now = time(NULL);
	if (j->state != JOB_RUNNING || !j->prolog_pending || j->restart_count != restart)
		return; /* cancelled meanwhile, or an older run's */
	j->prolog_pending = false;
	if (ok) {
		commit_job(c, j);
		job_launch(c, j);
		return;
	}
	if (j->req.requeue) { /* "requeued to be executed on another node" */
		requeue(c, j, JOB_REQUEUED, false, false, now);
		finish(c, j);
		log_info("job=%u requeued after its PrologSlurmctld failed", j->id);
	} else {
		job_end(c, j, 1, 0, false, now);
	}
}

uint32_t job_run_restart(const struct job *j)
{
	/* while a requeued run is being killed, the nodes know it by the
	 * restart count it was launched with */
	return j->state == JOB_PENDING && j->completing && j->restart_count
		   ? j->restart_count - 1
		   : j->restart_count;
}

int job_set_hold(struct ctld *c, struct job *j, enum job_hold hold)
{
	int64_t now = time(NULL);
	bool released = j->hold != HOLD_NONE && hold == HOLD_NONE;
	j->hold = hold;
	j->reason = hold == HOLD_USER	 ? "JobHeldUser"
		    : hold == HOLD_ADMIN ? "JobHeldAdmin"
					 : "None";
	/* Slurm: a job submitted held becomes eligible at its release (or its
	 * begin time); one that waits for a dependency stays unknown. */
	if (hold == HOLD_NONE && !j->req.deps.n && !j->eligible_time)
		j->eligible_time = j->req.begin_time > now ? j->req.begin_time : now;
	if (released) { /* Slurm: a release computes the priority again */
		j->priority_set = false;
		prio_job_update(c, j);
	}
	commit_job(c, j);
	sched_request(c);
	return 0;
}

/* Finished jobs stay visible for MinJobAge; after that only the store has
 * them. A job whose last change is still being committed, or whose steps'
 * nodes may still report, stays a while. */
int job_purge(struct ctld *c, struct job *j, int64_t now)
{
	if (!job_state_final(j->state) || j->completing ||
	    j->end_time + c->conf->min_job_age > now)
		return -EBUSY;
	if (j->dirty || steps_running(j))
		return -EAGAIN;
	job_table_remove(&c->jobs, j);
	job_free(j);
	return 0;
}
