/* timed.c — the controller's time-driven duties, on the timer heap
 * (timer.h): which timer each one arms, when, and what runs when it fires.
 *
 * Nothing walks every job or node on a clock. Each duty has its own timer,
 * named by a kind below and a key: a job's timers follow its record (every
 * change committed re-arms them through timed_job, and recovery arms them
 * for each job it brings back), a node's follows its last word, and a few
 * housekeeping duties re-arm themselves. A timer checks its reason again
 * when it fires: one whose reason has gone does nothing. The state changes
 * themselves stay in job_state.c, node_state.c and step.c. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/job_req.h"
#include "ctld/prio.h"
#include "ctld/step.h"
#include "ctld/timer.h"

/* The kinds keyed by job id come first: fire() looks the job up for them. */
enum timed_kind {
	TIMED_JOB_LIMIT,     /* job id: its time limit (a batch job's shepherd's too) */
	TIMED_STEP_GIVE_UP,  /* job id: its ended steps' silent nodes, given up */
	TIMED_JOB_PURGE,     /* job id: MinJobAge after its end, out of memory */
	TIMED_BEGIN,	     /* job id: its --begin: the scheduler is woken */
	TIMED_DEADLINE,	     /* job id: its --deadline can no longer be met */
	TIMED_NODE_TIMEOUT,  /* node index: SlurmdTimeout after its last word */
	TIMED_SCHED_WAKE,    /* 0: the scheduler asked to be woken then */
	TIMED_HISTORY_PURGE, /* 0: PurgeJobAfter, a bounded batch at a time */
	TIMED_NONCE_PRUNE,   /* 0: stored nonces whose credentials expired */
	TIMED_LOG_FLUSH,     /* 0: counts of rate-limited warnings */
	TIMED_PRIO_CALC,     /* 0: PriorityCalcPeriod: usage, fair share, priorities */
};

/* Seconds between the housekeeping runs. */
#define NONCE_PRUNE_EVERY 60
#define LOG_FLUSH_EVERY 10
#define HISTORY_PURGE_MAX_EVERY 60
#define HISTORY_PURGE_BATCH 10000

/* A timer for epoch second s fires this much after it starts: time(), which
 * the rest of ctld reads, follows the kernel's coarse clock and may still
 * say s - 1 for a few ms after the precise clock the heap reads passed s. */
#define SECOND_SLACK_MS 20

/* A record not yet free to leave memory is looked at again this much
 * later: its last change is being committed, or its steps' nodes may
 * still report (each step gives up by KillWait and a grace). */
#define PURGE_RETRY_MS 1000

static int64_t at_second(int64_t s)
{
	if (s <= 0)
		return 0;
	if (s > INT64_MAX / 1000 - 1)
		return INT64_MAX;
	return s * 1000 + SECOND_SLACK_MS;
}

static void set_ms(struct ctld *c, unsigned kind, uint32_t key, int64_t due_ms)
{
	if (timer_set(c->timers, kind, key, due_ms) < 0)
		log_error("out of memory arming a timer (kind %u, key %u)", kind, key);
}

static void arm_or_cancel(struct ctld *c, unsigned kind, uint32_t key, bool on, int64_t s)
{
	if (on)
		set_ms(c, kind, key, at_second(s));
	else
		timer_cancel(c->timers, kind, key);
}

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

void timed_job(struct ctld *c, const struct job *j)
{
	if (!c->timers)
		return;
	bool pending = j->state == JOB_PENDING;
	bool ended = job_state_final(j->state) && !j->completing;
	int64_t due = 0;
	arm_or_cancel(c, TIMED_BEGIN, j->id, pending && j->req.begin_time > time(NULL),
		      j->req.begin_time);
	bool deadline = pending && job_req_deadline_due(&j->req, j->time_limit, &due);
	arm_or_cancel(c, TIMED_DEADLINE, j->id, deadline, due);
	/* a suspended job's clock stands still (job_suspend.c) */
	bool limit = j->state == JOB_RUNNING && !j->completing &&
		     j->time_limit != DRV_INFINITE && !j->suspended;
	arm_or_cancel(c, TIMED_JOB_LIMIT, j->id, limit, job_limit_end(j, time(NULL)));
	bool give_up = steps_give_up_due(j, &due);
	arm_or_cancel(c, TIMED_STEP_GIVE_UP, j->id, give_up, due);
	arm_or_cancel(c, TIMED_JOB_PURGE, j->id, ended,
		      add_sat(j->end_time, c->conf->min_job_age));
}

