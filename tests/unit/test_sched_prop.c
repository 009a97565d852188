/* test_sched_prop.c — properties of the pure scheduler over thousands of
 * random workloads (seeded, so every run checks the same ones):
 *   - at every instant, what runs, what a pass starts and what it plans
 *     never holds more of a node's CPU ids (but as OverSubscribe allows),
 *     memory, GPU units, a partition's MaxCPUsPerNode, an exclusive node,
 *     or any license count than there is;
 *   - backfill never delays a planned start: all jobs known at time 0,
 *     each ends exactly at its limit, a quick then a backfill pass at each
 *     end; every job starts no later than the first start planned for it;
 *   - every pass decides exactly what the plainest search decides
 *     (sched_run_reference: each candidate time, each node checked).
 * A failure prints the seed; PROP_SEED=N runs that workload alone
 * (PROP_DEBUG=1: with what each pass decided), PROP_TIMES=N runs N times
 * as many, PROP_ALL=1 goes on after a failure to list every failing seed,
 * PROP_DIGEST=1 prints a digest of every decision. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched_reference.h"
#include "sched_fixture.h"

static uint64_t rng;

static uint32_t rnd(uint32_t n) /* 0..n-1 */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static bool chance(uint32_t percent)
{
	return rnd(100) < percent;
}

/* --- a random workload ------------------------------------------------------ */

struct world {
	struct fx *f;
	int64_t res;
	bool with_time_min;
	struct sched_pending jobs[FX_JOBS]; /* as submitted */
	uint32_t n_jobs, left[FX_JOBS];	    /* tasks not started yet */
	int64_t first_plan[FX_JOBS];	    /* of the next task; 0: none yet */
};

static void random_nodes(struct fx *f)
{
	uint32_t n = 1 + rnd(6);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = rnd(4);
		fx_node(f, 1 + rnd(8), chance(50) ? 0 : 1000 + 500 * rnd(7), g,
			chance(50) ? "a" : "b");
		for (uint32_t d = 0; d < g; d++)
			f->gpus[i][d].type = chance(50) ? "a" : "b";
		f->nodes[i].weight = rnd(4);
	}
}

static void random_parts(struct fx *f)
{
	uint32_t n = 1 + rnd(3);
	for (uint32_t p = 0; p < n; p++) {
		uint32_t q = fx_part(f, 0, f->snap.n_nodes - 1);
		struct sched_part *part = &f->parts[q];
		part->n_nodes = 0; /* a random non-empty subset, in a random order */
		for (uint32_t i = 0; i < f->snap.n_nodes; i++)
			if (chance(60))
				f->part_nodes[q][part->n_nodes++] = i;
		if (!part->n_nodes)
			f->part_nodes[q][part->n_nodes++] = rnd(f->snap.n_nodes);
		uint32_t os = rnd(10);
		part->oversubscribe = os < 7	? SCHED_OS_NO
				      : os == 7 ? SCHED_OS_EXCLUSIVE
				      : os == 8 ? SCHED_OS_YES
						: SCHED_OS_FORCE;
		part->oversubscribe_max = 2 + rnd(2);
		part->max_cpus_per_node = chance(20) ? 1 + rnd(6) : 0;
		part->max_mem_per_node = chance(10) ? 1000 + 500 * rnd(4) : 0;
		part->max_nodes = chance(20) ? 1 + rnd(2) : 0;
		part->priority_tier = rnd(2);
	}
}

