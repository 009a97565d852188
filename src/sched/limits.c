/* limits.c — association and QOS limits, as Slurm's accounting policy
 * enforces them on starting jobs: what is in use is counted from the
 * running jobs (per QOS, per QOS and user, per association and over each
 * association's subtree) and grows as the pass starts jobs; a job whose
 * start would go over a limit waits with that limit's reason. A limit set
 * in the partition's QOS wins over the same limit in the job's QOS, as
 * Slurm's partition QOS does. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

enum lim_kind { K_QOS_GRP, K_QOS_USER, K_QOS_JOB, K_ASSOC_GRP, K_ASSOC_JOB, K_COUNT };

/* Each limit's reason per TRES (cpu, mem, node, gres/gpu, billing). */
static const enum sched_reason tres_reason[K_COUNT][SCHED_TRES_COUNT] = {
    [K_QOS_GRP] = {SCHED_R_QOS_GRP_CPU, SCHED_R_QOS_GRP_MEM, SCHED_R_QOS_GRP_NODE,
		   SCHED_R_QOS_GRP_GRES, SCHED_R_QOS_GRP_BILLING},
    [K_QOS_USER] = {SCHED_R_QOS_MAX_CPU_PER_USER, SCHED_R_QOS_MAX_MEM_PER_USER,
		    SCHED_R_QOS_MAX_NODE_PER_USER, SCHED_R_QOS_MAX_GRES_PER_USER,
		    SCHED_R_QOS_MAX_BILLING_PER_USER},
    [K_QOS_JOB] = {SCHED_R_QOS_MAX_CPU_PER_JOB, SCHED_R_QOS_MAX_MEM_PER_JOB,
		   SCHED_R_QOS_MAX_NODE_PER_JOB, SCHED_R_QOS_MAX_GRES_PER_JOB,
		   SCHED_R_QOS_MAX_BILLING_PER_JOB},
    [K_ASSOC_GRP] = {SCHED_R_ASSOC_GRP_CPU, SCHED_R_ASSOC_GRP_MEM, SCHED_R_ASSOC_GRP_NODE,
		     SCHED_R_ASSOC_GRP_GRES, SCHED_R_ASSOC_GRP_BILLING},
    [K_ASSOC_JOB] = {SCHED_R_ASSOC_MAX_CPU_PER_JOB, SCHED_R_ASSOC_MAX_MEM_PER_JOB,
		     SCHED_R_ASSOC_MAX_NODE_PER_JOB, SCHED_R_ASSOC_MAX_GRES_PER_JOB,
		     SCHED_R_ASSOC_MAX_BILLING_PER_JOB},
};

void limits_req_tres(const struct sched_req *r, struct sched_tres_vec *out)
{
	uint32_t nodes = r->min_nodes ? r->min_nodes : 1;
	uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
	uint64_t tasks = r->ntasks	      ? r->ntasks
			 : r->ntasks_per_node ? (uint64_t)r->ntasks_per_node * nodes
					      : nodes;
	uint64_t cpus = tasks * cpt;
	if (r->min_cpus && cpus < (uint64_t)r->min_cpus * nodes)
		cpus = (uint64_t)r->min_cpus * nodes;
	memset(out, 0, sizeof(*out));
	out->v[SCHED_TRES_CPU] = cpus;
	out->v[SCHED_TRES_NODE] = nodes;
	if (r->mem_per_cpu)
		out->v[SCHED_TRES_MEM] = r->mem_per_cpu * cpus;
	else if (r->mem_per_node != SCHED_MEM_WHOLE)
		out->v[SCHED_TRES_MEM] = r->mem_per_node * nodes;
	out->v[SCHED_TRES_GPU] =
	    r->gpus_per_node ? (uint64_t)r->gpus_per_node * nodes : r->gpus_total;
	out->v[SCHED_TRES_BILLING] = cpus; /* no TRESBillingWeights here */
}

