/* sched_snap.c — ctld's tables as the scheduler's snapshot (sched.h): the
 * nodes, the partitions, the running jobs with what they hold and when they
 * are expected to end, the pending jobs ctld's own rules (holds,
 * dependencies, begin times, deadlines, array throttles) let start, and the
 * last backfill pass's plans. A snapshot borrows from ctld's tables, which
 * must not change until it is freed; it owns only its arrays. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "ctld/job_req.h"
#include "ctld/lic.h"
#include "ctld/sched_snap.h"

void ctld_sched_nodes(const struct ctld *c, struct sched_node *out)
{
	for (size_t i = 0; i < c->nodes.n; i++) {
		const struct node *n = &c->nodes.nodes[i];
		out[i] = (struct sched_node){
		    .up = node_usable(n),
		    .weight = n->conf->weight,
		    .n_cpus = (uint32_t)n->conf->cpus,
		    .mem = c->conf->cr_memory ? n->conf->real_memory : 0,
		    .n_gpus = n->n_gpus,
		    .gpus = n->sched_gpus,
		    .tmp_disk = n->conf->tmp_disk,
		    .features = n->conf->features,
		};
	}
}

static int64_t limit_of(int64_t seconds)
{
	return seconds == DRV_INFINITE ? SCHED_NEVER : seconds;
}

static enum sched_oversubscribe oversubscribe_of(const struct drv_part_conf *pc)
{
	switch (pc->oversubscribe) {
	case DRV_OS_EXCLUSIVE:
		return SCHED_OS_EXCLUSIVE;
	case DRV_OS_YES: /* among the jobs that ask, -s */
		return SCHED_OS_YES;
	case DRV_OS_FORCE:
		return SCHED_OS_FORCE;
	default:
		return SCHED_OS_NO;
	}
}

static uint32_t unlimited0(uint32_t v)
{
	return v == DRV_UNLIMITED32 ? 0 : v;
}

void ctld_sched_part(struct ctld *c, size_t i, struct sched_part *out)
{
	const struct part *p = &c->parts[i];
	const struct drv_part_conf *pc = p->conf;
	*out = (struct sched_part){
	    .nodes = p->node_idx,
	    .n_nodes = p->n_nodes,
	    .up = p->up,
	    .priority_tier = pc->priority_tier,
	    .max_time = limit_of(pc->max_time),
	    .max_nodes = unlimited0(pc->max_nodes),
	    .min_nodes = pc->min_nodes,
	    .max_cpus_per_node = unlimited0(pc->max_cpus_per_node),
	    .max_mem_per_node = pc->max_mem_per_node,
	    .oversubscribe = oversubscribe_of(pc),
	    .oversubscribe_max = pc->oversubscribe_max ? pc->oversubscribe_max : 1,
	    .qos = sched_policy_qos(c, pc->qos),
	};
}

/* ctld keeps a job's licenses as the scheduler reads them. */
_Static_assert(sizeof(struct job_lic) == sizeof(struct sched_lic_req) &&
		   offsetof(struct job_lic, lic) == offsetof(struct sched_lic_req, lic) &&
		   offsetof(struct job_lic, count) ==
		       offsetof(struct sched_lic_req, count),
	       "struct job_lic is laid out as struct sched_lic_req");

static const struct sched_lic_req *job_lics(struct ctld *c, struct job *j, uint32_t *n)
{
	return (const struct sched_lic_req *)lic_job_resolve(c, j, n);
}

/* Grows the pending arrays to hold one more job with n candidates. */
static int pending_room(struct snap *s, uint32_t n)
{
	if (s->n_cands + n > s->cap_cands) {
		size_t cap = (s->cap_cands + n) * 2;
		uint32_t *cands = realloc(s->cands, cap * sizeof(*cands));
		if (!cands)
			return -1;
		s->cands = cands;
		s->cap_cands = cap;
	}
	if (s->n_pending < s->cap_pending)
		return 0;
	size_t cap = s->cap_pending ? s->cap_pending * 2 : 64;
	struct sched_pending *p = realloc(s->pending, cap * sizeof(*p));
	if (p)
		s->pending = p;
	struct job **jobs = realloc(s->jobs, cap * sizeof(*jobs));
	if (jobs)
		s->jobs = jobs;
	size_t *off = realloc(s->cand_off, cap * sizeof(*off));
	if (off)
		s->cand_off = off;
	if (!p || !jobs || !off)
		return -1;
	s->cap_pending = cap;
	return 0;
}

int snap_add_pending(struct ctld *c, struct snap *s, struct job *j, const uint32_t *cand,
		     uint32_t n_cand, uint32_t count)
{
	if (!n_cand || pending_room(s, n_cand) < 0)
		return -1;
	size_t k = s->n_pending++;
	uint32_t n_lics = 0;
	const struct sched_lic_req *lics = job_lics(c, j, &n_lics);
	memcpy(&s->cands[s->n_cands], cand, n_cand * sizeof(*cand));
	s->jobs[k] = j;
	s->cand_off[k] = s->n_cands;
	uint32_t assoc, qos;
	sched_policy_job(c, j, c->parts[cand[0]].conf->name, &assoc, &qos);
	s->pending[k] = (struct sched_pending){
	    .job_id = j->id,
	    .priority = j->priority,
	    .uid = (uint32_t)j->uid,
	    .assoc = assoc,
	    .qos = qos,
	    .n_parts = n_cand,
	    .time_limit = limit_of(j->time_limit),
	    .time_min = j->req.time_min,
	    .req = &j->req.sched,
	    .lics = lics,
	    .n_lics = n_lics,
	    .count = count,
	};
	s->n_cands += n_cand;
	return 0;
}