static void random_job(struct world *w, uint32_t id)
{
	struct fx *f = w->f;
	struct sched_pending *j = fx_job(f, id, rnd(6), rnd(f->snap.n_parts), 1 + rnd(6),
					 1 + rnd(2), w->res * (1 + rnd(8)));
	struct sched_req *r = fx_req(f, j);
	uint32_t i = (uint32_t)(j - f->pending);
	if (chance(30) && f->snap.n_parts > 1) {
		f->jparts[i][1] =
		    (f->jparts[i][0] + 1 + rnd(f->snap.n_parts - 1)) % f->snap.n_parts;
		j->n_parts = 2;
	}
	if (chance(25)) {
		r->min_nodes = r->max_nodes = 2;
		r->ntasks = chance(50) ? 0 : 2 + rnd(4);
		r->ntasks_per_node = r->ntasks ? 0 : 1 + rnd(2);
	}
	if (chance(30))
		r->mem_per_node = 100 + 100 * rnd(20);
	else if (chance(20))
		r->mem_per_cpu = 100 + 100 * rnd(5);
	if (chance(30)) {
		r->gpus_per_node = 1 + rnd(2);
		r->gpu_type = chance(30) ? (chance(50) ? "a" : "b") : NULL;
	}
	r->exclusive = chance(8);
	r->oversubscribe = chance(50);
	if (f->snap.n_lics && chance(30))
		fx_job_lic(f, j, rnd(f->snap.n_lics), 1 + rnd(2));
	/* only the next task of an array is planned: the tasks after it may
	 * delay lower jobs' plans, so arrays are in the overcommit check only */
	if (w->with_time_min && chance(10))
		j->count = 2 + rnd(2);
	if (w->with_time_min && chance(20))
		j->time_min = w->res * (1 + rnd(3));
	if (j->time_min >= j->time_limit)
		j->time_min = 0;
}

static void random_world(struct world *w, uint64_t seed, int64_t res, bool time_min)
{
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	memset(w, 0, sizeof(*w));
	w->f = fx_new(0);
	w->res = res;
	w->with_time_min = time_min;
	struct fx *f = w->f;
	random_nodes(f);
	random_parts(f);
	for (uint32_t l = 0, n = rnd(3); l < n; l++)
		fx_lic(f, l ? "b" : "a", 1 + rnd(3));
	w->n_jobs = 3 + rnd(18);
	for (uint32_t id = 1; id <= w->n_jobs; id++)
		random_job(w, id);
	memcpy(w->jobs, f->pending, sizeof(w->jobs));
	for (uint32_t i = 0; i < w->n_jobs; i++)
		w->left[i] = w->jobs[i].count;
	f->par.bf_window = 1000000; /* every job that can ever run is planned */
	f->par.bf_resolution = res;
	f->par.bf_max_job_test = 1000;
}

/* --- what holds what, and when ------------------------------------------- */

struct hold {
	int64_t s, e;
	uint32_t part;
	bool shares, excl;
	const struct sched_alloc *a;
	uint32_t n;
	const struct sched_lic_req *lics;
	uint32_t n_lics;
};

static bool shares_of(const struct fx *f, uint32_t part, const struct sched_req *r)
{
	const struct sched_part *p = &f->parts[part];
	bool excl = r->exclusive || p->oversubscribe == SCHED_OS_EXCLUSIVE;
	return !excl && (p->oversubscribe == SCHED_OS_FORCE ||
			 (p->oversubscribe == SCHED_OS_YES && r->oversubscribe));
}

static bool held_at(const struct hold *h, int64_t t)
{
	return h->s <= t && t < h->e;
}

/* Everything held on node at time t fits it. */
static const char *node_over_at(const struct fx *f, const struct hold *h, uint32_t n_h,
				uint32_t node, int64_t t)
{
	const struct sched_node *nd = &f->nodes[node];
	uint32_t holders[128] = {0}, min_share[128], units[8] = {0};
	uint32_t part_cpus[FX_PARTS] = {0}, on_node = 0;
	uint64_t mem = 0;
	bool excl = false;
	for (uint32_t c = 0; c < 128; c++)
		min_share[c] = UINT32_MAX;
	for (uint32_t i = 0; i < n_h; i++) {
		if (!held_at(&h[i], t))
			continue;
		for (uint32_t k = 0; k < h[i].n; k++) {
			const struct sched_alloc *a = &h[i].a[k];
			if (a->node != node)
				continue;
			on_node++;
			excl |= h[i].excl;
			mem += a->mem;
			part_cpus[h[i].part] += a->cpus;
			for (uint32_t c = 0; c < nd->n_cpus; c++)
				if (a->cpu_ids[c / 64] >> (c % 64) & 1) {
					holders[c]++;
					/* every holder's partition bounds the holders */
					uint32_t cap =
					    h[i].shares
						? f->parts[h[i].part].oversubscribe_max
						: 1;
					if (cap < min_share[c])
						min_share[c] = cap;
				}
			for (uint32_t d = 0; a->gpu_units && d < nd->n_gpus; d++)
				units[d] += a->gpu_units[d];
		}
	}
	if (excl && on_node > 1)
		return "an exclusive node shared";
	if (nd->mem && mem > nd->mem)
		return "memory";
	for (uint32_t c = 0; c < nd->n_cpus; c++)
		if (holders[c] > min_share[c])
			return "a CPU";
	for (uint32_t d = 0; d < nd->n_gpus; d++)
		if (units[d] > nd->gpus[d].capacity)
			return "a GPU";
	for (uint32_t p = 0; p < f->snap.n_parts; p++)
		if (f->parts[p].max_cpus_per_node &&
		    part_cpus[p] > f->parts[p].max_cpus_per_node)
			return "MaxCPUsPerNode";
	return NULL;
}

