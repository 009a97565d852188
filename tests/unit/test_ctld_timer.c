/* test_ctld_timer.c — the timer heap (src/ctld/timer.c): timers fire in due
 * order, equal due times in the order set; cancel and move (earlier, later,
 * only earlier) take effect; names are unique per (kind, key); callbacks
 * may arm timers, which fire on the next run, and cancel or move timers
 * taken to fire in the same run, which then do not; many timers set, moved and
 * cancelled at random fire exactly as a sorted list says; and with a real
 * event loop the heap wakes the loop at the earliest due time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ctld/timer.h"

struct fired {
	unsigned kind[4096];
	uint32_t key[4096];
	int64_t due[4096];
	size_t n;
	struct timer_heap *t; /* for callbacks that arm timers */
	int rearm;	      /* kind 9 re-arms itself this many times */
	int64_t rearm_at;
};

static void record(void *arg, unsigned kind, uint32_t key, int64_t due)
{
	struct fired *f = arg;
	assert_true(f->n < 4096);
	f->kind[f->n] = kind;
	f->key[f->n] = key;
	f->due[f->n++] = due;
	if (kind == 9 && f->rearm-- > 0)
		assert_int_equal(timer_set(f->t, 9, key, f->rearm_at), 0);
}

static struct timer_heap *heap(struct fired *f)
{
	struct timer_heap *t = timer_heap_new(NULL, -1, record, f);
	assert_non_null(t);
	f->t = t;
	return t;
}

static void fires_in_due_order(void **state)
{
	struct fired f = {0};
	struct timer_heap *t = heap(&f);
	int64_t due[] = {500, 100, 300, 200, 400};
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(timer_set(t, 1, i, due[i]), 0);
	assert_int_equal(timer_count(t), 5);
	int64_t next = 0;
	assert_true(timer_next(t, &next));
	assert_int_equal(next, 100);
	assert_int_equal(timer_run(t, 99), 0); /* nothing due yet */
	assert_int_equal(timer_run(t, 300), 3);
	assert_int_equal(f.key[0], 1);
	assert_int_equal(f.key[1], 3);
	assert_int_equal(f.key[2], 2);
	assert_int_equal(f.due[2], 300);
	assert_int_equal(timer_count(t), 2);
	assert_int_equal(timer_run(t, 10000), 2);
	assert_int_equal(f.key[3], 4);
	assert_int_equal(f.key[4], 0);
	assert_false(timer_next(t, &next));
	timer_heap_free(t);
}

static void same_due_time_fires_in_the_order_set(void **state)
{
	struct fired f = {0};
	struct timer_heap *t = heap(&f);
	for (uint32_t i = 0; i < 50; i++)
		assert_int_equal(timer_set(t, i % 3, 1000 - i, 7000), 0);
	/* a move to the same time is a new setting: it goes last */
	assert_int_equal(timer_set(t, 0, 1000, 6000), 0);
	assert_int_equal(timer_set(t, 0, 1000, 7000), 0);
	assert_int_equal(timer_run(t, 7000), 50);
	for (uint32_t i = 0; i < 49; i++) {
		assert_int_equal(f.key[i], 1000 - (i + 1));
		assert_int_equal(f.kind[i], (i + 1) % 3);
	}
	assert_int_equal(f.key[49], 1000);
	timer_heap_free(t);
}

static void cancel_and_move(void **state)
{
	struct fired f = {0};
	struct timer_heap *t = heap(&f);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(timer_set(t, 2, i, 100 * (i + 1)), 0);
	assert_true(timer_cancel(t, 2, 0));
	assert_false(timer_cancel(t, 2, 0)); /* not armed any more */
	assert_false(timer_cancel(t, 3, 1)); /* another kind, same key */
	assert_true(timer_cancel(t, 2, 9));
	assert_int_equal(timer_set(t, 2, 8, 50), 0);		 /* earlier: first */
	assert_int_equal(timer_set(t, 2, 1, 5000), 0);		 /* later: last */
	assert_int_equal(timer_set_earlier(t, 2, 2, 9000), 0);	 /* never later */
	assert_int_equal(timer_set_earlier(t, 2, 3, 60), 0);	 /* earlier: moves */
	assert_int_equal(timer_set_earlier(t, 2, 42, 10000), 0); /* not armed: arms */
	int64_t due = 0;
	assert_true(timer_get(t, 2, 2, &due));
	assert_int_equal(due, 300);
	assert_false(timer_get(t, 2, 0, &due));
	assert_int_equal(timer_count(t), 9);
	assert_int_equal(timer_run(t, 100000), 9);
	uint32_t want[] = {8, 3, 2, 4, 5, 6, 7, 1, 42};
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(f.key[i], want[i]);
	assert_int_equal(f.due[0], 50);
	assert_int_equal(f.due[7], 5000);
	timer_heap_free(t);
}

