/* sacct_values.c — the text of every sacct field, for a job row and for
 * its batch step row, computed from the job record alone. Where Drover has
 * no data yet (usage, associations, reservations) the values are the ones
 * Slurm 22.05 prints for a job whose steps left no usage samples: blanks,
 * "0", "00:00:00", "energy=0" on a finished step. */
#include "cli/sacct_values.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sacct_opts.h"
#include "cli/sacct_time.h"
#include "cli/timeshow.h"
#include "cli/sacct_tres.h"

#define V(name)                                                                          \
	const char *sacct_v_##name(const struct sacct_row *r, const struct sacct_ctx *c, \
				   char *buf)
#define NUM(v) (snprintf(buf, SACCT_VALUE_MAX, "%lld", (long long)(v)), buf)

static bool is(const struct cli_job *j, const char *state)
{
	return !strcmp(j->state, state);
}

bool sacct_job_started(const struct cli_job *j)
{
	return j->start_time > 0;
}

int64_t sacct_job_elapsed(const struct cli_job *j, int64_t now)
{
	return cli_job_elapsed(j, now);
}

int64_t sacct_batch_cpus(const struct cli_job *j)
{
	if (j->cpus_per_node && *j->cpus_per_node)
		return strtoll(j->cpus_per_node, NULL, 10);
	return j->num_nodes > 1 ? j->cpus / j->num_nodes : j->cpus;
}

int64_t sacct_batch_gpus(const struct cli_job *j)
{
	int64_t n = 0;
	if (!j->alloc_gpus)
		return -1;
	for (const char *p = j->alloc_gpus; *p; p++)
		n += p == j->alloc_gpus || p[-1] == ',';
	return n;
}

const char *sacct_step_state(const struct cli_job *j)
{
	if (j->run_state) { /* an earlier run (sacct -D): its batch step */
		struct cli_job run = *j;
		if (!strcmp(j->run_state, "RUNNING") || !strcmp(j->run_state, "PENDING"))
			return "CANCELLED"; /* killed by the requeue */
		run.state = j->run_state;
		run.run_state = NULL;
		return sacct_step_state(&run);
	}
	if (is(j, "FAILED"))
		return j->exit_signal ? "CANCELLED" : "FAILED";
	if (is(j, "CANCELLED") || is(j, "TIMEOUT"))
		return "CANCELLED";
	return j->state;
}

void sacct_exit_code(const struct cli_job *j, bool step, int *code, int *sig)
{
	*code = (int)j->exit_code;
	*sig = (int)j->exit_signal;
	if (j->run_state && !strcmp(j->run_state, "RUNNING")) {
		*code = 0; /* the requeue killed the run: SIGTERM, as a cancel */
		*sig = step ? 15 : 0;
	} else if (is(j, "PENDING") || is(j, "RUNNING")) {
		*code = *sig = 0;
	} else if (is(j, "CANCELLED") || is(j, "TIMEOUT")) {
		if (!step)
			*code = *sig = 0;
		else if (!*code && !*sig)
			*sig = 15; /* the batch shell got SIGTERM */
	}
	if (!*sig && *code >= 128)
		*code -= 128;
}

void sacct_derived_exit(const struct cli_job *j, int *code, int *sig)
{
	int64_t best = 0;
	/* Slurm records it when the job ends: the highest raw wait status of
	 * its steps (an exit code outranks a signal), leaving out the steps
	 * the job's own end killed */
	for (size_t i = 0; j->end_time > 0 && i < j->n_steps; i++) {
		const struct cli_step *s = &j->steps[i];
		if (!strcmp(s->state, "CANCELLED") && s->cancel_uid < 0)
			continue;
		int64_t st = (s->exit_code & 0xff) << 8 | (s->exit_signal & 0x7f);
		if (st > best)
			best = st;
	}
	*code = (int)(best >> 8);
	*sig = (int)(best & 0x7f);
}

