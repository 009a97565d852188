/* leafcache.c — what one node gives a class of requests, remembered for
 * the pass. Many shapes differ only in what does not change whether one
 * node can serve them at a time (the task count of a job that spans
 * nodes, licenses, -x, -C): they share a leaf class, and a node checked
 * for one of them at some time answers the others, while the node is not
 * changed. Each class keeps one entry per node, in an array whose pages
 * are only touched for the nodes its shapes look at. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* What decides whether one node serves a job of a shape (cap_of). */
struct leaf_key {
	uint32_t part, cpt, gpus_node, node_min, tpn, min_cpus;
	int64_t len;
	uint64_t mem_per_cpu, mem_per_node;
	const char *gpu_type;
	bool excl, shares;
};

#define WEAKER 8 /* weaker classes a class asks (the strongest of them) */

struct leaf_class {
	struct leaf_key key;
	uint32_t id, m;		 /* m: nodes of its partition */
	struct leaf_entry *node; /* m, by position in the partition's order;
				  * calloc'ed when first needed */
	struct spare *spare;	 /* m, beside node: a fit's spare */
	uint32_t *first;	 /* m: first leaves, or NULL (leaf_class_first):
				  * bounds from now, raised as walks learn */
	uint32_t n_never;	 /* first[] that are REL_INF */
	uint32_t *init;		 /* its first leaves as first made, for the
				  * classes that differ from it only by time */
	uint64_t learnt;	 /* raises of first[] so far (leaf_refresh) */
	uint32_t weaker[WEAKER]; /* the strongest classes weaker than it */
	uint32_t n_weaker;
	struct leaf_class *next;
};

static struct leaf_key key_of(const struct shape *s)
{
	const struct sched_req *r = s->req;
	struct leaf_key k;
	memset(&k, 0, sizeof(k)); /* the padding too: keys are compared whole */
	k.part = s->part;
	k.cpt = s->cpt;
	k.gpus_node = s->gpus_node;
	k.node_min = s->node_min;
	k.tpn = r->ntasks_per_node;
	k.min_cpus = r->min_cpus;
	k.len = s->len;
	k.mem_per_cpu = r->mem_per_cpu;
	k.mem_per_node = r->mem_per_node;
	k.gpu_type = r->gpu_type;
	k.excl = s->view.excl;
	k.shares = s->view.shares;
	return k;
}

static bool same_key(const struct leaf_key *a, const struct leaf_key *b)
{
	const char *ta = a->gpu_type, *tb = b->gpu_type;
	bool types = ta == tb || (ta && tb && !strcmp(ta, tb));
	struct leaf_key x = *a, y = *b;
	x.gpu_type = y.gpu_type = NULL;
	return types && !memcmp(&x, &y, sizeof(x));
}

static uint64_t key_hash(const struct leaf_key *k)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *p = (const unsigned char *)k;
	for (size_t i = 0; i < offsetof(struct leaf_key, gpu_type); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	for (const char *t = k->gpu_type; t && *t; t++)
		h = (h ^ (unsigned char)*t) * 1099511628211ULL;
	return h;
}

/* --- weaker classes ---------------------------------------------------------

 * A node serves a class at t when, over [t, t + len), it has need_cpus
 * CPUs free (CPU ids, and the partition's MaxCPUsPerNode room), need_mem
 * memory free and gpus_node free devices of the type (cap_of): a class W
 * that asks no more of each, of any type or the same, for no longer, in
 * the same partition with the same sharing, is served wherever and
 * whenever a stronger class is. So what W knows, "not before at", holds
 * for the stronger class too. Whole nodes (--exclusive, --mem=0) ask what
 * depends on the node: they have no weaker class. */
static bool need_of(const struct leaf_key *k, uint64_t *cpus, uint64_t *mem)
{
	uint64_t tasks = k->tpn ? k->tpn : k->node_min;
	if (k->excl || k->mem_per_node == SCHED_MEM_WHOLE)
		return false;
	*cpus = tasks * k->cpt > k->min_cpus ? tasks * k->cpt : k->min_cpus;
	*mem = k->mem_per_cpu ? k->mem_per_cpu * k->cpt * tasks : k->mem_per_node;
	return true;
}

static bool is_weaker(const struct leaf_key *w, const struct leaf_key *k)
{
	uint64_t wc, wm, kc, km;
	if (w->part != k->part || w->shares != k->shares || !need_of(w, &wc, &wm) ||
	    !need_of(k, &kc, &km))
		return false;
	if (wc > kc || wm > km || w->len > k->len || w->gpus_node > k->gpus_node)
		return false;
	return !w->gpu_type || (k->gpu_type && !strcmp(w->gpu_type, k->gpu_type));
}

/* Is a stronger than b (both weaker than some class): asks more CPUs,
 * then memory, then time. */
static bool stronger(const struct leaf_key *a, const struct leaf_key *b)
{
	uint64_t ac = 0, am = 0, bc = 0, bm = 0;
	need_of(a, &ac, &am);
	need_of(b, &bc, &bm);
	if (ac != bc)
		return ac > bc;
	return am != bm ? am > bm : a->len > b->len;
}

