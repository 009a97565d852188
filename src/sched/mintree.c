/* mintree.c — a min tree over n values with 16 children per node, so that
 * each level of a search reads one cache line: the leftmost value <= x
 * from a position, the smallest value above x, and updates. A shape keeps
 * one per partition of nodes (shape.c).
 *
 * Values are kept as signed keys (the value with its top bit flipped), so
 * that a block of 16 is compared with x in four SSE2 instructions where
 * the machine has them (a plain loop elsewhere): a search costs a few
 * instructions per level, and it runs millions of times in a big pass.
 * Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sched/sched_internal.h"

#define FAN 16

static int32_t key(uint32_t v)
{
	return mintree_key(v);
}

static uint32_t value(int32_t k)
{
	return (uint32_t)k ^ 0x80000000u;
}

int mintree_init(struct mintree *t, uint32_t n)
{
	*t = (struct mintree){.n = n};
	uint32_t len = n ? n : 1, total = 0;
	for (uint32_t l = 0; l < MINTREE_LEVELS; l++) {
		len = (len + FAN - 1) / FAN * FAN;
		t->len[l] = len;
		total += len;
		t->levels = l + 1;
		if (len == FAN)
			break;
		len /= FAN;
	}
	if (t->len[t->levels - 1] != FAN) /* more values than the levels hold */
		return -ENOMEM;
	/* one block is one cache line */
	int32_t *all = aligned_alloc(64, total * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (uint32_t i = 0; i < total; i++)
		all[i] = key(REL_INF);
	for (uint32_t l = 0; l < t->levels; l++) {
		t->lv[l] = all;
		all += t->len[l];
	}
	return 0;
}

#if defined(__SSE2__)
static __m128i load4(const int32_t *p)
{
	return _mm_load_si128((const __m128i *)p);
}

static uint32_t gt_bits(__m128i v, __m128i x)
{
	return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(v, x)));
}

static __m128i min4(__m128i a, __m128i b)
{
	__m128i gt = _mm_cmpgt_epi32(a, b);
	return _mm_or_si128(_mm_and_si128(gt, b), _mm_andnot_si128(gt, a));
}
#endif

/* Bit i set when block[i] <= x (keys). */
static inline __attribute__((always_inline)) uint32_t le_mask(const int32_t *block,
							      int32_t x)
{
#if defined(__SSE2__)
	__m128i vx = _mm_set1_epi32(x);
	uint32_t gt = gt_bits(load4(block), vx) | gt_bits(load4(block + 4), vx) << 4 |
		      gt_bits(load4(block + 8), vx) << 8 |
		      gt_bits(load4(block + 12), vx) << 12;
	return ~gt & 0xffffu;
#else
	uint32_t m = 0;
	for (int i = 0; i < FAN; i++)
		m |= (uint32_t)(block[i] <= x) << i;
	return m;
#endif
}