const char *sacct_srun_state(const struct cli_step *s, char *buf, size_t len)
{
	if (!strcmp(s->state, "CANCELLED") && s->cancel_uid >= 0) {
		snprintf(buf, len, "CANCELLED by %lld", (long long)s->cancel_uid);
		return buf;
	}
	return s->state;
}

int64_t sacct_srun_elapsed(const struct cli_step *s, int64_t now)
{
	int64_t end = s->end_time > 0 ? s->end_time : now;
	return s->start_time > 0 && end > s->start_time ? end - s->start_time : 0;
}

const char *sacct_job_reason(const struct cli_job *j)
{
	/* ctld keeps a pending job's reason when it is cancelled */
	return sacct_job_started(j) ? "None" : j->reason;
}

int64_t sacct_job_priority(const struct cli_job *j)
{
	return j->hold ? 0 : j->priority;
}

static const char *date(time_t t, const struct sacct_ctx *c, char *buf)
{
	cli_fmt_date(t, c->time_format, c->now, buf, SACCT_VALUE_MAX);
	return buf;
}

static const char *secs(int64_t s, char *buf)
{
	sacct_fmt_secs(s, buf, SACCT_VALUE_MAX);
	return buf;
}

static int64_t row_cpus(const struct sacct_row *r)
{
	if (r->srun)
		return r->srun->cpus;
	return r->step ? sacct_batch_cpus(r->job) : r->job->cpus;
}

static int64_t row_elapsed(const struct sacct_row *r, int64_t now)
{
	return r->srun ? sacct_srun_elapsed(r->srun, now)
		       : sacct_job_elapsed(r->job, now);
}

static int64_t row_nodes(const struct sacct_row *r)
{
	return r->srun ? r->srun->num_nodes : r->step ? 1 : r->job->num_nodes;
}

static int64_t row_start(const struct sacct_row *r)
{
	return r->srun ? r->srun->start_time : r->job->start_time;
}

/* The TRES the job asked for and got; ctld's "tres" when it sends no
 * accounting strings. */
static const char *req_tres(const struct cli_job *j)
{
	return j->req_tres ? j->req_tres : j->tres;
}

static const char *alloc_tres(const struct cli_job *j)
{
	if (!sacct_job_started(j))
		return "";
	return j->alloc_tres && *j->alloc_tres ? j->alloc_tres : j->tres;
}

int64_t sacct_job_reserved(const struct cli_job *j, int64_t now)
{
	int64_t until = j->start_time > 0 ? j->start_time
			: j->end_time > 0 ? j->end_time
					  : now;
	return j->eligible_time > 0 && until > j->eligible_time ? until - j->eligible_time
								: 0;
}

V(blank)
{
	return NULL;
}

V(account)
{
	return r->job->account;
}

V(alloc_cpus)
{
	return NUM(row_cpus(r));
}

V(alloc_nodes)
{
	return NUM(r->step || sacct_job_started(r->job) ? row_nodes(r) : 0);
}

V(alloc_tres)
{
	const struct cli_job *j = r->job;
	if (r->srun)
		sacct_tres_normalize(r->srun->alloc_tres, buf, SACCT_VALUE_MAX);
	else if (r->step)
		sacct_tres_batch(alloc_tres(j), sacct_batch_cpus(j), j->num_nodes,
				 sacct_batch_gpus(j), buf, SACCT_VALUE_MAX);
	else
		sacct_tres_normalize(alloc_tres(j), buf, SACCT_VALUE_MAX);
	return buf;
}

V(step_zero)
{
	return r->step ? "0" : NULL;
}

V(cluster)
{
	return c->cluster;
}

V(comment)
{
	return r->step ? NULL : r->job->comment;
}

V(constraints) /* -C as given, on the job's line */
{
	return r->step ? NULL : r->job->features;
}

V(energy)
{
	return r->step || !sacct_job_started(r->job) ? "0" : NULL;
}

V(cputime)
{
	return secs(row_elapsed(r, c->now) * row_cpus(r), buf);
}

