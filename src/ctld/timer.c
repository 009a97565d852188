/* timer.c — the timer heap (timer.h): a pool of entries, a binary min-heap
 * of their indices, and an open-addressing hash from (kind, key) to entry.
 * It owns the one libevent timer that wakes the loop for the earliest due
 * time; it must not know what any kind means (timed.c does). */
#include "ctld/timer.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define FREE_KIND 255		  /* an entry on the free list */
#define NONE UINT32_MAX		  /* the end of the free list */
#define IN_BATCH (UINT32_MAX - 1) /* slot of an entry taken out to fire */

struct entry {
	int64_t due;
	uint64_t seq; /* when it was set: orders equal due times */
	uint32_t key;
	uint32_t slot; /* its index in heap, or IN_BATCH; the next free entry
			* when free */
	uint8_t kind;
};

/* An entry taken out of the heap to fire in this run, as it was then. */
struct batch_ref {
	uint32_t idx;
	uint64_t seq;
};

struct timer_heap {
	struct entry *pool;
	uint32_t *heap; /* entry indices, heap[0] the earliest */
	uint32_t n;	/* entries in the heap */
	uint32_t live;	/* entries named in the hash: n, and those in batch */
	uint32_t cap, free_head;
	uint32_t *buckets;  /* entry index + 1; 0: empty */
	uint32_t n_buckets; /* a power of two, at least twice n */
	uint64_t next_seq;
	timer_fire_f fire;
	void *arg;
	struct event *ev;
	bool armed, running;
	int64_t armed_due;
	struct batch_ref batch[TIMER_RUN_BATCH];
};

int64_t timer_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- the hash: (kind, key) -> entry -------------------------------------- */

static uint32_t hash_of(unsigned kind, uint32_t key, uint32_t n_buckets)
{
	uint64_t x = ((uint64_t)kind << 32 | key) * 0x9E3779B97F4A7C15ULL;
	return (uint32_t)(x >> 32) & (n_buckets - 1);
}

/* The bucket that holds (kind, key), or the empty one where it would go. */
static uint32_t bucket_of(const struct timer_heap *t, unsigned kind, uint32_t key)
{
	uint32_t b = hash_of(kind, key, t->n_buckets);
	while (t->buckets[b]) {
		const struct entry *e = &t->pool[t->buckets[b] - 1];
		if (e->kind == kind && e->key == key)
			break;
		b = (b + 1) & (t->n_buckets - 1);
	}
	return b;
}

/* Empties bucket b and shifts back the entries of its probe run that
 * would no longer be found past the hole. */
static void bucket_clear(struct timer_heap *t, uint32_t b)
{
	uint32_t mask = t->n_buckets - 1, hole = b;
	t->buckets[hole] = 0;
	for (uint32_t i = (hole + 1) & mask; t->buckets[i]; i = (i + 1) & mask) {
		const struct entry *e = &t->pool[t->buckets[i] - 1];
		uint32_t home = hash_of(e->kind, e->key, t->n_buckets);
		/* the entry may move to the hole when its home is not in (hole, i] */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			t->buckets[hole] = t->buckets[i];
			t->buckets[i] = 0;
			hole = i;
		}
	}
}

static int rehash(struct timer_heap *t, uint32_t n_buckets)
{
	uint32_t *old = t->buckets, old_n = t->n_buckets;
	uint32_t *b = calloc(n_buckets, sizeof(*b));
	if (!b)
		return -ENOMEM;
	t->buckets = b;
	t->n_buckets = n_buckets;
	for (uint32_t i = 0; i < old_n; i++)
		if (old[i]) {
			const struct entry *e = &t->pool[old[i] - 1];
			t->buckets[bucket_of(t, e->kind, e->key)] = old[i];
		}
	free(old);
	return 0;
}

/* --- the heap --------------------------------------------------------------- */

static bool earlier(const struct timer_heap *t, uint32_t a, uint32_t b)
{
	const struct entry *x = &t->pool[a], *y = &t->pool[b];
	return x->due < y->due || (x->due == y->due && x->seq < y->seq);
}

static void place(struct timer_heap *t, uint32_t slot, uint32_t idx)
{
	t->heap[slot] = idx;
	t->pool[idx].slot = slot;
}

