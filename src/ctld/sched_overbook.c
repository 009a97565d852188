/* sched_overbook.c — running jobs that hold more than the snapshot says
 * there is. An admin can make that true while jobs run: a partition
 * changed from OverSubscribe=FORCE to NO under jobs sharing a CPU, a node's
 * CPUs or RealMemory lowered, Licenses= lowered, across a restart. The
 * scheduler refuses a snapshot whose running jobs overbook a node, so that
 * one node would stop every start; instead such a node takes no new work
 * until what overbooks it ends (it is given as not up, the allocation that
 * overbooks it as holding nothing more), a node's memory as what is held,
 * and a license's total as what is used. */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/sched_snap.h"

/* Whether running job r shares its CPUs (as the scheduler reads it from
 * its partition and -s). */
static bool shares(const struct snap *s, const struct sched_running *r)
{
	if (r->part >= s->s.n_parts || r->exclusive)
		return false;
	const struct sched_part *p = &s->parts[r->part];
	return p->oversubscribe == SCHED_OS_FORCE ||
	       (p->oversubscribe == SCHED_OS_YES && r->oversubscribe);
}

/* What one node's running allocations hold so far. */
struct held {
	uint64_t *alone, *any; /* CPU ids held by one that does not share, by any */
	uint32_t *units;       /* GPU units per device */
	uint64_t mem;
};

/* Adds a to what node n holds; false (a left out) when it overbooks it. */
static bool take(const struct sched_node *n, struct held *h, const struct sched_alloc *a,
		 bool share)
{
	uint32_t words = SCHED_WORDS(n->n_cpus), count = 0;
	for (uint32_t w = 0; a->cpu_ids && w < words; w++) {
		uint64_t b = a->cpu_ids[w];
		if ((b & h->alone[w]) || (!share && (b & h->any[w])))
			return false;
		count += (uint32_t)__builtin_popcountll(b);
	}
	if (count != a->cpus ||
	    (a->cpu_ids && n->n_cpus % 64 && a->cpu_ids[words - 1] >> (n->n_cpus % 64)))
		return false; /* CPU ids past the node's, or missing */
	for (uint32_t d = 0; a->gpu_units && d < n->n_gpus; d++)
		if (h->units[d] + a->gpu_units[d] > n->gpus[d].capacity)
			return false;
	for (uint32_t w = 0; a->cpu_ids && w < words; w++) {
		h->any[w] |= a->cpu_ids[w];
		if (!share)
			h->alone[w] |= a->cpu_ids[w];
	}
	for (uint32_t d = 0; a->gpu_units && d < n->n_gpus; d++)
		h->units[d] += a->gpu_units[d];
	h->mem += a->mem;
	return true;
}

/* One allocation of a running job: s->running[run].alloc[k]. */
struct ref {
	uint32_t run, k;
};

static void check_node(struct ctld *c, struct snap *s, uint32_t node,
		       const struct ref *refs, size_t n_refs, struct held *h)
{
	struct sched_node *n = &s->nodes[node];
	size_t words = SCHED_WORDS(n->n_cpus);
	memset(h->alone, 0, words * sizeof(uint64_t));
	memset(h->any, 0, words * sizeof(uint64_t));
	memset(h->units, 0, n->n_gpus * sizeof(uint32_t));
	h->mem = 0;
	for (size_t i = 0; i < n_refs; i++) {
		const struct sched_running *r = &s->running[refs[i].run];
		/* the snapshot's own copy, not the job's */
		struct sched_alloc *a =
		    &s->run_allocs[(r->alloc - s->run_allocs) + refs[i].k];
		if (take(n, h, a, shares(s, r)))
			continue;
		log_debug("node=%s job=%u overbooks the node: it takes no new work",
			  c->nodes.names[node], r->job_id);
		*a = (struct sched_alloc){.node = node, .tasks = a->tasks};
		n->up = false;
	}
	if (n->mem && h->mem > n->mem)
		n->mem = h->mem; /* nothing more for a job that needs memory */
}

/* The running allocations by node (a counting sort): refs, and each node's
 * start in it (first, n_nodes + 1 entries). */
static struct ref *by_node(const struct snap *s, size_t **first)
{
	size_t total = 0;
	for (uint32_t i = 0; i < s->s.n_running; i++)
		total += s->running[i].n_alloc;
	struct ref *refs = calloc(total + 1, sizeof(*refs));
	size_t *at = calloc(s->s.n_nodes + 2, sizeof(*at));
	if (!refs || !at) {
		free(refs);
		free(at);
		return NULL;
	}
	for (uint32_t i = 0; i < s->s.n_running; i++)
		for (uint32_t k = 0; k < s->running[i].n_alloc; k++)
			at[s->running[i].alloc[k].node + 1]++;
	for (uint32_t i = 0; i < s->s.n_nodes; i++)
		at[i + 1] += at[i];
	size_t *next = calloc(s->s.n_nodes + 1, sizeof(*next));
	if (!next) {
		free(refs);
		free(at);
		return NULL;
	}
	memcpy(next, at, s->s.n_nodes * sizeof(*next));
	for (uint32_t i = 0; i < s->s.n_running; i++)
		for (uint32_t k = 0; k < s->running[i].n_alloc; k++)
			refs[next[s->running[i].alloc[k].node]++] = (struct ref){i, k};
	free(next);
	*first = at;
	return refs;
}

/* A license's total is at least what the running jobs use. */
static void licenses(struct snap *s)
{
	for (uint32_t l = 0; l < s->s.n_lics; l++) {
		uint64_t used = 0;
		for (uint32_t i = 0; i < s->s.n_running; i++)
			for (uint32_t k = 0; k < s->running[i].n_lics; k++)
				if (s->running[i].lics[k].lic == l)
					used += s->running[i].lics[k].count;
		if (used > s->lics[l].total)
			s->lics[l].total =
			    used > UINT32_MAX ? UINT32_MAX : (uint32_t)used;
	}
}

void snap_overbooked(struct ctld *c, struct snap *s)
{
	uint32_t max_words = 1, max_gpus = 1;
	for (uint32_t i = 0; i < s->s.n_nodes; i++) {
		if (SCHED_WORDS(s->nodes[i].n_cpus) > max_words)
			max_words = SCHED_WORDS(s->nodes[i].n_cpus);
		if (s->nodes[i].n_gpus > max_gpus)
			max_gpus = s->nodes[i].n_gpus;
	}
	size_t *first = NULL;
	struct ref *refs = by_node(s, &first);
	struct held h = {calloc(max_words, sizeof(uint64_t)),
			 calloc(max_words, sizeof(uint64_t)),
			 calloc(max_gpus, sizeof(uint32_t)), 0};
	for (uint32_t i = 0; refs && h.alone && h.any && h.units && i < s->s.n_nodes; i++)
		if (first[i + 1] > first[i])
			check_node(c, s, i, &refs[first[i]], first[i + 1] - first[i], &h);
	free(h.alone);
	free(h.any);
	free(h.units);
	free(refs);
	free(first);
	licenses(s);
}