V(cputime_raw)
{
	return NUM(row_elapsed(r, c->now) * row_cpus(r));
}

V(derived_ec)
{
	int code, sig;
	if (r->step)
		return NULL;
	sacct_derived_exit(r->job, &code, &sig);
	snprintf(buf, SACCT_VALUE_MAX, "%d:%d", code, sig);
	return buf;
}

V(elapsed)
{
	return secs(row_elapsed(r, c->now), buf);
}

V(elapsed_raw)
{
	return NUM(row_elapsed(r, c->now));
}

V(eligible)
{
	return date(r->step ? row_start(r) : r->job->eligible_time, c, buf);
}

V(end)
{
	return date(r->srun ? r->srun->end_time : r->job->end_time, c, buf);
}

V(exitcode)
{
	int code, sig;
	if (r->srun) {
		snprintf(buf, SACCT_VALUE_MAX, "%lld:%lld", (long long)r->srun->exit_code,
			 (long long)r->srun->exit_signal);
		return buf;
	}
	sacct_exit_code(r->job, r->step, &code, &sig);
	snprintf(buf, SACCT_VALUE_MAX, "%d:%d", code, sig);
	return buf;
}

V(flags)
{
	if (r->step)
		return NULL;
	return sacct_job_started(r->job) ? "SchedMain,StartRecieved" : "StartRecieved";
}

V(gid)
{
	return r->step ? NULL : NUM(r->job->gid);
}

V(group)
{
	struct group gr, *res = NULL;
	char tmp[1024];
	if (r->step)
		return NULL;
	if (getgrgid_r((gid_t)r->job->gid, &gr, tmp, sizeof(tmp), &res) == 0 && res) {
		snprintf(buf, SACCT_VALUE_MAX, "%s", res->gr_name);
		return buf;
	}
	return NUM(r->job->gid);
}

/* ".batch", ".extern", ".N" or nothing, after the job's id. */
static void step_suffix(const struct sacct_row *r, char *buf, size_t len)
{
	if (r->srun && r->srun->step_id == SACCT_STEP_EXTERN)
		snprintf(buf, len, ".extern");
	else if (r->srun)
		snprintf(buf, len, ".%lld", (long long)r->srun->step_id);
	else
		snprintf(buf, len, "%s", r->step ? ".batch" : "");
}

/* JobID: "123_4" for an array task, "123_[5-9]" for an array's pending
 * rest, the plain id otherwise; JobIDRaw is always the job's own id. */
V(jobid)
{
	const struct cli_job *j = r->job;
	char step[32];
	step_suffix(r, step, sizeof(step));
	if (j->array_job_id > 0 && j->array_task_str)
		snprintf(buf, SACCT_VALUE_MAX, "%lld_[%s]%s", (long long)j->array_job_id,
			 j->array_task_str, step);
	else if (j->array_job_id > 0 && j->array_task_id >= 0)
		snprintf(buf, SACCT_VALUE_MAX, "%lld_%lld%s", (long long)j->array_job_id,
			 (long long)j->array_task_id, step);
	else
		snprintf(buf, SACCT_VALUE_MAX, "%lld%s", (long long)j->job_id, step);
	return buf;
}

V(jobidraw)
{
	char step[32];
	step_suffix(r, step, sizeof(step));
	snprintf(buf, SACCT_VALUE_MAX, "%lld%s", (long long)r->job->job_id, step);
	return buf;
}

/* DBIndex: the job's key in the store, which in Drover is its id. */
V(dbindex)
{
	return NUM(r->job->job_id);
}

V(jobname)
{
	return r->srun ? r->srun->name : r->step ? "batch" : r->job->name;
}

V(layout)
{
	if (r->srun && *r->srun->distribution)
		return r->srun->distribution;
	return r->step ? "Unknown" : NULL;
}

V(nnodes)
{
	return NUM(row_nodes(r));
}

V(nodelist)
{
	if (r->srun)
		return r->srun->nodelist;
	if (r->step)
		return r->job->batch_host;
	return sacct_job_started(r->job) ? r->job->nodelist : "None assigned";
}

