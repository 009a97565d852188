/* sched.c — the scheduler's entry points: sched_run (check the snapshot,
 * prepare, run the pass, hand back the result), sched_result_free,
 * sched_fits_config and Slurm's names of the reasons. A malformed snapshot
 * is refused whole, before anything is decided. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"
#include "sched/sched_reference.h"

/* --- checking the snapshot ---------------------------------------------------- */

static bool ok_index(uint32_t i, uint32_t n)
{
	return i == SCHED_NONE || i < n;
}

static bool ok_nodes(const uint32_t *v, uint32_t n, uint32_t n_nodes)
{
	if (n && !v)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (v[i] >= n_nodes)
			return false;
	return true;
}

static bool ok_lics(const struct sched_lic_req *l, uint32_t n, uint32_t n_lics)
{
	if (n && !l)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (l[i].lic >= n_lics)
			return false;
	return true;
}

static int check_machine(const struct sched_snapshot *s)
{
	if ((s->n_nodes && !s->nodes) || (s->n_parts && !s->parts) ||
	    (s->n_lics && !s->lics) || (s->n_running && !s->running) ||
	    (s->n_pending && !s->pending) || (s->n_plans && !s->plans))
		return -EINVAL;
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		const struct sched_node *n = &s->nodes[i];
		if (n->n_gpus && !n->gpus)
			return -EINVAL;
		for (uint32_t d = 0; d < n->n_gpus; d++)
			if (!n->gpus[d].capacity)
				return -EINVAL;
	}
	uint32_t n_qos = s->policy ? s->policy->n_qos : UINT32_MAX;
	for (uint32_t p = 0; p < s->n_parts; p++) {
		const struct sched_part *part = &s->parts[p];
		if (!ok_nodes(part->nodes, part->n_nodes, s->n_nodes) ||
		    part->oversubscribe > SCHED_OS_FORCE || !ok_index(part->qos, n_qos))
			return -EINVAL;
		if ((part->oversubscribe == SCHED_OS_YES ||
		     part->oversubscribe == SCHED_OS_FORCE) &&
		    !part->oversubscribe_max)
			return -EINVAL;
	}
	return 0;
}

static int check_policy(const struct sched_policy *pol)
{
	if (!pol)
		return 0;
	if ((pol->n_qos && !pol->qos) || (pol->n_assocs && !pol->assocs))
		return -EINVAL;
	for (uint32_t a = 0; a < pol->n_assocs; a++)
		if (pol->assocs[a].parent != SCHED_NONE && pol->assocs[a].parent >= a)
			return -EINVAL; /* parents before children */
	return 0;
}

static int check_job_refs(const struct sched_snapshot *s, uint32_t part, uint32_t qos,
			  uint32_t assoc)
{
	const struct sched_policy *pol = s->policy;
	if (!ok_index(part, s->n_parts))
		return -EINVAL;
	if (pol && (!ok_index(qos, pol->n_qos) || !ok_index(assoc, pol->n_assocs)))
		return -EINVAL;
	return 0;
}

int sched_check_order(const struct sched_snapshot *s, const struct sched_pending *j)
{
	if (!j->req || !j->n_parts || !j->parts || !j->count || j->time_limit <= 0 ||
	    j->time_min < 0)
		return -EINVAL;
	for (uint32_t k = 0; k < j->n_parts; k++)
		if (j->parts[k] >= s->n_parts)
			return -EINVAL;
	return 0;
}

int sched_check_job(const struct sched_snapshot *s, const struct sched_pending *j)
{
	const struct sched_req *r = j->req;
	if (!ok_nodes(r->req_nodes, r->n_req_nodes, s->n_nodes) ||
	    !ok_nodes(r->exc_nodes, r->n_exc_nodes, s->n_nodes) ||
	    !ok_lics(j->lics, j->n_lics, s->n_lics))
		return -EINVAL;
	return check_job_refs(s, SCHED_NONE, j->qos, j->assoc);
}

