/* bench_sched_scale.c — the pure scheduler at scale, in memory (no
 * daemons): a synthetic cluster (CPU and GPU nodes of different weights,
 * partitions that share nodes, licenses, accounts and QOS with limits), a
 * running job on most cores with ends spread over two days, and a queue of
 * pending jobs drawn from a few hundred request shapes. Prints, per size,
 * the median of RUNS runs of:
 *   - full: one BACKFILL pass considering every pending job
 *     (bf_max_job_test = the queue, bf_window 1 day, bf_resolution 60 s);
 *   - incremental: a QUICK pass (default_queue_depth 100) over the same
 *     snapshot after one submit and one completion, with the full pass's
 *     plans;
 *   - the snapshot's bytes per pending job (its sched_pending, its request,
 *     its partition and license lists).
 * Asserts nothing. The last line reads
 *   sched-scale 10000x100000: full_ms=N incremental_ms=N bytes_per_pending=N
 *
 *   ninja -C build bench/sched_scale/bench_sched_scale
 *   build/bench/sched_scale/bench_sched_scale [NODESxPENDING ...]   # RUNS=… SEED=…
 * Each size's line ends with digests of the full and the incremental
 * pass's decisions: a change that must not change what is decided keeps
 * them. REFERENCE=1 also runs both passes by the plainest search
 * (sched_reference.h, slow: small sizes) and says whether they decide
 * the same. CPU=1 times the passes by the process's CPU time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/sched.h"
#include "sched/sched_reference.h"

#define HOUR 3600
#define NOW 1000000000

static uint64_t rng = 42;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* CPU=1: the process's CPU time instead of the wall clock (on a shared,
 * busy machine it is the steadier of the two, not the one to quote). */
