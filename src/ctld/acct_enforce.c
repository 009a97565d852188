/* acct_enforce.c — what AccountingStorageEnforce decides when a job is
 * submitted, as Slurm's slurmctld decides it: the job's association (its
 * user in its account, the user's DefaultAccount when none is given), its
 * QOS (given, else the association's DefaultQOS, else its only QOS, else
 * normal), and the limits that refuse a job at once: MaxSubmitJobs,
 * GrpSubmitJobs, a QOS's MaxSubmitJobsPerUser and GrpSubmitJobs, and with
 * Flags=DenyOnLimit the per-job limits a pending job could never meet.
 * The limits that keep a job pending are the scheduler's (acct_tree.h).
 *
 * Submitted jobs are counted from ctld's jobs only when a submit limit is
 * set on the way (none: no walk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/proto.h"
#include "ctld/acct.h"
#include "ctld/acct_tree.h"
#include "ctld/ctld.h"
#include "ctld/job_tres.h"

/* The association a job of user in account (and partition) runs under. */
static const struct acct_assoc *job_assoc(const struct acct_db *db, const char *cluster,
					  const char *user, const char *account,
					  const char *partition)
{
	const struct acct_assoc *a = NULL;
	if (account && partition)
		a = acct_find_assoc(db, cluster, account, user, partition);
	return a ? a : account ? acct_find_assoc(db, cluster, account, user, NULL) : NULL;
}

