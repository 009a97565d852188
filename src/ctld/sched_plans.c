/* sched_plans.c — the plans a backfill pass leaves: deep copies of the
 * starts it planned (when, where, how much), which the quick passes after
 * it honour until the next backfill pass replaces them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/sched_snap.h"

void sched_plans_clear(struct sched_plans *p)
{
	free(p->v);
	free(p->allocs);
	free(p->words);
	free(p->units);
	memset(p, 0, sizeof(*p));
}

static bool is_plan(const struct sched_decision *d)
{
	return d->verdict == SCHED_WAIT && d->start > 0 && d->alloc_n > 0;
}

/* What the plans of r need: plans, allocations, CPU words, GPU units. */
static void count(const struct sched_snapshot *snap, const struct sched_result *r,
		  size_t *n, size_t *allocs, size_t *words, size_t *units)
{
	*n = *allocs = *words = *units = 0;
	for (uint32_t i = 0; i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		if (!is_plan(d))
			continue;
		(*n)++;
		*allocs += d->alloc_n;
		for (uint32_t k = 0; k < d->alloc_n; k++) {
			const struct sched_node *nd =
			    &snap->nodes[r->allocs[d->alloc_off + k].node];
			*words += SCHED_WORDS(nd->n_cpus);
			*units += nd->n_gpus;
		}
	}
}

/* Copies one allocation, its CPU set and GPU units into the pools. */
static struct sched_alloc copy_alloc(const struct sched_snapshot *snap,
				     const struct sched_alloc *a, uint64_t **words,
				     uint32_t **units)
{
	const struct sched_node *nd = &snap->nodes[a->node];
	struct sched_alloc out = *a;
	if (a->cpu_ids) {
		memcpy(*words, a->cpu_ids, SCHED_WORDS(nd->n_cpus) * sizeof(uint64_t));
		out.cpu_ids = *words;
		*words += SCHED_WORDS(nd->n_cpus);
	}
	if (a->gpu_units) {
		memcpy(*units, a->gpu_units, nd->n_gpus * sizeof(uint32_t));
		out.gpu_units = *units;
		*units += nd->n_gpus;
	}
	return out;
}

int sched_plans_set(struct sched_plans *p, const struct sched_snapshot *snap,
		    const struct sched_result *r)
{
	sched_plans_clear(p);
	size_t n, allocs, words, units;
	count(snap, r, &n, &allocs, &words, &units);
	p->v = calloc(n + 1, sizeof(*p->v));
	p->allocs = calloc(allocs + 1, sizeof(*p->allocs));
	p->words = calloc(words + 1, sizeof(*p->words));
	p->units = calloc(units + 1, sizeof(*p->units));
	if (!p->v || !p->allocs || !p->words || !p->units) {
		sched_plans_clear(p);
		return -ENOMEM;
	}
	uint64_t *w = p->words;
	uint32_t *u = p->units;
	struct sched_alloc *a = p->allocs;
	for (uint32_t i = 0; i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		if (!is_plan(d))
			continue;
		int64_t end =
		    d->time_limit == SCHED_NEVER || d->start > SCHED_NEVER - d->time_limit
			? SCHED_NEVER
			: d->start + d->time_limit;
		p->v[p->n++] = (struct sched_plan){.job_id = d->job_id,
						   .part = d->part,
						   .start = d->start,
						   .end = end,
						   .alloc = a,
						   .n_alloc = d->alloc_n};
		for (uint32_t k = 0; k < d->alloc_n; k++)
			*a++ = copy_alloc(snap, &r->allocs[d->alloc_off + k], &w, &u);
	}
	return 0;
}
