/* pass.c — one scheduling pass: what it prepares (each partition's nodes by
 * Weight then position, the profile of what runs, the limits' counts), the
 * order jobs are tried in (PriorityTier of the best candidate partition,
 * then priority, then job id), which jobs a pass reaches (QUICK:
 * default_queue_depth; BACKFILL: bf_max_job_test, bf_max_job_user, resume,
 * stop), and which plans of the last backfill pass it honours. What each
 * job gets is decide.c's. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* --- preparing ----------------------------------------------------------- */

static int weight_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Part's nodes by Weight, then in its order: a counting pass over the few
 * weights a cluster has (rank[node]: its weight's place among them). */
static void order_part(const struct sched_part *part, const uint32_t *rank, uint32_t n_w,
		       uint32_t *count, uint32_t *out)
{
	memset(count, 0, (n_w + 1) * sizeof(*count));
	for (uint32_t i = 0; i < part->n_nodes; i++)
		count[rank[part->nodes[i]] + 1]++;
	for (uint32_t k = 1; k <= n_w; k++)
		count[k] += count[k - 1];
	for (uint32_t i = 0; i < part->n_nodes; i++)
		out[count[rank[part->nodes[i]]]++] = part->nodes[i];
}

/* The distinct weights of the nodes, sorted; their count. Clusters have a
 * few: they are gathered by a look through those seen, until too many. */
static uint32_t weights(const struct sched_snapshot *s, uint32_t *w)
{
	uint32_t n = 0, i = 0;
	for (; i < s->n_nodes && n < 32; i++) {
		uint32_t k = 0;
		while (k < n && w[k] != s->nodes[i].weight)
			k++;
		if (k == n)
			w[n++] = s->nodes[i].weight;
	}
	for (; i < s->n_nodes; i++) /* many: all of them, then unique */
		w[n++] = s->nodes[i].weight;
	qsort(w, n, sizeof(*w), weight_cmp);
	uint32_t k = 0;
	for (uint32_t x = 0; x < n; x++)
		if (!k || w[k - 1] != w[x])
			w[k++] = w[x];
	return k;
}

static int make_order(struct pass *c)
{
	const struct sched_snapshot *s = c->snap;
	uint32_t **order = arena_alloc(&c->arena, (s->n_parts + 1) * sizeof(*order));
	uint32_t *w = malloc((3 * (size_t)s->n_nodes + 3) * sizeof(*w));
	if (!order || !w) {
		free(w);
		return -ENOMEM;
	}
	uint32_t n_w = weights(s, w), *count = w + s->n_nodes + 1,
		 *rank = count + s->n_nodes + 1;
	for (uint32_t i = 0; i < s->n_nodes; i++)
		rank[i] =
		    (uint32_t)((const uint32_t *)bsearch(&s->nodes[i].weight, w, n_w,
							 sizeof(*w), weight_cmp) -
			       w);
	for (uint32_t p = 0; p < s->n_parts; p++) {
		const struct sched_part *part = &s->parts[p];
		if (part->n_nodes > c->max_part_nodes)
			c->max_part_nodes = part->n_nodes;
		order[p] = arena_alloc(&c->arena, (part->n_nodes + 1) * sizeof(**order));
		if (!order[p]) {
			free(w);
			return -ENOMEM;
		}
		order_part(part, rank, n_w, count, order[p]);
	}
	free(w);
	c->order = (const uint32_t **)order;
	return 0;
}

static int make_scratch(struct pass *c)
{
	c->cpu_free = malloc(c->prof.max_words * sizeof(*c->cpu_free));
	c->gpu_busy = malloc(c->prof.max_gpus);
	c->picks = malloc((c->max_part_nodes + 1) * sizeof(*c->picks));
	c->best = malloc((c->max_part_nodes + 1) * sizeof(*c->best));
	return c->cpu_free && c->gpu_busy && c->picks && c->best ? 0 : -ENOMEM;
}

int pass_prepare(struct pass *c, const struct sched_snapshot *snap,
		 const struct sched_params *par)
{
	c->snap = snap;
	c->par = par;
	c->backfill = par->kind == SCHED_PASS_BACKFILL;
	int rc = make_order(c);
	if (rc == 0)
		rc = prof_init(&c->prof, snap, par->bf_resolution,
			       c->backfill ? par->bf_window : 0, false);
	if (rc == 0)
		rc = make_scratch(c);
	if (rc == 0)
		rc = limits_init(&c->lim, snap);
	return rc;
}

int pass_prepare_idle(struct pass *c)
{
	struct pass *idle = calloc(1, sizeof(*idle));
	if (!idle)
		return -ENOMEM;
	idle->snap = c->snap;
	idle->par = c->par;
	idle->idle = true;
	idle->order = c->order; /* borrowed: the parent frees it */
	idle->max_part_nodes = c->max_part_nodes;
	c->idle_pass = idle;
	int rc = prof_init(&idle->prof, c->snap, 1, 0, true);
	return rc < 0 ? rc : make_scratch(idle);
}

void pass_release(struct pass *c)
{
	for (uint32_t i = 0; c->shapes && i <= c->shapes_mask; i++)
		for (struct shape *s = c->shapes[i]; s; s = s->next) {
			mintree_fini(&s->tree);
		}
	free(c->shapes);
	if (c->idle_pass) {
		c->idle_pass->order = NULL;
		pass_release(c->idle_pass);
		free(c->idle_pass);
	}
	prof_fini(&c->prof);
	limits_fini(&c->lim);
	free(c->cpu_free);
	free(c->gpu_busy);
	free(c->picks);
	free(c->best);
	free(c->waiting);
	free(c->blocked);
	free(c->cands);
	free(c->user_seen.keys);
	leaf_classes_free(c);
	arena_free(&c->arena);
}

/* --- a map of job ids (or uids) to numbers --------------------------------- */

static uint32_t id_hash(uint32_t id)
{
	return id * 2654435761u;
}

int idmap_init(struct idmap *m, uint32_t n)
{
	uint32_t size = 16;
	while (size < 2 * n)
		size *= 2;
	m->keys = malloc(size * (sizeof(*m->keys) + sizeof(*m->vals)));
	if (!m->keys)
		return -ENOMEM;
	m->vals = m->keys + size;
	m->mask = size - 1;
	m->n = 0;
	memset(m->keys, 0xff, size * sizeof(*m->keys));
	return 0;
}

/* The value slot of key, made (as UINT32_MAX) when absent; NULL when full. */
uint32_t *idmap_slot(struct idmap *m, uint32_t key, bool make)
{
	for (uint32_t i = id_hash(key) & m->mask, k = 0; k <= m->mask;
	     i = (i + 1) & m->mask, k++) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (m->keys[i] == UINT32_MAX) {
			if (!make || 2 * (m->n + 1) > m->mask + 1)
				return NULL;
			m->keys[i] = key;
			m->vals[i] = UINT32_MAX;
			m->n++;
			return &m->vals[i];
		}
	}
	return NULL;
}

