/* shape.c — the earliest time a request fits, found without scanning every
 * node at every time.
 *
 * Jobs that ask for the same thing in the same partition for the same time
 * (a shape) fit the same nodes at the same times. A pass only ever takes
 * resources away, so a shape's earliest fit only moves later: the shape
 * keeps `lb` (no job of it fits before) and, per node of the partition in
 * (weight, position) order, a lower bound of the earliest time that node
 * alone could serve it, in a min segment tree. A search at time t visits
 * only the leaves <= t (the leftmost first): a node is checked at t once,
 * and when it does not fit its bound becomes its next end after t (it
 * cannot fit before something on it ends). The earliest t a job fits is
 * the tree's minimum, then the next candidate time each time the nodes
 * that fit at t are not enough. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* --- the cache of shapes ------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = mix(h, (unsigned char)*s);
	return mix(h, 0xff);
}

static uint64_t mix_list(uint64_t h, const uint32_t *v, uint32_t n)
{
	h = mix(h, n);
	for (uint32_t i = 0; i < n; i++)
		h = mix(h, v[i]);
	return h;
}

static uint64_t hash_req(const struct sched_req *r)
{
	uint64_t h = 0;
	h = mix(h, r->min_nodes);
	h = mix(h, r->max_nodes);
	h = mix(h, r->ntasks);
	h = mix(h, r->cpus_per_task);
	h = mix(h, r->ntasks_per_node);
	h = mix(h, r->mem_per_node);
	h = mix(h, r->mem_per_cpu);
	h = mix(h, r->gpus_per_node);
	h = mix(h, r->gpus_total);
	h = mix_str(h, r->gpu_type);
	h = mix(h, (uint64_t)r->exclusive << 1 | r->oversubscribe);
	h = mix(h, r->min_cpus);
	h = mix(h, r->min_tmp);
	h = mix_list(h, r->req_nodes, r->n_req_nodes);
	h = mix_list(h, r->exc_nodes, r->n_exc_nodes);
	if (r->constraint)
		for (uint32_t i = 0; i < r->constraint->n_terms; i++)
			h = mix_str(mix(h, r->constraint->terms[i].count),
				    r->constraint->terms[i].name);
	return h;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_list(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	return na == nb && (na == 0 || !memcmp(a, b, na * sizeof(*a)));
}

static bool same_constraint(const struct sched_constraint *a,
			    const struct sched_constraint *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->n_terms != b->n_terms || a->match_or != b->match_or)
		return false;
	for (uint32_t i = 0; i < a->n_terms; i++)
		if (a->terms[i].count != b->terms[i].count ||
		    a->terms[i].and_prev != b->terms[i].and_prev ||
		    strcmp(a->terms[i].name, b->terms[i].name))
			return false;
	return true;
}

static bool same_req(const struct sched_req *a, const struct sched_req *b)
{
	if (a == b)
		return true;
	return a->min_nodes == b->min_nodes && a->max_nodes == b->max_nodes &&
	       a->ntasks == b->ntasks && a->cpus_per_task == b->cpus_per_task &&
	       a->ntasks_per_node == b->ntasks_per_node &&
	       a->mem_per_node == b->mem_per_node && a->mem_per_cpu == b->mem_per_cpu &&
	       a->gpus_per_node == b->gpus_per_node && a->gpus_total == b->gpus_total &&
	       same_str(a->gpu_type, b->gpu_type) && a->exclusive == b->exclusive &&
	       a->oversubscribe == b->oversubscribe && a->min_cpus == b->min_cpus &&
	       a->min_tmp == b->min_tmp &&
	       same_list(a->req_nodes, a->n_req_nodes, b->req_nodes, b->n_req_nodes) &&
	       same_list(a->exc_nodes, a->n_exc_nodes, b->exc_nodes, b->n_exc_nodes) &&
	       same_constraint(a->constraint, b->constraint);
}

static bool same_lics(const struct shape *s, const struct sched_pending *j)
{
	return s->n_lics == j->n_lics &&
	       (j->n_lics == 0 ||
		!memcmp(s->lics, j->lics, j->n_lics * sizeof(*j->lics)));
}

void shape_init_linear(struct pass *c, struct shape *s, const struct sched_pending *j,
		       uint32_t part, int64_t len)
{
	const struct sched_part *p = &c->snap->parts[part];
	const struct sched_req *r = j->req;
	*s = (struct shape){
	    .part = part,
	    .len = len,
	    .req = r,
	    .lics = j->lics,
	    .n_lics = j->n_lics,
	    .cpt = r->cpus_per_task ? r->cpus_per_task : 1,
	    .fits = -1,
	    .m = p->n_nodes,
	    .order = c->order[part],
	};
	prof_view(c->snap, part, r->exclusive, r->oversubscribe, &s->view);
	s->node_min = place_node_min(c, s);
	if (s->view.excl)
		s->gpus_node = 0;
	else if (r->gpus_per_node)
		s->gpus_node = r->gpus_per_node;
	else if (r->gpus_total)
		s->gpus_node = (r->gpus_total + (r->min_nodes ? r->min_nodes : 1) - 1) /
			       (r->min_nodes ? r->min_nodes : 1);
}

static int grow_table(struct pass *c)
{
	uint32_t size = c->shapes ? (c->shapes_mask + 1) * 2 : 256;
	struct shape **t = calloc(size, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; c->shapes && i <= c->shapes_mask; i++)
		for (struct shape *s = c->shapes[i], *next; s; s = next) {
			next = s->next;
			s->next = t[s->hash & (size - 1)];
			t[s->hash & (size - 1)] = s;
		}
	free(c->shapes);
	c->shapes = t;
	c->shapes_mask = size - 1;
	return 0;
}

int shape_get(struct pass *c, const struct sched_pending *j, uint32_t part, int64_t len,
	      struct shape **out)
{
	uint64_t h = mix(mix(hash_req(j->req), part), (uint64_t)len);
	for (uint32_t k = 0; k < j->n_lics; k++)
		h = mix(mix(h, j->lics[k].lic), j->lics[k].count);
	if (!c->shapes || c->n_shapes > c->shapes_mask) {
		if (grow_table(c) < 0)
			return -ENOMEM;
	}
	for (struct shape *s = c->shapes[h & c->shapes_mask]; s; s = s->next)
		if (s->hash == h && s->part == part && s->len == len && same_lics(s, j) &&
		    same_req(s->req, j->req)) {
			*out = s;
			return 0;
		}
	struct shape *s = arena_alloc(&c->arena, sizeof(*s));
	if (!s)
		return -ENOMEM;
	shape_init_linear(c, s, j, part, len);
	s->hash = h;
	const struct sched_constraint *con = j->req->constraint;
	s->generic = j->req->n_req_nodes != 0;
	for (uint32_t k = 0; con && k < con->n_terms; k++)
		s->generic |= con->terms[k].count != 0;
	if (leaf_class_of(c, s) < 0)
		return -ENOMEM;
	s->next = c->shapes[h & c->shapes_mask];
	c->shapes[h & c->shapes_mask] = s;
	c->n_shapes++;
	*out = s;
	return 0;
}

/* --- the tree ------------------------------------------------------------- */

