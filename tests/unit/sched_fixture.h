/* sched_fixture.h — hand-built snapshots for the scheduler's unit tests:
 * nodes, partitions, licenses, running jobs (with their CPU ids, memory and
 * GPU units), pending jobs, a policy; a pass over them; finding a job's
 * decisions. Everything lives in one struct fx with fixed room. */
#ifndef DRV_SCHED_FIXTURE_H
#define DRV_SCHED_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

#define FX_NODES 16
#define FX_PARTS 6
#define FX_JOBS 64
#define FX_ALLOCS 8

struct fx {
	struct sched_node nodes[FX_NODES];
	struct sched_gpu gpus[FX_NODES][8];
	struct sched_part parts[FX_PARTS];
	uint32_t part_nodes[FX_PARTS][FX_NODES];
	struct sched_license lics[4];
	struct sched_running running[FX_JOBS];
	struct sched_alloc ralloc[FX_JOBS][FX_ALLOCS];
	uint64_t rcpus[FX_JOBS][FX_ALLOCS][2];
	uint32_t runits[FX_JOBS][FX_ALLOCS][8];
	struct sched_lic_req rlics[FX_JOBS][2];
	struct sched_pending pending[FX_JOBS];
	struct sched_req reqs[FX_JOBS];
	uint32_t jparts[FX_JOBS][4];
	struct sched_lic_req jlics[FX_JOBS][2];
	struct sched_qos qos[4];
	struct sched_assoc assocs[8];
	struct sched_policy policy;
	struct sched_snapshot snap;
	struct sched_params par;
	struct sched_result res;
};

static inline struct fx *fx_new(int64_t now)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->snap.now = now;
	f->snap.nodes = f->nodes;
	f->snap.parts = f->parts;
	f->snap.lics = f->lics;
	f->snap.running = f->running;
	f->snap.pending = f->pending;
	f->par.kind = SCHED_PASS_QUICK;
	f->par.default_queue_depth = 100;
	f->par.bf_max_job_test = 1000;
	f->par.bf_window = 86400;
	f->par.bf_resolution = 1;
	return f;
}

static inline void fx_free(struct fx *f)
{
	sched_result_free(&f->res);
	free(f);
}

/* A node: cpus, MiB of memory (0: not tracked), gpus of type (NULL: none). */
static inline uint32_t fx_node(struct fx *f, uint32_t cpus, uint64_t mem, uint32_t gpus,
			       const char *type)
{
	uint32_t i = f->snap.n_nodes++;
	struct sched_node *n = &f->nodes[i];
	n->up = true;
	n->n_cpus = cpus;
	n->mem = mem;
	n->n_gpus = gpus;
	n->gpus = gpus ? f->gpus[i] : NULL;
	for (uint32_t d = 0; d < gpus; d++)
		f->gpus[i][d] = (struct sched_gpu){type, 1};
	return i;
}

/* A partition of the nodes in [first, last], up, no limits. */
static inline uint32_t fx_part(struct fx *f, uint32_t first, uint32_t last)
{
	uint32_t p = f->snap.n_parts++;
	struct sched_part *part = &f->parts[p];
	for (uint32_t i = first; i <= last; i++)
		f->part_nodes[p][part->n_nodes++] = i;
	part->nodes = f->part_nodes[p];
	part->up = true;
	part->max_time = SCHED_NEVER;
	part->qos = SCHED_NONE;
	return p;
}

static inline uint32_t fx_lic(struct fx *f, const char *name, uint32_t total)
{
	uint32_t l = f->snap.n_lics++;
	f->lics[l] = (struct sched_license){name, total};
	return l;
}

