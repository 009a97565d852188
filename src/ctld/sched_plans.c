/* sched_plans.c — the plans a backfill pass leaves: deep copies of the
 * starts it planned (when, where, how much), which the quick passes after
 * it honour until the next backfill pass replaces them. A pass that went
 * on where the last one stopped (bf_continue) decided only the jobs after
 * that point: the plans of the jobs before it are kept. */
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

static int64_t plan_end(const struct sched_decision *d)
{
	if (d->time_limit == SCHED_NEVER || d->start > SCHED_NEVER - d->time_limit)
		return SCHED_NEVER;
	return d->start + d->time_limit;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The plans to keep: r's, then those of old whose job r did not decide
 * (NULL when none is kept). A new array of *n plans that borrow their
 * allocations from r and old; NULL with *n 0 when out of memory. */
static struct sched_plan *gather(const struct sched_result *r,
				 const struct sched_plans *old, size_t *n)
{
	uint32_t *decided = calloc(r->n_decisions + 1, sizeof(*decided));
	struct sched_plan *v =
	    calloc(r->n_decisions + (old ? old->n : 0) + 1, sizeof(*v));
	*n = 0;
	if (!decided || !v) {
		free(decided);
		free(v);
		return NULL;
	}
	for (uint32_t i = 0; i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		decided[i] = d->job_id;
		if (is_plan(d))
			v[(*n)++] = (struct sched_plan){.job_id = d->job_id,
							.part = d->part,
							.start = d->start,
							.end = plan_end(d),
							.alloc = &r->allocs[d->alloc_off],
							.n_alloc = d->alloc_n};
	}
	qsort(decided, r->n_decisions, sizeof(*decided), by_u32);
	for (uint32_t i = 0; old && i < old->n; i++)
		if (!bsearch(&old->v[i].job_id, decided, r->n_decisions, sizeof(*decided),
			     by_u32))
			v[(*n)++] = old->v[i];
	free(decided);
	return v;
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

/* Deep copies of the n plans of v into p (empty). */
static int copy_plans(struct sched_plans *p, const struct sched_snapshot *snap,
		      const struct sched_plan *v, size_t n)
{
	size_t allocs = 0, words = 0, units = 0;
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < v[i].n_alloc; k++) {
			const struct sched_node *nd = &snap->nodes[v[i].alloc[k].node];
			allocs++;
			words += SCHED_WORDS(nd->n_cpus);
			units += nd->n_gpus;
		}
	p->v = calloc(n + 1, sizeof(*p->v));
	p->allocs = calloc(allocs + 1, sizeof(*p->allocs));
	p->words = calloc(words + 1, sizeof(*p->words));
	p->units = calloc(units + 1, sizeof(*p->units));
	if (!p->v || !p->allocs || !p->words || !p->units)
		return -ENOMEM;
	uint64_t *w = p->words;
	uint32_t *u = p->units;
	struct sched_alloc *a = p->allocs;
	for (size_t i = 0; i < n; i++) {
		p->v[p->n] = v[i];
		p->v[p->n++].alloc = a;
		for (uint32_t k = 0; k < v[i].n_alloc; k++)
			*a++ = copy_alloc(snap, &v[i].alloc[k], &w, &u);
	}
	return 0;
}

int sched_plans_set(struct sched_plans *p, const struct sched_snapshot *snap,
		    const struct sched_result *r, bool resumed)
{
	size_t n;
	struct sched_plan *v = gather(r, resumed ? p : NULL, &n);
	struct sched_plans fresh = {0};
	int rc = v ? copy_plans(&fresh, snap, v, n) : -ENOMEM;
	free(v);
	sched_plans_clear(p);
	if (rc < 0)
		sched_plans_clear(&fresh);
	else
		*p = fresh;
	return rc;
}