/* A new shape's tree: each node bounded from below by what it holds now
 * (REL_INF where the job can never go), none of them checked yet; shapes
 * of one leaf class without -x, --tmp or -C start from the same bounds. */
static int tree_make(struct pass *c, struct shape *s)
{
	if (mintree_init(&s->tree, s->m) < 0)
		return -ENOMEM;
	const uint32_t *first = leaf_class_first(c, s);
	for (uint32_t i = 0; i < s->m; i++) {
		struct node_need need;
		uint32_t node = s->order[i];
		if (first) {
			mintree_fill(&s->tree, i, first[i]);
		} else if (place_node_allowed(c, s, node, -2)) {
			place_node_need(c, s, node, &need);
			mintree_fill(&s->tree, i, prof_bound_now(&c->prof, node, &need));
		}
	}
	mintree_rebuild(&s->tree);
	s->has_tree = true;
	return 0;
}

/* leaf_check's walk: the first candidate time from now + t at which node
 * fits a job of s: by counts first (CPUs held, memory, GPU devices, the
 * partition's CPUs: a few scans of steps), then by what is free (which
 * CPU ids and devices), moving to the next end when the counts allow it
 * but the ids do not. A few steps, then a bound. */
static uint32_t walk(struct pass *c, struct shape *s, uint32_t node, uint32_t t,
		     bool *fits, uint32_t *cap, struct spare *spare)
{
	const struct prof *p = &c->prof;
	struct node_need need;
	place_node_need(c, s, node, &need);
	int64_t at = p->now + t;
	*cap = 0;
	for (int step = 0; step < 16; step++) {
		if (!s->view.shares) /* by count, it fits no earlier than */
			at = prof_earliest_counts(p, node, at, s->len, &s->view, &need);
		if (at == INT64_MAX || at - p->now > p->window)
			return REL_INF;
		*cap = place_node_cap(c, s, node, at, spare);
		if (*cap) {
			*fits = true;
			return (uint32_t)(at - p->now);
		}
		at = prof_next_end(p, node, at); /* the ids or devices are not */
	}
	return at == INT64_MAX || at - p->now > p->window ? REL_INF
							  : (uint32_t)(at - p->now);
}

