/* schedule.c — glue between ctld's tables and the pure scheduler: decides
 * which pending jobs are eligible (holds, dependencies, partition limits),
 * builds the snapshot, calls sched_run(), applies the verdicts. Runs at the
 * end of any turn that asked for it (submit, end, node up, release, resume)
 * and on the periodic tick. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "sched/sched.h"

static void run(evutil_socket_t fd, short what, void *arg);

void sched_init(struct ctld *c)
{
	c->sched_ev = event_new(c->base, -1, 0, run, c);
	event_priority_set(c->sched_ev, PRIO_SCHED);
}

static void activate(struct ctld *c)
{
	if (c->sched_ev && !event_pending(c->sched_ev, EV_TIMEOUT, NULL))
		event_active(c->sched_ev, EV_TIMEOUT, 0);
}

void sched_request(struct ctld *c)
{
	c->sched_full = true;
	activate(c);
}

/* A new job cannot change what older ones get: with strict priority it only
 * needs trying on its own, unless its partition is blocked already. */
void sched_request_new(struct ctld *c, const struct job *j)
{
	if (c->n_sched_new == c->cap_sched_new) {
		size_t cap = c->cap_sched_new ? c->cap_sched_new * 2 : 64;
		uint32_t *v = realloc(c->sched_new, cap * sizeof(*v));
		if (!v) {
			sched_request(c);
			return;
		}
		c->sched_new = v;
		c->cap_sched_new = cap;
	}
	c->sched_new[c->n_sched_new++] = j->id;
	activate(c);
}

void sched_fini(struct ctld *c)
{
	free(c->sched_new);
	if (c->sched_ev)
		event_free(c->sched_ev);
}

int ctld_part_index(const struct ctld *c, const char *name)
{
	for (size_t i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].conf->name, name))
			return (int)i;
	return -1;
}

/* afterok: drops the dependencies that completed; a dependency that ended
 * any other way can never be satisfied. Returns true while the job waits. */
static bool waits_for_dependency(struct ctld *c, struct job *j)
{
	struct job_req *q = &j->req;
	uint32_t keep = 0;
	for (uint32_t i = 0; i < q->n_deps; i++) {
		const struct job *d = job_table_find(&c->jobs, q->deps[i]);
		if (!d || d->state == JOB_COMPLETED)
			continue; /* done (a purged job had ended long ago) */
		if (job_state_final(d->state))
			q->dep_failed = true;
		q->deps[keep++] = q->deps[i];
	}
	if (keep != q->n_deps) {
		q->n_deps = keep;
		commit_job(c, j);
	}
	if (q->dep_failed)
		j->reason = "DependencyNeverSatisfied";
	else if (q->n_deps)
		j->reason = "Dependency";
	return q->n_deps > 0;
}

static bool over_part_time(const struct part *p, const struct job *j)
{
	int64_t max = p->conf->max_time;
	return max != DRV_INFINITE &&
	       (j->time_limit == DRV_INFINITE || j->time_limit > max);
}

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

/* Adds j to the snapshot if it may be considered; else gives its reason. */
static bool consider(struct ctld *c, struct job *j, bool only_new, struct sched_job *out)
{
	if (j->state != JOB_PENDING || j->hold != HOLD_NONE || j->completing)
		return false; /* completing: a requeued run still being killed */
	if (j->begin_time > time(NULL)) {
		j->reason = "BeginTime";
		return false;
	}
	if (j->req.n_deps && waits_for_dependency(c, j))
		return false;
	if (ctld_resolve_nodes(c, &j->req) != 0) {
		j->reason = "ReqNodeNotAvail"; /* a -w node left the config */
		return false;
	}
	int p = ctld_part_index(c, j->partition);
	if (p < 0) {
		j->reason = "PartitionDown";
		return false;
	}
	if (over_part_time(&c->parts[p], j)) {
		j->reason = "PartitionTimeLimit";
		return false;
	}
	if (only_new && c->parts[p].blocked) {
		j->reason = "Priority";
		return false;
	}
	*out = (struct sched_job){.job_id = j->id,
				  .priority = j->priority,
				  .part = (uint32_t)p,
				  .req = &j->req.sched};
	return true;
}

/* The pending jobs the scheduler may consider: all of them, or only the
 * newly submitted ones. map stays in id order. */
static size_t collect_jobs(struct ctld *c, bool only_new, struct sched_job *out,
			   struct job **map)
{
	size_t n = 0;
	if (only_new) {
		for (size_t i = 0; i < c->n_sched_new; i++) {
			struct job *j = job_table_find(&c->jobs, c->sched_new[i]);
			if (j && consider(c, j, true, &out[n]))
				map[n++] = j;
		}
		return n;
	}
	for (struct job *j = c->jobs.head; j; j = j->next)
		if (consider(c, j, false, &out[n]))
			map[n++] = j;
	return n;
}

