/* perm.c — a caller's roles (perm.h): the SlurmUser level, AdminLevel from
 * sacctmgr's users, coordinators with their sub-accounts, owners, and what
 * PrivateData hides from whom. It decides; the handlers refuse, each with
 * the error Slurm gives for its request. It changes nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "ctld/perm.h"

/* Does any user hold an AdminLevel or coordinate? If not, the name lookup
 * (getpwuid) can be skipped: a site without roles pays nothing per request. */
static bool any_roles(const struct acct_db *db)
{
	for (size_t i = 0; db && i < db->n_users; i++)
		if (db->users[i]->admin != ACCT_ADMIN_NONE || db->users[i]->coord.n)
			return true;
	return false;
}

void perm_of(const struct ctld *c, uid_t uid, bool daemon, struct perm *out)
{
	*out = (struct perm){.uid = uid, .c = c};
	out->slurm_user =
	    daemon || uid == 0 || uid == c->owner_uid || uid == c->slurm_uid;
	if (out->slurm_user) {
		out->level = ACCT_ADMIN_ADMINISTRATOR;
		return;
	}
	if (!any_roles(c->acct))
		return;
	char *name = identity_user_name(uid);
	out->rec = name ? acct_find_user(c->acct, name) : NULL;
	free(name);
	if (out->rec)
		out->level = out->rec->admin;
}

bool perm_is_slurm_user(const struct perm *p)
{
	return p->slurm_user;
}

bool perm_is_admin(const struct perm *p)
{
	return p->slurm_user || p->level >= ACCT_ADMIN_ADMINISTRATOR;
}

bool perm_is_operator(const struct perm *p)
{
	return p->slurm_user || p->level >= ACCT_ADMIN_OPERATOR;
}

/* Slurm gives a coordinator the sub-accounts of each account it holds: an
 * account is coordinated when it or any account above it is listed. */
bool perm_is_coord(const struct perm *p, const char *account)
{
	if (!p->rec || !p->rec->coord.n || !account)
		return false;
	const struct acct_db *db = p->c->acct;
	const char *cluster = p->c->conf->cluster_name;
	/* bounded by the number of accounts, in case the tree has a loop */
	for (size_t depth = 0; account && depth <= db->n_accounts; depth++) {
		if (acct_strs_has(&p->rec->coord, account))
			return true;
		const struct acct_assoc *a =
		    acct_find_assoc(db, cluster, account, NULL, NULL);
		account = a ? a->parent : NULL;
	}
	return false;
}

bool perm_may_act_on(const struct perm *p, const struct job *j)
{
	return j->uid == p->uid || perm_is_operator(p) ||
	       perm_is_coord(p, j->req.account);
}

/* The MaxTime of the partition j is in (its first candidate while it
 * waits for several, as Slurm's part_ptr). */
static int64_t part_max_time(const struct ctld *c, const struct job *j)
{
	char name[128];
	snprintf(name, sizeof(name), "%s", j->partition ? j->partition : "");
	name[strcspn(name, ",")] = '\0';
	const struct part *pt = part_find(c, name);
	return pt ? pt->conf->max_time : DRV_INFINITE;
}

bool perm_may_set_time_limit(const struct perm *p, const struct job *j, int64_t limit)
{
	bool lower = limit != DRV_INFINITE &&
		     (j->time_limit == DRV_INFINITE || limit < j->time_limit);
	if (perm_is_operator(p) || limit == j->time_limit || lower)
		return true;
	if (j->state != JOB_PENDING)
		return false;
	int64_t max = part_max_time(p->c, j);
	return max == DRV_INFINITE || (limit != DRV_INFINITE && limit <= max);
}

bool perm_private(const struct perm *p, unsigned bit)
{
	return (p->c->conf->private_data & bit) && !perm_is_operator(p);
}

bool perm_may_see_job(const struct perm *p, const struct job *j)
{
	return !perm_private(p, DRV_PRIVATE_JOBS) || j->uid == p->uid ||
	       perm_is_coord(p, j->req.account);
}

int perm_job_scope(const struct perm *p, struct perm_scope *out)
{
	struct perm_scope s = {.all = !perm_private(p, DRV_PRIVATE_JOBS), .uid = p->uid};
	const struct acct_db *db = p->c->acct;
	for (size_t i = 0; !s.all && p->rec && i < db->n_accounts; i++)
		if (perm_is_coord(p, db->accounts[i]->name) &&
		    acct_strs_add(&s.accounts, db->accounts[i]->name) < 0) {
			acct_strs_clear(&s.accounts);
			return -ENOMEM;
		}
	*out = s;
	return 0;
}

bool perm_scope_has(const struct perm_scope *s, uid_t uid, const char *account)
{
	return s->all || uid == s->uid ||
	       (account && acct_strs_has(&s->accounts, account));
}

void perm_scope_fini(struct perm_scope *s)
{
	acct_strs_clear(&s->accounts);
}

void perm_of_req(const struct rpc_req *r, struct perm *out)
{
	perm_of(r->c, r->cred.uid, r->daemon, out);
}

bool rpc_is_admin(const struct rpc_req *r)
{
	struct perm p;
	perm_of_req(r, &p);
	return perm_is_admin(&p);
}

bool rpc_is_operator(const struct rpc_req *r)
{
	struct perm p;
	perm_of_req(r, &p);
	return perm_is_operator(&p);
}

bool rpc_may_run_as(const struct rpc_req *r, const struct job *j)
{
	if (j->uid == r->cred.uid && !r->daemon)
		return true;
	struct perm p;
	perm_of_req(r, &p);
	return perm_is_slurm_user(&p);
}

bool rpc_hides(const struct rpc_req *r, unsigned bit)
{
	if (!(r->c->conf->private_data & bit))
		return false; /* the common case: no lookup */
	struct perm p;
	perm_of_req(r, &p);
	return perm_private(&p, bit);
}

bool rpc_may_act_on(const struct rpc_req *r, const struct job *j)
{
	if (j->uid == r->cred.uid && !r->daemon)
		return true; /* the owner: no lookup */
	struct perm p;
	perm_of_req(r, &p);
	return perm_may_act_on(&p, j);
}
