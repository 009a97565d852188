/* acct_tree.h — the association tree: its order, what a child inherits
 * from its parents, and the scheduler's view of the policy.
 *
 * Slurm's inheritance: an association's Max* limits (MaxJobs,
 * MaxSubmitJobs, MaxWall, each TRES of MaxTRESPerJob), its QOS list and its
 * DefaultQOS come from the nearest ancestor that sets them when it sets
 * none itself; Grp* limits are never inherited, they bound the sum over the
 * association's subtree. */
#ifndef CTLD_ACCT_TREE_H
#define CTLD_ACCT_TREE_H

#include "ctld/acct.h"

/* db's associations, parents before children: clusters by name, each from
 * its root; among siblings users first (by user, then partition), then
 * accounts by name, as Slurm's sacctmgr and sshare list them. A new array
 * of db->n_assocs entries (ones no root reaches come last, in db order);
 * the caller frees it. Aborts on ENOMEM. */
struct acct_assoc **acct_tree_order(const struct acct_db *db);

/* The same, siblings in the order Slurm's database keeps them (newest
 * first): the order of the lines modify and delete report. */
struct acct_assoc **acct_lft_order(const struct acct_db *db);

/* The association's depth below its cluster's root (root: 0). */
int acct_tree_depth(const struct acct_db *db, const struct acct_assoc *a);

/* What a's own values and its ancestors' give it. Borrowed from db. */
struct acct_effective {
	int64_t max_jobs, max_submit_jobs, max_wall; /* ACCT_UNSET: none */
	struct drv_tres max_tres_per_job;
	const struct acct_strs *qos; /* NULL: none anywhere up the tree */
	const char *default_qos;     /* NULL: none */
};
void acct_effective(const struct acct_db *db, const struct acct_assoc *a,
		    struct acct_effective *out);

/* --- the scheduler's view ----------------------------------------------------
 *
 * Plain data for the scheduler glue, which maps it onto sched.h's struct
 * sched_policy (h-sched): acct_policy_qos → struct sched_qos (max_wall in
 * seconds, SCHED_NEVER for ACCT_UNSET; counts ACCT_UNSET → SCHED_NONE;
 * TRES counts DRV_TRES_NONE → SCHED_UNLIMITED, DRV_TRES_CPU/MEM/NODE/GPU/
 * BILLING → SCHED_TRES_*), acct_policy_assoc → struct sched_assoc (user →
 * uid by the passwd database). */

#define ACCT_POLICY_NONE UINT32_MAX /* no index */

struct acct_policy_qos {
	const char *name; /* borrowed from the tables it was built from */
	uint32_t id;
	uint32_t priority;
	double usage_factor;
	int64_t max_wall; /* seconds; ACCT_UNSET: none */
	int64_t max_jobs_per_user, max_submit_jobs_per_user, grp_jobs, grp_submit_jobs;
	struct drv_tres max_tres_per_user, max_tres_per_job, grp_tres;
	bool deny_on_limit; /* Flags=DenyOnLimit */
};

struct acct_policy_assoc {
	uint32_t id;	  /* the association's id (sacctmgr's ID, sshare -l) */
	uint32_t parent;  /* index of its parent, ACCT_POLICY_NONE for the root */
	const char *user; /* NULL for an account's association; borrowed */
	const char *account, *partition;
	uint32_t shares; /* ACCT_SHARES_PARENT: "parent" */
	double usage;	 /* its own raw usage */
	/* effective: Max* inherited, Grp* its own */
	int64_t grp_jobs, grp_submit_jobs, max_jobs, max_submit_jobs;
	int64_t max_wall; /* seconds; ACCT_UNSET: none */
	struct drv_tres grp_tres, max_tres_per_job;
	uint32_t default_qos; /* index into qos, or ACCT_POLICY_NONE */
};

struct acct_policy_key; /* the lookup index (acct_tree.c) */

struct acct_policy {
	struct acct_policy_qos *qos;
	uint32_t n_qos;
	struct acct_policy_assoc *assocs; /* parents before children */
	uint32_t n_assocs;
	bool enforce_limits;	      /* AccountingStorageEnforce=limits */
	bool enforce_qos;	      /* AccountingStorageEnforce=qos */
	struct acct_policy_key *keys; /* sorted (user, account, partition) */
	uint32_t n_keys;
};

/* Fills p (its arrays new, names borrowed from db: rebuild after db
 * changes) from cluster's tree of db; enforce is conf.h's DRV_ENFORCE_*
 * bits. 0 or -ENOMEM (p then empty). */
int acct_policy_build(const struct acct_db *db, const char *cluster, unsigned enforce,
		      struct acct_policy *p);
void acct_policy_fini(struct acct_policy *p); /* accepts a zeroed p */
/* The index of the association a job of user in account (and partition)
 * runs under: the one of that partition, else the one without partition;
 * ACCT_POLICY_NONE when none. O(log n). */
uint32_t acct_policy_assoc_index(const struct acct_policy *p, const char *user,
				 const char *account, const char *partition);
/* The index of the QOS called name (any case), ACCT_POLICY_NONE if none. */
uint32_t acct_policy_qos_index(const struct acct_policy *p, const char *name);

#endif
