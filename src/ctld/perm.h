/* perm.h — who may do what: the one place ctld decides a caller's roles
 * and what each role may see and change, with Slurm's rules.
 *
 * Roles (Slurm's): the SlurmUser level (a daemon, root, SlurmUser, ctld's
 * own uid) may do everything; AdminLevel=Administrator (sacctmgr) is Slurm's
 * "super user", as is the SlurmUser level; AdminLevel=Operator, and every
 * administrator, is an operator; a coordinator of an account (sacctmgr add
 * coordinator) acts on the jobs of that account and its sub-accounts; an
 * owner acts on their own jobs. Which role a request needs is the
 * handler's to ask (Slurm's rules differ per request; docs/compat.md). */
#ifndef CTLD_PERM_H
#define CTLD_PERM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "ctld/acct.h"

struct ctld;
struct job;
struct rpc_req;

/* A caller's roles, resolved once per request (perm_of). Borrows from
 * c->acct: valid while the tables stay as they were, so within one
 * handler, before anything the handler changes in them. */
struct perm {
	uid_t uid;
	bool slurm_user;	     /* a daemon, root, SlurmUser, ctld's own uid */
	enum acct_admin level;	     /* AdminLevel; ADMINISTRATOR for slurm_user */
	const struct acct_user *rec; /* the caller's sacctmgr user, or NULL */
	const struct ctld *c;
};

/* The roles of uid (daemon: a MACed frame from a noded). Looks the user's
 * name up only when some user has an AdminLevel or coordinates. */
void perm_of(const struct ctld *c, uid_t uid, bool daemon, struct perm *out);

/* The roles of r's caller (its credential's uid, or a daemon). */
void perm_of_req(const struct rpc_req *r, struct perm *out);

/* Slurm's validate_slurm_user, validate_super_user, validate_operator. */
bool perm_is_slurm_user(const struct perm *p);
bool perm_is_admin(const struct perm *p);
bool perm_is_operator(const struct perm *p);
/* Does p coordinate account (or an account above it)? NULL: no account. */
bool perm_is_coord(const struct perm *p, const char *account);
/* Owner, operator or coordinator of j's account: Slurm's test for cancel,
 * signal, requeue and update (each says which error a refusal gets). */
bool perm_may_act_on(const struct perm *p, const struct job *j);
/* Whether p sees j in squeue, scontrol show job and sacct: always, unless
 * PrivateData=jobs, then as perm_may_act_on (Slurm's _hide_job). Listings
 * ask perm_job_scope once instead. */
bool perm_may_see_job(const struct perm *p, const struct job *j);
/* TimeLimit=limit (seconds or DRV_INFINITE) on j, as Slurm's _update_job:
 * an operator may set anything; anyone else may lower it, and raise it
 * only while j is pending and within its partition's MaxTime. */
bool perm_may_set_time_limit(const struct perm *p, const struct job *j, int64_t limit);
/* Whether the PrivateData bit (DRV_PRIVATE_*) hides others' data from p:
 * set, and p is no operator. */
bool perm_private(const struct perm *p, unsigned bit);

/* Whether PrivateData's bit hides a whole listing (nodes, partitions) from
 * r's caller: Slurm refuses those with "Access/permission denied". */
bool rpc_hides(const struct rpc_req *r, unsigned bit);

/* perm_acct.c: removes from assoc.query's reply body (borrowed, changed in
 * place) what PrivateData=users, accounts and usage hide from p. */
void perm_filter_acct_reply(const struct perm *p, json_t *body);

/* perm_acctmgr.c: whether p may make the change m (sacctmgr add, modify,
 * delete), with the rules of Slurm's database. */
struct drv_assoc_update;
bool perm_may_update_acct(const struct perm *p, const struct drv_assoc_update *m);

/* What PrivateData=jobs lets a caller see, as plain data (a copy) that a
 * store reader thread may consult while the tables change: everything, or
 * the jobs of uid and of the accounts listed (those it coordinates, with
 * their sub-accounts). */
struct perm_scope {
	bool all;
	uid_t uid;
	struct acct_strs accounts; /* owned */
};
/* 0 or -ENOMEM (out untouched then). */
int perm_job_scope(const struct perm *p, struct perm_scope *out);
bool perm_scope_has(const struct perm_scope *s, uid_t uid, const char *account);
void perm_scope_fini(struct perm_scope *s); /* accepts a zeroed s */

#endif