void limits_alloc_tres(const struct sched_snapshot *snap, const struct sched_alloc *a,
		       uint32_t n, struct sched_tres_vec *out)
{
	memset(out, 0, sizeof(*out));
	out->v[SCHED_TRES_NODE] = n;
	for (uint32_t i = 0; i < n; i++) {
		out->v[SCHED_TRES_CPU] += a[i].cpus;
		out->v[SCHED_TRES_MEM] += a[i].mem;
		const struct sched_node *node = &snap->nodes[a[i].node];
		for (uint32_t d = 0; a[i].gpu_units && d < node->n_gpus; d++)
			out->v[SCHED_TRES_GPU] += a[i].gpu_units[d] != 0;
	}
	out->v[SCHED_TRES_BILLING] = out->v[SCHED_TRES_CPU];
}

/* --- counting ------------------------------------------------------------- */

static uint32_t user_hash(uint32_t qos, uint32_t uid)
{
	return (qos * 2654435761u) ^ (uid * 40503u + 0x9e37u);
}

static struct lim_user *user_find(const struct limits *l, uint32_t qos, uint32_t uid)
{
	for (uint32_t i = user_hash(qos, uid) & l->users_mask;;
	     i = (i + 1) & l->users_mask) {
		struct lim_user *u = &l->users[i];
		if (u->qos == SCHED_NONE || (u->qos == qos && u->uid == uid))
			return u;
	}
}

static int user_grow(struct limits *l)
{
	uint32_t size = l->users ? (l->users_mask + 1) * 2 : 64;
	struct lim_user *old = l->users, *v = malloc(size * sizeof(*v));
	uint32_t old_size = l->users ? l->users_mask + 1 : 0;
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < size; i++)
		v[i] = (struct lim_user){.qos = SCHED_NONE};
	l->users = v;
	l->users_mask = size - 1;
	for (uint32_t i = 0; i < old_size; i++)
		if (old[i].qos != SCHED_NONE)
			*user_find(l, old[i].qos, old[i].uid) = old[i];
	free(old);
	return 0;
}

static void use_add(struct lim_use *u, const struct sched_tres_vec *t)
{
	u->jobs++;
	for (int k = 0; k < SCHED_TRES_COUNT; k++)
		u->tres[k] += t->v[k];
}

/* The QOS a job counts against: its own and its partition's. */
static void qos_of(const struct sched_snapshot *s, uint32_t qos, uint32_t part,
		   uint32_t q[2])
{
	uint32_t pq = part < s->n_parts ? s->parts[part].qos : SCHED_NONE;
	q[0] = pq;
	q[1] = qos != pq ? qos : SCHED_NONE;
}

int limits_add(struct limits *l, uint32_t qos, uint32_t assoc, uint32_t uid,
	       uint32_t part, const struct sched_tres_vec *tres)
{
	const struct sched_policy *pol = l->snap->policy;
	if (!pol)
		return 0;
	uint32_t q[2];
	qos_of(l->snap, qos, part, q);
	for (int k = 0; k < 2; k++) {
		if (q[k] >= pol->n_qos || !l->qos_counted[q[k]])
			continue;
		use_add(&l->qos[q[k]], tres);
		if (2 * (l->n_users + 1) > l->users_mask + 1 && user_grow(l) < 0)
			return -ENOMEM;
		struct lim_user *u = user_find(l, q[k], uid);
		if (u->qos == SCHED_NONE) {
			*u = (struct lim_user){.qos = q[k], .uid = uid};
			l->n_users++;
		}
		use_add(&u->use, tres);
	}
	if (assoc < pol->n_assocs)
		l->own[assoc]++;
	for (uint32_t a = assoc; l->assoc_grp && a < pol->n_assocs;
	     a = pol->assocs[a].parent)
		use_add(&l->sub[a], tres);
	return 0;
}

static uint8_t sets(const struct sched_tres_vec *v) /* bit k: TRES k limited */
{
	uint8_t m = 0;
	for (int k = 0; k < SCHED_TRES_COUNT; k++)
		m |= (uint8_t)((v->v[k] != SCHED_UNLIMITED) << k);
	return m;
}

static bool any_set(const struct sched_tres_vec *v)
{
	return sets(v) != 0;
}

/* What is worth counting: a QOS's use only where one of its limits reads
 * it (Grp*, MaxJobsPerUser, MaxTRESPerUser), the associations' subtrees
 * only when one of them has a Grp* limit. */
