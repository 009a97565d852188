/* sched_eligible.c — which pending jobs the scheduler is asked about: ctld's
 * own rules come first (holds, a requeued run still being killed, begin
 * times, dependencies, deadlines, -w names, array throttles); a job they
 * stop gets its reason here and never reaches the snapshot. */
#include <stdlib.h>

#include "common/hostlist.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job_req.h"
#include "ctld/part.h"
#include "ctld/sched_snap.h"

/* names (a hostlist) as node indices: a new array in *out. */
static int resolve_list(const struct ctld *c, const char *names, uint32_t **out,
			uint32_t *n_out)
{
	char **v = NULL;
	size_t n = 0;
	struct drv_error err;
	if (drv_hostlist_expand(names, &v, &n, &err) < 0)
		return DRV_RC_INVALID_NODE_NAME;
	uint32_t *idx = calloc(n ? n : 1, sizeof(*idx));
	int rc = idx ? 0 : DRV_RC_ERROR;
	uint32_t k = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const struct node *nd = node_find(&c->nodes, v[i]);
		if (!nd)
			rc = DRV_RC_INVALID_NODE_NAME;
		else
			idx[k++] = nd->idx; /* duplicates do no harm */
	}
	drv_strv_free(v, n);
	if (rc) {
		free(idx);
		return rc;
	}
	*out = idx;
	*n_out = k;
	return 0;
}

int ctld_resolve_nodes(const struct ctld *c, struct job_req *q)
{
	if (q->nodes_resolved)
		return 0;
	struct sched_req *r = &q->sched;
	uint32_t *req = NULL, *exc = NULL, n_req = 0, n_exc = 0;
	int rc = 0;
	if (q->req_nodes)
		rc = resolve_list(c, q->req_nodes, &req, &n_req);
	if (!rc && q->exc_nodes)
		rc = resolve_list(c, q->exc_nodes, &exc, &n_exc);
	for (uint32_t i = 0; !rc && i < n_req; i++)
		for (uint32_t k = 0; k < n_exc; k++)
			if (req[i] == exc[k]) /* Slurm refuses -w n1 -x n1 so */
				rc = DRV_RC_INVALID_NODE_NAME;
	if (rc) {
		free(req);
		free(exc);
		return rc;
	}
	q->req_idx = req;
	q->exc_idx = exc;
	r->req_nodes = req;
	r->n_req_nodes = n_req;
	r->exc_nodes = exc;
	r->n_exc_nodes = n_exc;
	q->nodes_resolved = true;
	return 0;
}

/* Whether j's dependencies let it run now; else gives its reason, and
 * cancels it when they never can and it is to be killed for that. */
static bool dependency_met(struct ctld *c, struct job *j, int64_t now)
{
	enum depend_verdict v = depend_check(c, j, now);
	if (v == DEPEND_MET)
		return true;
	if (v == DEPEND_WAIT) {
		j->reason = "Dependency";
	} else if (depend_kill_invalid(c, j)) {
		job_cancel_invalid_dep(c, j, now);
	} else {
		j->reason = "DependencyNeverSatisfied";
	}
	return false;
}

/* Time, dependency and deadline rules; true when j may be placed now.
 * Slurm ends a pending job that could not finish by its deadline even
 * with its minimum time (job_req.c). */
static bool eligible(struct ctld *c, struct job *j, int64_t now)
{
	if (job_req_past_deadline(&j->req, j->time_limit, now)) {
		job_deadline(c, j, now);
		return false;
	}
	if (j->req.begin_time > now) {
		j->reason = "BeginTime";
		return false;
	}
	return !j->req.deps.n || dependency_met(c, j, now);
}

/* The candidate partitions j may start in now, at most SCHED_MAX_CANDS
 * (the first ones given): those whose rules (accounts, QOS, node counts
 * and time without EnforcePartLimits) do not hold it. NULL, or the reason
 * it waits when none is left: the first partition's, or Priority when
 * only new jobs are tried and each of its partitions has a job waiting
 * before it. */
static const char *usable_partitions(struct ctld *c, struct job *j, bool only_new,
				     uint32_t *cand, uint32_t *n_cand)
{
	uint32_t n = 0;
	const uint32_t *all = part_job_candidates(c, j, &n);
	const char *why = n ? NULL : "PartitionDown"; /* every one deleted */
	bool blocked = false;
	for (uint32_t i = 0; i < n && *n_cand < SCHED_MAX_CANDS; i++) {
		const char *no = part_job_blocked(c, &c->parts[all[i]], j);
		if (no && !why)
			why = no;
		else if (!no && only_new && c->parts[all[i]].blocked)
			blocked = true;
		else if (!no)
			cand[(*n_cand)++] = all[i];
	}
	if (*n_cand)
		return NULL;
	return blocked ? "Priority" : why;
}

/* Higher PriorityTier first, as Slurm's queue tries a job's partitions;
 * the order given among equals. */
static void order_by_tier(const struct ctld *c, uint32_t *cand, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = cand[i], k = i;
		for (; k > 0 && c->parts[cand[k - 1]].conf->priority_tier <
				    c->parts[p].conf->priority_tier;
		     k--)
			cand[k] = cand[k - 1];
		cand[k] = p;
	}
}

/* Adds j to the snapshot if it may be considered (an array with as many
 * tasks as its throttle lets start); else gives its reason. */
static void consider(struct ctld *c, struct job *j, bool only_new, struct snap *s,
		     int64_t now)
{
	if (j->state != JOB_PENDING || j->hold != HOLD_NONE || j->completing)
		return; /* completing: a requeued run still being killed */
	if (!eligible(c, j, now))
		return;
	if (ctld_resolve_nodes(c, &j->req) != 0) {
		j->reason = "ReqNodeNotAvail"; /* a -w node left the config */
		return;
	}
	uint32_t cand[SCHED_MAX_CANDS], n_cand = 0;
	const char *why = usable_partitions(c, j, only_new, cand, &n_cand);
	if (why) {
		j->reason = why;
		return;
	}
	order_by_tier(c, cand, n_cand);
	uint32_t n = 1;
	if (j->array) {
		n = job_array_room(c, j);
		if (n == 0) {
			j->reason = "JobArrayTaskLimit";
			return;
		}
	}
	snap_add_pending(c, s, j, cand, n_cand, n);
}

int sched_collect(struct ctld *c, struct snap *s, bool only_new, int64_t now)
{
	if (only_new) {
		for (size_t i = 0; i < c->n_sched_new; i++) {
			struct job *j = job_table_find(&c->jobs, c->sched_new[i]);
			if (j)
				consider(c, j, true, s, now);
		}
	} else {
		for (struct job *j = c->jobs.head; j; j = j->next)
			consider(c, j, false, s, now);
	}
	return 0;
}
