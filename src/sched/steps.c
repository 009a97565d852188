/* steps.c — an amount in use over time, as steps: from each step's time to
 * the next one's, this much is held. Licenses, a node's memory and the
 * CPUs a partition holds on a node (MaxCPUsPerNode) are kept this way, so
 * the peak over a window is one scan of the steps it covers. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

int steps_init(struct steps *s)
{
	s->s = malloc(4 * sizeof(*s->s));
	if (!s->s)
		return -ENOMEM;
	s->s[0] = (struct step){INT64_MIN, 0};
	s->n = 1;
	s->cap = 4;
	return 0;
}

void steps_fini(struct steps *s)
{
	if (!s->borrowed)
		free(s->s);
	memset(s, 0, sizeof(*s));
}

/* Room for one more of n elements of size at *v (capacity *cap, doubled):
 * an array in an arena (*borrowed) is copied out to one of its own. 0 or
 * -ENOMEM, *v unchanged then. */
static int grow(void **v, uint32_t n, uint32_t *cap, bool *borrowed, size_t size)
{
	if (n < *cap)
		return 0;
	uint32_t c = *cap * 2;
	void *g = *borrowed ? malloc(c * size) : realloc(*v, c * size);
	if (!g)
		return -ENOMEM;
	if (*borrowed)
		memcpy(g, *v, n * size);
	*v = g;
	*cap = c;
	*borrowed = false;
	return 0;
}

/* The index of the step that holds time t. */
static uint32_t step_at(const struct steps *s, int64_t t)
{
	uint32_t lo = 0, hi = s->n;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (s->s[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Makes a step begin at t; its index, or -ENOMEM. */
static int64_t split_at(struct steps *s, int64_t t)
{
	uint32_t i = step_at(s, t);
	if (s->s[i].t == t)
		return i;
	void *v = s->s;
	if (grow(&v, s->n, &s->cap, &s->borrowed, sizeof(*s->s)) < 0)
		return -ENOMEM;
	s->s = v;
	memmove(&s->s[i + 2], &s->s[i + 1], (s->n - i - 1) * sizeof(*s->s));
	s->s[i + 1] = (struct step){t, s->s[i].used};
	s->n++;
	return i + 1;
}

int steps_add(struct steps *s, int64_t start, int64_t end, uint64_t amount)
{
	if (!s->s && steps_init(s) < 0)
		return -ENOMEM;
	if (!amount || start >= end)
		return 0;
	int64_t a = split_at(s, start);
	int64_t b = end == INT64_MAX ? (int64_t)s->n : split_at(s, end);
	if (a < 0 || b < 0)
		return -ENOMEM;
	for (int64_t i = a; i < b; i++)
		s->s[i].used += amount;
	return 0;
}

uint64_t steps_max(const struct steps *s, int64_t t, int64_t end)
{
	uint64_t best = 0;
	if (!s->s)
		return 0;
	for (uint32_t i = step_at(s, t); i < s->n && s->s[i].t < end; i++)
		if (s->s[i].used > best)
			best = s->s[i].used;
	return best;
}

int64_t steps_last_block(const struct steps *s, uint64_t total, uint64_t need, int64_t t,
			 int64_t end)
{
	int64_t block = INT64_MIN;
	if (!s->s)
		return need > total ? INT64_MAX : block;
	for (uint32_t i = step_at(s, t); i < s->n && s->s[i].t < end; i++)
		if (s->s[i].used + need > total)
			block = i + 1 < s->n ? s->s[i + 1].t : INT64_MAX;
	return block;
}

/* --- what a node holds over time: memory, CPUs held alone, GPU devices ---- */

int nsteps_init(struct nsteps *s)
{
	s->s = malloc(4 * sizeof(*s->s));
	if (!s->s)
		return -ENOMEM;
	s->s[0] = (struct nstep){INT64_MIN, 0, 0, 0};
	s->n = 1;
	s->cap = 4;
	return 0;
}

void nsteps_fini(struct nsteps *s)
{
	if (!s->borrowed)
		free(s->s);
	memset(s, 0, sizeof(*s));
}

uint32_t nsteps_at(const struct nsteps *s, int64_t t)
{
	uint32_t lo = 0, hi = s->n;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (s->s[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Makes a step begin at t; its index, or -ENOMEM. */
static int64_t nsplit_at(struct nsteps *s, int64_t t)
{
	uint32_t i = nsteps_at(s, t);
	if (s->s[i].t == t)
		return i;
	void *v = s->s;
	if (grow(&v, s->n, &s->cap, &s->borrowed, sizeof(*s->s)) < 0)
		return -ENOMEM;
	s->s = v;
	memmove(&s->s[i + 2], &s->s[i + 1], (s->n - i - 1) * sizeof(*s->s));
	s->s[i + 1] = s->s[i];
	s->s[i + 1].t = t;
	s->n++;
	return i + 1;
}

int nsteps_add(struct nsteps *s, int64_t start, int64_t end, uint64_t mem, uint32_t cpus,
	       uint32_t gpus)
{
	if (!s->s && nsteps_init(s) < 0)
		return -ENOMEM;
	if ((!mem && !cpus && !gpus) || start >= end)
		return 0;
	int64_t a = nsplit_at(s, start);
	int64_t b = end == INT64_MAX ? (int64_t)s->n : nsplit_at(s, end);
	if (a < 0 || b < 0)
		return -ENOMEM;
	for (int64_t i = a; i < b; i++) {
		s->s[i].mem += mem;
		s->s[i].cpus += cpus;
		s->s[i].gpus += gpus;
	}
	return 0;
}

uint64_t nsteps_max_mem(const struct nsteps *s, int64_t t, int64_t end)
{
	uint64_t best = 0;
	if (!s->s)
		return 0;
	for (uint32_t i = nsteps_at(s, t); i < s->n && s->s[i].t < end; i++)
		if (s->s[i].mem > best)
			best = s->s[i].mem;
	return best;
}