int sched_check_plan(const struct sched_snapshot *s, const struct sched_plan *pl)
{
	if (!ok_index(pl->part, s->n_parts) || (pl->n_alloc && !pl->alloc) ||
	    !ok_lics(pl->lics, pl->n_lics, s->n_lics) || pl->end < pl->start)
		return -EINVAL;
	for (uint32_t i = 0; i < pl->n_alloc; i++) {
		const struct sched_alloc *a = &pl->alloc[i];
		if (a->node >= s->n_nodes || (a->cpus && !a->cpu_ids))
			return -EINVAL;
		uint32_t n_cpus = s->nodes[a->node].n_cpus;
		if (a->cpu_ids && n_cpus % 64 &&
		    a->cpu_ids[SCHED_WORDS(n_cpus) - 1] >> (n_cpus % 64))
			return -EINVAL;
	}
	return 0;
}

int sched_check_snapshot(const struct sched_snapshot *s, const struct sched_params *p)
{
	if (!s || !p || p->kind > SCHED_PASS_BACKFILL || p->bf_window < 0 ||
	    p->bf_resolution < 0 || check_machine(s) < 0 || check_policy(s->policy) < 0)
		return -EINVAL;
	for (uint32_t i = 0; i < s->n_running; i++) {
		const struct sched_running *j = &s->running[i];
		if (check_job_refs(s, j->part, j->qos, j->assoc) < 0 ||
		    !ok_lics(j->lics, j->n_lics, s->n_lics))
			return -EINVAL;
	}
	/* what running jobs hold is checked as the profile is built; what the
	 * order reads of a pending job as it is ordered, the rest of it as it
	 * is decided; a plan as it is honoured */
	return 0;
}

/* --- entry points ---------------------------------------------------------------- */

static int run(const struct sched_snapshot *snap, const struct sched_params *params,
	       struct sched_result *out, bool reference)
{
	int rc = sched_check_snapshot(snap, params);
	if (rc < 0)
		return rc;
	struct sched_result res = {0};
	struct arena *pool = calloc(1, sizeof(*pool));
	struct pass c = {.res = &res, .pool = pool, .reference = reference};
	res.pool = pool;
	rc = pool ? pass_prepare(&c, snap, params) : -ENOMEM;
	if (rc == 0)
		rc = pass_run(&c);
	pass_release(&c);
	if (rc < 0) {
		sched_result_free(&res);
		return rc;
	}
	*out = res;
	return 0;
}

int sched_run(const struct sched_snapshot *snap, const struct sched_params *params,
	      struct sched_result *out)
{
	return run(snap, params, out, false);
}

int sched_run_reference(const struct sched_snapshot *snap,
			const struct sched_params *params, struct sched_result *out)
{
	return run(snap, params, out, true);
}

void sched_result_free(struct sched_result *r)
{
	if (!r)
		return;
	free(r->decisions);
	free(r->allocs);
	free(r->preempt);
	arena_free(r->pool);
	free(r->pool);
	memset(r, 0, sizeof(*r));
}

int sched_fits_config(const struct sched_node *nodes, uint32_t n_nodes,
		      const struct sched_part *part, const struct sched_req *req)
{
	struct sched_snapshot snap = {
	    .nodes = nodes, .n_nodes = n_nodes, .parts = part, .n_parts = 1};
	struct sched_params par = {.kind = SCHED_PASS_QUICK};
	struct sched_pending j = {.req = req};
	struct pass c = {.snap = &snap, .par = &par};
	struct shape s;
	if (check_machine(&snap) < 0 ||
	    !ok_nodes(req->req_nodes, req->n_req_nodes, n_nodes) ||
	    !ok_nodes(req->exc_nodes, req->n_exc_nodes, n_nodes))
		return -EINVAL;
	int rc = pass_prepare(&c, &snap, &par) == 0 ? pass_prepare_idle(&c) : -ENOMEM;
	if (rc == 0) {
		shape_init_linear(c.idle_pass, &s, &j, 0, 1);
		rc = place_choose(c.idle_pass, &s, 0, c.idle_pass->picks) ? 0 : -ENOSPC;
	}
	pass_release(&c);
	return rc;
}