/* When can the node at pos serve a job of s, from now + t on? What its
 * leaf class knows, else a walk forward a few candidate times (skipping,
 * by counts, what cannot fit), which the class then knows: t when it fits
 * then (*cap: the tasks it takes, 0 when not known), or a later time
 * before which it cannot, or REL_INF. Only allowed nodes have a leaf <=
 * the window (tree_make), so they are not asked again. */
static uint32_t leaf_check(struct pass *c, struct shape *s, uint32_t pos, uint32_t t,
			   uint32_t *cap)
{
	const struct prof *p = &c->prof;
	if (t > p->window)
		return REL_INF;
	uint32_t known = leaf_cache_ask(c, s, pos, t, cap);
	if (known != LEAF_UNKNOWN)
		return known;
	uint32_t node = s->order[pos], tasks = 0;
	struct leaf_entry e = {.version = p->np[node].version, .from = t};
	struct spare spare;
	bool fits = false;
	uint32_t weak = leaf_class_weaker_bound(c, s, pos);
	if (weak > t) { /* a weaker class cannot have it before: no walk */
		/* the class's bound from now (<= t, or it would have
		 * answered) rises to it, which answers first from then on:
		 * an entry only where the class keeps none */
		if (!leaf_class_bound_kept(c, s)) {
			e = (struct leaf_entry){
			    .version = e.version, .at = weak, .state = LEAF_BOUND};
			leaf_cache_put(c, s, pos, &e, NULL);
		}
		leaf_class_learn(c, s, pos, weak);
		return weak;
	}
	e.at = walk(c, s, node, t, &fits, &tasks, &spare);
	e.state = fits ? LEAF_FITS : LEAF_BOUND;
	/* known from now (what it learnt joins what the class knew from
	 * now), or by counts not before t either */
	if (t && leaf_class_bound(c, s, pos) >= t)
		e.from = 0;
	else if (t && e.at == REL_INF && !s->view.shares) {
		struct node_need need;
		place_node_need(c, s, node, &need);
		if (prof_earliest_counts(p, node, p->now, s->len, &s->view, &need) >=
		    p->now + t)
			e.from = 0;
	}
	if (!e.from)
		leaf_class_learn(c, s, pos, e.at);
	e.cap = tasks <= UINT16_MAX ? (uint16_t)tasks : 0; /* 0: asked again */
	leaf_cache_put(c, s, pos, &e, &spare);
	*cap = tasks;
	return e.at;
}

uint32_t shape_next(struct pass *c, struct shape *s, uint32_t t, uint32_t from,
		    uint32_t *cap)
{
	if (!s->has_tree) {
		for (uint32_t pos = from; pos < s->m; pos++)
			if (place_node_allowed(c, s, s->order[pos], -2)) {
				if (cap)
					*cap = 0; /* not known: the caller asks */
				return pos;
			}
		return POS_NONE;
	}
	/* The next leaf <= t is found before this one is checked (a check
	 * changes no leaf after it), so that what the class knows of it is
	 * on its way from memory while this one is checked. */
	/* Leaves raised are written at once, the levels above their block
	 * mended once when the search leaves it (a search from a later leaf
	 * reads no level above an earlier block). */
	uint32_t pos = mintree_first_le(&s->tree, from, t), dirty = POS_NONE;
	while (pos != POS_NONE) {
		uint32_t got = 0, next = mintree_first_le(&s->tree, pos + 1, t);
		if (next != POS_NONE) {
			leaf_cache_prefetch(c, s, next);
			__builtin_prefetch(&c->prof.np[s->order[next]]);
		}
		uint32_t v = leaf_check(c, s, pos, t, &got);
		if (v != mintree_get(&s->tree, pos)) {
			mintree_fill(&s->tree, pos, v);
			dirty = pos;
		}
		if (v == t) {
			if (dirty != POS_NONE)
				mintree_mend(&s->tree, dirty);
			if (cap)
				*cap = got;
			return pos;
		}
		if (dirty != POS_NONE && (next == POS_NONE || next / 16 != dirty / 16)) {
			mintree_mend(&s->tree, dirty);
			dirty = POS_NONE;
		}
		pos = next; /* the leaves before it are above t */
	}
	return POS_NONE;
}

