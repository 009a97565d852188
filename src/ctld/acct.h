/* acct.h — the policy's tables ctld keeps (Slurm's accounting database):
 * clusters, accounts, users with the accounts they coordinate, the
 * association tree (root → accounts → users in accounts, per cluster) and
 * QOS. One struct acct_db holds them all, hung off struct ctld; nothing here
 * is global.
 *
 * Changes are made on a copy (acct_db_clone): an update mutates the copy,
 * and only when all of it succeeded does the caller keep the copy and
 * commit the records that differ (acct_db_commit_diff), so a refused
 * request changes nothing, and a dry run (sacctmgr's prompt) costs a copy.
 * The tables are small (an admin's work), so copying beats undo logs.
 *
 * Files: acct.c (tables, lookups, defaults), acct_codec.c (records, store,
 * replies), acct_add.c, acct_modify.c, acct_delete.c (sacctmgr's changes),
 * acct_limits.c (inheritance, the scheduler's policy), acct_enforce.c
 * (submit-time checks). */
#ifndef CTLD_ACCT_H
#define CTLD_ACCT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tres.h"

struct store;
struct drv_assoc_update;
struct drv_rec_acct_change;
struct drv_rec_acct_cond;

#define ACCT_UNSET (-1)		       /* a count limit that is not set */
#define ACCT_SHARES_PARENT 2147483647u /* Fairshare=parent */
#define ACCT_USAGE_FACTOR_ONE 1000000  /* UsageFactor=1.0, in millionths */

enum acct_admin { ACCT_ADMIN_NONE, ACCT_ADMIN_OPERATOR, ACCT_ADMIN_ADMINISTRATOR };

/* QOS Flags= bits: common/qos_flags.h's, in the order Slurm prints them. */
#define ACCT_QOS_DENY_ON_LIMIT (1u << 0)

struct acct_strs {
	char **v; /* owned, as are the strings */
	size_t n;
};

struct acct_cluster {
	char *name;
};

struct acct_account {
	char *name, *description, *organization;
};

struct acct_user {
	char *name;
	char *default_account; /* NULL: none */
	enum acct_admin admin;
	struct acct_strs coord; /* accounts it coordinates */
};

struct acct_assoc {
	uint32_t id;
	char *cluster, *account;
	char *user;	 /* NULL: the account's own association */
	char *partition; /* NULL: any partition */
	char *parent;	 /* an account association's parent account; NULL: root */
	uint32_t shares; /* ACCT_SHARES_PARENT: "parent" */
	struct drv_tres grp_tres, max_tres_per_job;
	int64_t grp_jobs, grp_submit_jobs, max_jobs, max_submit_jobs;
	int64_t max_wall; /* minutes */
	bool qos_set;	  /* false: the parent's QOS list */
	struct acct_strs qos;
	char *default_qos; /* NULL: the parent's */
	double usage;	   /* raw (decayed, billed) usage; fed by the priority work */
};

struct acct_qos {
	uint32_t id;
	char *name, *description;
	uint32_t priority;
	int64_t grace_time; /* seconds */
	int64_t max_wall;   /* minutes */
	struct drv_tres max_tres_per_user, max_tres_per_job, grp_tres;
	int64_t max_jobs_per_user, max_submit_jobs_per_user, grp_jobs, grp_submit_jobs;
	int64_t usage_factor; /* millionths */
	uint32_t flags;	      /* enum acct_qos_flag */
	struct acct_strs preempt;
	char *preempt_mode; /* "cluster", "off", "cancel", "requeue", "suspend" */
};

struct acct_db {
	struct acct_cluster **clusters;
	size_t n_clusters;
	struct acct_account **accounts;
	size_t n_accounts;
	struct acct_user **users;
	size_t n_users;
	struct acct_assoc **assocs; /* in the order they were made */
	size_t n_assocs;
	struct acct_qos **qos;
	size_t n_qos;
	uint32_t next_assoc_id, next_qos_id;
};

/* --- acct.c: tables ------------------------------------------------------ */

struct acct_db *acct_db_new(void);     /* empty; NULL on ENOMEM */
void acct_db_free(struct acct_db *db); /* accepts NULL */
/* A deep copy; NULL on ENOMEM. */
struct acct_db *acct_db_clone(const struct acct_db *db);
/* Makes what always exists exist: cluster `cluster` with its root account
 * association and root's user association, the account root, the user root
 * (Administrator) and the QOS normal. 0 or -ENOMEM. */
