/* schedule.c — when ctld runs the pure scheduler, on what, and what it does
 * with the decisions (docs/scheduler.md, "Events, not ticks").
 *
 * A turn that changed what could start (a submit, an end, a node or limit
 * change) asks for a quick pass, run once at the end of the turn: Slurm's
 * main scheduler, start-only, honouring the last backfill pass's plans.
 * After a turn whose only change was new jobs, only those are tried, and
 * not at all in a partition where a job waits unplanned (they wait with
 * Priority until a pass tries them in order). A backfill pass runs every
 * bf_interval, and only when something changed since the last one: it
 * starts what fits without delaying anyone planned, and plans the rest
 * (squeue --start). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job_req.h"
#include "ctld/part.h"
#include "ctld/sched_snap.h"
#include "sched/sched.h"

static void run_quick(evutil_socket_t fd, short what, void *arg);
static void run_backfill(evutil_socket_t fd, short what, void *arg);

void sched_init(struct ctld *c)
{
	c->sched_ev = event_new(c->base, -1, 0, run_quick, c);
	event_priority_set(c->sched_ev, PRIO_SCHED);
	c->plans = calloc(1, sizeof(*c->plans));
	if (!c->plans)
		abort();
	c->bf_dirty = true;
	if (!c->conf->sched.backfill)
		return;
	struct timeval every = {c->conf->sched.bf_interval, 0};
	c->bf_ev = event_new(c->base, -1, EV_PERSIST, run_backfill, c);
	event_priority_set(c->bf_ev, PRIO_SCHED);
	event_add(c->bf_ev, &every);
}

static void activate(struct ctld *c)
{
	if (c->sched_ev && !event_pending(c->sched_ev, EV_TIMEOUT, NULL))
		event_active(c->sched_ev, EV_TIMEOUT, 0);
}

void sched_request(struct ctld *c)
{
	c->sched_full = true;
	c->bf_dirty = true;
	activate(c);
}

void sched_request_new(struct ctld *c, const struct job *j)
{
	c->bf_dirty = true;
	if (c->n_sched_new == c->cap_sched_new) {
		size_t cap = c->cap_sched_new ? c->cap_sched_new * 2 : 64;
		uint32_t *v = realloc(c->sched_new, cap * sizeof(*v));
		if (!v) {
			sched_request(c);
			return;
		}
		c->sched_new = v;
		c->cap_sched_new = cap;
	}
	c->sched_new[c->n_sched_new++] = j->id;
	activate(c);
}

void sched_fini(struct ctld *c)
{
	free(c->sched_new);
	if (c->sched_ev)
		event_free(c->sched_ev);
	if (c->bf_ev)
		event_free(c->bf_ev);
	if (c->plans)
		sched_plans_clear(c->plans);
	free(c->plans);
	sched_policy_free(c);
}

int ctld_part_index(const struct ctld *c, const char *name)
{
	for (size_t i = 0; name && i < c->n_parts; i++)
		if (!strcmp(c->parts[i].conf->name, name))
			return (int)i;
	return -1;
}

/* Slurm's "ReqNodeNotAvail, UnavailableNodes:n2": the -w nodes not up. */
static void req_node_reason(const struct ctld *c, struct job *j)
{
	const struct sched_req *r = &j->req.sched;
	char **down = calloc(r->n_req_nodes + 1, sizeof(*down));
	size_t n = 0;
	for (uint32_t i = 0; down && i < r->n_req_nodes; i++)
		if (!node_usable(&c->nodes.nodes[r->req_nodes[i]]))
			down[n++] = c->nodes.names[r->req_nodes[i]];
	char *list = down ? drv_hostlist_compress(down, n) : NULL;
	free(down);
	char *text = NULL;
	if (list &&
	    asprintf(&text, "%s, UnavailableNodes:%s", JOB_REASON_REQ_NODE, list) < 0)
		text = NULL;
	free(list);
	free(j->reason_desc);
	j->reason_desc = text;
	job_set_reason(j, JOB_REASON_REQ_NODE);
}

/* The nodes of a planned start, as squeue --start shows them. */
static char *plan_nodes(const struct ctld *c, const struct sched_result *r,
			const struct sched_decision *d)
{
	uint32_t *idx = calloc(d->alloc_n + 1, sizeof(*idx));
	if (!idx)
		return NULL;
	for (uint32_t k = 0; k < d->alloc_n; k++)
		idx[k] = r->allocs[d->alloc_off + k].node;
	char *s = ctld_alloc_hostlist(c, idx, d->alloc_n);
	free(idx);
	return s;
}

/* A waiting job's reason, and with a backfill pass its plan. */
static void apply_wait(struct ctld *c, struct job *j, const struct sched_result *r,
		       const struct sched_decision *d, bool backfill)
{
	if (d->reason == SCHED_R_REQ_NODE_NOT_AVAIL)
		req_node_reason(c, j);
	else
		job_set_reason(j, sched_reason_name(d->reason));
	j->lacks = d->reason == SCHED_R_RESOURCES ? d->lacks : 0;
	if (!backfill)
		return;
	j->plan_start = d->start;
	free(j->plan_nodes);
	j->plan_nodes = d->start && d->alloc_n ? plan_nodes(c, r, d) : NULL;
}

static void apply_start(struct ctld *c, struct job *j, const struct sched_result *r,
			const struct sched_decision *d, int64_t now)
{
	if (j->array && !(j = job_array_split(c, j)))
		return; /* no job id free for the task: it stays pending */
	if (part_job_started(c, j, d->part) < 0) /* -p a,b: where it starts */
		abort();			 /* out of memory in the daemon */
	int64_t limit = d->time_limit == SCHED_NEVER ? DRV_INFINITE : d->time_limit;
	job_start(c, j, &r->allocs[d->alloc_off], d->alloc_n, limit, now);
}

