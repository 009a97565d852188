/* job_suspend.c — scontrol suspend and resume: the job's SUSPENDED
 * transitions (kept here, beside job_state.c, because they are their own
 * small machine), the job.freeze each of its nodes gets, and the clock
 * arithmetic of its time limit. Drawn in docs/state-machines.md.
 *
 * A suspended job stays RUNNING underneath with `suspended` set: it keeps
 * its nodes, its steps and everything that RUNNING means to the rest of
 * ctld, and shows (and is stored) as SUSPENDED. As in Slurm, suspend_time
 * is the last suspend or resume, pre_sus_time the seconds it ran before the
 * last suspend; its limit is due at suspend_time + limit - pre_sus_time
 * once resumed, so the time suspended does not count. */
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job.h"
#include "ctld/prio.h"
#include "ctld/rpc_handlers.h"

int64_t job_limit_end(const struct job *j, int64_t now)
{
	if (j->time_limit == DRV_INFINITE)
		return INT64_MAX;
	if (j->suspended) /* stood still: what is left counts from now */
		return now + j->time_limit - j->pre_sus_time;
	if (j->suspend_time > 0)
		return j->suspend_time + j->time_limit - j->pre_sus_time;
	return j->start_time + j->time_limit;
}

struct freeze_ref {
	uint32_t id, restart;
	bool thaw;
};

/* After the commit: job.freeze to every node of the job that is connected
 * (one that is not gets it when it registers: link_send_suspended). */
static void freeze_after_commit(struct ctld *c, void *arg)
{
	struct freeze_ref *ref = arg;
	struct job *j = job_table_find(&c->jobs, ref->id);
	if (j && j->state == JOB_RUNNING && !j->completing && j->n_alloc &&
	    j->restart_count == ref->restart && j->suspended == !ref->thaw)
		link_send_freeze(c, j, ref->thaw);
	free(ref);
}

static void freeze_later(struct ctld *c, const struct job *j, bool thaw)
{
	struct freeze_ref *ref = malloc(sizeof(*ref));
	if (!ref)
		abort();
	*ref = (struct freeze_ref){j->id, j->restart_count, thaw};
	commit_defer(c, freeze_after_commit, ref);
}

/* Slurm's refusals, in its order: pending, finished, then the operation's
 * own (only a running job suspends, only a suspended one resumes). */
static int check(const struct job *j, bool resume)
{
	if (j->state == JOB_PENDING)
		return DRV_RC_JOB_PENDING;
	if (job_state_final(j->state) || j->completing)
		return DRV_RC_ALREADY_DONE;
	if (resume && !j->suspended)
		return DRV_RC_JOB_NOT_SUSPENDED;
	if (!resume && j->suspended)
		return 0; /* Slurm: suspending it again changes nothing */
	if (!resume && (!j->n_alloc || j->prolog_pending || !j->launch_acked))
		return DRV_RC_JOB_NOT_RUNNING; /* nothing runs yet to freeze */
	return 0;
}

int job_suspend(struct ctld *c, struct job *j, bool resume, int64_t now)
{
	int rc = check(j, resume);
	if (rc != 0 || (!resume && j->suspended))
		return rc;
	if (!resume) {
		prio_job_stop(c, j, now); /* its fair-share usage until now */
		j->pre_sus_time +=
		    now - (j->suspend_time > 0 ? j->suspend_time : j->start_time);
		j->suspended = true;
	} else {
		j->suspended_secs += now - j->suspend_time;
		j->suspended = false;
		anomaly_resumed(j); /* an operator looked at it */
	}
	j->suspend_time = now;
	commit_job(c, j); /* re-arms (or stops) its time-limit timer */
	freeze_later(c, j, resume);
	log_info("job=%u %s (ran %llds before)", j->id, resume ? "resumed" : "suspended",
		 (long long)j->pre_sus_time);
	return 0;
}

void job_suspend_end(struct job *j, int64_t now, int64_t *end)
{
	if (!j->suspended)
		return;
	/* Slurm: a job ended while suspended ended when it was suspended */
	j->suspended_secs += now - j->suspend_time;
	j->suspended = false;
	if (end)
		*end = j->suspend_time;
}

void rpc_job_suspend(struct rpc_req *r)
{
	const struct drv_job_suspend *m = r->msg;
	struct job *j = job_table_find(&r->c->jobs, m->job_id);
	const char *what = m->resume ? "resume" : "suspend";
	if (!j) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, NULL, NULL);
		return;
	}
	/* Slurm: operators and administrators only */
	if (!rpc_is_operator(r)) {
		log_warn("job=%u %s refused to uid=%u: not an operator", j->id, what,
			 (unsigned)r->cred.uid);
		rpc_reply(r, DRV_RC_ACCESS_DENIED, NULL, NULL);
		return;
	}
	int rc = job_suspend(r->c, j, m->resume, time(NULL));
	if (rc != 0)
		log_info("job=%u %s: %s", j->id, what, drv_rc_text(rc));
	rpc_reply(r, rc, NULL, NULL);
}