int acct_db_ensure_defaults(struct acct_db *db, const char *cluster);

/* Lookups (borrowed; NULL when none). Names compare exactly. */
struct acct_cluster *acct_find_cluster(const struct acct_db *db, const char *name);
struct acct_account *acct_find_account(const struct acct_db *db, const char *name);
struct acct_user *acct_find_user(const struct acct_db *db, const char *name);
struct acct_qos *acct_find_qos(const struct acct_db *db, const char *name);
struct acct_qos *acct_find_qos_id(const struct acct_db *db, uint32_t id);
struct acct_assoc *acct_find_assoc_id(const struct acct_db *db, uint32_t id);
/* The association of (cluster, account, user, partition); user and
 * partition NULL for none. */
struct acct_assoc *acct_find_assoc(const struct acct_db *db, const char *cluster,
				   const char *account, const char *user,
				   const char *partition);
/* The parent association of a (the account association of a user's
 * account, or of an account's parent account); NULL for a root. */
struct acct_assoc *acct_parent(const struct acct_db *db, const struct acct_assoc *a);
/* Is a inside the subtree of top (top itself included)? */
bool acct_in_subtree(const struct acct_db *db, const struct acct_assoc *a,
		     const struct acct_assoc *top);

/* New records, added to db with defaults (counts ACCT_UNSET, shares 1,
 * description and organization empty); borrowed; NULL on ENOMEM. */
struct acct_cluster *acct_add_cluster(struct acct_db *db, const char *name);
struct acct_account *acct_add_account(struct acct_db *db, const char *name);
struct acct_user *acct_add_user(struct acct_db *db, const char *name);
struct acct_qos *acct_add_qos(struct acct_db *db, const char *name);
/* An association with the next id; user and partition may be NULL. */
struct acct_assoc *acct_add_assoc(struct acct_db *db, const char *cluster,
				  const char *account, const char *user,
				  const char *partition);
/* Removals (the record is freed). */
void acct_remove_cluster(struct acct_db *db, struct acct_cluster *c);
void acct_remove_account(struct acct_db *db, struct acct_account *a);
void acct_remove_user(struct acct_db *db, struct acct_user *u);
void acct_remove_qos(struct acct_db *db, struct acct_qos *q);
void acct_remove_assoc(struct acct_db *db, struct acct_assoc *a);

/* String lists: has, add (no duplicate), remove; 0 or -ENOMEM. */
bool acct_strs_has(const struct acct_strs *l, const char *s);
int acct_strs_add(struct acct_strs *l, const char *s);
void acct_strs_remove(struct acct_strs *l, const char *s);
void acct_strs_clear(struct acct_strs *l);
int acct_strs_copy(struct acct_strs *dst, const struct acct_strs *src);
/* Replaces *field with a copy of s (NULL allowed); 0 or -ENOMEM. */
int acct_set_str(char **field, const char *s);

/* Slurm's names: admin levels, QOS flags (all the flags Slurm knows, each
 * at most once, in Slurm's order, joined by ','). */
const char *acct_admin_name(enum acct_admin a);
int acct_admin_parse(const char *s, enum acct_admin *out); /* 0 or -EINVAL */
/* The bit of one flag name (any case), 0 when none. */
uint32_t acct_qos_flag_parse(const char *name);
const char *acct_qos_flag_name(uint32_t bit); /* NULL for no single bit */

/* --- acct_codec.c: records, the store and replies ----------------------- */

/* New records (NULL on ENOMEM). A store record leaves out what only
 * replies carry (usage). */
json_t *acct_cluster_record(const struct acct_db *db, const struct acct_cluster *c);
json_t *acct_account_record(const struct acct_account *a);
json_t *acct_user_record(const struct acct_user *u);
json_t *acct_assoc_record(const struct acct_assoc *a, bool for_store);
json_t *acct_qos_record(const struct acct_qos *q);

/* Loads the tables from the store into db (empty). A malformed record is
 * logged and skipped. 0 or -errno. */
int acct_db_load(struct acct_db *db, struct store *s);

/* The store writes that turn old into new: calls put(kind, name, text)
 * for every record new has that old lacks or that differs, put(kind, name,
 * NULL) for every one old has and new lacks. kind is store.h's enum
 * store_obj_kind. */