/* --- the order ----------------------------------------------------------------- */

struct ord {
	uint32_t tier, id, idx;
	uint64_t prio;
};

static int ord_cmp(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;
	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->id < y->id ? -1 : (x->id > y->id);
}

static bool ord_before(const struct ord *x, const struct ord *y)
{
	if (x->tier != y->tier)
		return x->tier > y->tier;
	if (x->prio != y->prio)
		return x->prio > y->prio;
	return x->id < y->id;
}

/* qsort's order (a stable merge sort, as glibc's), with the comparison
 * inlined: a full pass sorts its whole queue. */
static void sort_ords(struct ord *v, size_t n)
{
	enum { RUN = 16 };
	struct ord *tmp = n > RUN ? malloc(n * sizeof(*tmp)) : NULL;
	if (n > RUN && !tmp) {
		qsort(v, n, sizeof(*v), ord_cmp);
		return;
	}
	for (size_t lo = 0; lo < n; lo += RUN) { /* runs, by insertion */
		size_t hi = lo + RUN < n ? lo + RUN : n;
		for (size_t i = lo + 1; i < hi; i++) {
			struct ord o = v[i];
			size_t j = i;
			for (; j > lo && ord_before(&o, &v[j - 1]); j--)
				v[j] = v[j - 1];
			v[j] = o;
		}
	}
	struct ord *from = v, *to = tmp;
	for (size_t w = RUN; w < n; w *= 2) { /* merge pairs of runs */
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n,
			       hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				to[k++] = ord_before(&from[j], &from[i]) ? from[j++]
									 : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		struct ord *x = from;
		from = to;
		to = x;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
}

static struct ord key_of(const struct sched_snapshot *s, uint32_t idx)
{
	const struct sched_pending *j = &s->pending[idx];
	struct ord o = {0, j->job_id, idx, j->priority};
	for (uint32_t k = 0; k < j->n_parts; k++)
		if (s->parts[j->parts[k]].priority_tier > o.tier)
			o.tier = s->parts[j->parts[k]].priority_tier;
	return o;
}

static void swap_ord(struct ord *a, struct ord *b)
{
	struct ord t = *a;
	*a = *b;
	*b = t;
}

/* Moves the k first of v in order to its front (in no order). */
static void select_first(struct ord *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 16 && k > lo && k < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ord_cmp(&v[mid], &v[lo]) < 0)
			swap_ord(&v[mid], &v[lo]);
		if (ord_cmp(&v[hi - 1], &v[lo]) < 0)
			swap_ord(&v[hi - 1], &v[lo]);
		if (ord_cmp(&v[hi - 1], &v[mid]) < 0)
			swap_ord(&v[hi - 1], &v[mid]);
		struct ord pivot = v[mid];
		size_t i = lo, j = hi - 1;
		for (;;) { /* Hoare: v[lo..i) <= pivot, v(j..hi) >= pivot */
			while (ord_cmp(&v[i], &pivot) < 0)
				i++;
			while (ord_cmp(&pivot, &v[j]) < 0)
				j--;
			if (i >= j)
				break;
			swap_ord(&v[i++], &v[j--]);
		}
		if (k <= j)
			hi = j + 1;
		else
			lo = j + 1;
	}
	if (k > lo && k < hi)
		qsort(v + lo, hi - lo, sizeof(*v), ord_cmp);
}

