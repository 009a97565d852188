/* mintree.c — a min tree over n values with 16 children per node, so that
 * each level of a search reads one cache line: the leftmost value <= x
 * from a position, the smallest value above x, and updates. A shape keeps
 * one per partition of nodes (shape.c). Pure. */
#include <errno.h>
#include <stdlib.h>

#include "sched/sched_internal.h"

#define FAN 16

int mintree_init(struct mintree *t, uint32_t n)
{
	*t = (struct mintree){.n = n};
	uint32_t len = n ? n : 1;
	for (uint32_t l = 0; l < MINTREE_LEVELS; l++) {
		len = (len + FAN - 1) / FAN * FAN;
		t->len[l] = len;
		t->lv[l] = aligned_alloc(64, len * sizeof(**t->lv)); /* a block: a line */
		if (!t->lv[l]) {
			mintree_fini(t);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < len; i++)
			t->lv[l][i] = REL_INF;
		t->levels = l + 1;
		if (len == FAN)
			return 0;
		len /= FAN;
	}
	mintree_fini(t); /* more values than the levels hold */
	return -ENOMEM;
}

static uint32_t block_min(const uint32_t *v)
{
	uint32_t m = v[0];
	for (int i = 1; i < FAN; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

void mintree_rebuild(struct mintree *t)
{
	for (uint32_t l = 1; l < t->levels; l++)
		for (uint32_t i = 0; i < t->len[l]; i++)
			t->lv[l][i] = i * FAN < t->len[l - 1]
					  ? block_min(&t->lv[l - 1][i * FAN])
					  : REL_INF;
}

void mintree_fini(struct mintree *t)
{
	for (uint32_t l = 0; l < MINTREE_LEVELS; l++)
		free(t->lv[l]);
	*t = (struct mintree){0};
}

uint32_t mintree_min(const struct mintree *t)
{
	return block_min(t->lv[t->levels - 1]);
}

void mintree_set(struct mintree *t, uint32_t i, uint32_t v)
{
	t->lv[0][i] = v;
	for (uint32_t l = 1; l < t->levels; l++) {
		uint32_t parent = i / FAN, m = block_min(&t->lv[l - 1][parent * FAN]);
		if (t->lv[l][parent] == m)
			break;
		t->lv[l][parent] = m;
		i = parent;
	}
}

uint32_t mintree_first_le(const struct mintree *t, uint32_t from, uint32_t x)
{
	uint32_t l = 0, i = from;
	if (from >= t->n)
		return POS_NONE;
	for (;;) { /* the rest of i's block, then the blocks after it, higher up */
		if (i < t->len[l]) {
			uint32_t end = (i | (FAN - 1)) + 1;
			for (; i < end; i++)
				if (t->lv[l][i] <= x)
					goto down;
		}
		if (++l == t->levels)
			return POS_NONE;
		i /= FAN;
	}
down:
	while (l-- > 0) {
		i *= FAN;
		while (t->lv[l][i] > x)
			i++;
	}
	return i < t->n ? i : POS_NONE;
}

static uint32_t above(const struct mintree *t, uint32_t l, uint32_t block, uint32_t x)
{
	uint32_t best = REL_INF;
	for (uint32_t i = block * FAN; i < block * FAN + FAN; i++) {
		uint32_t v = t->lv[l][i];
		if (v > x) {
			best = v < best ? v : best;
		} else if (l > 0) {
			uint32_t b = above(t, l - 1, i, x);
			best = b < best ? b : best;
		}
	}
	return best;
}

uint32_t mintree_min_above(const struct mintree *t, uint32_t x)
{
	return above(t, t->levels - 1, 0, x);
}
