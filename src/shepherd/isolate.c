/* isolate.c — a step's cgroup as its spec asks: noded puts a cgroup object
 * (mountpoint, constrain_ram, scope) in the spec when this node's cgroups
 * are usable, and nothing when they are not (noded then logged why, once).
 * The shepherd reads no config, so this is all it knows.
 *
 * When the spec asks and the cgroup still cannot be made, the step runs
 * unconstrained and one line says so. */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "shepherd/shepherd.h"

void isolate_begin(struct cg_step *cg, const struct drv_rec_node_spec *ns, int64_t job_id,
		   const char *step, int64_t limit_mib)
{
	memset(cg, 0, sizeof(*cg));
	if (!ns->has_cgroup)
		return;
	const char *mnt = ns->cgroup.mountpoint;
	if (!ns->cgroup.constrain_ram)
		limit_mib = 0;
	struct cg_layout l;
	char err[PATH_MAX + 128];
	int rc = cg_detect(mnt, &l);
	if (rc < 0) {
		log_error("job=%lld step=%s: cgroups unusable under %s (%s): running "
			  "unconstrained",
			  (long long)job_id, step, mnt, strerror(-rc));
		return;
	}
	if (cg_step_create(cg, &l, ns->cgroup.scope, job_id, step, limit_mib, err,
			   sizeof(err)) < 0)
		log_error("job=%lld step=%s: %s: running unconstrained",
			  (long long)job_id, step, err);
}

void isolate_attach(struct cg_step *cg, pid_t pid, int64_t job_id)
{
	int rc = cg_step_attach(cg, pid);
	if (rc < 0) {
		log_error("job=%lld: cannot move pid %d into %s: %s", (long long)job_id,
			  (int)pid, cg->mem, strerror(-rc));
		cg_step_destroy(cg); /* the step runs unconstrained */
	}
}

int64_t isolate_batch_mib(const struct spec *s)
{
	if (s->mem_per_node > 0)
		return s->mem_per_node;
	if (s->mem_per_cpu > 0 && s->cpus_on_node > 0)
		return s->mem_per_cpu * s->cpus_on_node;
	return 0;
}