typedef void (*acct_put_f)(int kind, const char *name, const char *rec_json, void *arg);
void acct_db_diff(const struct acct_db *old, const struct acct_db *new, acct_put_f put,
		  void *arg);
/* Every record of db, as put() calls (a first start: the defaults). */
void acct_db_dump(const struct acct_db *db, acct_put_f put, void *arg);

/* assoc.query's reply body (new reference; NULL on ENOMEM). Associations
 * are listed parents before children. */
json_t *acct_query_reply(const struct acct_db *db);

/* --- assoc.update: acct_add.c, acct_modify.c, acct_delete.c ---------------- */

/* What an update did: for assoc.update's reply. All owned. */
struct acct_result {
	struct acct_strs names; /* entities added, modified or deleted */
	uint32_t *added;	/* ids of the associations an add made */
	size_t n_added;
	struct acct_strs lines;	  /* associations changed, in Slurm's words */
	struct acct_strs orphans; /* users left without associations */
	char *error;		  /* why it was refused (Slurm's lines, stderr) */
	char *notice;		  /* a refusal Slurm prints on stdout */
	int rc;			  /* Slurm's error code when refused */
};
void acct_result_fini(struct acct_result *r);
/* Sets r's error (formatted) and rc; returns -EINVAL for `return`. */
int acct_fail(struct acct_result *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a refusal Slurm prints on stdout (r->notice). */
int acct_refuse(struct acct_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Applies m to db (a copy: on failure it is left half-changed, and the
 * caller drops it). local_cluster: ClusterName. 0, or -EINVAL/-ENOMEM with
 * r->error set. */
int acct_update(struct acct_db *db, const char *local_cluster,
		const struct drv_assoc_update *m, struct acct_result *r);
/* The same for one verb each (m->action says which). */
int acct_add(struct acct_db *db, const char *local_cluster,
	     const struct drv_assoc_update *m, struct acct_result *r);
int acct_modify(struct acct_db *db, const char *local_cluster,
		const struct drv_assoc_update *m, struct acct_result *r);
int acct_delete(struct acct_db *db, const char *local_cluster,
		const struct drv_assoc_update *m, struct acct_result *r);

/* What one verb does to one kind of entity: c and ch are the request's
 * cond and change (empty ones where it carries none), local_cluster is
 * ClusterName; all borrowed. 0, or -EINVAL/-ENOMEM with r->error set. */
typedef int (*acct_entity_f)(struct acct_db *db, const char *local_cluster,
			     const struct drv_rec_acct_cond *c,
			     const struct drv_rec_acct_change *ch, struct acct_result *r);
struct acct_verb {
	acct_entity_f account, user, qos, cluster;
	acct_entity_f other; /* coordinator (the schema allows no other) */
};
/* Runs v's handler for m's entity (acct_modify.c): what acct_add,
 * acct_modify and acct_delete do. Its result. */
int acct_verb_run(const struct acct_verb *v, struct acct_db *db,
		  const char *local_cluster, const struct drv_assoc_update *m,
		  struct acct_result *r);

/* Sets an association's limits from a change (acct_modify.c; also what an
 * add gives a new association). 0, or -EINVAL with r->error. */
int acct_apply_assoc_change(struct acct_db *db, struct acct_assoc *a,
			    const struct drv_rec_acct_change *ch, struct acct_result *r);
int acct_apply_qos_change(struct acct_db *db, struct acct_qos *q,
			  const struct drv_rec_acct_change *ch, struct acct_result *r);
/* Does ch set anything an association holds (limits, shares, QOS, parent)? */
bool acct_change_has_assoc_fields(const struct drv_rec_acct_change *ch);
/* The conditions' matching rules (acct_modify.c), for modify and delete.
 * Is s in the list v of n (compared exactly; a NULL s is in none)? A list
 * that was not given holds everything. */
bool acct_listed(const char *const *v, size_t n, bool given, const char *s);
/* Is the partition (NULL: none, written "") among c's partitions? */
bool acct_part_listed(const struct drv_rec_acct_cond *c, const char *part);
/* Is the QOS called name among c's names (any case, as Slurm compares)? */
bool acct_qos_named(const struct drv_rec_acct_cond *c, const char *name);
/* An association as Slurm's database names it in modify/delete replies:
 * "C = peer       A = physics of root", "C = peer       A = chem  U = bob". */
void acct_assoc_line(const struct acct_assoc *a, bool wide_account, char *buf,
		     size_t len);

#endif
