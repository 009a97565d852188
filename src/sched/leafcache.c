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

struct leaf_class {
	struct leaf_key key;
	uint32_t id;
	struct leaf_entry *node; /* n_nodes, calloc'ed when first needed */
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
	c->class_list[c->n_classes++] = lc;
	lc->next = *slot;
	*slot = lc;
	s->lc = lc->id;
	return 0;
}

/* What node is known to give class lc from t on. An entry made before
 * the node changed still holds when it says "not before at" (what is added
 * only delays), or when it says "fits at at" and nothing added since
 * touches that window. */
const struct leaf_entry *leaf_cache_get(const struct pass *c, uint32_t node, uint32_t lc,
					uint32_t t)
{
	struct leaf_class *cl = c->class_list[lc];
	if (!cl->node)
		return NULL;
	struct leaf_entry *e = &cl->node[node];
	uint32_t version = c->prof.np[node].version, n;
	if (!e->lc || e->from > t || t > e->at)
		return NULL;
	if (e->version != version && e->fits) {
		struct spare added;
		bool excl;
		prof_added(&c->prof, node, e->version, c->prof.now + e->at, cl->key.len,
			   &added, &n, &excl);
		if (n)
			return NULL;
	}
	e->version = version;
	return e;
}

void leaf_cache_put(struct pass *c, uint32_t node, const struct leaf_entry *in)
{
	struct leaf_class *lc = c->class_list[in->lc - 1];
	if (!lc->node) /* calloc: untouched pages cost nothing */
		lc->node = calloc(c->prof.n_nodes + 1, sizeof(*lc->node));
	if (lc->node) /* else only slower */
		lc->node[node] = *in;
}

void leaf_classes_free(struct pass *c)
{
	for (uint32_t i = 0; i < c->n_classes; i++)
		free(c->class_list[i]->node);
	free(c->class_list);
	free(c->classes);
}