static int what_counts(struct limits *l, const struct sched_policy *pol)
{
	l->qos_counted = calloc(pol->n_qos + 1, sizeof(*l->qos_counted));
	l->qos_sets = calloc(pol->n_qos + 1, sizeof(*l->qos_sets));
	if (!l->qos_counted || !l->qos_sets)
		return -ENOMEM;
	for (uint32_t q = 0; q < pol->n_qos; q++) {
		const struct sched_qos *qs = &pol->qos[q];
		l->qos_sets[q][K_QOS_GRP] = sets(&qs->grp_tres);
		l->qos_sets[q][K_QOS_USER] = sets(&qs->max_tres_per_user);
		l->qos_sets[q][K_QOS_JOB] = sets(&qs->max_tres_per_job);
		l->qos_counted[q] =
		    qs->grp_jobs != SCHED_NONE || qs->max_jobs_per_user != SCHED_NONE ||
		    any_set(&qs->grp_tres) || any_set(&qs->max_tres_per_user);
	}
	for (uint32_t a = 0; a < pol->n_assocs; a++)
		l->assoc_grp |= pol->assocs[a].grp_jobs != SCHED_NONE ||
				any_set(&pol->assocs[a].grp_tres);
	return 0;
}

int limits_init(struct limits *l, const struct sched_snapshot *snap)
{
	const struct sched_policy *pol = snap->policy;
	*l = (struct limits){.snap = snap};
	if (!pol)
		return 0;
	l->on_assoc = pol->enforce_limits;
	l->on_qos = pol->enforce_qos;
	l->qos = calloc(pol->n_qos + 1, sizeof(*l->qos));
	l->sub = calloc(pol->n_assocs + 1, sizeof(*l->sub));
	l->own = calloc(pol->n_assocs + 1, sizeof(*l->own));
	if (!l->qos || !l->sub || !l->own || user_grow(l) < 0 || what_counts(l, pol) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < snap->n_running; i++) {
		const struct sched_running *j = &snap->running[i];
		struct sched_tres_vec t;
		limits_alloc_tres(snap, j->alloc, j->n_alloc, &t);
		if (limits_add(l, j->qos, j->assoc, j->uid, j->part, &t) < 0)
			return -ENOMEM;
	}
	return 0;
}

void limits_fini(struct limits *l)
{
	free(l->qos);
	free(l->sub);
	free(l->own);
	free(l->users);
	free(l->qos_counted);
	free(l->qos_sets);
	*l = (struct limits){0};
}

/* --- checking --------------------------------------------------------------- */

static bool set(uint64_t v)
{
	return v != SCHED_UNLIMITED;
}

/* The first TRES where use + add goes over lim, or -1. */
static int over(const struct sched_tres_vec *lim, const uint64_t *use,
		const struct sched_tres_vec *add)
{
	for (int k = 0; k < SCHED_TRES_COUNT; k++)
		if (set(lim->v[k]) && (use ? use[k] : 0) + add->v[k] > lim->v[k])
			return k;
	return -1;
}

/* One TRES vector limit of the job's QOS pair: the partition's QOS where
 * it sets the TRES, else the job's. */
static enum sched_reason qos_tres(const struct limits *l, const uint32_t q[2],
				  uint32_t uid, enum lim_kind kind,
				  const struct sched_tres_vec *tres)
{
	const struct sched_policy *pol = l->snap->policy;
	uint32_t set_any = 0; /* the TRES either QOS limits this way */
	for (int k = 0; k < 2; k++)
		set_any |= q[k] < pol->n_qos ? l->qos_sets[q[k]][kind] : 0;
	for (int t = 0; set_any && t < SCHED_TRES_COUNT; t++) {
		if (!(set_any >> t & 1))
			continue;
		for (int k = 0; k < 2; k++) {
			if (q[k] >= pol->n_qos)
				continue;
			const struct sched_qos *qs = &pol->qos[q[k]];
			const struct sched_tres_vec *lim =
			    kind == K_QOS_GRP	 ? &qs->grp_tres
			    : kind == K_QOS_USER ? &qs->max_tres_per_user
						 : &qs->max_tres_per_job;
			if (!set(lim->v[t]))
				continue;
			uint64_t use = kind == K_QOS_GRP ? l->qos[q[k]].tres[t] : 0;
			if (kind == K_QOS_USER) {
				const struct lim_user *u = user_find(l, q[k], uid);
				use = u->qos == SCHED_NONE ? 0 : u->use.tres[t];
			}
			if (use + tres->v[t] > lim->v[t])
				return tres_reason[kind][t];
			break; /* the partition's QOS set it: the job's does not count */
		}
	}
	return SCHED_R_NONE;
}

