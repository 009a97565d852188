/* digest.c — a digest of what a pass decided (FNV-1a over each decision
 * and its allocations, CPU ids and GPU units included): equal digests mean
 * the same decisions, so a faster scheduler can be checked against an
 * older one on the same queue (bench/sched-scale, test_sched_prop). */
#include "sched/sched.h"

uint64_t sched_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

uint64_t sched_result_digest(const struct sched_node *nodes, const struct sched_result *r)
{
	uint64_t h = SCHED_FNV1A_BASIS;
	for (uint32_t i = 0; i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		uint64_t v[] = {d->index,
				d->job_id,
				d->verdict,
				d->reason,
				d->part,
				(uint64_t)d->start,
				(uint64_t)d->time_limit,
				d->alloc_n,
				d->lacks};
		h = sched_fnv1a(h, v, sizeof(v));
		for (uint32_t k = 0; k < d->alloc_n; k++) {
			const struct sched_alloc *a = &r->allocs[d->alloc_off + k];
			const struct sched_node *n = &nodes[a->node];
			uint64_t u[] = {a->node, a->cpus, a->tasks, a->mem};
			h = sched_fnv1a(h, u, sizeof(u));
			h = sched_fnv1a(h, a->cpu_ids,
					SCHED_WORDS(n->n_cpus) * sizeof(uint64_t));
			if (a->gpu_units)
				h = sched_fnv1a(h, a->gpu_units,
						n->n_gpus * sizeof(uint32_t));
		}
	}
	return h;
}