/* How many jobs a record stands for: an array's pending tasks each. */
static uint32_t job_count(const struct job *j)
{
	return j->array ? j->array->count : 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The accounts of top's subtree, sorted (*n of them; a new array). */
static const char **subtree_accounts(const struct acct_db *db,
				     const struct acct_assoc *top, size_t *n)
{
	const char **v = calloc(db->n_assocs + 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; v && i < db->n_assocs; i++) {
		const struct acct_assoc *a = db->assocs[i];
		if (!a->user && !strcmp(a->cluster, top->cluster) &&
		    acct_in_subtree(db, a, top))
			v[(*n)++] = a->account;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

/* Jobs not yet ended that match: user (NULL: any), account (NULL: any),
 * an account of under's subtree (NULL: any), QOS (NULL: any). */
static uint64_t submitted(const struct ctld *c, const char *user, const char *account,
			  const struct acct_assoc *under, const char *qos)
{
	size_t n_below = 0;
	const char **below = under ? subtree_accounts(c->acct, under, &n_below) : NULL;
	uint64_t n = 0;
	for (const struct job *j = c->jobs.head; j; j = j->next) {
		if (job_state_final(j->state))
			continue;
		if (user && (!j->user || strcmp(j->user, user)))
			continue;
		if (account && (!j->req.account || strcmp(j->req.account, account)))
			continue;
		if (under &&
		    (!j->req.account || !below ||
		     !bsearch(&j->req.account, below, n_below, sizeof(*below), by_name)))
			continue;
		if (qos && strcasecmp(j->req.qos ? j->req.qos : "normal", qos))
			continue;
		n += job_count(j);
	}
	free(below);
	return n;
}

/* MaxSubmitJobs (inherited) and every GrpSubmitJobs up the tree: the
 * reason Slurm names, or NULL. */
static const char *assoc_submit(const struct ctld *c, const struct acct_assoc *a,
				const struct job *j)
{
	struct acct_effective e;
	acct_effective(c->acct, a, &e);
	for (const struct acct_assoc *p = a; p; p = acct_parent(c->acct, p)) {
		if (p->grp_submit_jobs == ACCT_UNSET)
			continue;
		uint64_t n = p->user ? submitted(c, p->user, p->account, NULL, NULL)
				     : submitted(c, NULL, NULL, p, NULL);
		if (n + job_count(j) > (uint64_t)p->grp_submit_jobs)
			return "AssocGrpSubmitJobsLimit";
	}
	if (e.max_submit_jobs != ACCT_UNSET &&
	    submitted(c, a->user, a->account, NULL, NULL) + job_count(j) >
		(uint64_t)e.max_submit_jobs)
		return "AssocMaxSubmitJobLimit";
	return NULL;
}

/* Slurm's reason for a TRES over a limit (job_reason_string). */
static const char *tres_reason(int scope, enum drv_tres_id id)
{
	/* per TRES: QOS per user, QOS per job, association per job */
	static const char *const names[][3] = {
	    [DRV_TRES_BILLING] = {"QOSMaxBillingPerUser", "QOSMaxBillingPerJob",
				  "AssocMaxBillingPerJob"},
	    [DRV_TRES_CPU] = {"QOSMaxCpuPerUserLimit", "QOSMaxCpuPerJobLimit",
			      "AssocMaxCpuPerJobLimit"},
	    [DRV_TRES_ENERGY] = {"QOSMaxEnergyPerUser", "QOSMaxEnergyPerJob",
				 "AssocMaxEnergyPerJob"},
	    [DRV_TRES_FS_DISK] = {"QOSMaxUnknownPerUser", "QOSMaxUnknownPerJob",
				  "AssocMaxUnknownPerJob"},
	    [DRV_TRES_GPU] = {"QOSMaxGRESPerUser", "QOSMaxGRESPerJob",
			      "AssocMaxGRESPerJob"},
	    [DRV_TRES_MEM] = {"QOSMaxMemoryPerUser", "QOSMaxMemoryPerJob",
			      "AssocMaxMemPerJob"},
	    [DRV_TRES_NODE] = {"QOSMaxNodePerUserLimit", "QOSMaxNodePerJobLimit",
			       "AssocMaxNodePerJobLimit"},
	    [DRV_TRES_PAGES] = {"QOSMaxUnknownPerUser", "QOSMaxUnknownPerJob",
				"AssocMaxUnknownPerJob"},
	    [DRV_TRES_VMEM] = {"QOSMaxUnknownPerUser", "QOSMaxUnknownPerJob",
			       "AssocMaxUnknownPerJob"},
	};
	return names[id][scope];
}

/* The first TRES (in Slurm's order: by id) of want over limit, or -1. */
static int over(const struct drv_tres *limit, const struct drv_tres *want)
{
	static const enum drv_tres_id by_id[] = {
	    DRV_TRES_CPU,  DRV_TRES_MEM,     DRV_TRES_ENERGY,
	    DRV_TRES_NODE, DRV_TRES_BILLING, DRV_TRES_FS_DISK,
	    DRV_TRES_VMEM, DRV_TRES_PAGES,   DRV_TRES_GPU};
	for (size_t i = 0; i < sizeof(by_id) / sizeof(by_id[0]); i++)
		if (limit->v[by_id[i]] >= 0 && want->v[by_id[i]] > limit->v[by_id[i]])
			return (int)by_id[i];
	return -1;
}

static bool wall_over(int64_t max_minutes, const struct job *j)
{
	return max_minutes != ACCT_UNSET &&
	       (j->time_limit == DRV_INFINITE || j->time_limit > max_minutes * 60);
}

/* The QOS's limits, in the order Slurm checks them: what a submit limit
 * refuses always, what a per-job limit refuses with Flags=DenyOnLimit. */
static const char *qos_limits(const struct ctld *c, const struct acct_qos *q,
			      const struct job *j, const struct drv_tres *want)
{
	bool deny = q->flags & ACCT_QOS_DENY_ON_LIMIT;
	int t;
	if (deny && (t = over(&q->max_tres_per_user, want)) >= 0)
		return tres_reason(0, (enum drv_tres_id)t);
	if (q->grp_submit_jobs != ACCT_UNSET &&
	    submitted(c, NULL, NULL, NULL, q->name) + job_count(j) >
		(uint64_t)q->grp_submit_jobs)
		return "QOSGrpSubmitJobsLimit";
	if (deny && wall_over(q->max_wall, j))
		return "QOSMaxWallDurationPerJobLimit";
	if (deny && (t = over(&q->max_tres_per_job, want)) >= 0)
		return tres_reason(1, (enum drv_tres_id)t);
	if (q->max_submit_jobs_per_user != ACCT_UNSET &&
	    submitted(c, j->user, NULL, NULL, q->name) + job_count(j) >
		(uint64_t)q->max_submit_jobs_per_user)
		return "QOSMaxSubmitJobPerUserLimit";
	return NULL;
}

/* The association's: its submit limits, and with the QOS's DenyOnLimit
 * its per-job ones. */
static const char *assoc_limits(const struct ctld *c, const struct acct_assoc *a,
				const struct job *j, const struct drv_tres *want,
				bool deny)
{
	const char *why = assoc_submit(c, a, j);
	if (why || !deny)
		return why;
	struct acct_effective e;
	acct_effective(c->acct, a, &e);
	int t = over(&e.max_tres_per_job, want);
	if (t >= 0)
		return tres_reason(2, (enum drv_tres_id)t);
	return wall_over(e.max_wall, j) ? "AssocMaxWallDurationPerJobLimit" : NULL;
}

/* The QOS a job gets when it names none. */
static const char *default_qos(const struct acct_assoc *a, const struct acct_effective *e)
{
	if (a && e->default_qos)
		return e->default_qos;
	if (a && e->qos && e->qos->n == 1)
		return e->qos->v[0];
	return "normal";
}

/* What the job asks for, as TRES counts (cpu, mem, node, gres/gpu,
 * billing). */
static void requested(const struct job *j, struct drv_tres *want)
{
	struct drv_error err;
	char *text = job_tres_requested(j);
	if (!text || drv_tres_parse(text, want, &err) < 0)
		drv_tres_init(want);
	free(text);
}

/* A job that gave no time limit gets the tightest MaxWall it is under
 * (Slurm's acct_policy_validate), so no MaxWall refuses or holds it. */
static void cap_wall(struct job *j, const struct acct_qos *q, const struct acct_assoc *a,
		     const struct acct_db *db)
{
	int64_t cap = q ? q->max_wall : ACCT_UNSET;
	if (a) {
		struct acct_effective e;
		acct_effective(db, a, &e);
		if (e.max_wall != ACCT_UNSET && (cap == ACCT_UNSET || e.max_wall < cap))
			cap = e.max_wall;
	}
	if (cap != ACCT_UNSET &&
	    (j->time_limit == DRV_INFINITE || j->time_limit > cap * 60))
		j->time_limit = cap * 60;
}

int acct_submit_check(struct ctld *c, struct job *j, bool time_given, char *why,
		      size_t len)
{
	const struct acct_db *db = c->acct;
	unsigned enforce = c->conf->acct_enforce;
	const struct acct_user *u = acct_find_user(db, j->user);
	const char *account = j->req.account ? j->req.account
			      : u	     ? u->default_account
					     : NULL;
	const struct acct_assoc *a =
	    job_assoc(db, c->conf->cluster_name, j->user, account, j->partition);
	why[0] = '\0';
	if (!a && (enforce & DRV_ENFORCE_ASSOCS))
		return DRV_RC_INVALID_ACCOUNT;
	if (a && !j->req.account && !(j->req.account = strdup(a->account)))
		return DRV_RC_ERROR;
	struct acct_effective e = {0};
	if (a)
		acct_effective(db, a, &e);
	const struct acct_qos *q =
	    acct_find_qos(db, j->req.qos ? j->req.qos : default_qos(a, &e));
	/* Slurm checks a QOS against the association for everyone at submit,
	 * operators included */
	if ((!q || (a && !(e.qos && acct_strs_has(e.qos, q->name)))) &&
	    (enforce & DRV_ENFORCE_QOS))
		return DRV_RC_INVALID_QOS;
	if (q && acct_set_str(&j->req.qos, q->name) < 0)
		return DRV_RC_ERROR;
	if (!(enforce & DRV_ENFORCE_LIMITS))
		return 0;
	if (!time_given)
		cap_wall(j, q, a, db);
	struct drv_tres want;
	requested(j, &want);
	const char *reason = q ? qos_limits(c, q, j, &want) : NULL;
	if (!reason && a)
		reason = assoc_limits(c, a, j, &want,
				      q && (q->flags & ACCT_QOS_DENY_ON_LIMIT));
	if (!reason)
		return 0;
	snprintf(why, len, "%s", reason);
	return DRV_RC_ACCOUNTING_POLICY;
}
