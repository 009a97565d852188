/* procs.c — whom the shepherd's signals reach: every process of the step's
 * cgroup when it has one (Slurm's proctrack/cgroup), so that a `setsid`
 * child or a daemonized grandchild gets scancel's SIGTERM, the time
 * limit's and --signal's too; without a cgroup (local mode, not root) the
 * step's process group, as before.
 *
 * After a SIGTERM, what is left once the script or the tasks exited has
 * until KillWait to end by itself (a trap that cleans up), as the SIGTERM
 * promises, before the SIGKILL. And the step's end: SIGKILL to everything
 * left, then a bounded wait until
 * the cgroup is empty. What is still there UnkillableStepTimeout after the
 * SIGKILL is unkillable: the caller records it and noded has the node
 * drained. It only signals and waits; cgroup.c creates and removes. */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "common/cgroup_procs.h"
#include "common/log.h"
#include "shepherd/shepherd.h"

#define UNKILLABLE_DEFAULT_S 60 /* Slurm's UnkillableStepTimeout */

static bool tracked(const struct cg_step *cg)
{
	return cg && cg->active && cg->mem[0];
}

void procs_signal(const struct cg_step *cg, pid_t pgid, int sig)
{
	/* a cgroup that cannot be read (removed under us) falls back */
	if (tracked(cg) && cgp_signal(cg->mem, sig) >= 0)
		return;
	if (pgid > 0)
		kill(-pgid, sig);
}

bool procs_left(const struct cg_step *cg)
{
	return tracked(cg) && cgp_count(cg->mem) > 0;
}

void procs_linger(const struct cg_step *cg, int64_t until_ns)
{
	struct timespec tick = {0, 50 * 1000000L};
	while (procs_left(cg) && limit_now() < until_ns)
		nanosleep(&tick, NULL);
}

bool procs_end(const struct cg_step *cg, pid_t pgid, int64_t timeout_s, const char *who)
{
	if (pgid > 0)
		kill(-pgid, SIGKILL);
	if (!tracked(cg))
		return false;
	if (timeout_s <= 0)
		timeout_s = UNKILLABLE_DEFAULT_S;
	int rc = cgp_end(cg->mem, cg->frz, timeout_s * 1000);
	if (rc != -ETIMEDOUT)
		return false;
	log_error("%s: %d process(es) still in %s %llds after SIGKILL: unkillable "
		  "(Kill task failed)",
		  who, cgp_count(cg->mem), cg->mem, (long long)timeout_s);
	return true;
}