/* A running job in part until end holding the CPU ids of mask on node. */
static inline struct sched_running *fx_run(struct fx *f, uint32_t id, uint32_t part,
					   int64_t end, uint32_t node, uint64_t mask)
{
	uint32_t i = f->snap.n_running++;
	struct sched_running *r = &f->running[i];
	r->job_id = id;
	r->end = end;
	r->part = part;
	r->qos = r->assoc = r->uid = SCHED_NONE;
	r->alloc = f->ralloc[i];
	f->rcpus[i][0][0] = mask;
	f->ralloc[i][0] =
	    (struct sched_alloc){.node = node,
				 .cpus = (uint32_t)__builtin_popcountll(mask),
				 .tasks = 1,
				 .cpu_ids = f->rcpus[i][0],
				 .gpu_units = f->runits[i][0]};
	r->n_alloc = 1;
	return r;
}

/* One more node for running job r (the last fx_run). */
static inline struct sched_alloc *fx_run_more(struct fx *f, struct sched_running *r,
					      uint32_t node, uint64_t mask)
{
	uint32_t i = (uint32_t)(r - f->running), k = r->n_alloc++;
	f->rcpus[i][k][0] = mask;
	f->ralloc[i][k] =
	    (struct sched_alloc){.node = node,
				 .cpus = (uint32_t)__builtin_popcountll(mask),
				 .tasks = 1,
				 .cpu_ids = f->rcpus[i][k],
				 .gpu_units = f->runits[i][k]};
	return &f->ralloc[i][k];
}

/* A pending job of ntasks x cpt CPUs in part for limit seconds. */
static inline struct sched_pending *fx_job(struct fx *f, uint32_t id, uint64_t prio,
					   uint32_t part, uint32_t ntasks, uint32_t cpt,
					   int64_t limit)
{
	uint32_t i = f->snap.n_pending++;
	struct sched_pending *j = &f->pending[i];
	struct sched_req *r = &f->reqs[i];
	r->min_nodes = 1;
	r->ntasks = ntasks;
	r->cpus_per_task = cpt;
	j->job_id = id;
	j->priority = prio;
	j->uid = 1000;
	j->assoc = j->qos = SCHED_NONE;
	f->jparts[i][0] = part;
	j->parts = f->jparts[i];
	j->n_parts = 1;
	j->time_limit = limit;
	j->req = r;
	j->count = 1;
	return j;
}

static inline struct sched_req *fx_req(struct fx *f, struct sched_pending *j)
{
	return &f->reqs[j - f->pending];
}

static inline void fx_job_lic(struct fx *f, struct sched_pending *j, uint32_t lic,
			      uint32_t count)
{
	uint32_t i = (uint32_t)(j - f->pending);
	f->jlics[i][j->n_lics++] = (struct sched_lic_req){lic, count};
	j->lics = f->jlics[i];
}

static inline int fx_pass(struct fx *f, enum sched_pass_kind kind)
{
	sched_result_free(&f->res);
	f->par.kind = kind;
	return sched_run(&f->snap, &f->par, &f->res);
}

/* The k-th decision of job id (0: its first), or NULL. */
static inline const struct sched_decision *fx_dec_k(const struct fx *f, uint32_t id,
						    uint32_t k)
{
	for (uint32_t i = 0; i < f->res.n_decisions; i++)
		if (f->res.decisions[i].job_id == id && k-- == 0)
			return &f->res.decisions[i];
	return NULL;
}

static inline const struct sched_decision *fx_dec(const struct fx *f, uint32_t id)
{
	return fx_dec_k(f, id, 0);
}

static inline const struct sched_alloc *
fx_alloc(const struct fx *f, const struct sched_decision *d, uint32_t i)
{
	return &f->res.allocs[d->alloc_off + i];
}

/* The job's verdict as a short word for assertions: "start", a reason
 * name, or "-" when the pass gave it no decision. */
static inline const char *fx_what(const struct fx *f, uint32_t id)
{
	const struct sched_decision *d = fx_dec(f, id);
	if (!d)
		return "-";
	return d->verdict == SCHED_START ? "start" : sched_reason_name(d->reason);
}

#endif
