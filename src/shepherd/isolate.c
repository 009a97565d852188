/* isolate.c — a step's cgroup as its spec asks: noded puts a cgroup object
 * (mountpoint, scope, and cgroup.conf's Constrain* as numbers this file
 * turns into limits) in the spec when this node's cgroups are usable, and
 * nothing when they are not (noded then logged why, once). The shepherd
 * reads no config, so this is all it knows.
 *
 * When the spec asks and the cgroup still cannot be made, the step runs
 * unconstrained and one line says so; a limit whose controller is missing
 * is one line too, and the others hold. */
#include <errno.h>
#include <inttypes.h>
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
	struct cg_limits lim;
	isolate_limits(&ns->cgroup, limit_mib, &lim);
	struct cg_layout l;
	char err[PATH_MAX + 128];
	int rc = cg_detect(mnt, &l);
	if (rc < 0) {
		log_error("job=%lld step=%s: cgroups unusable under %s (%s): running "
			  "unconstrained",
			  (long long)job_id, step, mnt, strerror(-rc));
		return;
	}
	if (cg_step_create(cg, &l, ns->cgroup.scope, job_id, step, &lim, err,
			   sizeof(err)) < 0) {
		log_error("job=%lld step=%s: %s: running unconstrained",
			  (long long)job_id, step, err);
		return;
	}
	static const char *const what[CG_NCTL] = {
	    "cpuset (ConstrainCores)", "devices (ConstrainDevices)", "pids (PidsLimit)"};
	for (int i = 0; i < CG_NCTL; i++)
		if (cg->missing >> i & 1)
			log_error("job=%lld step=%s: no cgroup %s controller under %s: "
				  "not enforced",
				  (long long)job_id, step, what[i], mnt);
}

void isolate_limits(const struct drv_rec_cgroup *c, int64_t job_mib,
		    struct cg_limits *lim)
{
	*lim = (struct cg_limits){0};
	if (c->constrain_ram) {
		/* AllowedRAMSpace of what the job holds, at most MaxRAMPercent
		 * of the node; a job that asked for no memory gets the latter */
		int64_t mib = job_mib > 0 ? job_mib * c->ram_pct / 10000 : 0;
		if (job_mib > 0 && mib < 1)
			mib = 1;
		if (c->has_max_ram && (mib == 0 || mib > c->max_ram))
			mib = c->max_ram;
		lim->mem_mib = mib;
		if (c->constrain_swap && mib > 0)
			lim->memsw_mib =
			    mib + (job_mib > 0 ? job_mib : mib) * c->swap_pct / 10000;
	}
	if (c->constrain_cores && c->cpus)
		lim->cpus = c->cpus;
	lim->pids_max = c->has_pids_max ? c->pids_max : 0;
	lim->devices = c->constrain_devices;
	lim->dev_files = c->devices;
	lim->n_dev_files = c->n_devices;
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