static void one_timer_per_name(void **state)
{
	struct fired f = {0};
	struct timer_heap *t = heap(&f);
	assert_int_equal(timer_set(t, 4, 7, 100), 0);
	assert_int_equal(timer_set(t, 4, 7, 200), 0);
	assert_int_equal(timer_set(t, 5, 7, 150), 0);
	assert_int_equal(timer_count(t), 2);
	assert_int_equal(timer_set(t, TIMER_MAX_KIND + 1, 7, 100), -EINVAL);
	assert_int_equal(timer_run(t, 1000), 2);
	assert_int_equal(f.kind[0], 5);
	assert_int_equal(f.kind[1], 4);
	assert_int_equal(f.due[1], 200);
	timer_heap_free(t);
	timer_heap_free(NULL);
}

/* A callback that arms a timer already due does not fire it in the same
 * run: a timer that re-arms itself cannot hold the loop. */
static void armed_while_firing_fires_on_the_next_run(void **state)
{
	struct fired f = {.rearm = 2, .rearm_at = 10};
	struct timer_heap *t = heap(&f);
	assert_int_equal(timer_set(t, 9, 1, 10), 0);
	assert_int_equal(timer_set(t, 1, 2, 20), 0);
	assert_int_equal(timer_run(t, 100), 2); /* 9:1, then 1:2; 9:1 again waits */
	assert_int_equal(timer_count(t), 1);
	assert_int_equal(timer_run(t, 100), 1);
	assert_int_equal(timer_run(t, 100), 1);
	assert_int_equal(timer_run(t, 100), 0);
	assert_int_equal(f.n, 4);
	timer_heap_free(t);
}

/* Kind 8 cancels key+1 and moves key+2 later when it fires. */
static void cancel_or_move_next(void *arg, unsigned kind, uint32_t key, int64_t due)
{
	struct fired *f = arg;
	record(arg, kind, key, due);
	if (kind == 8) {
		assert_true(timer_cancel(f->t, 1, key + 1));
		assert_int_equal(timer_set(f->t, 1, key + 2, 500), 0);
		assert_int_equal(timer_set(f->t, 1, key + 3, 5), 0); /* due already */
	}
}

static void cancelled_or_moved_by_a_callback_does_not_fire(void **state)
{
	struct fired f = {0};
	struct timer_heap *t = timer_heap_new(NULL, -1, cancel_or_move_next, &f);
	assert_non_null(t);
	f.t = t;
	assert_int_equal(timer_set(t, 8, 10, 1), 0);
	assert_int_equal(timer_set(t, 1, 11, 2), 0);
	assert_int_equal(timer_set(t, 1, 12, 3), 0);
	assert_int_equal(timer_set(t, 1, 13, 4), 0);
	assert_int_equal(timer_run(t, 100), 1); /* 11 cancelled, 12 and 13 moved */
	assert_int_equal(timer_count(t), 2);
	int64_t due = 0;
	assert_true(timer_get(t, 1, 12, &due));
	assert_int_equal(due, 500);
	assert_int_equal(timer_run(t, 100), 1); /* 13, armed anew for 5 */
	assert_int_equal(f.key[1], 13);
	assert_int_equal(timer_run(t, 1000), 1);
	assert_int_equal(f.key[2], 12);
	timer_heap_free(t);
}