static struct job *map_find(struct job **map, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n; /* map is in id order */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (map[mid]->id == id)
			return map[mid];
		if (map[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Slurm's "ReqNodeNotAvail, UnavailableNodes:n2": the -w nodes not up. */
static void req_node_reason(const struct ctld *c, struct job *j,
			    const struct sched_node *nodes)
{
	const struct sched_req *r = &j->req.sched;
	char **down = calloc(r->n_req_nodes + 1, sizeof(*down));
	size_t n = 0;
	for (uint32_t i = 0; down && i < r->n_req_nodes; i++)
		if (!nodes[r->req_nodes[i]].up)
			down[n++] = c->nodes.names[r->req_nodes[i]];
	char *list = down ? drv_hostlist_compress(down, n) : NULL;
	free(down);
	char *text = NULL;
	if (list &&
	    asprintf(&text, "%s, UnavailableNodes:%s", JOB_REASON_REQ_NODE, list) < 0)
		text = NULL;
	free(list);
	free(j->reason_desc);
	j->reason_desc = text;
	job_set_reason(j, JOB_REASON_REQ_NODE);
}

static void apply(struct ctld *c, struct sched_input *in, const struct sched_alloc *alloc,
		  struct job **map, size_t n)
{
	int64_t now = time(NULL);
	for (size_t i = 0; i < in->n_jobs; i++) {
		struct sched_job *sj = &in->jobs[i];
		struct job *j = map_find(map, n, sj->job_id);
		if (!j)
			continue;
		if (sj->verdict == SCHED_START)
			job_start(c, j, &alloc[sj->alloc_off], sj->alloc_n, now);
		else if (sj->verdict == SCHED_WAIT_REQ_NODE)
			req_node_reason(c, j, in->nodes);
		else
			job_set_reason(j, sched_verdict_reason(sj->verdict));
	}
}

void ctld_sched_nodes(const struct ctld *c, struct sched_node *out)
{
	for (size_t i = 0; i < c->nodes.n; i++) {
		const struct node *n = &c->nodes.nodes[i];
		out[i] = (struct sched_node){
		    .up = node_usable(n),
		    .cpus_total = (uint32_t)n->conf->cpus,
		    .cpus_used = n->cpus_alloc,
		    .mem_total = c->conf->cr_memory ? n->conf->real_memory : 0,
		    .mem_used = c->conf->cr_memory ? n->mem_alloc : 0,
		    .n_gpus = n->n_gpus,
		    .gpus_used = n->gpus_alloc,
		    .gpu_type = (const char *const *)n->gpu_type,
		    .tmp_disk = n->conf->tmp_disk,
		    .features = n->conf->features,
		};
	}
}

void ctld_sched_parts(const struct ctld *c, struct sched_part *out)
{
	for (size_t i = 0; i < c->n_parts; i++)
		out[i] = (struct sched_part){c->parts[i].node_idx, c->parts[i].n_nodes,
					     c->parts[i].up};
}

/* After a full pass, a partition is blocked when one of its jobs waits for
 * resources; a partial pass can only add blocks. */
static void note_blocked(struct ctld *c, const struct sched_input *in, bool full)
{
	for (size_t p = 0; full && p < c->n_parts; p++)
		c->parts[p].blocked = false;
	for (size_t i = 0; i < in->n_jobs; i++)
		if (in->jobs[i].verdict == SCHED_WAIT_RESOURCES)
			c->parts[in->jobs[i].part].blocked = true;
}

static void run(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	bool full = c->sched_full;
	size_t cap = full ? c->jobs.count : c->n_sched_new;
	size_t nn = c->nodes.n ? c->nodes.n : 1, alloc_cap = 1;
	for (size_t i = 0; i < c->nodes.n;
	     i++) /* a started job takes >= 1 CPU per node */
		alloc_cap += (size_t)c->nodes.nodes[i].conf->cpus;
	struct sched_job *jobs = calloc(cap + 1, sizeof(*jobs));
	struct job **map = calloc(cap + 1, sizeof(*map));
	struct sched_node *nodes = calloc(nn, sizeof(*nodes));
	struct sched_part *parts = calloc(c->n_parts ? c->n_parts : 1, sizeof(*parts));
	struct sched_alloc *alloc = calloc(alloc_cap, sizeof(*alloc));
	if (!jobs || !map || !nodes || !parts || !alloc)
		goto out;
	size_t n = collect_jobs(c, !full, jobs, map);
	c->sched_full = false;
	c->n_sched_new = 0;
	ctld_sched_nodes(c, nodes);
	ctld_sched_parts(c, parts);
	struct sched_input in = {nodes, c->nodes.n, parts, c->n_parts, jobs, n};
	if (sched_run(&in, alloc, alloc_cap) >= 0) {
		note_blocked(c, &in, full);
		apply(c, &in, alloc, map, n);
	}
out:
	free(jobs);
	free(map);
	free(nodes);
	free(parts);
	free(alloc);
}