/* Keeps in heap[0..*k) the `depth` first in order seen so far: a heap
 * whose top is the last of them in order. */
static void keep_first(struct ord *heap, uint32_t *k, uint32_t depth, const struct ord *o)
{
	uint32_t i;
	if (*k < depth) { /* sift up */
		for (i = (*k)++; i && ord_cmp(&heap[(i - 1) / 2], o) < 0; i = (i - 1) / 2)
			heap[i] = heap[(i - 1) / 2];
		heap[i] = *o;
		return;
	}
	if (ord_cmp(o, &heap[0]) >= 0)
		return;
	for (i = 0;;) { /* sift down from the top */
		uint32_t l = 2 * i + 1, m = l;
		if (l >= *k)
			break;
		if (l + 1 < *k && ord_cmp(&heap[l + 1], &heap[l]) > 0)
			m = l + 1;
		if (ord_cmp(&heap[m], o) <= 0)
			break;
		heap[i] = heap[m];
		i = m;
	}
	heap[i] = *o;
}

/* The jobs this pass reaches, in order; *n of them (*cut: some left out
 * by the pass's depth). A shallow pass (a quick one's 100 of a long queue)
 * keeps the first ones as it reads the queue, a deep one selects them
 * after. NULL with *rc -ENOMEM, or -EINVAL when a job's partitions are
 * wrong. */
static struct ord *make_queue(struct pass *c, uint32_t *n, bool *cut, int *rc)
{
	const struct sched_snapshot *s = c->snap;
	const struct sched_resume *rs = &c->par->resume;
	uint32_t depth = c->backfill
			     ? (c->par->bf_max_job_user ? 0 : c->par->bf_max_job_test)
			     : c->par->default_queue_depth;
	bool shallow = depth && depth < s->n_pending / 8;
	struct ord *v = malloc(((shallow ? depth : s->n_pending) + 1) * sizeof(*v)),
		   at = {0};
	*rc = -ENOMEM;
	if (!v)
		return NULL;
	if (rs->valid)
		at = (struct ord){rs->tier, rs->job_id, 0, rs->priority};
	uint32_t k = 0, all = 0;
	for (uint32_t i = 0; i < s->n_pending; i++) {
		if (sched_check_order(s, &s->pending[i]) < 0) {
			free(v);
			*rc = -EINVAL;
			return NULL;
		}
		struct ord o = key_of(s, i);
		if (rs->valid && c->backfill && ord_cmp(&o, &at) <= 0)
			continue;
		all++;
		if (shallow)
			keep_first(v, &k, depth, &o);
		else
			v[k++] = o;
	}
	*cut = depth && depth < all;
	if (*cut && !shallow) {
		select_first(v, k, depth);
		k = depth;
	}
	sort_ords(v, k);
	*n = k;
	return v;
}

/* --- plans ----------------------------------------------------------------------- */

int pass_honour_plan(struct pass *c, const struct sched_plan *pl,
		     const struct sched_req *req)
{
	struct job_view v;
	if (sched_check_plan(c->snap, pl) < 0)
		return -EINVAL;
	prof_view(c->snap, pl->part, req->exclusive, req->oversubscribe, &v);
	for (uint32_t i = 0; i < pl->n_alloc; i++) {
		const struct sched_alloc *a = &pl->alloc[i];
		struct resv r = {
		    .start = pl->start,
		    .end = pl->end,
		    .mem = a->mem,
		    .cpu_ids = a->cpu_ids,
		    .gpu_units = a->gpu_units,
		    .cpus = a->cpus,
		    .part = pl->part,
		    .share_max = v.share_max,
		    .shares = v.shares,
		    .excl = v.excl,
		};
		if (prof_add_plan(&c->prof, a->node, &r) < 0)
			return -ENOMEM;
	}
	return prof_add_lics(&c->prof, pl->lics, pl->n_lics, pl->start, pl->end);
}