static inline __attribute__((always_inline)) int32_t block_min(const int32_t *v)
{
#if defined(__SSE2__)
	__m128i m = min4(min4(load4(v), load4(v + 4)), min4(load4(v + 8), load4(v + 12)));
	m = min4(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
	m = min4(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
	return _mm_cvtsi128_si32(m);
#else
	int32_t m = v[0];
	for (int i = 1; i < FAN; i++)
		m = v[i] < m ? v[i] : m;
	return m;
#endif
}

/* The levels above block b of level 0, after its values changed: mended
 * up to where a least does not change. */
static void mend(struct mintree *t, uint32_t b)
{
	for (uint32_t l = 1; l < t->levels; l++, b /= FAN) {
		int32_t m = block_min(&t->lv[l - 1][b * FAN]);
		if (t->lv[l][b] == m)
			break;
		t->lv[l][b] = m;
	}
}

void mintree_mend(struct mintree *t, uint32_t i)
{
	mend(t, i / FAN);
}

/* Raises the values of block b to v's (b * 16 + 16 <= n); whether any. */
static bool raise_block(int32_t *lv, const uint32_t *v)
{
#if defined(__SSE2__)
	const __m128i bias = _mm_set1_epi32((int32_t)0x80000000u);
	uint32_t any = 0;
	for (int q = 0; q < FAN; q += 4) {
		__m128i now = load4(lv + q);
		__m128i up =
		    _mm_xor_si128(_mm_loadu_si128((const __m128i *)(v + q)), bias);
		__m128i gt = _mm_cmpgt_epi32(up, now);
		any |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(gt));
		_mm_store_si128(
		    (__m128i *)(lv + q),
		    _mm_or_si128(_mm_and_si128(gt, up), _mm_andnot_si128(gt, now)));
	}
	return any != 0;
#else
	bool any = false;
	for (int k = 0; k < FAN; k++)
		if (key(v[k]) > lv[k]) {
			lv[k] = key(v[k]);
			any = true;
		}
	return any;
#endif
}

void mintree_raise_all(struct mintree *t, const uint32_t *v)
{
	int32_t *lv = t->lv[0];
	uint32_t b = 0;
	for (; (b + 1) * FAN <= t->n; b++)
		if (raise_block(lv + b * FAN, v + b * FAN))
			mend(t, b); /* only where something grew */
	bool tail = false;	    /* the last, partial block */
	for (uint32_t i = b * FAN; i < t->n; i++)
		if (key(v[i]) > lv[i]) {
			lv[i] = key(v[i]);
			tail = true;
		}
	if (tail)
		mend(t, b);
}

void mintree_rebuild(struct mintree *t)
{
	for (uint32_t l = 1; l < t->levels; l++)
		for (uint32_t i = 0; i < t->len[l]; i++)
			t->lv[l][i] = i * FAN < t->len[l - 1]
					  ? block_min(&t->lv[l - 1][i * FAN])
					  : key(REL_INF);
}

void mintree_fini(struct mintree *t)
{
	free(t->lv[0]); /* the levels are one allocation */
	*t = (struct mintree){0};
}

uint32_t mintree_min(const struct mintree *t)
{
	return value(block_min(t->lv[t->levels - 1]));
}

/* A value that only grows changes its parent only when it was the
 * parent's least; one that shrinks only when it goes below it. */
void mintree_set(struct mintree *t, uint32_t i, uint32_t v)
{
	int32_t old = t->lv[0][i], now = key(v);
	t->lv[0][i] = now;
	for (uint32_t l = 1; l < t->levels && old != now; l++) {
		uint32_t parent = i / FAN;
		int32_t was = t->lv[l][parent], m;
		if (now < old)
			m = now < was ? now : was;
		else if (old != was)
			break; /* it grew, and was not the least */
		else
			m = block_min(&t->lv[l - 1][parent * FAN]);
		if (m == was)
			break;
		t->lv[l][parent] = m;
		old = was;
		now = m;
		i = parent;
	}
}

/* A search that leaves a block of values for the next one <= x will
 * likely go on to the one after: the block of values under the second
 * of m (a mask of level 1 entries <= x from base) starts coming from
 * memory now. */
static void prefetch_second(const struct mintree *t, uint32_t base, uint32_t m)
{
	m &= m - 1;
	if (m)
		__builtin_prefetch(&t->lv[0][(base + (uint32_t)__builtin_ctz(m)) * FAN]);
}

uint32_t mintree_first_le(const struct mintree *t, uint32_t from, uint32_t x)
{
	int32_t kx = key(x);
	uint32_t l = 0, i = from;
	if (from >= t->n)
		return POS_NONE;
	for (;;) { /* the rest of i's block, then the blocks after it, higher up */
		if (i < t->len[l]) {
			uint32_t m = le_mask(&t->lv[l][i & ~(FAN - 1u)], kx) &
				     (0xffffu << (i % FAN));
			if (m) {
				i = (i & ~(FAN - 1u)) + (uint32_t)__builtin_ctz(m);
				if (l == 1)
					prefetch_second(t, i - i % FAN, m);
				break;
			}
		}
		if (++l == t->levels)
			return POS_NONE;
		i = i / FAN + 1;
	}
	while (l-- > 0) { /* down: the first child <= x, which exists */
		uint32_t m = le_mask(&t->lv[l][i * FAN], kx);
		if (l == 1)
			prefetch_second(t, i * FAN, m);
		i = i * FAN + (uint32_t)__builtin_ctz(m);
	}
	return i < t->n ? i : POS_NONE;
}

static int32_t above(const struct mintree *t, uint32_t l, uint32_t block, int32_t x)
{
	const int32_t *v = &t->lv[l][block * FAN];
	uint32_t le = le_mask(v, x);
	int32_t best = key(REL_INF);
	for (uint32_t i = 0; i < FAN; i++)
		if (!(le >> i & 1) && v[i] < best)
			best = v[i];
	for (; l > 0 && le; le &= le - 1) {
		int32_t b = above(t, l - 1, block * FAN + (uint32_t)__builtin_ctz(le), x);
		best = b < best ? b : best;
	}
	return best;
}

uint32_t mintree_min_above(const struct mintree *t, uint32_t x)
{
	return value(above(t, t->levels - 1, 0, key(x)));
}