static bool lics_fit_at(const struct fx *f, const struct hold *h, uint32_t n_h, int64_t t)
{
	uint64_t used[4] = {0};
	for (uint32_t i = 0; i < n_h; i++)
		for (uint32_t k = 0; held_at(&h[i], t) && k < h[i].n_lics; k++)
			used[h[i].lics[k].lic] += h[i].lics[k].count;
	for (uint32_t l = 0; l < f->snap.n_lics; l++)
		if (used[l] > f->lics[l].total)
			return false;
	return true;
}

/* Nothing is ever over: usage only rises where something begins. NULL,
 * or what is over. */
static const char *over(const struct fx *f, const struct hold *h, uint32_t n_h)
{
	for (uint32_t i = 0; i < n_h; i++) {
		int64_t t = h[i].s > f->snap.now ? h[i].s : f->snap.now;
		if (!lics_fit_at(f, h, n_h, t))
			return "a license";
		for (uint32_t node = 0; node < f->snap.n_nodes; node++) {
			const char *what = node_over_at(f, h, n_h, node, t);
			if (what) {
				if (getenv("PROP_DEBUG"))
					fprintf(stderr, "over: %s on node %u at %lld\n",
						what, node, (long long)t);
				return what;
			}
		}
	}
	return NULL;
}

static uint32_t holds_of(const struct fx *f, const struct sched_result *res,
			 struct hold *h, bool with_plans)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->snap.n_running; i++) {
		const struct sched_running *r = &f->running[i];
		const struct sched_part *p = &f->parts[r->part];
		struct sched_req rq = {.oversubscribe = r->oversubscribe,
				       .exclusive = r->exclusive};
		h[n++] =
		    (struct hold){f->snap.now,
				  r->end,
				  r->part,
				  shares_of(f, r->part, &rq),
				  r->exclusive || p->oversubscribe == SCHED_OS_EXCLUSIVE,
				  r->alloc,
				  r->n_alloc,
				  r->lics,
				  r->n_lics};
	}
	for (uint32_t i = 0; i < res->n_decisions; i++) {
		const struct sched_decision *d = &res->decisions[i];
		const struct sched_pending *j = &f->pending[d->index];
		if (d->verdict != SCHED_START && (!with_plans || !d->start))
			continue;
		const struct sched_part *p = &f->parts[d->part];
		h[n++] = (struct hold){d->start,
				       d->start + d->time_limit,
				       d->part,
				       shares_of(f, d->part, j->req),
				       j->req->exclusive ||
					   p->oversubscribe == SCHED_OS_EXCLUSIVE,
				       &res->allocs[d->alloc_off],
				       d->alloc_n,
				       j->lics,
				       j->n_lics};
	}
	return n;
}

/* --- the simulation ------------------------------------------------------------ */

/* The jobs with tasks left become the snapshot's pending ones. */
static void pending_of(struct world *w)
{
	struct fx *f = w->f;
	f->snap.n_pending = 0;
	for (uint32_t i = 0; i < w->n_jobs; i++)
		if (w->left[i]) {
			f->pending[f->snap.n_pending] = w->jobs[i];
			f->pending[f->snap.n_pending++].count = w->left[i];
		}
}