/* The running jobs: every job that holds nodes (running, or still being
 * cleaned up), each once, found through the nodes that hold it. */
static int add_running(struct ctld *c, struct snap *s, int64_t now)
{
	size_t n_jobs = 0, n_allocs = 0, n_units = 0;
	for (size_t i = 0; i < c->nodes.n; i++) {
		const struct node *nd = &c->nodes.nodes[i];
		for (uint32_t k = 0; k < nd->n_jobs; k++)
			n_jobs += nd->jobs[k]->alloc[0].node == i;
		n_allocs += nd->n_jobs;
		n_units += (size_t)nd->n_jobs * nd->n_gpus;
	}
	s->running = calloc(n_jobs + 1, sizeof(*s->running));
	s->run_allocs = calloc(n_allocs + 1, sizeof(*s->run_allocs));
	s->units = calloc(n_units + 1, sizeof(*s->units));
	if (!s->running || !s->run_allocs || !s->units)
		return -1;
	size_t a = 0, u = 0;
	for (size_t i = 0; i < c->nodes.n; i++) {
		const struct node *nd = &c->nodes.nodes[i];
		for (uint32_t k = 0; k < nd->n_jobs; k++) {
			struct job *j = nd->jobs[k];
			if (j->alloc[0].node != i)
				continue; /* once, from its first node */
			int64_t end = j->time_limit == DRV_INFINITE
					  ? SCHED_NEVER
					  : job_limit_end(j, now);
			if (end <= now || j->completing)
				end = now + 1; /* over its limit: ending now */
			struct sched_running *r = &s->running[s->s.n_running++];
			*r = (struct sched_running){.job_id = j->id,
						    .end = end,
						    .priority = j->priority,
						    .part = SCHED_NONE,
						    .qos = SCHED_NONE,
						    .assoc = SCHED_NONE,
						    .uid = (uint32_t)j->uid,
						    .oversubscribe =
							j->req.sched.oversubscribe,
						    .exclusive = j->req.sched.exclusive,
						    .alloc = &s->run_allocs[a],
						    .n_alloc = j->n_alloc};
			int p = ctld_part_index(c, j->partition);
			if (p >= 0)
				r->part = (uint32_t)p;
			sched_policy_job(c, j, j->partition, &r->assoc, &r->qos);
			r->lics = job_lics(c, j, &r->n_lics);
			for (uint32_t m = 0; m < j->n_alloc; m++) {
				const struct job_alloc *ja = &j->alloc[m];
				const struct node *on = &c->nodes.nodes[ja->node];
				uint32_t *units = &s->units[u];
				for (uint32_t g = 0; g < on->n_gpus; g++)
					units[g] = (uint32_t)(ja->gpus >> g & 1);
				u += on->n_gpus;
				s->run_allocs[a++] = (struct sched_alloc){
				    .node = ja->node,
				    .cpus = ja->cpus,
				    .tasks = ja->tasks,
				    .mem = ja->mem,
				    .cpu_ids = ja->cpu_ids,
				    .gpu_units = on->n_gpus ? units : NULL};
			}
		}
	}
	return 0;
}

int snap_begin(struct ctld *c, struct snap *s, int64_t now)
{
	memset(s, 0, sizeof(*s));
	s->s.now = now;
	s->s.n_nodes = (uint32_t)c->nodes.n;
	s->s.n_parts = (uint32_t)c->n_parts;
	s->nodes = calloc(c->nodes.n + 1, sizeof(*s->nodes));
	s->parts = calloc(c->n_parts + 1, sizeof(*s->parts));
	if (!s->nodes || !s->parts || add_running(c, s, now) < 0)
		return -1;
	ctld_sched_nodes(c, s->nodes);
	for (size_t i = 0; i < c->n_parts; i++)
		ctld_sched_part(c, i, &s->parts[i]);
	s->lics = calloc(c->conf->n_licenses + 1, sizeof(*s->lics));
	if (!s->lics)
		return -1;
	for (size_t i = 0; i < c->conf->n_licenses; i++)
		s->lics[i] = (struct sched_license){c->conf->licenses[i].name,
						    c->conf->licenses[i].total};
	s->s.lics = s->lics;
	s->s.policy = sched_policy_get(c);
	s->s.n_lics = (uint32_t)c->conf->n_licenses;
	snap_overbooked(c, s);
	return 0;
}

void snap_end(struct snap *s, const struct sched_plans *plans)
{
	for (size_t k = 0; k < s->n_pending; k++) /* the pool stopped moving */
		s->pending[k].parts = &s->cands[s->cand_off[k]];
	s->s.nodes = s->nodes;
	s->s.parts = s->parts;
	s->s.running = s->running;
	s->s.pending = s->pending;
	s->s.n_pending = (uint32_t)s->n_pending;
	if (plans) {
		s->s.plans = plans->v;
		s->s.n_plans = plans->n;
	}
}

void snap_free(struct snap *s)
{
	free(s->nodes);
	free(s->parts);
	free(s->running);
	free(s->run_allocs);
	free(s->units);
	free(s->pending);
	free(s->jobs);
	free(s->cands);
	free(s->cand_off);
	free(s->lics);
	memset(s, 0, sizeof(*s));
}
