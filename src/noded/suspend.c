/* suspend.c — job.freeze: ctld's scontrol suspend and resume of a job, on
 * this node (every node of the job gets one).
 *
 * With a freezer the job's cgroup is frozen or thawed whole (v1
 * freezer.state, v2 cgroup.freeze): the batch step and every srun step
 * under it stop at once, and nothing forks past it. Without one (local
 * mode, CgroupPlugin=disabled, a job that runs unconstrained) this does
 * what Slurm does without a freezer: SIGSTOP, or SIGCONT, to the batch
 * job's process group and to each of its steps' groups here.
 *
 * Either way the batch job's shepherd is told (DRV_SHEPHERD_SUSPEND or
 * _RESUME), so that its time-limit clock stops while the job is suspended.
 * The kernel keeps a frozen cgroup or a stopped group frozen across a noded
 * restart; ctld's record (SUSPENDED) is the truth about the job. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/kill_why.h"
#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

/* The batch job's group and shepherd, while its shepherd holds the lock. */
static bool batch_ids(struct noded *nd, int64_t job_id, pid_t *pgid, pid_t *shepherd)
{
	char dir[PATH_MAX];
	struct noded_job *job = jobs_find(nd, job_id);
	if (!job || job->phase != JOB_RUNNING ||
	    spool_job_dir(nd, job_id, dir, sizeof(dir)) < 0 || !spool_lock_held(dir))
		return false;
	if (spool_read_pgid(dir, pgid) < 0)
		*pgid = 0;
	char marker[PATH_MAX + 16];
	snprintf(marker, sizeof(marker), "%s/%s", dir, DRV_SHEPHERD_KILL_FILE);
	if (access(marker, F_OK) < 0 || spool_read_pid(dir, "shepherd.pid", shepherd) < 0)
		*shepherd = 0; /* a shepherd from before suspend existed */
	return true;
}

/* SIGSTOP or SIGCONT to every group of the job here; how many got it. */
static int signal_groups(struct noded *nd, int64_t job_id, int sig)
{
	pid_t pgid = 0, shepherd = 0;
	int n = 0;
	if (batch_ids(nd, job_id, &pgid, &shepherd) && pgid > 1 && kill(-pgid, sig) == 0)
		n++;
	return n + steps_signal_job(nd, job_id, sig);
}

static void tell_shepherd(struct noded *nd, int64_t job_id, bool freeze)
{
	pid_t pgid = 0, shepherd = 0;
	if (!batch_ids(nd, job_id, &pgid, &shepherd) || shepherd <= 1)
		return;
	union sigval v = {.sival_int =
			      freeze ? DRV_SHEPHERD_SUSPEND : DRV_SHEPHERD_RESUME};
	if (sigqueue(shepherd, DRV_SHEPHERD_KILL_SIG, v) < 0)
		log_warn("job=%lld: cannot tell shepherd %d of the %s: %s",
			 (long long)job_id, (int)shepherd, freeze ? "suspend" : "resume",
			 strerror(errno));
}

int suspend_job(struct noded *nd, const struct drv_job_freeze *m, struct drv_error *err)
{
	int64_t job_id = m->job_id;
	bool freeze = !m->thaw;
	const char *what = freeze ? "suspend" : "resume";
	if (!jobs_find(nd, job_id) && !steps_of_job(nd, job_id)) {
		drv_error_set(err, ESRCH, "%s", drv_rc_text(DRV_RC_INVALID_JOB_ID));
		return DRV_RC_INVALID_JOB_ID;
	}
	int rc = noded_cgroup_freeze(nd, job_id, freeze);
	if (rc == 0) {
		log_info("job=%lld %s: cgroup %s", (long long)job_id, what,
			 freeze ? "frozen" : "thawed");
	} else {
		/* Slurm without a freezer: stop and continue the processes */
		int n = signal_groups(nd, job_id, freeze ? SIGSTOP : SIGCONT);
		log_info("job=%lld %s: no freezer for it (%s): %s to %d process "
			 "group(s)",
			 (long long)job_id, what, strerror(-rc),
			 freeze ? "SIGSTOP" : "SIGCONT", n);
	}
	tell_shepherd(nd, job_id, freeze);
	if (!freeze)
		anomaly_thawed(nd, job_id, m->anomaly_cleared);
	return 0;
}

void suspend_thaw_for_kill(struct noded *nd, int64_t job_id)
{
	/* A frozen task takes no signal until it is thawed (v1): a cancel or
	 * requeue of a suspended job thaws it first. Harmless on a job that
	 * was never suspended. */
	if (noded_cgroup_freeze(nd, job_id, false) < 0)
		signal_groups(nd, job_id, SIGCONT);
}