static uint32_t job_slot(const struct world *w, uint32_t id)
{
	return id - 1;
}

/* Applies a pass's starts: they run from now; checks they start no later
 * than planned. */
static bool apply_starts(struct world *w, const struct sched_result *res)
{
	struct fx *f = w->f;
	for (uint32_t i = 0; i < res->n_decisions; i++) {
		const struct sched_decision *d = &res->decisions[i];
		if (d->verdict != SCHED_START)
			continue;
		uint32_t k = job_slot(w, d->job_id);
		if (d->start != f->snap.now ||
		    (w->first_plan[k] && d->start > w->first_plan[k]))
			return false;
		w->first_plan[k] = 0; /* the next task gets its own plan */
		w->left[k]--;
		uint32_t r = f->snap.n_running++;
		struct sched_running *run = &f->running[r];
		*run = (struct sched_running){
		    .job_id = d->job_id,
		    .end = d->start + d->time_limit,
		    .part = d->part,
		    .qos = SCHED_NONE,
		    .assoc = SCHED_NONE,
		    .uid = SCHED_NONE,
		    .oversubscribe = w->jobs[k].req->oversubscribe,
		    .exclusive = w->jobs[k].req->exclusive,
		    .alloc = f->ralloc[r],
		    .n_alloc = d->alloc_n,
		    .lics = w->jobs[k].lics,
		    .n_lics = w->jobs[k].n_lics,
		};
		for (uint32_t a = 0; a < d->alloc_n; a++) {
			f->ralloc[r][a] = res->allocs[d->alloc_off + a];
			memcpy(f->rcpus[r][a], f->ralloc[r][a].cpu_ids,
			       sizeof(f->rcpus[r][a]));
			memcpy(f->runits[r][a],
			       f->ralloc[r][a].gpu_units ? f->ralloc[r][a].gpu_units
							 : f->runits[r][a],
			       sizeof(f->runits[r][a]));
			f->ralloc[r][a].cpu_ids = f->rcpus[r][a];
			f->ralloc[r][a].gpu_units = f->runits[r][a];
		}
	}
	return true;
}

/* The first plan of each job; the plans for the next quick pass. */
static uint32_t note_plans(struct world *w, const struct sched_result *res,
			   struct sched_plan *pl)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < res->n_decisions; i++) {
		const struct sched_decision *d = &res->decisions[i];
		if (d->verdict != SCHED_WAIT || !d->start)
			continue;
		uint32_t k = job_slot(w, d->job_id);
		if (!w->first_plan[k])
			w->first_plan[k] = d->start;
		pl[n++] = (struct sched_plan){d->job_id,
					      d->part,
					      d->start,
					      d->start + d->time_limit,
					      &res->allocs[d->alloc_off],
					      d->alloc_n,
					      w->jobs[k].lics,
					      w->jobs[k].n_lics};
	}
	return n;
}

/* Ends the jobs whose time came; moves now to the next end. false: none. */
static bool next_end(struct fx *f)
{
	int64_t next = INT64_MAX;
	for (uint32_t i = 0; i < f->snap.n_running; i++)
		if (f->running[i].end < next)
			next = f->running[i].end;
	if (next == INT64_MAX)
		return false;
	f->snap.now = next;
	uint32_t k = 0;
	for (uint32_t i = 0; i < f->snap.n_running; i++) {
		if (f->running[i].end == next)
			continue;
		if (k != i) {
			f->running[k] = f->running[i];
			memcpy(f->ralloc[k], f->ralloc[i], sizeof(f->ralloc[k]));
			memcpy(f->rcpus[k], f->rcpus[i], sizeof(f->rcpus[k]));
			memcpy(f->runits[k], f->runits[i], sizeof(f->runits[k]));
			f->running[k].alloc = f->ralloc[k];
			for (uint32_t a = 0; a < FX_ALLOCS; a++) {
				f->ralloc[k][a].cpu_ids = f->rcpus[k][a];
				f->ralloc[k][a].gpu_units = f->runits[k][a];
			}
		}
		k++;
	}
	f->snap.n_running = k;
	return true;
}