/* After a job of s did not fit at t: the next time what the nodes give can
 * grow, which is when one that did not fit at t may fit, or one that did
 * may give more (something on it ends). Every node at or below t is
 * checked at t first. */
static uint32_t next_time(struct pass *c, struct shape *s, uint32_t t)
{
	const struct prof *p = &c->prof;
	uint32_t next = REL_INF;
	for (uint32_t pos = shape_next(c, s, t, 0, NULL); pos != POS_NONE;
	     pos = shape_next(c, s, t, pos + 1, NULL)) {
		int64_t e = prof_next_end(p, s->order[pos], p->now + t);
		if (e != INT64_MAX && e - p->now < next)
			next = (uint32_t)(e - p->now);
	}
	uint32_t above = mintree_min_above(&s->tree, t);
	return above < next ? above : next;
}

/* The plainest search, for sched_run_reference: every candidate time in
 * order (now, then each end the profile marks), every node of the
 * partition checked exactly at it; no tree, no bound, no cache. */
static uint32_t earliest_plain(struct pass *c, struct shape *s, uint32_t tmax,
			       struct pick *picks, uint32_t *n)
{
	const struct prof *p = &c->prof;
	for (int64_t at = p->now; at != INT64_MAX; at = prof_next_event(p, at)) {
		uint32_t t = (uint32_t)(at - p->now);
		if (at - p->now > tmax || at - p->now > p->window)
			break;
		if (s->n_lics &&
		    prof_lics_earliest(p, s->lics, s->n_lics, at, s->len) != at)
			continue;
		*n = place_choose(c, s, t, picks);
		if (*n)
			return t;
	}
	return REL_INF;
}

uint32_t shape_earliest(struct pass *c, struct shape *s, uint32_t tmax,
			struct pick *picks, uint32_t *n)
{
	if (!s->m)
		return REL_INF;
	if (c->reference)
		return earliest_plain(c, s, tmax, picks, n);
	if (!s->has_tree && tree_make(c, s) < 0) {
		c->err = -ENOMEM;
		return REL_INF;
	}
	if (leaf_class_never(c, s))
		s->lb = REL_INF; /* no node ever serves the class in the window */
	leaf_refresh(c, s);
	uint32_t t = s->lb;
	for (;;) {
		if (mintree_min(&s->tree) > t)
			t = mintree_min(&s->tree); /* no node fits before */
		if (t > tmax || t == REL_INF) {
			if (t > s->lb)
				s->lb = t;
			return REL_INF;
		}
		s->lb = t; /* every earlier candidate failed */
		if (s->n_lics) {
			int64_t l = prof_lics_earliest(&c->prof, s->lics, s->n_lics,
						       c->prof.now + t, s->len);
			uint32_t lt =
			    l == INT64_MAX ? REL_INF : (uint32_t)(l - c->prof.now);
			if (lt != t) {
				t = lt;
				continue;
			}
		}
		*n = place_choose(c, s, t, picks);
		if (*n)
			return t;
		t = next_time(c, s, t);
	}
}

/* --- could it ever fit ----------------------------------------------------- */

int shape_fits_config(struct pass *c, struct shape *s)
{
	if (s->fits != -1)
		return s->fits;
	struct shape probe;
	int rc = c->idle_pass ? 0 : pass_prepare_idle(c);
	if (rc == 0) {
		struct sched_pending j = {.req = s->req};
		shape_init_linear(c->idle_pass, &probe, &j, s->part, s->len);
		rc = place_choose(c->idle_pass, &probe, 0, c->idle_pass->picks) ? 0
										: -ENOSPC;
	}
	if (rc == -ENOMEM)
		c->err = rc;
	else
		s->fits = rc;
	return rc;
}