/* Keeps w among the WEAKER strongest classes weaker than cl. */
static void note_weaker(struct pass *c, struct leaf_class *cl, const struct leaf_class *w)
{
	uint32_t i = cl->n_weaker;
	if (i == WEAKER) { /* full: w takes the weakest one's place, if stronger */
		if (!stronger(&w->key, &c->class_list[cl->weaker[WEAKER - 1]]->key))
			return;
		i = WEAKER - 1;
	} else {
		cl->n_weaker++;
	}
	for (; i > 0 && stronger(&w->key, &c->class_list[cl->weaker[i - 1]]->key); i--)
		cl->weaker[i] = cl->weaker[i - 1];
	cl->weaker[i] = w->id;
}

static void relate(struct pass *c, struct leaf_class *lc)
{
	for (uint32_t i = 0; i < c->n_classes; i++) {
		struct leaf_class *x = c->class_list[i];
		if (x == lc)
			continue;
		if (is_weaker(&x->key, &lc->key))
			note_weaker(c, lc, x);
		if (is_weaker(&lc->key, &x->key))
			note_weaker(c, x, lc);
	}
}

uint32_t leaf_class_weaker_bound(const struct pass *c, const struct shape *s,
				 uint32_t pos)
{
	const struct leaf_class *cl = c->class_list[s->lc];
	uint32_t b = 0;
	for (uint32_t i = 0; i < cl->n_weaker; i++) {
		const uint32_t *first = c->class_list[cl->weaker[i]]->first;
		if (first && first[pos] > b)
			b = first[pos];
	}
	return b;
}

/* --- classes ------------------------------------------------------------------ */