/* PROP_DEBUG=1: what each pass decided, for a failing seed. */
static void trace(const struct world *w, const char *what, const struct sched_result *res)
{
	const struct fx *f = w->f;
	if (!getenv("PROP_DEBUG"))
		return;
	fprintf(stderr, "t=%lld %s:", (long long)f->snap.now, what);
	for (uint32_t i = 0; i < res->n_decisions; i++) {
		const struct sched_decision *d = &res->decisions[i];
		fprintf(stderr, " %u:%s@%lld/p%u[", d->job_id,
			d->verdict == SCHED_START ? "go" : sched_reason_name(d->reason),
			(long long)d->start, d->part);
		for (uint32_t a = 0; a < d->alloc_n; a++)
			fprintf(
			    stderr, "%sn%u:%llx", a ? "," : "",
			    res->allocs[d->alloc_off + a].node,
			    (unsigned long long)res->allocs[d->alloc_off + a].cpu_ids[0]);
		fprintf(stderr, "]");
	}
	fprintf(stderr, "\n");
}

static void dump_world(const struct world *w)
{
	const struct fx *f = w->f;
	if (!getenv("PROP_DEBUG"))
		return;
	for (uint32_t i = 0; i < f->snap.n_nodes; i++)
		fprintf(stderr, "node %u: cpus %u mem %llu gpus %u weight %u\n", i,
			f->nodes[i].n_cpus, (unsigned long long)f->nodes[i].mem,
			f->nodes[i].n_gpus, f->nodes[i].weight);
	for (uint32_t p = 0; p < f->snap.n_parts; p++) {
		const struct sched_part *q = &f->parts[p];
		fprintf(stderr,
			"part %u: os %d/%u mcpn %u mmpn %llu maxn %u tier %u nodes", p,
			q->oversubscribe, q->oversubscribe_max, q->max_cpus_per_node,
			(unsigned long long)q->max_mem_per_node, q->max_nodes,
			q->priority_tier);
		for (uint32_t i = 0; i < q->n_nodes; i++)
			fprintf(stderr, " %u", q->nodes[i]);
		fprintf(stderr, "\n");
	}
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		const struct sched_pending *j = &w->jobs[i];
		const struct sched_req *r = j->req;
		fprintf(stderr,
			"job %u prio %llu parts %u,%u lim %lld tmin %lld count %u: "
			"N%u-%u n%u c%u "
			"tpn%u mem%llu mpc%llu gpn%u %s excl%d os%d lics%u\n",
			j->job_id, (unsigned long long)j->priority, j->parts[0],
			j->n_parts > 1 ? j->parts[1] : 99, (long long)j->time_limit,
			(long long)j->time_min, j->count, r->min_nodes, r->max_nodes,
			r->ntasks, r->cpus_per_task, r->ntasks_per_node,
			(unsigned long long)r->mem_per_node,
			(unsigned long long)r->mem_per_cpu, r->gpus_per_node,
			r->gpu_type ? r->gpu_type : "-", r->exclusive, r->oversubscribe,
			j->n_lics);
	}
}

/* PROP_DIGEST=1: a digest of every decision of every pass (FNV-1a over
 * decisions, allocations, CPU ids and GPU units), printed per test, so
 * that a faster scheduler can be checked to decide exactly as before. */
static uint64_t digest = SCHED_FNV1A_BASIS, world_digest;

static uint64_t result_digest(const struct fx *f, const struct sched_result *res)
{
	return sched_result_digest(f->nodes, res);
}

/* The same pass by the plainest search (sched_reference.h) decides the
 * same, to the CPU id. */
static bool same_as_reference(struct world *w, const struct sched_result *res)
{
	struct fx *f = w->f;
	struct sched_result ref = {0};
	if (sched_run_reference(&f->snap, &f->par, &ref) < 0)
		return false;
	bool same = result_digest(f, &ref) == result_digest(f, res);
	if (!same)
		trace(w, "reference", &ref);
	sched_result_free(&ref);
	return same;
}

