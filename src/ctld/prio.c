/* prio.c — priority/multifactor's jobs: the weights and what the factors
 * are relative to, one job's priority (the highest over its candidate
 * partitions, sched_priority's formula), the recalculation of every job
 * when something they read changed, and the PriorityCalcPeriod period that
 * drives usage, fair share and the recalculation. Usage and fair share
 * themselves are prio_usage.c's.
 *
 * Every priority is computed at the time of the last period (calc_time),
 * as Slurm's are between two runs of its decay thread: what sprio shows and
 * the order the scheduler uses agree. Priorities are not committed on each
 * change: recovery recalculates them (an administrator's, priority_set, is
 * stored with its job). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "ctld/acct_tree.h"
#include "ctld/ctld.h"
#include "ctld/job_req.h"
#include "ctld/job_tres.h"
#include "ctld/part.h"
#include "ctld/prio_internal.h"
#include "ctld/sched_snap.h"

static bool multifactor(const struct ctld *c)
{
	return c->prio && c->conf->prio.multifactor;
}

/* PriorityWeightTRES as sched_priority reads it. */
static void tres_weights(const struct drv_tres_weights *t, double *out)
{
	out[SCHED_TRES_CPU] = t->w[DRV_TRES_CPU];
	out[SCHED_TRES_MEM] = t->w[DRV_TRES_MEM];
	out[SCHED_TRES_NODE] = t->w[DRV_TRES_NODE];
	out[SCHED_TRES_GPU] = t->w[DRV_TRES_GPU];
	out[SCHED_TRES_BILLING] = t->w[DRV_TRES_BILLING];
}

static void add_node(struct sched_tres_vec *v, const struct node *n)
{
	v->v[SCHED_TRES_CPU] += (uint64_t)n->conf->cpus;
	v->v[SCHED_TRES_MEM] += n->conf->real_memory;
	v->v[SCHED_TRES_NODE] += 1;
	v->v[SCHED_TRES_GPU] += n->n_gpus;
	v->v[SCHED_TRES_BILLING] += (uint64_t)n->conf->cpus;
}

