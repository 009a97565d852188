/* profile_build.c — the profile of what runs, built at once: each running
 * job's hold on each of its nodes from now to its expected end (a job past
 * it holds what it has until a second from now), the steps of what each
 * node holds over time made in one sweep of its ends, and the check that
 * nothing holds more than its node has (a malformed snapshot). Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* Checks one running allocation against its node: CPU ids inside it and
 * counted right, GPU units within each device. */
static int check_alloc(const struct sched_node *n, const struct sched_alloc *a)
{
	uint32_t words = SCHED_WORDS(n->n_cpus), count = 0;
	if (a->cpus && !a->cpu_ids)
		return -EINVAL;
	for (uint32_t w = 0; a->cpu_ids && w < words; w++)
		count += sched_popcount64(a->cpu_ids[w]);
	if (a->cpu_ids && n->n_cpus % 64 && a->cpu_ids[words - 1] >> (n->n_cpus % 64))
		return -EINVAL;
	if (count != a->cpus)
		return -EINVAL;
	for (uint32_t d = 0; a->gpu_units && d < n->n_gpus; d++)
		if (a->gpu_units[d] > n->gpus[d].capacity)
			return -EINVAL;
	return 0;
}

/* Nothing running may hold more than a node has at this instant: CPU ids
 * held twice unless both holders share, memory, GPU units. */
static int check_node_use(struct prof *p, uint32_t node, uint64_t *acc, uint32_t *units)
{
	const struct sched_node *n = &p->nodes[node];
	const struct node_prof *np = &p->np[node];
	uint32_t words = SCHED_WORDS(n->n_cpus);
	uint64_t *any = acc, *alone = acc + words, mem = 0;
	memset(acc, 0, 2 * words * sizeof(*acc));
	memset(units, 0, n->n_gpus * sizeof(*units));
	for (uint32_t i = 0; i < np->n; i++) {
		const struct resv *r = &np->r[i];
		for (uint32_t w = 0; r->cpu_ids && w < words; w++) {
			uint64_t b = r->cpu_ids[w];
			if ((b & alone[w]) || (!r->shares && (b & any[w])))
				return -EINVAL;
			any[w] |= b;
			if (!r->shares)
				alone[w] |= b;
		}
		mem += r->mem;
		for (uint32_t d = 0; r->gpu_units && d < n->n_gpus; d++)
			if ((units[d] += r->gpu_units[d]) > n->gpus[d].capacity)
				return -EINVAL;
	}
	return n->mem && mem > n->mem ? -EINVAL : 0;
}

void prof_view(const struct sched_snapshot *s, uint32_t part, bool exclusive,
	       bool oversubscribe, struct job_view *v)
{
	const struct sched_part *p = part < s->n_parts ? &s->parts[part] : NULL;
	bool excl = exclusive || (p && p->oversubscribe == SCHED_OS_EXCLUSIVE);
	*v = (struct job_view){
	    .part = part,
	    .part_mcpn = p ? p->max_cpus_per_node : 0,
	    .share_max = p && p->oversubscribe_max ? p->oversubscribe_max : 1,
	    .shares = p && !excl &&
		      (p->oversubscribe == SCHED_OS_FORCE ||
		       (p->oversubscribe == SCHED_OS_YES && oversubscribe)),
	    .excl = excl,
	};
}

static int check_use(struct prof *p)
{
	uint64_t *acc = calloc(2 * (size_t)p->max_words, sizeof(*acc));
	uint32_t *units = calloc(p->max_gpus, sizeof(*units));
	int rc = acc && units ? 0 : -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < p->n_nodes; i++)
		rc = check_node_use(p, i, acc, units);
	for (uint32_t k = 0; rc == 0 && k < p->n_lics; k++)
		for (uint32_t i = 0; i < p->lp[k].n; i++)
			if (p->lp[k].s[i].used > p->lics[k].total)
				rc = -EINVAL;
	free(acc);
	free(units);
	return rc;
}

static int resv_by_end(const void *a, const void *b)
{
	const struct resv *x = a, *y = b;
	return x->end < y->end ? -1 : x->end > y->end;
}

static uint32_t devices_of(const struct prof *p, uint32_t node, const struct resv *r)
{
	uint32_t k = 0;
	for (uint32_t d = 0; r->gpu_units && d < p->nodes[node].n_gpus; d++)
		k += r->gpu_units[d] != 0;
	return k;
}

/* CPUs held alone: two sharing holders of one CPU would count it twice,
 * and the counts must never say less is free. */
static uint32_t cpus_alone(const struct resv *r)
{
	return r->shares ? 0 : r->cpus;
}

/* Steps of what np's reservations (all from now, sorted by end) hold: all
 * of it from now, less each one as it ends. */
static int sweep_use(struct prof *p, uint32_t node)
{
	struct node_prof *np = &p->np[node];
	struct nsteps *s = &np->use;
	struct nstep all = {p->now, 0, 0, 0};
	for (uint32_t i = 0; i < np->n; i++) {
		all.mem += np->r[i].mem;
		all.cpus += cpus_alone(&np->r[i]);
		all.gpus += devices_of(p, node, &np->r[i]);
	}
	np->mem_now = all.mem;
	np->cpus_now = all.cpus;
	np->gpus_now = all.gpus;
	if (!all.mem && !all.cpus && !all.gpus)
		return 0;
	s->s = arena_alloc(&p->arena, (np->n + 2) * sizeof(*s->s));
	if (!s->s)
		return -ENOMEM;
	s->cap = np->n + 2;
	s->borrowed = true;
	s->s[0] = (struct nstep){INT64_MIN, 0, 0, 0};
	s->s[1] = all;
	s->n = 2;
	for (uint32_t i = 0; i < np->n; i++) {
		all.mem -= np->r[i].mem;
		all.cpus -= cpus_alone(&np->r[i]);
		all.gpus -= devices_of(p, node, &np->r[i]);
		if (i + 1 < np->n && np->r[i + 1].end == np->r[i].end)
			continue;
		all.t = np->r[i].end;
		s->s[s->n++] = all;
	}
	return 0;
}