void timed_job_gone(struct ctld *c, uint32_t id)
{
	static const unsigned kinds[] = {TIMED_JOB_LIMIT, TIMED_STEP_GIVE_UP,
					 TIMED_JOB_PURGE, TIMED_BEGIN, TIMED_DEADLINE};
	for (size_t i = 0; c->timers && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		timer_cancel(c->timers, kinds[i], id);
}

void timed_node(struct ctld *c, const struct node *n)
{
	if (!c->timers)
		return;
	int64_t timeout = c->conf->slurmd_timeout;
	/* SlurmdTimeout=0: ctld does not test nodes (Slurm) */
	arm_or_cancel(c, TIMED_NODE_TIMEOUT, n->idx, !n->down && timeout > 0,
		      add_sat(n->last_seen, timeout));
}

void timed_sched_wake(struct ctld *c, int64_t when)
{
	if (c->timers &&
	    timer_set_earlier(c->timers, TIMED_SCHED_WAKE, 0, at_second(when)) < 0)
		log_error("out of memory arming the scheduler's wake-up");
}

void timed_prio(struct ctld *c, int64_t when)
{
	if (c->timers)
		set_ms(c, TIMED_PRIO_CALC, 0, at_second(when));
}

/* The hook where time wakes the scheduler: a job's begin time or deadline
 * came, or a time the scheduler asked for (timed_sched_wake). */
static void wake_scheduler(struct ctld *c)
{
	sched_request(c);
}

/* --- what fires ------------------------------------------------------------ */

static void job_limit_due(struct ctld *c, struct job *j, int64_t now)
{
	if (j->state == JOB_RUNNING && !j->completing && j->time_limit != DRV_INFINITE &&
	    !j->suspended && now >= job_limit_end(j, now)) {
		job_time_limit(c, j, now);
	} else {
		timed_job(c, j); /* early (the clock moved) or no longer due */
	}
}

static void job_purge_due(struct ctld *c, struct job *j, int64_t now)
{
	uint32_t id = j->id;
	int rc = job_purge(c, j, now);
	if (rc == 0)
		timed_job_gone(c, id);
	else if (rc == -EAGAIN)
		set_ms(c, TIMED_JOB_PURGE, id, timer_now_ms() + PURGE_RETRY_MS);
	else
		timed_job(c, j);
}

static void begin_due(struct ctld *c, struct job *j, int64_t now)
{
	if (j->state != JOB_PENDING)
		return;
	if (j->req.begin_time > now)
		timed_job(c, j); /* moved later meanwhile, or the clock did */
	else
		wake_scheduler(c);
}

static void job_due(struct ctld *c, unsigned kind, struct job *j, int64_t now)
{
	switch (kind) {
	case TIMED_JOB_LIMIT:
		job_limit_due(c, j, now);
		break;
	case TIMED_STEP_GIVE_UP:
		steps_give_up(c, j, now);
		timed_job(c, j);
		break;
	case TIMED_JOB_PURGE:
		job_purge_due(c, j, now);
		break;
	case TIMED_BEGIN:
		begin_due(c, j, now);
		break;
	case TIMED_DEADLINE: /* the scheduler's pass ends it (job_deadline) */
		if (j->state == JOB_PENDING)
			wake_scheduler(c);
		break;
	}
}

/* Accounting history past PurgeJobAfter leaves the store: at most once a
 * minute (more often for shorter retentions), a bounded number of jobs at a
 * time so that one purge never holds the writer for long. */
static void purge_history(struct ctld *c, int64_t now)
{
	int64_t after = c->conf->purge_job_after;
	if (after <= 0)
		return;
	commit_purge(c, now - after, HISTORY_PURGE_BATCH);
	int64_t every = after < HISTORY_PURGE_MAX_EVERY ? after : HISTORY_PURGE_MAX_EVERY;
	set_ms(c, TIMED_HISTORY_PURGE, 0, at_second(now + every));
}

static void housekeeping_due(struct ctld *c, unsigned kind, int64_t now)
{
	switch (kind) {
	case TIMED_SCHED_WAKE:
		wake_scheduler(c);
		break;
	case TIMED_HISTORY_PURGE:
		purge_history(c, now);
		break;
	case TIMED_NONCE_PRUNE: /* needed only while their credentials are valid */
		commit_nonce_prune(c, now);
		set_ms(c, TIMED_NONCE_PRUNE, 0, at_second(now + NONCE_PRUNE_EVERY));
		break;
	case TIMED_LOG_FLUSH: /* a flood that stopped is still reported */
		drv_log_limit_flush();
		set_ms(c, TIMED_LOG_FLUSH, 0, at_second(now + LOG_FLUSH_EVERY));
		break;
	case TIMED_PRIO_CALC: /* re-arms itself */
		prio_period(c, now);
		break;
	}
}

static void fire(void *arg, unsigned kind, uint32_t key, int64_t due_ms)
{
	struct ctld *c = arg;
	int64_t now = time(NULL);
	if (kind <= TIMED_DEADLINE) { /* keyed by job id */
		struct job *j = job_table_find(&c->jobs, key);
		if (j)
			job_due(c, kind, j, now);
	} else if (kind == TIMED_NODE_TIMEOUT) {
		if (key < c->nodes.n)
			node_check_timeout(c, &c->nodes.nodes[key], now);
	} else {
		housekeeping_due(c, kind, now);
	}
}

int timed_init(struct ctld *c, struct drv_error *err)
{
	c->timers = timer_heap_new(c->base, PRIO_IO, fire, c);
	if (!c->timers)
		return drv_error_set(err, ENOMEM, "out of memory");
	int64_t now = time(NULL);
	set_ms(c, TIMED_HISTORY_PURGE, 0, at_second(now));
	set_ms(c, TIMED_NONCE_PRUNE, 0, at_second(now));
	set_ms(c, TIMED_LOG_FLUSH, 0, at_second(now + LOG_FLUSH_EVERY));
	for (size_t i = 0; i < c->nodes.n; i++)
		timed_node(c, &c->nodes.nodes[i]);
	return 0;
}

void timed_fini(struct ctld *c)
{
	timer_heap_free(c->timers);
	c->timers = NULL;
}
