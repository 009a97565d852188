/* signal.c — job.signal: deliver a signal to a job's processes, or
 * terminate them (SIGCONT, SIGTERM, then SIGKILL after KillWait).
 *
 * A job's processes are those its batch step's cgroup tracks, when jobs
 * have cgroups (Slurm's proctrack/cgroup: a `setsid` child is one of them),
 * else its process group, whose id comes from the job dir (the shepherd
 * writes it before the job runs). A job is signalled only while the
 * shepherd's lock is held: once the shepherd is gone the group id may
 * belong to someone else. The shepherd is never in the group, so it outlives the signal
 * and records how the job ended. A terminate with a reason (scancel) is the shepherd's to
 * do: it writes Slurm's "*** JOB N ON NODE CANCELLED AT T ***" into the job's stderr
 * first; this file only keeps the SIGKILL deadline. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cgroup_procs.h"
#include "common/kill_why.h"
#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

struct kill_ctx {
	struct noded *nd;
	int64_t job_id;
};

void signal_cancel_timer(struct noded_job *job)
{
	if (!job->kill_timer)
		return;
	struct kill_ctx *ctx = event_get_callback_arg(job->kill_timer);
	event_free(job->kill_timer);
	free(ctx);
	job->kill_timer = NULL;
}

/* The group of a running job: 0, or -ESRCH when it has none (any more). */
static int job_pgid(struct noded *nd, int64_t job_id, pid_t *pgid)
{
	char dir[PATH_MAX];
	if (spool_job_dir(nd, job_id, dir, sizeof(dir)) < 0 || !spool_lock_held(dir))
		return -ESRCH;
	return spool_read_pgid(dir, pgid) < 0 ? -ESRCH : 0;
}

int signal_step_procs(const struct noded *nd, int64_t job_id, const char *step,
		      pid_t pgid, int sig)
{
	char scope[300], dir[PATH_MAX];
	/* no directory: the shepherd ran the step unconstrained */
	if (noded_cgroup_scope(nd, scope, sizeof(scope)) &&
	    cg_path(dir, sizeof(dir), nd->cgroup_layout.mem_root, scope, job_id, step) ==
		0 &&
	    cgp_signal(dir, sig) >= 0)
		return 0;
	return pgid > 0 && kill(-pgid, sig) < 0 ? -errno : 0;
}

static void on_kill_timer(evutil_socket_t fd, short what, void *arg)
{
	struct kill_ctx *ctx = arg;
	struct noded *nd = ctx->nd;
	struct noded_job *job = jobs_find(nd, ctx->job_id);
	pid_t pgid;
	if (job && job->phase == JOB_RUNNING && job_pgid(nd, job->job_id, &pgid) == 0) {
		log_info("job=%lld still running after KillWait, SIGKILL to its "
			 "processes (group %d)",
			 (long long)job->job_id, (int)pgid);
		signal_step_procs(nd, job->job_id, "batch", pgid, SIGKILL);
	}
	if (job)
		signal_cancel_timer(job); /* frees ctx */
	else
		free(ctx);
}

static int arm_kill_timer(struct noded *nd, struct noded_job *job, int kill_wait)
{
	if (job->kill_timer)
		return 0; /* the first terminate's deadline stands */
	struct kill_ctx *ctx = malloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->nd = nd;
	ctx->job_id = job->job_id;
	job->kill_timer = evtimer_new(nd->base, on_kill_timer, ctx);
	if (!job->kill_timer) {
		free(ctx);
		return -ENOMEM;
	}
	struct timeval tv = {kill_wait, 0};
	evtimer_add(job->kill_timer, &tv);
	return 0;
}

/* Has the job's shepherd end the job for reason why: 0, or -errno when it
 * cannot be told (then noded signals the group itself). */
static int tell_shepherd(struct noded *nd, struct noded_job *job, int why)
{
	char dir[PATH_MAX];
	pid_t pid;
	char marker[PATH_MAX + 16];
	if (spool_job_dir(nd, job->job_id, dir, sizeof(dir)) < 0 ||
	    spool_read_pid(dir, "shepherd.pid", &pid) < 0 || !spool_lock_held(dir))
		return -ESRCH;
	snprintf(marker, sizeof(marker), "%s/%s", dir, DRV_SHEPHERD_KILL_FILE);
	if (access(marker, F_OK) < 0)
		return -ENOTSUP; /* a shepherd from before: noded signals */
	union sigval v = {.sival_int = why};
	return sigqueue(pid, DRV_SHEPHERD_KILL_SIG, v) < 0 ? -errno : 0;
}