static int by_due(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Many timers set, moved and cancelled at random against a plain model:
 * everything fires, once, in (due, order set) order. */
static void many_timers_against_a_model(void **state)
{
	enum { N = 3000 };
	static int64_t model[N][2]; /* due (-1: not armed), sequence */
	struct fired *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	struct timer_heap *t = heap(f);
	srand(11);
	int64_t seq = 0;
	for (int i = 0; i < N; i++)
		model[i][0] = -1;
	for (int round = 0; round < 20000; round++) {
		uint32_t key = (uint32_t)(rand() % N);
		int op = rand() % 4;
		if (op == 3) {
			assert_int_equal(timer_cancel(t, 6, key), model[key][0] >= 0);
			model[key][0] = -1;
			continue;
		}
		int64_t due = rand() % 100000;
		if (model[key][0] == due)
			continue; /* the same time changes nothing, not even the order */
		assert_int_equal(timer_set(t, 6, key, due), 0);
		model[key][0] = due;
		model[key][1] = seq++;
	}
	int64_t sorted[N][3];
	size_t n = 0;
	for (int i = 0; i < N; i++)
		if (model[i][0] >= 0) {
			sorted[n][0] = model[i][0];
			sorted[n][1] = model[i][1];
			sorted[n++][2] = i;
		}
	qsort(sorted, n, sizeof(sorted[0]), by_due);
	assert_int_equal(timer_count(t), n);
	size_t half = 0;
	while (half < n && sorted[half][0] <= 50000)
		half++;
	size_t k, runs = 0, total = 0;
	while ((k = timer_run(t, 50000)) > 0) { /* a batch at a time */
		assert_true(k <= TIMER_RUN_BATCH);
		total += k;
		runs++;
	}
	assert_int_equal(total, half);
	assert_true(runs >= half / TIMER_RUN_BATCH);
	while ((k = timer_run(t, 100000)) > 0)
		total += k;
	assert_int_equal(total, n);
	assert_int_equal(f->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(f->key[i], sorted[i][2]);
		assert_int_equal(f->due[i], sorted[i][0]);
	}
	assert_int_equal(timer_count(t), 0);
	timer_heap_free(t);
	free(f);
}

/* With an event loop: the heap wakes it at the earliest time, again after
 * each change of the earliest, and not for a cancelled timer. */
struct loop_state {
	struct event_base *base;
	struct timer_heap *t;
	int64_t fired_at[3];
	uint32_t keys[3];
	int n;
};

static void on_loop_fire(void *arg, unsigned kind, uint32_t key, int64_t due)
{
	struct loop_state *s = arg;
	s->fired_at[s->n] = timer_now_ms();
	s->keys[s->n++] = key;
	assert_true(s->fired_at[s->n - 1] >= due);
	if (s->n == 2)
		event_base_loopexit(s->base, NULL);
}

static void wakes_the_loop_at_the_due_time(void **state)
{
	struct loop_state s = {0};
	s.base = event_base_new();
	assert_non_null(s.base);
	s.t = timer_heap_new(s.base, -1, on_loop_fire, &s);
	assert_non_null(s.t);
	int64_t start = timer_now_ms();
	assert_int_equal(timer_set(s.t, 1, 1, start + 300), 0);
	assert_int_equal(timer_set(s.t, 1, 2, start + 60), 0); /* earliest now */
	assert_int_equal(timer_set(s.t, 1, 3, start + 30), 0);
	assert_true(timer_cancel(s.t, 1, 3)); /* must not wake anyone */
	struct timeval limit = {5, 0};
	event_base_loopexit(s.base, &limit); /* in case it never fires */
	event_base_dispatch(s.base);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.keys[0], 2);
	assert_int_equal(s.keys[1], 1);
	assert_true(s.fired_at[0] >= start + 60 && s.fired_at[0] < start + 250);
	assert_true(s.fired_at[1] >= start + 300 && s.fired_at[1] < start + 2000);
	timer_heap_free(s.t);
	event_base_free(s.base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fires_in_due_order),
	    cmocka_unit_test(same_due_time_fires_in_the_order_set),
	    cmocka_unit_test(cancel_and_move),
	    cmocka_unit_test(one_timer_per_name),
	    cmocka_unit_test(armed_while_firing_fires_on_the_next_run),
	    cmocka_unit_test(cancelled_or_moved_by_a_callback_does_not_fire),
	    cmocka_unit_test(many_timers_against_a_model),
	    cmocka_unit_test(wakes_the_loop_at_the_due_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