/* Which of the job's QOS pair sets a scalar limit: the partition's first.
 * Returns its index in q, or -1 when neither does. */
static int qos_setting(const struct sched_policy *pol, const uint32_t q[2], int which)
{
	for (int k = 0; k < 2; k++) {
		if (q[k] >= pol->n_qos)
			continue;
		const struct sched_qos *qs = &pol->qos[q[k]];
		if ((which == 0 && qs->max_wall != SCHED_NEVER) ||
		    (which == 1 && qs->grp_jobs != SCHED_NONE) ||
		    (which == 2 && qs->max_jobs_per_user != SCHED_NONE))
			return k;
	}
	return -1;
}

static enum sched_reason qos_check(const struct limits *l, const struct sched_pending *j,
				   uint32_t part, const struct sched_tres_vec *tres)
{
	const struct sched_policy *pol = l->snap->policy;
	uint32_t q[2];
	qos_of(l->snap, j->qos, part, q);
	int k = qos_setting(pol, q, 0);
	if (k >= 0 && j->time_limit > pol->qos[q[k]].max_wall)
		return SCHED_R_QOS_MAX_WALL;
	enum sched_reason r = qos_tres(l, q, j->uid, K_QOS_JOB, tres);
	if (r != SCHED_R_NONE)
		return r;
	k = qos_setting(pol, q, 1);
	if (k >= 0 && l->qos[q[k]].jobs + 1 > pol->qos[q[k]].grp_jobs)
		return SCHED_R_QOS_GRP_JOBS;
	k = qos_setting(pol, q, 2);
	if (k >= 0) {
		const struct lim_user *u = user_find(l, q[k], j->uid);
		uint32_t jobs = u->qos == SCHED_NONE ? 0 : u->use.jobs;
		if (jobs + 1 > pol->qos[q[k]].max_jobs_per_user)
			return SCHED_R_QOS_MAX_JOBS_PER_USER;
	}
	r = qos_tres(l, q, j->uid, K_QOS_GRP, tres);
	return r != SCHED_R_NONE ? r : qos_tres(l, q, j->uid, K_QOS_USER, tres);
}

static enum sched_reason assoc_check(const struct limits *l,
				     const struct sched_pending *j,
				     const struct sched_tres_vec *tres)
{
	const struct sched_policy *pol = l->snap->policy;
	if (j->assoc >= pol->n_assocs)
		return SCHED_R_NONE;
	const struct sched_assoc *a = &pol->assocs[j->assoc];
	if (a->max_wall != SCHED_NEVER && j->time_limit > a->max_wall)
		return SCHED_R_ASSOC_MAX_WALL;
	int t = over(&a->max_tres_per_job, NULL, tres);
	if (t >= 0)
		return tres_reason[K_ASSOC_JOB][t];
	for (uint32_t i = j->assoc; i < pol->n_assocs; i = pol->assocs[i].parent)
		if (pol->assocs[i].grp_jobs != SCHED_NONE &&
		    l->sub[i].jobs + 1 > pol->assocs[i].grp_jobs)
			return SCHED_R_ASSOC_GRP_JOBS;
	if (a->max_jobs != SCHED_NONE && l->own[j->assoc] + 1 > a->max_jobs)
		return SCHED_R_ASSOC_MAX_JOBS;
	for (uint32_t i = j->assoc; i < pol->n_assocs; i = pol->assocs[i].parent) {
		t = over(&pol->assocs[i].grp_tres, l->sub[i].tres, tres);
		if (t >= 0)
			return tres_reason[K_ASSOC_GRP][t];
	}
	return SCHED_R_NONE;
}

enum sched_reason limits_check(const struct limits *l, const struct sched_pending *j,
			       uint32_t part, const struct sched_tres_vec *tres)
{
	enum sched_reason r = SCHED_R_NONE;
	if (!l->snap->policy)
		return r;
	if (l->on_qos)
		r = qos_check(l, j, part, tres);
	if (r == SCHED_R_NONE && l->on_assoc)
		r = assoc_check(l, j, tres);
	return r;
}