/* Delivers sig (or the terminate sequence) to a job whose group is known. */
static int deliver(struct noded *nd, struct noded_job *job, pid_t pgid, int sig,
		   bool batch_only, bool kill_it, int kill_wait, int why,
		   struct drv_error *err)
{
	if (kill_it) {
		bool told = why != DRV_KILL_WHY_NONE && tell_shepherd(nd, job, why) == 0;
		log_info("job=%lld terminating group %d%s, SIGKILL in %ds",
			 (long long)job->job_id, (int)pgid,
			 told ? " by its shepherd" : "", kill_wait);
		if (!told) {
			signal_step_procs(nd, job->job_id, "batch", pgid, SIGCONT);
			signal_step_procs(nd, job->job_id, "batch", pgid, SIGTERM);
		}
		arm_kill_timer(nd, job, kill_wait);
		return 0;
	}
	log_info("job=%lld signal %d to %s %d", (long long)job->job_id, sig,
		 batch_only ? "batch shell" : "its processes, group", (int)pgid);
	/* The batch shell leads the group, so its pid is the group id. */
	int rc = sig <= 0     ? 0
		 : batch_only ? (kill(pgid, sig) < 0 ? -errno : 0)
			      : signal_step_procs(nd, job->job_id, "batch", pgid, sig);
	if (rc < 0 && rc != -ESRCH) {
		drv_error_set(err, -rc, "kill: %s", strerror(-rc));
		return DRV_RC_ERROR;
	}
	return 0;
}

void signal_retry_pending(struct noded *nd)
{
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		pid_t pgid;
		if (!j->pending_kill && !j->pending_sig)
			continue;
		if (j->phase == JOB_RUNNING && job_pgid(nd, j->job_id, &pgid) < 0)
			continue; /* its shepherd has not started the job yet */
		if (j->phase == JOB_RUNNING) {
			struct drv_error err;
			if (j->pending_kill)
				deliver(nd, j, pgid, 0, false, true, j->pending_kill_wait,
					j->pending_kill_why, &err);
			else
				deliver(nd, j, pgid, j->pending_sig,
					j->pending_batch_only, false, 0, 0, &err);
		}
		j->pending_kill = false;
		j->pending_sig = 0;
	}
}

int signal_job(struct noded *nd, const struct drv_job_signal *m, struct drv_error *err)
{
	int64_t job_id = m->job_id, sig = m->signal;
	bool kill_it = m->kill, batch_only = m->batch_only;
	int64_t kill_wait = m->has_kill_wait ? m->kill_wait : nd->conf->kill_wait;
	if (sig < 0 || sig >= NSIG || kill_wait < 0 || kill_wait > 86400) {
		drv_error_set(err, EINVAL, "job.signal: bad signal or kill_wait");
		return DRV_RC_PROTOCOL;
	}
	struct noded_job *job = jobs_find(nd, job_id);
	if (!job) {
		drv_error_set(err, ESRCH, "%s", drv_rc_text(DRV_RC_INVALID_JOB_ID));
		return DRV_RC_INVALID_JOB_ID;
	}
	if (job->phase == JOB_DONE) {
		/* Ended: a terminate has reached its goal. */
		if (kill_it)
			return 0;
		drv_error_set(err, ESRCH, "%s", drv_rc_text(DRV_RC_ALREADY_DONE));
		return DRV_RC_ALREADY_DONE;
	}
	pid_t pgid;
	if (job_pgid(nd, job_id, &pgid) < 0) {
		/* The shepherd is still starting the job: deliver once the group
		 * exists (the spool scan retries), or drop it if the job ends. */
		job->pending_kill |= kill_it;
		job->pending_kill_wait = (int)kill_wait;
		if (kill_it)
			job->pending_kill_why = (int)drv_kill_why_parse(m->reason);
		if (!kill_it && sig > 0) {
			job->pending_sig = (int)sig;
			job->pending_batch_only = batch_only;
		}
		return 0;
	}
	return deliver(nd, job, pgid, (int)sig, batch_only, kill_it, (int)kill_wait,
		       (int)drv_kill_why_parse(m->reason), err);
}