static const char *const reason_names[SCHED_R_COUNT] = {
    [SCHED_R_NONE] = "None",
    [SCHED_R_PRIORITY] = "Priority",
    [SCHED_R_RESOURCES] = "Resources",
    [SCHED_R_PART_DOWN] = "PartitionDown",
    [SCHED_R_PART_NODE_LIMIT] = "PartitionNodeLimit",
    [SCHED_R_PART_TIME_LIMIT] = "PartitionTimeLimit",
    [SCHED_R_REQ_NODE_NOT_AVAIL] = "ReqNodeNotAvail",
    [SCHED_R_LICENSES] = "Licenses",
    [SCHED_R_QOS_MAX_JOBS_PER_USER] = "QOSMaxJobsPerUserLimit",
    [SCHED_R_QOS_GRP_JOBS] = "QOSGrpJobsLimit",
    [SCHED_R_QOS_GRP_CPU] = "QOSGrpCpuLimit",
    [SCHED_R_QOS_GRP_MEM] = "QOSGrpMemLimit",
    [SCHED_R_QOS_GRP_GRES] = "QOSGrpGRES",
    [SCHED_R_QOS_GRP_NODE] = "QOSGrpNodeLimit",
    [SCHED_R_QOS_MAX_CPU_PER_USER] = "QOSMaxCpuPerUserLimit",
    [SCHED_R_QOS_MAX_GRES_PER_USER] = "QOSMaxGRESPerUser",
    [SCHED_R_QOS_MAX_NODE_PER_USER] = "QOSMaxNodePerUserLimit",
    [SCHED_R_QOS_MAX_CPU_PER_JOB] = "QOSMaxCpuPerJobLimit",
    [SCHED_R_QOS_MAX_GRES_PER_JOB] = "QOSMaxGRESPerJob",
    [SCHED_R_QOS_MAX_WALL] = "QOSMaxWallDurationPerJobLimit",
    [SCHED_R_ASSOC_GRP_JOBS] = "AssocGrpJobsLimit",
    [SCHED_R_ASSOC_GRP_CPU] = "AssocGrpCpuLimit",
    [SCHED_R_ASSOC_GRP_MEM] = "AssocGrpMemLimit",
    [SCHED_R_ASSOC_GRP_GRES] = "AssocGrpGRES",
    [SCHED_R_ASSOC_GRP_NODE] = "AssocGrpNodeLimit",
    [SCHED_R_ASSOC_MAX_JOBS] = "AssocMaxJobsLimit",
    [SCHED_R_ASSOC_MAX_CPU_PER_JOB] = "AssocMaxCpuPerJobLimit",
    [SCHED_R_ASSOC_MAX_GRES_PER_JOB] = "AssocMaxGRESPerJob",
    [SCHED_R_ASSOC_MAX_WALL] = "AssocMaxWallDurationPerJobLimit",
    [SCHED_R_QOS_GRP_BILLING] = "QOSGrpBilling",
    [SCHED_R_QOS_MAX_MEM_PER_USER] = "QOSMaxMemoryPerUser",
    [SCHED_R_QOS_MAX_BILLING_PER_USER] = "QOSMaxBillingPerUser",
    [SCHED_R_QOS_MAX_MEM_PER_JOB] = "QOSMaxMemoryPerJob",
    [SCHED_R_QOS_MAX_NODE_PER_JOB] = "QOSMaxNodePerJobLimit",
    [SCHED_R_QOS_MAX_BILLING_PER_JOB] = "QOSMaxBillingPerJob",
    [SCHED_R_ASSOC_GRP_BILLING] = "AssocGrpBilling",
    [SCHED_R_ASSOC_MAX_MEM_PER_JOB] = "AssocMaxMemPerJob",
    [SCHED_R_ASSOC_MAX_NODE_PER_JOB] = "AssocMaxNodePerJobLimit",
    [SCHED_R_ASSOC_MAX_BILLING_PER_JOB] = "AssocMaxBillingPerJob",
    [SCHED_R_RESERVATION] = "Reservation",
};

const char *sched_reason_name(enum sched_reason r)
{
	return (unsigned)r < SCHED_R_COUNT && reason_names[r] ? reason_names[r] : "None";
}