int leaf_class_of(struct pass *c, struct shape *s)
{
	struct leaf_key k = key_of(s);
	uint64_t h = key_hash(&k);
	if (!c->classes) {
		c->classes = calloc(1024, sizeof(*c->classes));
		if (!c->classes)
			return -ENOMEM;
	}
	struct leaf_class **slot = &c->classes[h % 1024];
	for (struct leaf_class *lc = *slot; lc; lc = lc->next)
		if (same_key(&lc->key, &k)) {
			s->lc = lc->id;
			return 0;
		}
	struct leaf_class *lc = arena_alloc(&c->arena, sizeof(*lc));
	if (!lc)
		return -ENOMEM;
	if (c->n_classes == c->cap_classes) {
		uint32_t cap = c->cap_classes ? c->cap_classes * 2 : 64;
		struct leaf_class **v = realloc(c->class_list, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->class_list = v;
		c->cap_classes = cap;
	}
	lc->key = k;
	lc->id = c->n_classes;
	lc->m = s->m;
	c->class_list[c->n_classes++] = lc;
	lc->next = *slot;
	*slot = lc;
	s->lc = lc->id;
	relate(c, lc);
	return 0;
}

/* An entry that says "fits at t", made at an older version of the node:
 * still true when what was added since over the window took no more than
 * the node had to spare (what is added elsewhere in time changes
 * nothing); the spare shrinks by it and the task count is asked again. */
static bool still_fits(struct pass *c, const struct shape *s, uint32_t node,
		       struct leaf_entry *e, struct spare *sp, uint32_t version)
{
	struct spare add;
	uint32_t n;
	bool excl;
	prof_added(&c->prof, node, e->version, c->prof.now + e->at, s->len, &add, &n,
		   &excl);
	e->version = version;
	if (!n)
		return true;
	if (excl || s->view.excl || add.cpus > sp->cpus || add.mem > sp->mem ||
	    add.gpus > sp->gpus) {
		e->state = LEAF_BOUND; /* it does not fit before at: still true */
		return false;
	}
	sp->cpus -= add.cpus;
	sp->gpus -= add.gpus;
	sp->mem -= sp->mem == UINT32_MAX ? 0 : add.mem;
	e->cap = 0;
	return true;
}

/* An entry from `from` holds for any t in [from, at): what is added only
 * delays a fit; at `at` itself only when it fits and still does. */
uint32_t leaf_cache_ask(struct pass *c, const struct shape *s, uint32_t pos, uint32_t t,
			uint32_t *cap)
{
	struct leaf_class *cl = c->class_list[s->lc];
	struct leaf_entry *e = cl->node ? &cl->node[pos] : NULL;
	if (cl->first && cl->first[pos] > t)
		return cl->first[pos]; /* a bound from now */
	if (!e || e->state == LEAF_EMPTY || e->from > t || t > e->at)
		return LEAF_UNKNOWN;
	if (t < e->at)
		return e->at;
	uint32_t node = s->order[pos], version = c->prof.np[node].version;
	if (e->state != LEAF_FITS ||
	    (e->version != version &&
	     !still_fits(c, s, node, e, &cl->spare[pos], version)))
		return LEAF_UNKNOWN;
	*cap = e->cap;
	return t;
}

void leaf_cache_prefetch(const struct pass *c, const struct shape *s, uint32_t pos)
{
	const struct leaf_class *cl = c->class_list[s->lc];
	if (cl->first)
		__builtin_prefetch(&cl->first[pos]);
	if (cl->node)
		__builtin_prefetch(&cl->node[pos]);
	for (uint32_t i = 0; i < cl->n_weaker; i++) { /* most asks go on to them */
		const uint32_t *first = c->class_list[cl->weaker[i]]->first;
		if (first)
			__builtin_prefetch(&first[pos]);
	}
}

void leaf_cache_put(struct pass *c, const struct shape *s, uint32_t pos,
		    const struct leaf_entry *in, const struct spare *spare)
{
	struct leaf_class *cl = c->class_list[s->lc];
	if (!cl->node) { /* calloc: untouched pages cost nothing */
		cl->node = calloc(cl->m + 1, sizeof(*cl->node));
		cl->spare = malloc((cl->m + 1) * sizeof(*cl->spare));
		if (!cl->spare) {
			free(cl->node);
			cl->node = NULL;
		}
	}
	if (!cl->node) /* else only slower */
		return;
	cl->node[pos] = *in;
	if (in->state == LEAF_FITS)
		cl->spare[pos] = *spare;
}

/* Nothing but the class decides whether a node may serve a shape without
 * -x, --tmp or -C, and its first bound. */
static bool plain(const struct shape *s)
{
	const struct sched_req *r = s->req;
	return !r->n_exc_nodes && !r->min_tmp && !r->constraint;
}

/* The first leaves of a class as its first shape finds them (bounds
 * from what nodes hold now), or as a class that differs from it only by
 * the time limit found them earlier (they do not depend on it, and what
 * was so then is still a bound). */
static const uint32_t *first_made(struct pass *c, const struct shape *s,
				  struct leaf_class *cl)
{
	for (uint32_t k = 0; k < c->n_classes; k++) {
		const struct leaf_class *x = c->class_list[k];
		struct leaf_key a = x->key, b = cl->key;
		a.len = b.len = 0;
		if (x->init && same_key(&a, &b))
			return x->init;
	}
	cl->init = malloc((cl->m + 1) * sizeof(*cl->init));
	for (uint32_t i = 0; cl->init && i < cl->m; i++) {
		struct node_need need;
		uint32_t node = s->order[i];
		cl->init[i] = REL_INF;
		if (!place_node_allowed(c, s, node, -2))
			continue;
		place_node_need(c, s, node, &need);
		cl->init[i] = prof_bound_now(&c->prof, node, &need);
	}
	return cl->init;
}

uint32_t *leaf_class_first(struct pass *c, const struct shape *s)
{
	struct leaf_class *cl = c->class_list[s->lc];
	if (!plain(s))
		return NULL;
	if (cl->first)
		return cl->first;
	const uint32_t *init = first_made(c, s, cl);
	/* by blocks of 16 (mintree_raise_all reads whole ones); past m, 0 */
	cl->first = init ? calloc((cl->m + 15) / 16 * 16 + 16, sizeof(*cl->first)) : NULL;
	if (!cl->first)
		return NULL;
	memcpy(cl->first, init, cl->m * sizeof(*cl->first));
	for (uint32_t i = 0; i < cl->m; i++)
		cl->n_never += cl->first[i] == REL_INF;
	return cl->first;
}

void leaf_class_learn(struct pass *c, const struct shape *s, uint32_t pos, uint32_t at)
{
	struct leaf_class *cl = c->class_list[s->lc];
	if (!cl->first || at <= cl->first[pos])
		return;
	cl->n_never += at == REL_INF;
	cl->first[pos] = at;
	cl->learnt++;
}

/* The class's bounds from now hold for any time a shape tries: a shape
 * whose class learnt much since it last looked (a quarter of its nodes'
 * worth) takes them all at once, far cheaper than meeting them one by one
 * in its searches. */
void leaf_refresh(struct pass *c, struct shape *s)
{
	const struct leaf_class *cl = c->class_list[s->lc];
	if (!cl->first || (cl->learnt - s->seen) * 16 < s->m)
		return;
	s->seen = cl->learnt;
	mintree_raise_all(&s->tree, cl->first);
}

uint32_t leaf_class_bound(const struct pass *c, const struct shape *s, uint32_t pos)
{
	const struct leaf_class *cl = c->class_list[s->lc];
	return cl->first ? cl->first[pos] : 0;
}

bool leaf_class_bound_kept(const struct pass *c, const struct shape *s)
{
	return c->class_list[s->lc]->first != NULL;
}

bool leaf_class_never(const struct pass *c, const struct shape *s)
{
	const struct leaf_class *cl = c->class_list[s->lc];
	return cl->first && cl->n_never == cl->m;
}

void leaf_classes_free(struct pass *c)
{
	for (uint32_t i = 0; i < c->n_classes; i++) {
		free(c->class_list[i]->node);
		free(c->class_list[i]->spare);
		free(c->class_list[i]->first);
		free(c->class_list[i]->init);
	}
	free(c->class_list);
	free(c->classes);
}