static void sift_up(struct timer_heap *t, uint32_t slot)
{
	uint32_t idx = t->heap[slot];
	while (slot > 0) {
		uint32_t parent = (slot - 1) / 2;
		if (!earlier(t, idx, t->heap[parent]))
			break;
		place(t, slot, t->heap[parent]);
		slot = parent;
	}
	place(t, slot, idx);
}

static void sift_down(struct timer_heap *t, uint32_t slot)
{
	uint32_t idx = t->heap[slot];
	for (;;) {
		uint32_t child = 2 * slot + 1;
		if (child >= t->n)
			break;
		if (child + 1 < t->n && earlier(t, t->heap[child + 1], t->heap[child]))
			child++;
		if (!earlier(t, t->heap[child], idx))
			break;
		place(t, slot, t->heap[child]);
		slot = child;
	}
	place(t, slot, idx);
}

/* Restores the order around slot after its entry's time changed. */
static void resift(struct timer_heap *t, uint32_t slot)
{
	if (slot > 0 && earlier(t, t->heap[slot], t->heap[(slot - 1) / 2]))
		sift_up(t, slot);
	else
		sift_down(t, slot);
}

/* Takes entry idx out of the heap (it stays named in the hash). */
static void heap_remove(struct timer_heap *t, uint32_t idx)
{
	uint32_t slot = t->pool[idx].slot, last = t->heap[--t->n];
	if (slot != t->n) {
		place(t, slot, last);
		resift(t, slot);
	}
}

/* Takes entry idx (out of the heap already) out of the hash, onto the free
 * list. */
static void release(struct timer_heap *t, uint32_t idx)
{
	struct entry *e = &t->pool[idx];
	bucket_clear(t, bucket_of(t, e->kind, e->key));
	e->kind = FREE_KIND;
	e->slot = t->free_head;
	t->free_head = idx;
	t->live--;
}

/* Room for one more entry (pool, heap and hash), or -ENOMEM with nothing
 * changed but capacity. */
static int reserve_one(struct timer_heap *t)
{
	if (t->live == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct entry *pool = realloc(t->pool, cap * sizeof(*pool));
		if (!pool)
			return -ENOMEM;
		t->pool = pool;
		uint32_t *heap = realloc(t->heap, cap * sizeof(*heap));
		if (!heap)
			return -ENOMEM;
		t->heap = heap;
		for (uint32_t i = cap; i-- > t->cap;) { /* new entries, lowest first */
			t->pool[i].kind = FREE_KIND;
			t->pool[i].slot = t->free_head;
			t->free_head = i;
		}
		t->cap = cap;
	}
	if ((uint64_t)(t->live + 1) * 2 > t->n_buckets)
		return rehash(t, t->n_buckets ? t->n_buckets * 2 : 128);
	return 0;
}

/* --- the libevent timer ------------------------------------------------------ */

/* Arms the event for the earliest timer, unless it is armed for it now. */
static void arm(struct timer_heap *t)
{
	if (!t->ev || t->running)
		return;
	if (!t->n) {
		if (t->armed)
			evtimer_del(t->ev);
		t->armed = false;
		return;
	}
	int64_t due = t->pool[t->heap[0]].due;
	if (t->armed && t->armed_due == due)
		return;
	int64_t wait = due - timer_now_ms();
	wait = wait < 0 ? 0 : wait > TIMER_MAX_SLEEP_MS ? TIMER_MAX_SLEEP_MS : wait;
	struct timeval tv = {(time_t)(wait / 1000), (suseconds_t)(wait % 1000) * 1000};
	if (evtimer_add(t->ev, &tv) == 0) {
		t->armed = true;
		t->armed_due = due;
	}
}

static void on_event(evutil_socket_t fd, short what, void *arg)
{
	struct timer_heap *t = arg;
	t->armed = false;
	timer_run(t, timer_now_ms());
}

/* --- the interface ------------------------------------------------------------ */