/* Steps of the CPUs part's jobs hold on node (MaxCPUsPerNode), as above. */
static int sweep_part(struct prof *p, uint32_t node, struct steps *s, uint32_t part)
{
	const struct node_prof *np = &p->np[node];
	uint64_t left = 0;
	for (uint32_t i = 0; i < np->n; i++)
		left += np->r[i].part == part ? np->r[i].cpus : 0;
	if (!left)
		return 0;
	s->s = arena_alloc(&p->arena, (np->n + 2) * sizeof(*s->s));
	if (!s->s)
		return -ENOMEM;
	s->cap = np->n + 2;
	s->borrowed = true;
	s->s[0] = (struct step){INT64_MIN, 0};
	s->s[1] = (struct step){p->now, left};
	s->n = 2;
	for (uint32_t i = 0; i < np->n; i++) {
		left -= np->r[i].part == part ? np->r[i].cpus : 0;
		if (i + 1 < np->n && np->r[i + 1].end == np->r[i].end)
			continue;
		s->s[s->n++] = (struct step){np->r[i].end, left};
	}
	return 0;
}

/* A node's reservations sorted, its steps and counts made. */
/* A node holds a few jobs: sorting them in place beats qsort's calls. */
static void sort_by_end(struct resv *r, uint32_t n)
{
	if (n > 16) {
		qsort(r, n, sizeof(*r), resv_by_end);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct resv x = r[i];
		uint32_t j = i;
		for (; j > 0 && r[j - 1].end > x.end; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

/* Does something on the node count against partition k's MaxCPUsPerNode? */
static bool holds_part(const struct node_prof *np, uint32_t k)
{
	for (uint32_t i = 0; i < np->n; i++)
		if (np->r[i].part == k)
			return true;
	return false;
}

static int finish_node(struct prof *p, uint32_t node)
{
	struct node_prof *np = &p->np[node];
	sort_by_end(np->r, np->n);
	for (uint32_t i = 0; i < np->n; i++)
		prof_mark_end(p, np->r[i].end);
	if (sweep_use(p, node) < 0)
		return -ENOMEM;
	np->first_end = np->n ? np->r[0].end : INT64_MAX;
	for (uint32_t k = 0; k < p->n_parts; k++) {
		uint32_t slot = p->mcpn_slot[k];
		if (slot == UINT32_MAX || !holds_part(np, k))
			continue;
		if (!np->part_cpus) /* freed by prof_fini: heap, as prof_add's */
			np->part_cpus = calloc(p->n_mcpn, sizeof(*np->part_cpus));
		if (!np->part_cpus || sweep_part(p, node, &np->part_cpus[slot], k) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Puts job j's holds in the nodes' arrays (room made by the caller). */
static int place_running(struct prof *p, const struct sched_snapshot *s,
			 const struct sched_running *j)
{
	struct job_view v;
	prof_view(s, j->part, j->exclusive, j->oversubscribe, &v);
	/* past its expected end but not gone yet: it holds what it has now */
	int64_t end = j->end > s->now ? j->end : s->now + 1;
	for (uint32_t i = 0; i < j->n_alloc; i++) {
		const struct sched_alloc *a = &j->alloc[i];
		if (check_alloc(&s->nodes[a->node], a) < 0)
			return -EINVAL;
		struct node_prof *np = &p->np[a->node];
		np->r[np->n++] = (struct resv){
		    .start = s->now,
		    .end = end,
		    .mem = a->mem,
		    .cpu_ids = a->cpu_ids,
		    .gpu_units = a->gpu_units,
		    .cpus = a->cpus,
		    .part = j->part,
		    .share_max = v.share_max,
		    .shares = v.shares,
		    .excl = v.excl,
		    .version = 1,
		};
		resv_masks(&s->nodes[a->node], &np->r[np->n - 1]);
	}
	for (uint32_t k = 0; k < j->n_lics; k++)
		if (!j->lics || j->lics[k].lic >= s->n_lics)
			return -EINVAL;
	return prof_add_lics(p, j->lics, j->n_lics, s->now, end);
}

/* Room in each node's array for what runs there. */
static int make_room(struct prof *p, const struct sched_snapshot *s)
{
	for (uint32_t i = 0; i < s->n_running; i++) {
		const struct sched_running *j = &s->running[i];
		if (j->n_alloc && !j->alloc)
			return -EINVAL;
		for (uint32_t k = 0; k < j->n_alloc; k++) {
			if (j->alloc[k].node >= s->n_nodes)
				return -EINVAL;
			p->np[j->alloc[k].node].cap++;
		}
	}
	for (uint32_t i = 0; i < p->n_nodes; i++) {
		struct node_prof *np = &p->np[i];
		if (!np->cap)
			continue;
		np->r = arena_alloc(&p->arena, np->cap * sizeof(*np->r));
		if (!np->r)
			return -ENOMEM;
		np->r_borrowed = true;
	}
	return 0;
}

int prof_build_running(struct prof *p, const struct sched_snapshot *snap)
{
	int rc = make_room(p, snap);
	for (uint32_t i = 0; rc == 0 && i < snap->n_running; i++)
		rc = place_running(p, snap, &snap->running[i]);
	for (uint32_t i = 0; rc == 0 && i < p->n_nodes; i++)
		rc = finish_node(p, i);
	return rc == 0 ? check_use(p) : rc;
}
