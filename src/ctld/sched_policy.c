/* sched_policy.c — the policy's tables (acct.h) as the scheduler reads them:
 * QOS and the association tree with effective limits (struct
 * sched_policy), and which association and QOS each job runs under. Built
 * again only when the tables changed (c->acct_gen), since a build looks
 * users up in the passwd database. */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/acct_tree.h"
#include "ctld/ctld.h"
#include "ctld/part.h"
#include "ctld/sched_snap.h"

struct sched_policy_cache {
	bool built;
	uint64_t gen;
	struct acct_policy ap;
	struct sched_policy sp;
	struct sched_qos *qos;
	struct sched_assoc *assocs;
};

static uint32_t count_of(int64_t v)
{
	return v == ACCT_UNSET || v < 0 || v >= SCHED_NONE ? SCHED_NONE : (uint32_t)v;
}

static int64_t wall_of(int64_t seconds)
{
	return seconds == ACCT_UNSET ? SCHED_NEVER : seconds;
}

static struct sched_tres_vec tres_of(const struct drv_tres *t)
{
	static const enum drv_tres_id from[SCHED_TRES_COUNT] = {
	    [SCHED_TRES_CPU] = DRV_TRES_CPU,	     [SCHED_TRES_MEM] = DRV_TRES_MEM,
	    [SCHED_TRES_NODE] = DRV_TRES_NODE,	     [SCHED_TRES_GPU] = DRV_TRES_GPU,
	    [SCHED_TRES_BILLING] = DRV_TRES_BILLING,
	};
	struct sched_tres_vec v;
	for (int i = 0; i < SCHED_TRES_COUNT; i++) {
		int64_t x = t->v[from[i]];
		v.v[i] = x < 0 ? SCHED_UNLIMITED : (uint64_t)x;
	}
	return v;
}

static void qos_of(const struct acct_policy_qos *q, struct sched_qos *out)
{
	*out = (struct sched_qos){
	    .name = q->name,
	    .priority = q->priority,
	    .usage_factor = q->usage_factor,
	    .max_wall = wall_of(q->max_wall),
	    .max_jobs_per_user = count_of(q->max_jobs_per_user),
	    .grp_jobs = count_of(q->grp_jobs),
	    .max_tres_per_user = tres_of(&q->max_tres_per_user),
	    .max_tres_per_job = tres_of(&q->max_tres_per_job),
	    .grp_tres = tres_of(&q->grp_tres),
	    .flags = q->deny_on_limit ? SCHED_QOS_DENY_ON_LIMIT : 0,
	};
}

static uint32_t uid_of(const char *user)
{
	struct passwd *pw = user ? getpwnam(user) : NULL;
	return pw ? (uint32_t)pw->pw_uid : SCHED_NONE;
}

static void assoc_of(const struct acct_policy_assoc *a, struct sched_assoc *out)
{
	*out = (struct sched_assoc){
	    .parent = a->parent == ACCT_POLICY_NONE ? SCHED_NONE : a->parent,
	    .uid = a->user ? uid_of(a->user) : SCHED_NONE,
	    .shares = a->shares == ACCT_SHARES_PARENT ? SCHED_FS_PARENT : a->shares,
	    .usage = a->usage,
	    .grp_jobs = count_of(a->grp_jobs),
	    .max_jobs = count_of(a->max_jobs),
	    .grp_tres = tres_of(&a->grp_tres),
	    .max_tres_per_job = tres_of(&a->max_tres_per_job),
	    .max_wall = wall_of(a->max_wall),
	};
}

static void cache_clear(struct sched_policy_cache *pc)
{
	acct_policy_fini(&pc->ap);
	free(pc->qos);
	free(pc->assocs);
	memset(pc, 0, sizeof(*pc));
}

static int cache_build(struct ctld *c, struct sched_policy_cache *pc)
{
	cache_clear(pc);
	if (acct_policy_build(c->acct, c->conf->cluster_name, c->conf->acct_enforce,
			      &pc->ap) < 0)
		return -ENOMEM;
	pc->qos = calloc(pc->ap.n_qos + 1, sizeof(*pc->qos));
	pc->assocs = calloc(pc->ap.n_assocs + 1, sizeof(*pc->assocs));
	if (!pc->qos || !pc->assocs) {
		cache_clear(pc);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < pc->ap.n_qos; i++)
		qos_of(&pc->ap.qos[i], &pc->qos[i]);
	for (uint32_t i = 0; i < pc->ap.n_assocs; i++)
		assoc_of(&pc->ap.assocs[i], &pc->assocs[i]);
	pc->sp = (struct sched_policy){
	    .qos = pc->qos,
	    .n_qos = pc->ap.n_qos,
	    .assocs = pc->assocs,
	    .n_assocs = pc->ap.n_assocs,
	    .enforce_limits = pc->ap.enforce_limits,
	    .enforce_qos = pc->ap.enforce_qos,
	};
	pc->gen = c->acct_gen;
	pc->built = true;
	return 0;
}

const struct sched_policy *sched_policy_get(struct ctld *c)
{
	if (!c->acct)
		return NULL;
	if (!c->policy && !(c->policy = calloc(1, sizeof(*c->policy))))
		return NULL;
	if ((!c->policy->built || c->policy->gen != c->acct_gen) &&
	    cache_build(c, c->policy) < 0)
		return NULL;
	return &c->policy->sp;
}

void sched_policy_free(struct ctld *c)
{
	if (c->policy)
		cache_clear(c->policy);
	free(c->policy);
	c->policy = NULL;
}

void sched_policy_job(struct ctld *c, const struct job *j, const char *partition,
		      uint32_t *assoc, uint32_t *qos)
{
	*assoc = *qos = SCHED_NONE;
	if (!sched_policy_get(c))
		return;
	const struct acct_policy *ap = &c->policy->ap;
	uint32_t a = acct_policy_assoc_index(ap, j->user, j->req.account, partition);
	uint32_t q = acct_policy_qos_index(ap, j->req.qos ? j->req.qos : "normal");
	*assoc = a == ACCT_POLICY_NONE ? SCHED_NONE : a;
	*qos = q == ACCT_POLICY_NONE ? SCHED_NONE : q;
}

uint32_t sched_policy_qos(struct ctld *c, const char *name)
{
	if (!name || !sched_policy_get(c))
		return SCHED_NONE;
	uint32_t q = acct_policy_qos_index(&c->policy->ap, name);
	return q == ACCT_POLICY_NONE ? SCHED_NONE : q;
}

const struct acct_policy *sched_policy_acct(struct ctld *c)
{
	return sched_policy_get(c) ? &c->policy->ap : NULL;
}