/* plan[i]: the plan of queue[i]'s job, or NULL (QUICK: plans of the jobs it
 * tries). */
static const struct sched_plan **match_plans(struct pass *c, const struct ord *q,
					     uint32_t n)
{
	const struct sched_plan **plan = calloc(n + 1, sizeof(*plan));
	struct idmap m;
	if (!plan || idmap_init(&m, n) < 0) {
		free(plan);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		*idmap_slot(&m, q[i].id, true) = i;
	for (uint32_t k = 0; k < c->snap->n_plans; k++) {
		uint32_t *at = idmap_slot(&m, c->snap->plans[k].job_id, false);
		if (at)
			plan[*at] = &c->snap->plans[k];
	}
	free(m.keys);
	return plan;
}

/* BACKFILL resuming: the plans of the jobs before the resume point stand. */
static int honour_before_resume(struct pass *c)
{
	const struct sched_snapshot *s = c->snap;
	const struct sched_resume *rs = &c->par->resume;
	struct ord at = {rs->tier, rs->job_id, 0, rs->priority};
	struct idmap m = {0};
	int rc = idmap_init(&m, s->n_pending);
	for (uint32_t i = 0; rc == 0 && i < s->n_pending; i++) {
		struct ord o = key_of(s, i);
		if (ord_cmp(&o, &at) <= 0)
			*idmap_slot(&m, o.id, true) = i;
	}
	for (uint32_t k = 0; rc == 0 && k < s->n_plans; k++) {
		uint32_t *idx = idmap_slot(&m, s->plans[k].job_id, false);
		if (idx)
			rc = pass_honour_plan(c, &s->plans[k], s->pending[*idx].req);
	}
	free(m.keys);
	return rc;
}

/* --- the loop ------------------------------------------------------------------------
 */

/* bf_max_job_user: has the user had its share of this pass? */
static bool user_over(struct pass *c, uint32_t uid)
{
	if (!c->backfill || !c->par->bf_max_job_user)
		return false;
	uint32_t *n = idmap_slot(&c->user_seen, uid, true);
	if (!n)
		return false;
	if (*n == UINT32_MAX)
		*n = 0;
	return ++*n > c->par->bf_max_job_user;
}

static int run_queue(struct pass *c, const struct ord *q, uint32_t n, bool cut,
		     const struct sched_plan **plan)
{
	struct sched_result *res = c->res;
	for (uint32_t i = 0; i < n; i++) {
		if (c->par->stop && i && i % 16 == 0 && c->par->stop(c->par->stop_arg)) {
			res->stats.stopped = true;
			res->resume = (struct sched_resume){true, q[i - 1].tier,
							    q[i - 1].prio, q[i - 1].id};
			return 0;
		}
		if (user_over(c, c->snap->pending[q[i].idx].uid))
			continue;
		bool waits = false;
		int rc = decide_job(c, q[i].idx, plan ? plan[i] : NULL, &waits);
		if (rc == 0 && waits && plan && plan[i])
			rc = pass_honour_plan(c, plan[i], c->snap->pending[q[i].idx].req);
		if (rc < 0)
			return rc;
		if (c->err)
			return c->err;
		if (c->backfill && c->par->bf_max_job_test &&
		    res->stats.tested >= c->par->bf_max_job_test) {
			res->stats.stopped = i + 1 < n || cut;
			return 0;
		}
	}
	res->stats.stopped = c->backfill && cut;
	return 0;
}

int pass_run(struct pass *c)
{
	uint32_t n = 0;
	bool cut = false;
	int rc = 0;
	struct ord *q = make_queue(c, &n, &cut, &rc);
	const struct sched_plan **plan = NULL;
	rc = q ? 0 : rc;
	c->waiting = calloc(c->snap->n_parts + 1, sizeof(*c->waiting));
	c->blocked = calloc(c->snap->n_parts + 1, sizeof(*c->blocked));
	if (rc == 0 && (!c->waiting || !c->blocked))
		rc = -ENOMEM;
	if (rc == 0 && c->backfill && c->par->bf_max_job_user)
		rc = idmap_init(&c->user_seen, c->snap->n_pending);
	if (rc == 0 && !c->backfill && c->snap->n_plans) {
		plan = match_plans(c, q, n);
		rc = plan ? 0 : -ENOMEM;
	}
	if (rc == 0 && c->backfill && c->par->resume.valid && c->snap->n_plans)
		rc = honour_before_resume(c);
	if (rc == 0)
		rc = run_queue(c, q, n, cut, plan);
	free(plan);
	free(q);
	return rc;
}