/* Runs one pass of kind over the world, checks it and applies its starts;
 * NULL, or what went wrong. */
static const char *one_pass(struct world *w, enum sched_pass_kind kind,
			    struct sched_result *res, bool check_delay)
{
	struct fx *f = w->f;
	struct hold h[2 * FX_JOBS];
	bool bf = kind == SCHED_PASS_BACKFILL;
	pending_of(w);
	f->par.kind = kind;
	if (sched_run(&f->snap, &f->par, res) < 0)
		return "a pass failed";
	trace(w, bf ? "backfill" : "quick", res);
	uint64_t d = result_digest(f, res);
	digest = sched_fnv1a(digest, &d, sizeof(d));
	world_digest = sched_fnv1a(world_digest, &d, sizeof(d));
	if (!same_as_reference(w, res))
		return "not what the plainest search decides";
	const char *what = over(f, h, holds_of(f, res, h, bf));
	if (what)
		return what;
	if (!apply_starts(w, res) && check_delay)
		return "a job started after its first plan";
	return NULL;
}

/* One workload from 0 to its last end; NULL when all holds, else what failed. */
static const char *simulate(struct world *w, bool check_delay)
{
	struct fx *f = w->f;
	struct sched_plan plans[FX_JOBS];
	struct sched_result bf = {0}, quick = {0};
	const char *err = NULL;
	f->snap.plans = plans;
	for (int step = 0; !err && step < 200; step++) {
		err = one_pass(w, SCHED_PASS_QUICK, &quick, check_delay);
		sched_result_free(&quick);
		f->snap.n_plans = 0;
		sched_result_free(&bf);
		if (!err)
			err = one_pass(w, SCHED_PASS_BACKFILL, &bf, check_delay);
		f->snap.n_plans = err ? 0 : note_plans(w, &bf, plans);
		if (!err && !next_end(f))
			break;
	}
	sched_result_free(&bf);
	return err;
}

static void run_worlds(uint64_t first, uint32_t n, int64_t res, bool time_min)
{
	const char *only = getenv("PROP_SEED"), *times = getenv("PROP_TIMES");
	bool all = getenv("PROP_ALL"); /* report every failing seed, then fail */
	uint32_t failed = 0;
	if (times) /* a longer soak: PROP_TIMES=20 runs twenty times as many */
		n *= (uint32_t)strtoul(times, NULL, 10);
	for (uint64_t seed = first; seed < first + n; seed++) {
		if (only && strtoull(only, NULL, 10) != seed)
			continue;
		struct world w;
		random_world(&w, seed, res, time_min);
		world_digest = 0;
		if (only)
			dump_world(&w);
		const char *err = simulate(&w, !time_min);
		if (err)
			fprintf(stderr, "seed %llu (res %lld): %s\n",
				(unsigned long long)seed, (long long)res, err);
		failed += err != NULL;
		if (getenv("PROP_SEEDLOG")) /* one digest per workload */
			fprintf(stderr, "seed %llu digest %016llx\n",
				(unsigned long long)seed,
				(unsigned long long)world_digest);
		if (!all)
			assert_null(err);
		fx_free(w.f);
	}
	assert_int_equal(failed, 0);
	if (getenv("PROP_DIGEST"))
		fprintf(stderr, "digest %016llx\n", (unsigned long long)digest);
}

static void backfill_never_delays_a_plan_nor_overcommits(void **state)
{
	run_worlds(1, 2500, 1, false);
}

static void the_same_on_a_minute_grid(void **state)
{
	run_worlds(100001, 1000, 60, false);
}

/* --time-min and array tasks: what starts early or was not planned may
 * move lower plans, but nothing is ever over. */
static void time_min_and_arrays_never_overcommit(void **state)
{
	run_worlds(200001, 1500, 60, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(backfill_never_delays_a_plan_nor_overcommits),
	    cmocka_unit_test(the_same_on_a_minute_grid),
	    cmocka_unit_test(time_min_and_arrays_never_overcommit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