struct timer_heap *timer_heap_new(struct event_base *base, int priority,
				  timer_fire_f fire, void *arg)
{
	struct timer_heap *t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->fire = fire;
	t->arg = arg;
	t->free_head = NONE;
	if (base && (!(t->ev = evtimer_new(base, on_event, t)) ||
		     (priority >= 0 && event_priority_set(t->ev, priority) < 0))) {
		timer_heap_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void timer_heap_free(struct timer_heap *t)
{
	if (!t)
		return;
	if (t->ev)
		event_free(t->ev);
	free(t->pool);
	free(t->heap);
	free(t->buckets);
	free(t);
}

/* Puts entry idx (out of the heap) into it, ordered by its time. */
static void heap_insert(struct timer_heap *t, uint32_t idx)
{
	place(t, t->n++, idx);
	sift_up(t, t->n - 1);
}

/* The entry named (kind, key), or NONE. */
static uint32_t find(const struct timer_heap *t, unsigned kind, uint32_t key)
{
	if (!t->live || kind > TIMER_MAX_KIND)
		return NONE;
	uint32_t b = bucket_of(t, kind, key);
	return t->buckets[b] ? t->buckets[b] - 1 : NONE;
}

static int set(struct timer_heap *t, unsigned kind, uint32_t key, int64_t due_ms,
	       bool only_earlier)
{
	if (kind > TIMER_MAX_KIND)
		return -EINVAL;
	uint32_t idx = find(t, kind, key);
	if (idx != NONE) {
		struct entry *e = &t->pool[idx];
		if (e->due == due_ms || (only_earlier && e->due < due_ms))
			return 0;
		e->due = due_ms;
		e->seq = t->next_seq++;
		if (e->slot == IN_BATCH) /* moved before its turn: back in the heap */
			heap_insert(t, idx);
		else
			resift(t, e->slot);
		arm(t);
		return 0;
	}
	int rc = reserve_one(t);
	if (rc < 0)
		return rc;
	idx = t->free_head;
	struct entry *e = &t->pool[idx];
	t->free_head = e->slot;
	*e = (struct entry){
	    .due = due_ms, .seq = t->next_seq++, .key = key, .kind = (uint8_t)kind};
	t->buckets[bucket_of(t, kind, key)] = idx + 1;
	t->live++;
	heap_insert(t, idx);
	arm(t);
	return 0;
}

int timer_set(struct timer_heap *t, unsigned kind, uint32_t key, int64_t due_ms)
{
	return set(t, kind, key, due_ms, false);
}

int timer_set_earlier(struct timer_heap *t, unsigned kind, uint32_t key, int64_t due_ms)
{
	return set(t, kind, key, due_ms, true);
}

bool timer_cancel(struct timer_heap *t, unsigned kind, uint32_t key)
{
	uint32_t idx = find(t, kind, key);
	if (idx == NONE)
		return false;
	if (t->pool[idx].slot != IN_BATCH)
		heap_remove(t, idx);
	release(t, idx);
	arm(t);
	return true;
}

bool timer_get(const struct timer_heap *t, unsigned kind, uint32_t key, int64_t *due_ms)
{
	uint32_t idx = find(t, kind, key);
	if (idx == NONE)
		return false;
	if (due_ms)
		*due_ms = t->pool[idx].due;
	return true;
}

size_t timer_count(const struct timer_heap *t)
{
	return t->live;
}

bool timer_next(const struct timer_heap *t, int64_t *due_ms)
{
	if (!t->n)
		return false;
	*due_ms = t->pool[t->heap[0]].due;
	return true;
}

/* Takes the timers due at now_ms out of the heap, earliest first, as many
 * as the batch holds; they stay named until their turn. */
static size_t take_due(struct timer_heap *t, int64_t now_ms)
{
	size_t n = 0;
	while (t->n && n < TIMER_RUN_BATCH) {
		uint32_t idx = t->heap[0];
		struct entry *e = &t->pool[idx];
		if (e->due > now_ms)
			break;
		heap_remove(t, idx);
		e->slot = IN_BATCH;
		t->batch[n++] = (struct batch_ref){idx, e->seq};
	}
	return n;
}

size_t timer_run(struct timer_heap *t, int64_t now_ms)
{
	if (t->running)
		return 0; /* a callback ran the heap: the outer run goes on */
	t->running = true;
	size_t n = take_due(t, now_ms), fired = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t idx = t->batch[i].idx;
		const struct entry *e = &t->pool[idx];
		/* cancelled, moved or reused by a callback since it was taken */
		if (e->kind == FREE_KIND || e->slot != IN_BATCH ||
		    e->seq != t->batch[i].seq)
			continue;
		unsigned kind = e->kind;
		uint32_t key = e->key;
		int64_t due = e->due;
		release(t, idx);
		t->fire(t->arg, kind, key, due);
		fired++;
	}
	t->running = false;
	arm(t);
	return fired;
}
