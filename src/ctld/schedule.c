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
#include "ctld/job_req.h"
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

/* Slurm ends a pending job that could not finish by its deadline even
 * with its minimum time (job_req.c). */
static bool past_deadline(const struct job *j, int64_t now)
{
	return job_req_past_deadline(&j->req, j->time_limit, now);
}

/* Time, dependency and deadline rules; true when j may be placed now. */
static bool eligible(struct ctld *c, struct job *j, int64_t now)
{
	if (past_deadline(j, now)) {
		job_deadline(c, j, now);
		return false;
	}
	if (j->req.begin_time > now) {
		j->reason = "BeginTime";
		return false;
	}
	return !j->req.deps.n || dependency_met(c, j, now);
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

/* The snapshot being built: jobs (an array's meta record once per task it
 * may start now) and, at the same index, their records. */
struct snap {
	struct sched_job *jobs;
	struct job **map;
	size_t n, cap;
	uint32_t max_tasks; /* no array needs more entries than CPUs exist */
};

static int snap_add(struct snap *s, const struct sched_job *sj, struct job *j)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct sched_job *jobs = realloc(s->jobs, cap * sizeof(*jobs));
		if (jobs)
			s->jobs = jobs;
		struct job **map = realloc(s->map, cap * sizeof(*map));
		if (map)
			s->map = map;
		if (!jobs || !map)
			return -1;
		s->cap = cap;
	}
	s->jobs[s->n] = *sj;
	s->map[s->n++] = j;
	return 0;
}

/* Adds j to the snapshot if it may be considered (an array once per task
 * its throttle lets start); else gives its reason. */
static void consider(struct ctld *c, struct job *j, bool only_new, struct snap *s)
{
	if (j->state != JOB_PENDING || j->hold != HOLD_NONE || j->completing)
		return; /* completing: a requeued run still being killed */
	if (!eligible(c, j, time(NULL)))
		return;
	if (ctld_resolve_nodes(c, &j->req) != 0) {
		j->reason = "ReqNodeNotAvail"; /* a -w node left the config */
		return;
	}
	int p = ctld_part_index(c, j->partition);
	if (p < 0) {
		j->reason = "PartitionDown";
		return;
	}
	if (over_part_time(&c->parts[p], j)) {
		j->reason = "PartitionTimeLimit";
		return;
	}
	if (only_new && c->parts[p].blocked) {
		j->reason = "Priority";
		return;
	}
	uint32_t n = 1;
	if (j->array) {
		n = job_array_room(c, j);
		if (n == 0) {
			j->reason = "JobArrayTaskLimit";
			return;
		}
		n = n < s->max_tasks ? n : s->max_tasks;
	}
	struct sched_job sj = {.job_id = j->id,
			       .priority = j->priority,
			       .part = (uint32_t)p,
			       .req = &j->req.sched};
	for (uint32_t i = 0; i < n; i++)
		if (snap_add(s, &sj, j) < 0)
			return;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = (*(struct job *const *)a)->id, y = (*(struct job *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* The pending jobs the scheduler may consider: all of them, or only the
 * newly submitted ones. The table is in the order ids were issued, which
 * is not id order once ids went round past MaxJobId: map is sorted for
 * map_find (an array's entries, one job, stay side by side). */
static void collect_jobs(struct ctld *c, bool only_new, struct snap *s)
{
	if (only_new) {
		for (size_t i = 0; i < c->n_sched_new; i++) {
			struct job *j = job_table_find(&c->jobs, c->sched_new[i]);
			if (j)
				consider(c, j, true, s);
		}
	} else {
		for (struct job *j = c->jobs.head; j; j = j->next)
			consider(c, j, false, s);
	}
	if (s->n)
		qsort(s->map, s->n, sizeof(*s->map), by_id);
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
		struct job *t;
		if (sj->verdict == SCHED_START && j->array) {
			if ((t = job_array_split(c, j)) != NULL)
				job_start(c, t, &alloc[sj->alloc_off], sj->alloc_n, now);
		} else if (sj->verdict == SCHED_START)
			job_start(c, j, &alloc[sj->alloc_off], sj->alloc_n, now);
		else if (sj->verdict == SCHED_WAIT_REQ_NODE)
			req_node_reason(c, j, in->nodes);
		else
			job_set_reason(j, sched_verdict_reason(sj->verdict));
	}
	/* an array that started all its throttle allows waits for its tasks */
	for (size_t i = 0; i < n; i++)
		if (map[i]->array && map[i]->state == JOB_PENDING &&
		    (i + 1 == n || map[i + 1] != map[i]) && !job_array_room(c, map[i]))
			job_set_reason(map[i], "JobArrayTaskLimit");
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
	size_t nn = c->nodes.n ? c->nodes.n : 1, alloc_cap = 1;
	for (size_t i = 0; i < c->nodes.n;
	     i++) /* a started job takes >= 1 CPU per node */
		alloc_cap += (size_t)c->nodes.nodes[i].conf->cpus;
	struct snap s = {.max_tasks = (uint32_t)alloc_cap};
	struct sched_node *nodes = calloc(nn, sizeof(*nodes));
	struct sched_part *parts = calloc(c->n_parts ? c->n_parts : 1, sizeof(*parts));
	struct sched_alloc *alloc = calloc(alloc_cap, sizeof(*alloc));
	if (!nodes || !parts || !alloc)
		goto out;
	collect_jobs(c, !full, &s);
	c->sched_full = false;
	c->n_sched_new = 0;
	ctld_sched_nodes(c, nodes);
	ctld_sched_parts(c, parts);
	struct sched_input in = {nodes, c->nodes.n, parts, c->n_parts, s.jobs, s.n};
	if (!s.n || sched_run(&in, alloc, alloc_cap) >= 0) {
		note_blocked(c, &in, full);
		apply(c, &in, alloc, s.map, s.n);
	}
out:
	free(s.jobs);
	free(s.map);
	free(nodes);
	free(parts);
	free(alloc);
}
