/* decide.c — what one pending job gets in a pass: which candidate
 * partitions could ever hold it (State, MaxTime, Min/MaxNodes, the nodes'
 * configuration), whether a limit holds it, whether it starts now (in the
 * candidate where it starts first; with --time-min, for the longest limit
 * that delays no plan), and otherwise why it waits and, in a backfill pass,
 * when and where it is planned. Writes decisions and allocations into the
 * result and what it gives into the profile. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* --- the result -------------------------------------------------------------- */

static int room_allocs(struct pass *c, uint32_t n)
{
	struct sched_result *r = c->res;
	if (r->n_allocs + n <= r->cap_allocs)
		return 0;
	size_t cap = r->cap_allocs ? r->cap_allocs : 64;
	while (cap < r->n_allocs + n)
		cap *= 2;
	struct sched_alloc *v = realloc(r->allocs, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->allocs = v;
	r->cap_allocs = cap;
	return 0;
}

static int emit(struct pass *c, const struct sched_decision *d)
{
	struct sched_result *r = c->res;
	if (r->n_decisions == r->cap_decisions) {
		size_t cap = r->cap_decisions ? r->cap_decisions * 2 : 64;
		struct sched_decision *v = realloc(r->decisions, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->decisions = v;
		r->cap_decisions = cap;
	}
	r->decisions[r->n_decisions++] = *d;
	if (d->verdict == SCHED_START)
		r->stats.started++;
	else if (d->start)
		r->stats.planned++;
	return 0;
}

static int emit_wait(struct pass *c, uint32_t idx, uint32_t part, enum sched_reason why,
		     uint32_t lacks)
{
	const struct sched_pending *j = &c->snap->pending[idx];
	struct sched_decision d = {
	    .index = idx,
	    .job_id = j->job_id,
	    .verdict = SCHED_WAIT,
	    .reason = why,
	    .part = part,
	    .time_limit = j->time_limit,
	    .lacks = lacks,
	};
	return emit(c, &d);
}

/* A quick pass repeats the plan of a job that still waits. */
static int emit_wait_planned(struct pass *c, uint32_t idx, const struct sched_plan *pl,
			     uint32_t part, enum sched_reason why, uint32_t lacks)
{
	const struct sched_pending *j = &c->snap->pending[idx];
	if (!pl)
		return emit_wait(c, idx, part, why, lacks);
	if (room_allocs(c, pl->n_alloc) < 0)
		return -ENOMEM;
	struct sched_alloc *a = &c->res->allocs[c->res->n_allocs];
	for (uint32_t i = 0; i < pl->n_alloc; i++) {
		const struct sched_node *n = &c->snap->nodes[pl->alloc[i].node];
		size_t words = SCHED_WORDS(n->n_cpus);
		a[i] = pl->alloc[i];
		uint64_t *ids = arena_alloc(c->pool, words * sizeof(*ids));
		uint32_t *units = n->n_gpus ? arena_alloc(c->pool, n->n_gpus * 4) : NULL;
		if (!ids || (n->n_gpus && !units))
			return -ENOMEM;
		if (pl->alloc[i].cpu_ids)
			memcpy(ids, pl->alloc[i].cpu_ids, words * sizeof(*ids));
		if (units && pl->alloc[i].gpu_units)
			memcpy(units, pl->alloc[i].gpu_units, n->n_gpus * sizeof(*units));
		a[i].cpu_ids = ids;
		a[i].gpu_units = units;
	}
	struct sched_decision d = {
	    .index = idx,
	    .job_id = j->job_id,
	    .verdict = SCHED_WAIT,
	    .reason = why,
	    .part = pl->part,
	    .start = pl->start,
	    .time_limit = j->time_limit,
	    .alloc_off = c->res->n_allocs,
	    .alloc_n = pl->n_alloc,
	    .lacks = lacks,
	};
	c->res->n_allocs += pl->n_alloc;
	return emit(c, &d);
}

/* --- giving resources ---------------------------------------------------------- */

struct give {
	uint32_t idx;
	const struct shape *s;
	const struct pick *picks;
	uint32_t n;
	uint32_t t; /* seconds after now */
	enum sched_verdict verdict;
	enum sched_reason why; /* WAIT */
	uint32_t lacks;
};

/* Gives a job what g says: START (when its limits still allow it with what
 * it really gets; else *held says why) or a plan. 1 given, 0 held, -ENOMEM. */
static int give(struct pass *c, const struct give *g, enum sched_reason *held)
{
	const struct sched_pending *j = &c->snap->pending[g->idx];
	struct sched_result *res = c->res;
	int64_t start = c->prof.now + g->t, end = add_sat(start, g->s->len);
	struct sched_tres_vec tres;
	if (room_allocs(c, g->n) < 0)
		return -ENOMEM;
	struct sched_alloc *a = &res->allocs[res->n_allocs];
	if (place_fill(c, g->s, g->picks, g->n, start, a) < 0)
		return -ENOMEM;
	limits_alloc_tres(c->snap, a, g->n, &tres);
	if (g->verdict == SCHED_START) {
		*held = limits_check(&c->lim, j, g->s->part, &tres);
		if (*held != SCHED_R_NONE)
			return 0;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		struct resv r = {
		    .start = start,
		    .end = end,
		    .mem = a[i].mem,
		    .cpu_ids = a[i].cpu_ids,
		    .gpu_units = a[i].gpu_units,
		    .cpus = a[i].cpus,
		    .part = g->s->part,
		    .share_max = g->s->view.share_max,
		    .shares = g->s->view.shares,
		    .excl = g->s->view.excl,
		};
		if (prof_add(&c->prof, a[i].node, &r) < 0)
			return -ENOMEM;
	}
	if (prof_add_lics(&c->prof, j->lics, j->n_lics, start, end) < 0)
		return -ENOMEM;
	if (g->verdict == SCHED_START &&
	    limits_add(&c->lim, j->qos, j->assoc, j->uid, g->s->part, &tres) < 0)
		return -ENOMEM;
	struct sched_decision d = {
	    .index = g->idx,
	    .job_id = j->job_id,
	    .verdict = g->verdict,
	    .reason = g->verdict == SCHED_START ? SCHED_R_NONE : g->why,
	    .part = g->s->part,
	    .start = start,
	    .time_limit = g->s->len,
	    .alloc_off = res->n_allocs,
	    .alloc_n = g->n,
	    .lacks = g->lacks,
	};
	res->n_allocs += g->n;
	return emit(c, &d) < 0 ? -ENOMEM : 1;
}

/* --- --time-min ----------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The limits at which what the picked nodes give can change: where
 * something on them (or a license of the job) begins within (lo, hi). */
static int64_t *limit_points(struct pass *c, const struct sched_pending *j,
			     const struct pick *picks, uint32_t n, int64_t lo, int64_t hi,
			     uint32_t *k)
{
	size_t cap = 64, m = 0;
	int64_t *v = malloc(cap * sizeof(*v));
	for (uint32_t i = 0; v && i < n + j->n_lics; i++) {
		const struct node_prof *np = i < n ? &c->prof.np[picks[i].node] : NULL;
		const struct steps *lp = i < n ? NULL : &c->prof.lp[j->lics[i - n].lic];
		uint32_t count = np ? np->n : lp->n;
		for (uint32_t r = 0; v && r < count; r++) {
			int64_t at = np ? np->r[r].start : lp->s[r].t;
			if (at <= c->prof.now) /* the first step begins at INT64_MIN */
				continue;
			int64_t len = at - c->prof.now;
			if (len <= lo || len >= hi)
				continue;
			if (m == cap) {
				int64_t *w = realloc(v, (cap *= 2) * sizeof(*v));
				if (!w)
					free(v);
				v = w;
			}
			if (v)
				v[m++] = len;
		}
	}
	if (v)
		qsort(v, m, sizeof(*v), cmp_i64);
	*k = (uint32_t)m;
	return v;
}

/* Do the picks still take their tasks (and the licenses hold) now for len? */
static bool picks_hold(struct pass *c, const struct sched_pending *j, struct shape *s,
		       const struct pick *picks, uint32_t n, int64_t len)
{
	s->len = len;
	if (j->n_lics && prof_lics_earliest(&c->prof, j->lics, j->n_lics, c->prof.now,
					    len) != c->prof.now)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (place_node_cap(c, s, picks[i].node, c->prof.now, NULL) <
		    picks[i].tasks)
			return false;
	return true;
}

/* A job that fits now only with a limit below its own (--time-min): the
 * nodes it gets are those it fits on with time_min; its limit is then the
 * longest in [time_min, limit) they allow, which changes only where
 * something on them begins. */
static int start_shortened(struct pass *c, uint32_t idx, uint32_t part,
			   enum sched_reason *held)
{
	const struct sched_pending *j = &c->snap->pending[idx];
	struct shape *smin, s;
	uint32_t n = 0, k;
	if (shape_get(c, j, part, j->time_min, &smin) < 0)
		return -ENOMEM;
	if (shape_earliest(c, smin, 0, c->picks, &n) != 0)
		return c->err;
	shape_init_linear(c, &s, j, part, j->time_min);
	int64_t *pts = limit_points(c, j, c->picks, n, j->time_min, j->time_limit, &k);
	if (!pts)
		return -ENOMEM;
	uint32_t lo = 0, hi = k; /* pts[0..lo) hold; pts[hi..k) do not */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (picks_hold(c, j, &s, c->picks, n, pts[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	s.len = lo ? pts[lo - 1] : j->time_min;
	free(pts);
	struct give g = {idx, &s, c->picks, n, 0, SCHED_START, SCHED_R_NONE, 0};
	return give(c, &g, held);
}

/* --- one job ---------------------------------------------------------------------- */

static bool blocked_now(const struct pass *c, const struct cand *k)
{
	return !c->backfill && c->blocked[k->part];
}

/* Tries to start one task of job idx now: in the first candidate (in the
 * order given) it fits, with its limit or shortened down to --time-min. 1
 * started, 0 not (*held: a limit that held it), -ENOMEM. */
static int start_one(struct pass *c, uint32_t idx, const struct cand *cands,
		     uint32_t n_cands, enum sched_reason *held)
{
	const struct sched_pending *j = &c->snap->pending[idx];
	bool shorten = j->time_min > 0 && j->time_min < j->time_limit;
	enum sched_reason last = SCHED_R_NONE; /* the last candidate a limit holds */
	struct sched_tres_vec want;
	limits_req_tres(j->req, &want);
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t k = 0; k < n_cands; k++) {
			const struct cand *cd = &cands[k];
			if (pass == 1 && !shorten) { /* nothing to try: what it says */
				if (last != SCHED_R_NONE)
					*held = last;
				return 0;
			}
			enum sched_reason why = limits_check(&c->lim, j, cd->part, &want);
			if (blocked_now(c, cd))
				continue;
			if (why != SCHED_R_NONE) {
				*held = last = why;
				continue;
			}
			int rc;
			if (pass == 0) {
				uint32_t n = 0;
				if (shape_earliest(c, cd->s, 0, c->picks, &n) != 0)
					continue;
				struct give g = {idx, cd->s,	   c->picks,	 n,
						 0,   SCHED_START, SCHED_R_NONE, 0};
				rc = give(c, &g, held);
			} else {
				rc = start_shortened(c, idx, cd->part, held);
			}
			if (rc != 0 || c->err)
				return c->err ? c->err : rc;
		}
	return 0;
}

static int grow_cands(struct pass *c, uint32_t n)
{
	if (n <= c->cap_cands)
		return 0;
	struct cand *v = realloc(c->cands, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->cands = v;
	c->cap_cands = n;
	return 0;
}

/* Why partition part can never start j, or SCHED_R_NONE (*s its shape). */
static enum sched_reason part_reason(struct pass *c, const struct sched_pending *j,
				     uint32_t part, struct shape **s)
{
	const struct sched_part *p = &c->snap->parts[part];
	const struct sched_req *r = j->req;
	if (!p->up)
		return SCHED_R_PART_DOWN;
	if (p->max_time != SCHED_NEVER && j->time_limit > p->max_time)
		return SCHED_R_PART_TIME_LIMIT;
	if ((p->max_nodes && r->min_nodes > p->max_nodes) ||
	    (p->min_nodes && r->max_nodes && r->max_nodes < p->min_nodes))
		return SCHED_R_PART_NODE_LIMIT;
	if (shape_get(c, j, part, j->time_limit, s) < 0) {
		c->err = -ENOMEM;
		return SCHED_R_PART_NODE_LIMIT;
	}
	return shape_fits_config(c, *s) == 0 ? SCHED_R_NONE : SCHED_R_PART_NODE_LIMIT;
}

/* The candidates that could ever start j, and that its limits allow now;
 * *n of them, else *why is the first one's reason. */
static int candidates(struct pass *c, const struct sched_pending *j, uint32_t *n,
		      enum sched_reason *why)
{
	struct sched_tres_vec want;
	enum sched_reason lim = SCHED_R_NONE;
	*n = 0;
	*why = SCHED_R_NONE;
	if (grow_cands(c, j->n_parts) < 0)
		return -ENOMEM;
	for (uint32_t k = 0; k < j->n_lics; k++)
		if (j->lics[k].count > c->snap->lics[j->lics[k].lic].total)
			*why = SCHED_R_LICENSES; /* never: more than exist */
	limits_req_tres(j->req, &want);
	for (uint32_t k = 0; *why != SCHED_R_LICENSES && k < j->n_parts; k++) {
		struct shape *s = NULL;
		enum sched_reason r = part_reason(c, j, j->parts[k], &s);
		if (c->err)
			return c->err;
		if (r == SCHED_R_NONE) {
			r = limits_check(&c->lim, j, j->parts[k], &want);
			if (r != SCHED_R_NONE && lim == SCHED_R_NONE)
				lim = r;
			if (r != SCHED_R_NONE)
				continue;
			c->cands[(*n)++] = (struct cand){j->parts[k], s};
		} else if (*why == SCHED_R_NONE) {
			*why = r;
		}
	}
	if (lim != SCHED_R_NONE)
		*why = lim; /* a limit holds it where it could run */
	return 0;
}

static bool req_node_down(const struct pass *c, const struct sched_req *r)
{
	for (uint32_t i = 0; i < r->n_req_nodes; i++)
		if (!c->snap->nodes[r->req_nodes[i]].up)
			return true;
	return false;
}

/* Why the rest of job idx waits, and (backfill) when and where it starts. */
static int wait_rest(struct pass *c, uint32_t idx, const struct cand *cands,
		     uint32_t n_cands, const struct sched_plan *plan)
{
	const struct sched_pending *j = &c->snap->pending[idx];
	bool behind = false;
	for (uint32_t k = 0; k < n_cands; k++)
		behind |= c->waiting[cands[k].part];
	enum sched_reason why = behind ? SCHED_R_PRIORITY : SCHED_R_RESOURCES;
	if (j->n_lics && prof_lics_earliest(&c->prof, j->lics, j->n_lics, c->prof.now,
					    j->time_limit) != c->prof.now)
		why = SCHED_R_LICENSES; /* it waits for licenses, not for a node */
	uint32_t lacks = why == SCHED_R_RESOURCES ? place_lacks(c, cands[0].s) : 0;
	for (uint32_t k = 0; why != SCHED_R_LICENSES && k < n_cands; k++) {
		c->waiting[cands[k].part] = true;
		/* a quick pass keeps a planned job's plan: it need not also
		 * keep everyone behind it from starting */
		c->blocked[cands[k].part] |= !plan;
	}
	if (!c->backfill)
		return emit_wait_planned(c, idx, plan, cands[0].part, why, lacks);
	uint32_t best = REL_INF, best_k = 0, best_n = 0;
	for (uint32_t k = 0; k < n_cands; k++) {
		uint32_t n = 0;
		uint32_t t =
		    shape_earliest(c, cands[k].s, (uint32_t)c->prof.window, c->picks, &n);
		if (c->err)
			return c->err;
		if (t < best) {
			struct pick *swap = c->best;
			c->best = c->picks;
			c->picks = swap;
			best = t, best_k = k, best_n = n;
		}
	}
	if (best == REL_INF)
		return emit_wait(c, idx, cands[0].part, why, lacks);
	struct give g = {idx,  cands[best_k].s, c->best, best_n,
			 best, SCHED_WAIT,	why,	 lacks};
	enum sched_reason unused;
	return give(c, &g, &unused) < 0 ? -ENOMEM : 0;
}

int decide_job(struct pass *c, uint32_t idx, const struct sched_plan *plan, bool *waits)
{
	const struct sched_pending *j = &c->snap->pending[idx];
	enum sched_reason why;
	uint32_t n_cands, started = 0;
	if (sched_check_job(c->snap, j) < 0)
		return -EINVAL;
	c->res->stats.tested++;
	*waits = true;
	if (candidates(c, j, &n_cands, &why) < 0)
		return -ENOMEM;
	if (!n_cands)
		return emit_wait(c, idx, j->parts[0], why, 0);
	if (req_node_down(c, j->req))
		/* Slurm's ReqNodeNotAvail: it waits for an admin, so it
		 * holds no one else up */
		return emit_wait(c, idx, c->cands[0].part, SCHED_R_REQ_NODE_NOT_AVAIL, 0);
	enum sched_reason held = SCHED_R_NONE;
	while (started < j->count) {
		int rc = start_one(c, idx, c->cands, n_cands, &held);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		started++;
		held = SCHED_R_NONE;
	}
	if (started) {
		/* the plan was for the task that started; the rest wait anew */
		*waits = false;
		plan = NULL;
	}
	if (started == j->count)
		return 0;
	if (held != SCHED_R_NONE) /* a limit holds it: not planned */
		return emit_wait(c, idx, c->cands[0].part, held, 0);
	bool all_behind = !c->backfill;
	for (uint32_t k = 0; k < n_cands; k++)
		all_behind &= c->blocked[c->cands[k].part];
	if (all_behind)
		return emit_wait_planned(c, idx, plan, c->cands[0].part, SCHED_R_PRIORITY,
					 0);
	return wait_rest(c, idx, c->cands, n_cands, plan);
}