static int build_weights(struct ctld *c, struct prio *p)
{
	const struct drv_prio_conf *pc = &c->conf->prio;
	struct sched_tres_vec *pt = calloc(c->n_parts + 1, sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	struct sched_prio_weights w = {
	    .age = pc->weight_age,
	    .assoc = pc->weight_assoc,
	    .fairshare = pc->weight_fairshare,
	    .job_size = pc->weight_job_size,
	    .partition = pc->weight_partition,
	    .qos = pc->weight_qos,
	    .max_age = pc->max_age,
	    .favor_small = pc->favor_small,
	    .small_relative_to_time = pc->flags & DRV_PRIO_SMALL_RELATIVE_TO_TIME,
	    .cluster_nodes = (uint32_t)c->nodes.n,
	};
	tres_weights(&pc->weight_tres, w.tres);
	for (size_t i = 0; i < c->nodes.n; i++) {
		w.cluster_cpus += (uint32_t)c->nodes.nodes[i].conf->cpus;
		add_node(&w.cluster_tres, &c->nodes.nodes[i]);
	}
	for (size_t i = 0; i < c->n_parts; i++) {
		const struct part *pa = &c->parts[i];
		if (pa->conf->priority_job_factor > w.max_part_job_factor)
			w.max_part_job_factor = pa->conf->priority_job_factor;
		for (uint32_t k = 0; k < pa->n_nodes; k++)
			add_node(&pt[i], &c->nodes.nodes[pa->node_idx[k]]);
	}
	const struct sched_policy *sp = sched_policy_get(c);
	for (uint32_t i = 0; sp && i < sp->n_qos; i++)
		if (sp->qos[i].priority > w.max_qos_priority)
			w.max_qos_priority = sp->qos[i].priority;
	free(p->part_tres);
	p->part_tres = pt;
	p->n_part_tres = c->n_parts;
	p->w = w;
	p->weights_gen = c->acct_gen;
	p->weights_ok = true;
	return 0;
}

/* The weights, built again when stale. */
static const struct sched_prio_weights *weights(struct ctld *c)
{
	struct prio *p = c->prio;
	if ((!p->weights_ok || p->weights_gen != c->acct_gen ||
	     p->n_part_tres != c->n_parts) &&
	    build_weights(c, p) < 0)
		return NULL;
	return &p->w;
}

/* What j asks for, as the TRES factors read it. */
static struct sched_tres_vec job_tres(const struct job *j)
{
	uint32_t cpus = job_cpus(j);
	const struct job_req *q = &j->req;
	uint64_t mem = q->mem * (q->mem_is_per_cpu ? cpus : q->sched.min_nodes);
	struct sched_tres_vec v = {{0}};
	v.v[SCHED_TRES_CPU] = cpus;
	v.v[SCHED_TRES_MEM] = mem;
	v.v[SCHED_TRES_NODE] = q->sched.min_nodes;
	v.v[SCHED_TRES_GPU] = job_gpus(j);
	v.v[SCHED_TRES_BILLING] = cpus;
	return v;
}

int prio_job_factors(struct ctld *c, struct job *j, uint32_t part,
		     struct sched_prio_factors *out)
{
	if (!multifactor(c) || part >= c->n_parts)
		return -ENOENT;
	const struct sched_prio_weights *w = weights(c);
	if (!w || prio_fs_refresh(c) < 0)
		return -ENOMEM;
	const struct sched_policy *sp = sched_policy_get(c);
	uint32_t assoc, qos;
	sched_policy_job(c, j, c->parts[part].conf->name, &assoc, &qos);
	bool accrue_always = c->conf->prio.flags & DRV_PRIO_ACCRUE_ALWAYS;
	struct sched_prio_job pj = {
	    .eligible_time = accrue_always ? j->submit_time : j->eligible_time,
	    .cpus = job_cpus(j),
	    .nodes = j->req.sched.min_nodes,
	    .time_limit = j->time_limit == DRV_INFINITE ? SCHED_NEVER : j->time_limit,
	    .part_job_factor = c->parts[part].conf->priority_job_factor,
	    .qos_priority = sp && qos != SCHED_NONE ? sp->qos[qos].priority : 0,
	    .fairshare = prio_fs_factor(c, assoc),
	    .tres = job_tres(j),
	    .part_tres = c->prio->part_tres[part],
	    .nice = j->req.nice,
	};
	sched_priority(w, &pj, c->prio->calc_time, out);
	return 0;
}

/* Whether j's priority is recalculated: pending, or running with
 * CALCULATE_RUNNING; never one an administrator set. */
static bool recalculated(const struct ctld *c, const struct job *j)
{
	if (j->priority_set)
		return false;
	if (j->state == JOB_PENDING)
		return true;
	return j->state == JOB_RUNNING && !j->completing &&
	       (c->conf->prio.flags & DRV_PRIO_CALCULATE_RUNNING);
}

bool prio_job_update(struct ctld *c, struct job *j)
{
	if (!multifactor(c) || !recalculated(c, j))
		return false;
	struct sched_prio_factors f;
	uint64_t best = 0;
	int p = j->state == JOB_RUNNING ? ctld_part_index(c, j->partition) : -1;
	if (p >= 0) { /* a running job: the partition it runs in */
		if (prio_job_factors(c, j, (uint32_t)p, &f) == 0)
			best = f.priority;
	} else {
		uint32_t n = 0;
		const uint32_t *cand = part_job_candidates(c, j, &n);
		for (uint32_t i = 0; i < n; i++)
			if (prio_job_factors(c, j, cand[i], &f) == 0 && f.priority > best)
				best = f.priority;
	}
	if (!best || best == j->priority)
		return false;
	j->priority = best;
	return true;
}

/* Every job's priority again; a scheduler pass when one moved. */
static void recalc_all(struct ctld *c)
{
	bool moved = false;
	for (struct job *j = c->jobs.head; j; j = j->next)
		moved |= prio_job_update(c, j);
	if (moved)
		sched_request(c);
}

void prio_changed(struct ctld *c)
{
	if (!multifactor(c))
		return;
	c->prio->weights_ok = false;
	c->prio->fs_ok = false;
	recalc_all(c);
}

void prio_period(struct ctld *c, int64_t now)
{
	if (!multifactor(c))
		return;
	struct prio *p = c->prio;
	prio_usage_period(c, now);
	p->calc_time = now;
	p->fs_ok = false;
	p->weights_ok = false;
	if (prio_fs_refresh(c) < 0)
		log_error("priority: out of memory computing fair share");
	recalc_all(c);
	timed_prio(c, now + c->conf->prio.calc_period);
}

int prio_init(struct ctld *c, struct drv_error *err)
{
	if (!c->conf->prio.multifactor)
		return 0;
	c->prio = calloc(1, sizeof(*c->prio));
	if (!c->prio)
		return drv_error_set(err, ENOMEM, "out of memory");
	int rc = prio_usage_load(c, err);
	if (rc < 0)
		return rc;
	/* a first period at once: usage over the time ctld was down, fair
	 * share, every recovered job's priority */
	prio_period(c, time(NULL));
	log_info("priority/multifactor: calc period %llds, decay half-life %llds, %s",
		 (long long)c->conf->prio.calc_period,
		 (long long)c->conf->prio.decay_half_life,
		 c->conf->prio.flags & DRV_PRIO_NO_FAIR_TREE ? "classic fair share"
							     : "Fair Tree");
	return 0;
}

void prio_fini(struct ctld *c)
{
	if (!c->prio)
		return;
	prio_usage_fini(c->prio);
	free(c->prio->part_tres);
	free(c->prio);
	c->prio = NULL;
}