/* Whether a partition holds a job that waits with no planned start: a new
 * job there is not tried on its own (it would jump the queue). A pass over
 * every pending job says it anew; one over new jobs only adds to it. */
static void note_blocked(struct ctld *c, const struct snap *s,
			 const struct sched_result *r, bool full)
{
	for (size_t p = 0; full && p < c->n_parts; p++)
		c->parts[p].blocked = false;
	for (uint32_t i = 0; i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		const struct job *j = s->jobs[d->index];
		bool waits = d->reason == SCHED_R_PRIORITY ||
			     d->reason == SCHED_R_RESOURCES ||
			     d->reason == SCHED_R_LICENSES;
		if (d->verdict == SCHED_WAIT && waits && !j->plan_start)
			for (uint32_t k = 0; k < s->pending[d->index].n_parts; k++)
				c->parts[s->pending[d->index].parts[k]].blocked = true;
	}
}

static void apply(struct ctld *c, const struct snap *s, const struct sched_result *r,
		  bool backfill, int64_t now)
{
	for (uint32_t i = 0; i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		struct job *j = s->jobs[d->index];
		if (d->verdict == SCHED_START)
			apply_start(c, j, r, d, now);
		else
			apply_wait(c, j, r, d, backfill);
	}
	/* an array that started all its throttle allows waits for its tasks */
	for (size_t k = 0; k < s->n_pending; k++) {
		struct job *j = s->jobs[k];
		if (j->array && j->state == JOB_PENDING && !job_array_room(c, j))
			job_set_reason(j, "JobArrayTaskLimit");
	}
}

/* bf_max_time: the pass's deadline on ctld's clock. */
struct deadline {
	struct timespec at;
};

static bool past_deadline(void *arg)
{
	const struct deadline *d = arg;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->at.tv_sec ||
	       (now.tv_sec == d->at.tv_sec && now.tv_nsec >= d->at.tv_nsec);
}

static void params_for(const struct ctld *c, bool backfill, struct deadline *dl,
		       struct sched_params *p)
{
	const struct drv_sched_conf *sc = &c->conf->sched;
	*p = (struct sched_params){
	    .kind = backfill ? SCHED_PASS_BACKFILL : SCHED_PASS_QUICK,
	    .default_queue_depth = sc->default_queue_depth,
	    .bf_max_job_test = sc->bf_max_job_test,
	    .bf_max_job_user = sc->bf_max_job_user,
	    .bf_window = sc->bf_window,
	    .bf_resolution = sc->bf_resolution,
	};
	if (backfill) {
		clock_gettime(CLOCK_MONOTONIC, &dl->at);
		dl->at.tv_sec += sc->bf_max_time;
		p->stop = past_deadline;
		p->stop_arg = dl;
		if (sc->bf_continue)
			p->resume = c->bf_resume;
	}
}

/* sdiag's figures for one pass that began at t0 (the snapshot's start). */
static void count_pass(struct ctld *c, const struct snap *s, const struct sched_result *r,
		       bool backfill, const struct timespec *t0, int64_t now)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t usec =
	    (t1.tv_sec - t0->tv_sec) * 1000000 + (t1.tv_nsec - t0->tv_nsec) / 1000;
	stats_pass(backfill ? &c->stats.backfill : &c->stats.main,
		   usec > 0 ? (uint64_t)usec : 0, r->stats.tested, (uint32_t)s->n_pending,
		   r->stats.started, r->stats.planned, now);
}

/* Runs one pass over s and applies it. */
static void decide(struct ctld *c, struct snap *s, bool backfill, bool full, int64_t now,
		   const struct timespec *t0)
{
	struct deadline dl;
	struct sched_params params;
	struct sched_result r = {0};
	if (c->plans->parts_gen != c->parts_gen) /* partitions were renumbered */
		sched_plans_clear(c->plans);
	/* a backfill pass reads the plans only when it resumes (bf_continue) */
	snap_end(s, c->plans);
	params_for(c, backfill, &dl, &params);
	int rc = sched_run(&s->s, &params, &r);
	if (rc < 0) {
		log_error("scheduler: pass refused the snapshot (%d)", rc);
		return;
	}
	if (backfill) {
		c->bf_resume = r.stats.stopped ? r.resume : (struct sched_resume){0};
		if (c->bf_resume.valid) /* bf_max_time cut it short: go on next time */
			c->bf_dirty = true;
		if (sched_plans_set(c->plans, &s->s, &r, params.resume.valid) < 0)
			log_error("scheduler: out of memory keeping the plans");
		c->plans->parts_gen = c->parts_gen;
	}
	apply(c, s, &r, backfill, now);
	note_blocked(c, s, &r, full);
	count_pass(c, s, &r, backfill, t0, now);
	sched_result_free(&r);
}

static void run_quick(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	int64_t now = time(NULL);
	bool full = c->sched_full;
	struct snap s;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (snap_begin(c, &s, now) == 0 && sched_collect(c, &s, !full, now) == 0)
		decide(c, &s, false, full, now, &t0);
	snap_free(&s);
	c->sched_full = false;
	c->n_sched_new = 0;
}

static void run_backfill(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	if (!c->bf_dirty)
		return; /* nothing changed since the last pass */
	c->bf_dirty = false;
	int64_t now = time(NULL);
	struct snap s;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (snap_begin(c, &s, now) == 0 && sched_collect(c, &s, false, now) == 0)
		decide(c, &s, true, true, now, &t0);
	snap_free(&s);
}
