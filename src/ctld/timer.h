/* timer.h — timers keyed by due time, for the controller's time-driven work.
 *
 * A timer is named by (kind, key): a small kind number its owner defines
 * (timed.c's) and a key within the kind (a job id, a node index, 0 for a
 * singleton). Setting a timer that is set already moves it, so a name is
 * armed at most once. The timers live in a binary min-heap ordered by due
 * time, then by the order they were set; each knows its heap slot and a
 * hash finds it by name, so set, move and cancel are O(log n). One libevent
 * timer is armed for the earliest due time; when it fires, every timer due
 * by then leaves the heap and is handed to the fire callback, earliest
 * first. Nothing here knows what a kind means.
 *
 * Times are milliseconds since the epoch (CLOCK_REALTIME): what they come
 * from (a start time plus a limit, a --begin) is wall time. The libevent
 * timer never sleeps more than TIMER_MAX_SLEEP_MS on one reading of the
 * clock, so a stepped clock delays a timer by at most that much. */
#ifndef CTLD_TIMER_H
#define CTLD_TIMER_H

#include <event2/event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMER_MAX_KIND 254 /* kinds are 0..TIMER_MAX_KIND */
#define TIMER_MAX_SLEEP_MS 60000
#define TIMER_RUN_BATCH 256 /* timers fired by one run at most */

struct timer_heap;

/* A timer came due: it has left the heap already, so the callback may set
 * it again (or any other). due_ms is the time it was set for. */
typedef void (*timer_fire_f)(void *arg, unsigned kind, uint32_t key, int64_t due_ms);

/* An empty heap whose timers fire through fire(arg, ...). With base, it
 * arms one event on base (at priority, or libevent's default when
 * priority < 0); with base NULL nothing is armed and the caller runs
 * timer_run itself (the unit tests). NULL with errno ENOMEM. The caller
 * frees it with timer_heap_free. */
struct timer_heap *timer_heap_new(struct event_base *base, int priority,
				  timer_fire_f fire, void *arg);
/* Frees the heap and its event without firing anything; accepts NULL. */
void timer_heap_free(struct timer_heap *t);

/* Arms (kind, key) for due_ms, or moves it there when it is armed; setting
 * a timer to the time it has changes nothing. 0, -EINVAL for a kind above
 * TIMER_MAX_KIND, -ENOMEM; nothing changes on failure. */
int timer_set(struct timer_heap *t, unsigned kind, uint32_t key, int64_t due_ms);
/* As timer_set, but an armed timer only ever moves earlier. */
int timer_set_earlier(struct timer_heap *t, unsigned kind, uint32_t key, int64_t due_ms);
/* Disarms (kind, key); false when it was not armed. */
bool timer_cancel(struct timer_heap *t, unsigned kind, uint32_t key);
/* Whether (kind, key) is armed, and for when (*due_ms, may be NULL). */
bool timer_get(const struct timer_heap *t, unsigned kind, uint32_t key, int64_t *due_ms);
size_t timer_count(const struct timer_heap *t);
/* The earliest due time; false when no timer is armed. */
bool timer_next(const struct timer_heap *t, int64_t *due_ms);

/* Fires the timers due at now_ms, earliest first (equal due times in the
 * order they were set), at most TIMER_RUN_BATCH of them; returns how many
 * fired. The event is armed at once for any left, so the loop serves I/O
 * between batches. A timer a callback arms during the run fires on a later
 * run even when due already (a timer that re-arms itself cannot hold the
 * loop); one a callback cancels or moves before its turn does not fire in
 * this run. */
size_t timer_run(struct timer_heap *t, int64_t now_ms);

/* The current wall time in ms, as the heap reads it. */
int64_t timer_now_ms(void);

#endif