static double now_ms(void)
{
	static int cpu = -1;
	struct timespec ts;
	if (cpu < 0)
		cpu = getenv("CPU") && strcmp(getenv("CPU"), "0");
	clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

enum { P_CPU, P_GPU, P_DEBUG, P_LONG, P_ALL, N_PARTS };
enum { Q_NORMAL, Q_HIGH, Q_LOW, N_QOS };
#define N_ACCOUNTS 20
#define USERS_PER_ACCOUNT 10
#define N_ASSOCS (1 + N_ACCOUNTS + N_ACCOUNTS * USERS_PER_ACCOUNT)
#define N_SHAPES 240

struct shape {
	struct sched_req req;
	uint32_t parts[2], n_parts;
	int64_t limit;
	uint32_t weight; /* popularity */
};

struct world {
	uint32_t n_nodes, n_pending, n_cpu_nodes;
	struct sched_node *nodes;
	struct sched_gpu gpus_a100[8], gpus_h100[8];
	struct sched_part parts[N_PARTS];
	uint32_t *part_nodes[N_PARTS];
	struct sched_license lics[2];
	struct sched_qos qos[N_QOS];
	struct sched_assoc assocs[N_ASSOCS];
	struct sched_policy policy;
	struct sched_running *running;
	struct sched_alloc *ralloc;
	uint64_t *rcpus;
	uint32_t *runits;
	uint32_t n_running;
	struct sched_pending *pending;
	struct sched_req *reqs; /* one per pending job, as ctld keeps them */
	uint32_t *jparts;
	struct sched_lic_req *jlics;
	struct shape shapes[N_SHAPES];
	uint32_t shape_total;
	struct sched_snapshot snap;
};

static struct sched_tres_vec unlimited(void)
{
	struct sched_tres_vec v;
	for (int k = 0; k < SCHED_TRES_COUNT; k++)
		v.v[k] = SCHED_UNLIMITED;
	return v;
}

/* --- the machine ------------------------------------------------------------ */

static void make_nodes(struct world *w)
{
	w->nodes = calloc(w->n_nodes, sizeof(*w->nodes));
	w->n_cpu_nodes = w->n_nodes * 4 / 5;
	for (int d = 0; d < 8; d++) {
		w->gpus_a100[d] = (struct sched_gpu){"a100", 1};
		w->gpus_h100[d] = (struct sched_gpu){"h100", 1};
	}
	for (uint32_t i = 0; i < w->n_nodes; i++) {
		struct sched_node *n = &w->nodes[i];
		bool gpu = i >= w->n_cpu_nodes;
		n->up = rnd(1000) != 0; /* one in a thousand down or drained */
		n->n_cpus = 64;
		n->mem = gpu ? 512 * 1024 : 256 * 1024;
		n->weight = gpu ? 50 : 10 + rnd(3);
		n->n_gpus = gpu ? 8 : 0;
		n->gpus = !gpu ? NULL : (i % 2 ? w->gpus_a100 : w->gpus_h100);
		n->tmp_disk = 400000;
		n->features = gpu ? "gpu,ib" : (i % 3 ? "cpu,ib" : "cpu");
	}
}

static void make_part(struct world *w, int p, uint32_t first, uint32_t last,
		      uint32_t tier, int64_t max_time)
{
	struct sched_part *part = &w->parts[p];
	w->part_nodes[p] = malloc((last - first + 1) * sizeof(uint32_t));
	for (uint32_t i = first; i <= last; i++)
		w->part_nodes[p][part->n_nodes++] = i;
	part->nodes = w->part_nodes[p];
	part->up = true;
	part->priority_tier = tier;
	part->max_time = max_time;
	part->qos = SCHED_NONE;
}

static void make_parts(struct world *w)
{
	make_part(w, P_CPU, 0, w->n_cpu_nodes - 1, 0, 2 * 24 * HOUR);
	make_part(w, P_GPU, w->n_cpu_nodes, w->n_nodes - 1, 0, 2 * 24 * HOUR);
	make_part(w, P_DEBUG, 0, w->n_cpu_nodes / 20, 1, HOUR);
	make_part(w, P_LONG, w->n_cpu_nodes / 2, w->n_cpu_nodes - 1, 0, 7 * 24 * HOUR);
	w->parts[P_LONG].max_cpus_per_node = 48;
	make_part(w, P_ALL, 0, w->n_nodes - 1, 0, 2 * 24 * HOUR);
	w->lics[0] = (struct sched_license){"matlab", 200};
	w->lics[1] = (struct sched_license){"ansys", 50};
}

static void make_policy(struct world *w)
{
	for (int q = 0; q < N_QOS; q++)
		w->qos[q] = (struct sched_qos){.usage_factor = 1.0,
					       .max_wall = SCHED_NEVER,
					       .max_jobs_per_user = SCHED_NONE,
					       .grp_jobs = SCHED_NONE,
					       .max_tres_per_user = unlimited(),
					       .max_tres_per_job = unlimited(),
					       .grp_tres = unlimited()};
	w->qos[Q_NORMAL].name = "normal";
	w->qos[Q_HIGH].name = "high";
	w->qos[Q_HIGH].grp_tres.v[SCHED_TRES_GPU] = w->n_nodes / 5 * 8 / 4;
	w->qos[Q_LOW].name = "low";
	w->qos[Q_LOW].max_jobs_per_user = 50;
	for (uint32_t a = 0; a < N_ASSOCS; a++) {
		w->assocs[a] = (struct sched_assoc){.parent = SCHED_NONE,
						    .uid = SCHED_NONE,
						    .shares = 1,
						    .grp_jobs = SCHED_NONE,
						    .max_jobs = SCHED_NONE,
						    .grp_tres = unlimited(),
						    .max_tres_per_job = unlimited(),
						    .max_wall = SCHED_NEVER};
		if (a >= 1 && a <= N_ACCOUNTS)
			w->assocs[a].parent = 0;
		if (a > N_ACCOUNTS) {
			w->assocs[a].parent =
			    1 + (a - N_ACCOUNTS - 1) / USERS_PER_ACCOUNT;
			w->assocs[a].uid = 1000 + a;
		}
	}
	/* a few accounts capped */
	for (uint32_t a = 1; a <= 4; a++)
		w->assocs[a].grp_tres.v[SCHED_TRES_CPU] = w->n_nodes * 64 / 10;
	w->policy = (struct sched_policy){w->qos, N_QOS, w->assocs, N_ASSOCS, true, true};
}

/* --- request shapes ---------------------------------------------------------- */

static const int64_t limits[] = {15 * 60,   HOUR,      4 * HOUR,
				 12 * HOUR, 24 * HOUR, 48 * HOUR};

static void make_shape(struct shape *s, uint32_t i)
{
	struct sched_req *r = &s->req;
	memset(s, 0, sizeof(*s));
	r->min_nodes = 1;
	r->cpus_per_task = 1;
	s->n_parts = 1;
	s->weight = 1 + 1000 / (1 + i); /* the first shapes are the common ones */
	uint32_t kind = rnd(10);
	if (kind < 6) { /* CPU jobs */
		static const uint32_t tasks[] = {1, 1, 2, 4, 8, 16, 32, 64};
		r->ntasks = tasks[rnd(8)];
		r->cpus_per_task = 1u << rnd(3);
		if (r->ntasks * r->cpus_per_task > 64)
			r->ntasks = 64 / r->cpus_per_task;
		r->mem_per_cpu = rnd(3) * 2000;
		s->parts[0] = P_CPU;
		s->limit = limits[rnd(6)];
		if (rnd(5) == 0) { /* -p cpu,long */
			s->parts[1] = P_LONG;
			s->n_parts = 2;
		}
	} else if (kind < 7) { /* multi-node MPI */
		r->min_nodes = r->max_nodes = 2u << rnd(3);
		r->ntasks_per_node = 64;
		r->mem_per_node = 200 * 1024;
		s->parts[0] = P_CPU;
		s->limit = limits[1 + rnd(4)];
	} else if (kind < 9) { /* GPU jobs */
		r->gpus_per_node = 1u << rnd(4);
		r->ntasks = r->gpus_per_node;
		r->cpus_per_task = 8;
		r->mem_per_node = 64 * 1024 * r->gpus_per_node;
		r->gpu_type = rnd(3) == 0 ? NULL : (rnd(2) ? "a100" : "h100");
		if (rnd(6) == 0) {
			r->min_nodes = r->max_nodes = 2u << rnd(2);
			r->gpus_per_node = 8;
			r->ntasks_per_node = 8;
			r->ntasks = 0;
		}
		s->parts[0] = P_GPU;
		s->limit = limits[1 + rnd(4)];
	} else { /* debug */
		r->ntasks = 1u << rnd(4);
		s->parts[0] = P_DEBUG;
		s->limit = limits[rnd(2)];
	}
}

/* --- jobs ------------------------------------------------------------------- */

/* Running jobs fill most of each node: their CPUs, memory and GPUs. */
static void make_running(struct world *w)
{
	uint32_t cap = w->n_nodes * 10;
	w->running = calloc(cap, sizeof(*w->running));
	w->ralloc = calloc(cap, sizeof(*w->ralloc));
	w->rcpus = calloc(cap, sizeof(*w->rcpus));
	w->runits = calloc(cap * 8, sizeof(*w->runits));
	for (uint32_t i = 0; i < w->n_nodes; i++) {
		const struct sched_node *n = &w->nodes[i];
		bool gpu = n->n_gpus != 0;
		uint32_t used = 0, gpus = 0, k = 0;
		uint32_t fill = 40 + rnd(25); /* most of its 64 CPUs */
		while (used < fill && k++ < 6) {
			uint32_t cpus = 8u << rnd(3), r = w->n_running++;
			if (used + cpus > 64)
				cpus = 64 - used;
			struct sched_alloc *a = &w->ralloc[r];
			uint64_t mask = cpus == 64 ? ~0ULL : ((1ULL << cpus) - 1) << used;
			w->rcpus[r] = mask;
			*a = (struct sched_alloc){.node = i,
						  .cpus = cpus,
						  .tasks = 1,
						  .mem = cpus * 3000ULL,
						  .cpu_ids = &w->rcpus[r],
						  .gpu_units =
						      gpu ? &w->runits[r * 8] : NULL};
			for (uint32_t g = 0; gpu && g < cpus / 8 && gpus < 8; g++)
				w->runits[r * 8 + gpus++] = 1;
			uint32_t user =
			    N_ACCOUNTS + 1 + rnd(N_ACCOUNTS * USERS_PER_ACCOUNT);
			w->running[r] = (struct sched_running){
			    .job_id = 1 + r,
			    .end = NOW + 60 + rnd(2 * 24 * HOUR),
			    .priority = rnd(100000),
			    .part = gpu ? P_GPU : P_CPU,
			    .qos = Q_NORMAL,
			    .assoc = user,
			    .uid = 1000 + user,
			    .alloc = a,
			    .n_alloc = 1,
			};
			used += cpus;
		}
	}
}

static uint32_t pick_shape(struct world *w)
{
	uint32_t x = rnd(w->shape_total);
	for (uint32_t i = 0; i < N_SHAPES; i++) {
		if (x < w->shapes[i].weight)
			return i;
		x -= w->shapes[i].weight;
	}
	return 0;
}

static void make_job(struct world *w, uint32_t i, uint32_t id)
{
	const struct shape *s = &w->shapes[pick_shape(w)];
	struct sched_pending *j = &w->pending[i];
	uint32_t user = N_ACCOUNTS + 1 + rnd(N_ACCOUNTS * USERS_PER_ACCOUNT);
	w->reqs[i] = s->req;
	w->jparts[2 * i] = s->parts[0];
	w->jparts[2 * i + 1] = s->parts[1];
	*j = (struct sched_pending){
	    .job_id = id,
	    .priority = 1000000 - rnd(500000),
	    .uid = 1000 + user,
	    .assoc = user,
	    .qos = rnd(20) == 0	  ? Q_HIGH
		   : rnd(10) == 0 ? Q_LOW
				  : Q_NORMAL,
	    .parts = &w->jparts[2 * i],
	    .n_parts = s->n_parts,
	    .time_limit = s->limit,
	    .req = &w->reqs[i],
	    .count = 1,
	};
	if (rnd(100) == 0) {
		w->jlics[i] = (struct sched_lic_req){rnd(2), 1 + rnd(4)};
		j->lics = &w->jlics[i];
		j->n_lics = 1;
	}
	if (rnd(200) == 0 && j->time_limit > HOUR)
		j->time_min = HOUR;
}

static void make_pending(struct world *w)
{
	uint32_t n = w->n_pending + 1; /* room for the incremental pass's submit */
	w->pending = calloc(n, sizeof(*w->pending));
	w->reqs = calloc(n, sizeof(*w->reqs));
	w->jparts = calloc(2 * n, sizeof(*w->jparts));
	w->jlics = calloc(n, sizeof(*w->jlics));
	for (uint32_t i = 0; i < N_SHAPES; i++) {
		make_shape(&w->shapes[i], i);
		w->shape_total += w->shapes[i].weight;
	}
	for (uint32_t i = 0; i < n; i++)
		make_job(w, i, 10000000 + i);
}

static uint64_t seed = 42; /* SEED=N: another cluster and queue of the same kind */

static void make_world(struct world *w, uint32_t nodes, uint32_t pending)
{
	memset(w, 0, sizeof(*w));
	rng = seed;
	w->n_nodes = nodes;
	w->n_pending = pending;
	make_nodes(w);
	make_parts(w);
	make_policy(w);
	make_running(w);
	make_pending(w);
	w->snap = (struct sched_snapshot){
	    .now = NOW,
	    .nodes = w->nodes,
	    .n_nodes = w->n_nodes,
	    .parts = w->parts,
	    .n_parts = N_PARTS,
	    .lics = w->lics,
	    .n_lics = 2,
	    .running = w->running,
	    .n_running = w->n_running,
	    .pending = w->pending,
	    .n_pending = w->n_pending,
	    .policy = &w->policy,
	};
}

static void free_world(struct world *w)
{
	free(w->nodes);
	for (int p = 0; p < N_PARTS; p++)
		free(w->part_nodes[p]);
	free(w->running);
	free(w->ralloc);
	free(w->rcpus);
	free(w->runits);
	free(w->pending);
	free(w->reqs);
	free(w->jparts);
	free(w->jlics);
}

/* --- measuring -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The plans of a backfill result, as ctld would keep them. */
static struct sched_plan *plans_of(const struct world *w, const struct sched_result *r,
				   uint32_t *n)
{
	struct sched_plan *pl = calloc(r->n_decisions + 1, sizeof(*pl));
	*n = 0;
	for (uint32_t i = 0; pl && i < r->n_decisions; i++) {
		const struct sched_decision *d = &r->decisions[i];
		if (d->verdict != SCHED_WAIT || !d->start)
			continue;
		const struct sched_pending *j = &w->pending[d->index];
		pl[(*n)++] = (struct sched_plan){d->job_id,
						 d->part,
						 d->start,
						 d->start + d->time_limit,
						 &r->allocs[d->alloc_off],
						 d->alloc_n,
						 j->lics,
						 j->n_lics};
	}
	return pl;
}

static uint64_t digest(const struct world *w, const struct sched_result *r)
{
	return sched_result_digest(w->nodes, r);
}

static size_t bytes_per_pending(const struct world *w)
{
	size_t bytes = 0;
	for (uint32_t i = 0; i < w->n_pending; i++)
		bytes += sizeof(struct sched_pending) + sizeof(struct sched_req) +
			 w->pending[i].n_parts * sizeof(uint32_t) +
			 w->pending[i].n_lics * sizeof(struct sched_lic_req);
	return bytes / w->n_pending;
}

static int measure(uint32_t nodes, uint32_t pending, int runs, bool last)
{
	struct world w;
	make_world(&w, nodes, pending);
	struct sched_params full = {.kind = SCHED_PASS_BACKFILL,
				    .default_queue_depth = 100,
				    .bf_max_job_test = pending + 1,
				    .bf_window = 24 * HOUR,
				    .bf_resolution = 60};
	struct sched_params quick = full;
	quick.kind = SCHED_PASS_QUICK;
	double *t_full = calloc(runs, sizeof(double)),
	       *t_inc = calloc(runs, sizeof(double));
	struct sched_result res = {0}, inc = {0};
	for (int r = 0; r < runs; r++) {
		sched_result_free(&res);
		double t0 = now_ms();
		if (sched_run(&w.snap, &full, &res) < 0)
			return fprintf(stderr, "the full pass failed\n"), 1;
		t_full[r] = now_ms() - t0;
	}
	/* one submit (the spare pending job) and one completion (the last
	 * running job gone), the full pass's plans */
	struct sched_snapshot s2 = w.snap;
	s2.n_pending++;
	s2.n_running--;
	s2.plans = plans_of(&w, &res, &s2.n_plans);
	for (int r = 0; r < runs; r++) {
		sched_result_free(&inc);
		double t0 = now_ms();
		if (sched_run(&s2, &quick, &inc) < 0)
			return fprintf(stderr, "the incremental pass failed\n"), 1;
		t_inc[r] = now_ms() - t0;
	}
	if (getenv("REFERENCE")) { /* the same passes by the plainest search */
		struct sched_result ref = {0}, ref_inc = {0};
		if (sched_run_reference(&w.snap, &full, &ref) < 0 ||
		    sched_run_reference(&s2, &quick, &ref_inc) < 0)
			return fprintf(stderr, "a reference pass failed\n"), 1;
		bool same = digest(&w, &ref) == digest(&w, &res) &&
			    digest(&w, &ref_inc) == digest(&w, &inc);
		printf("reference %ux%u: %s\n", nodes, pending,
		       same ? "same" : "DIFFERENT");
		sched_result_free(&ref);
		sched_result_free(&ref_inc);
	}
	printf("%6u nodes x %6u pending: full pass %8.1f ms (started %u, planned %u, "
	       "tested %u); incremental %6.2f ms (started %u); %zu B per pending job; "
	       "digest %016llx %016llx\n",
	       nodes, pending, median(t_full, runs), res.stats.started, res.stats.planned,
	       res.stats.tested, median(t_inc, runs), inc.stats.started,
	       bytes_per_pending(&w), (unsigned long long)digest(&w, &res),
	       (unsigned long long)digest(&w, &inc));
	if (last)
		printf("sched-scale %ux%u: full_ms=%.0f incremental_ms=%.1f "
		       "bytes_per_pending=%zu\n",
		       nodes, pending, median(t_full, runs), median(t_inc, runs),
		       bytes_per_pending(&w));
	free((void *)s2.plans);
	sched_result_free(&res);
	sched_result_free(&inc);
	free(t_full);
	free(t_inc);
	free_world(&w);
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("RUNS"), *env_seed = getenv("SEED");
	int runs = env ? atoi(env) : 5;
	if (env_seed && strtoull(env_seed, NULL, 10))
		seed = strtoull(env_seed, NULL, 10);
	static const char *const sizes[] = {"1000x10000", "10000x100000"};
	int n = argc > 1 ? argc - 1 : 2;
	if (runs < 1)
		runs = 1;
	for (int i = 0; i < n; i++) {
		unsigned nodes, pending;
		const char *arg = argc > 1 ? argv[i + 1] : sizes[i];
		if (sscanf(arg, "%ux%u", &nodes, &pending) != 2 || !nodes || !pending) {
			fprintf(stderr, "usage: %s [NODESxPENDING ...]\n", argv[0]);
			return 2;
		}
		if (measure(nodes, pending, runs, i == n - 1))
			return 1;
	}
	return 0;
}