V(ntasks)
{
	if (r->srun)
		return NUM(r->srun->ntasks);
	return r->step ? "1" : NULL;
}

V(partition)
{
	return r->step ? NULL : r->job->partition;
}

V(priority)
{
	return r->step ? NULL : NUM(sacct_job_priority(r->job));
}

V(qos)
{
	return r->step ? NULL : r->job->qos;
}

V(reason)
{
	return r->step ? NULL : sacct_job_reason(r->job);
}

V(cpufreq) /* the batch step asks none (0); srun steps and jobs: unknown */
{
	return r->step && !r->srun ? "0" : "Unknown";
}

V(req_cpus)
{
	return NUM(row_cpus(r));
}

V(req_mem)
{
	double mib = sacct_tres_get(req_tres(r->job), "mem");
	if (r->step || mib < 0)
		return NULL;
	sacct_fmt_mem(mib, buf, SACCT_VALUE_MAX);
	return buf;
}

V(req_nodes)
{
	return NUM(row_nodes(r));
}

V(req_tres)
{
	if (r->step)
		return NULL;
	sacct_tres_normalize(req_tres(r->job), buf, SACCT_VALUE_MAX);
	return buf;
}

V(reserved)
{
	return r->step ? NULL : secs(sacct_job_reserved(r->job, c->now), buf);
}

V(resv_cpu)
{
	return r->step ? NULL
		       : secs(sacct_job_reserved(r->job, c->now) * r->job->cpus, buf);
}

V(resv_cpu_raw)
{
	return r->step ? NULL : NUM(sacct_job_reserved(r->job, c->now) * r->job->cpus);
}

V(start)
{
	if (r->job->start_time <= 0 && !r->step)
		return r->job->end_time > 0 ? "None" : "Unknown";
	return date(row_start(r), c, buf);
}

V(state)
{
	const struct cli_job *j = r->job;
	if (r->srun)
		return sacct_srun_state(r->srun, buf, SACCT_VALUE_MAX);
	if (r->step)
		return sacct_step_state(j);
	if (is(j, "CANCELLED") && j->cancel_uid >= 0) {
		snprintf(buf, SACCT_VALUE_MAX, "CANCELLED by %lld",
			 (long long)j->cancel_uid);
		return buf;
	}
	return j->state;
}

V(submit)
{
	return date(r->step ? row_start(r) : r->job->submit_time, c, buf);
}

V(zero_time)
{
	return "00:00:00";
}

/* scontrol suspend: the time the job (and its batch step) stood
 * suspended, until now while it still is */
V(suspended)
{
	const struct cli_job *j = r->job;
	int64_t s = r->srun ? 0 : j->suspended_secs;
	if (!r->srun && is(j, "SUSPENDED") && j->suspend_time > 0 &&
	    c->now > j->suspend_time)
		s += c->now - j->suspend_time;
	return secs(s, buf);
}

V(timelimit)
{
	if (r->step)
		return NULL;
	return r->job->time_limit < 0 ? "UNLIMITED" : secs(r->job->time_limit, buf);
}

V(timelimit_raw)
{
	int64_t t = r->job->time_limit;
	if (r->step)
		return NULL;
	return t < 0 ? "UNLIMITED" : NUM((t + 59) / 60); /* Slurm counts minutes */
}

V(usage_energy)
{
	bool running =
	    r->srun ? !strcmp(r->srun->state, "RUNNING") : is(r->job, "RUNNING");
	return r->step && !running ? "energy=0" : NULL;
}

V(uid)
{
	return r->step ? NULL : NUM(r->job->uid);
}

V(user)
{
	return r->step ? NULL : r->job->user;
}

V(wckeyid)
{
	return r->step ? NULL : "0";
}

V(workdir)
{
	return r->step ? NULL : r->job->workdir;
}

V(restarts)
{
	return r->step ? NULL : NUM(r->job->restart_count);
}
