/* acct_add.c — sacctmgr add: clusters, accounts, users (their
 * associations), QOS and coordinators, with Slurm's rules for defaults
 * (an account's description is its name, its organization its parent's
 * name or its own; a user's default account the first it is added to).
 * What exists already is left as it is; what cannot be added refuses the
 * whole request (Slurm adds the rest: docs/compat.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "common/proto_gen.h"
#include "ctld/acct.h"

static int added(struct acct_result *r, const struct acct_assoc *a)
{
	uint32_t *v = realloc(r->added, (r->n_added + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[r->n_added++] = a->id;
	r->added = v;
	return 0;
}

/* The clusters a change is for: those given (which must exist), else all. */
static int clusters_of(const struct acct_db *db, const struct drv_rec_acct_cond *c,
		       struct acct_strs *out, struct acct_result *r)
{
	for (size_t i = 0; c->has_clusters && i < c->n_clusters; i++)
		if (!acct_find_cluster(db, c->clusters[i]))
			return acct_fail(
			    r, DRV_RC_ERROR,
			    " This cluster '%s' doesn't exist.\n"
			    "        Contact your admin to add it to accounting.",
			    c->clusters[i]);
	for (size_t i = 0; i < (c->has_clusters ? c->n_clusters : db->n_clusters); i++)
		if (acct_strs_add(out, c->has_clusters ? c->clusters[i]
						       : db->clusters[i]->name) < 0)
			return -ENOMEM;
	return 0;
}

static int no_blank(const struct drv_rec_acct_cond *c, struct acct_result *r)
{
	for (size_t i = 0; i < c->n_names; i++)
		if (!c->names[i][0])
			return acct_fail(r, DRV_RC_ERROR,
					 " No blank names are allowed when adding.");
	return 0;
}

/* A new association's limits: the change without what is not the
 * association's (the parent is set apart). */
static int new_limits(struct acct_db *db, struct acct_assoc *a,
		      const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	struct drv_rec_acct_change limits = *ch;
	limits.parent = NULL;
	return acct_apply_assoc_change(db, a, &limits, r);
}

/* A new association with the change's limits, listed as added. */
static int new_assoc(struct acct_db *db, const char *cluster, const char *account,
		     const char *user, const char *partition,
		     const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	struct acct_assoc *a = acct_add_assoc(db, cluster, account, user, partition);
	if (!a)
		return -ENOMEM;
	int rc = new_limits(db, a, ch, r);
	return rc < 0 ? rc : added(r, a);
}

static int add_account(struct acct_db *db, const char *local_cluster,
		       const struct drv_rec_acct_cond *c,
		       const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	const char *parent = ch->parent ? ch->parent : "root";
	struct acct_strs clusters = {0};
	int rc = no_blank(c, r);
	if (rc == 0)
		rc = clusters_of(db, c, &clusters, r);
	for (size_t i = 0; rc == 0 && i < c->n_names; i++) {
		const char *name = c->names[i];
		if (!acct_find_account(db, name)) {
			struct acct_account *a = acct_add_account(db, name);
			const char *org = ch->organization	   ? ch->organization
					  : strcmp(parent, "root") ? parent
								   : name;
			if (!a ||
			    acct_set_str(&a->description,
					 ch->description ? ch->description : name) ||
			    acct_set_str(&a->organization, org) ||
			    acct_strs_add(&r->names, name) < 0)
				rc = -ENOMEM;
		}
		for (size_t k = 0; rc == 0 && k < clusters.n; k++) {
			const char *cl = clusters.v[k];
			if (acct_find_assoc(db, cl, name, NULL, NULL))
				continue;
			if (!acct_find_assoc(db, cl, parent, NULL, NULL))
				rc = acct_fail(r, DRV_RC_INVALID_PARENT_ACCOUNT,
					       " Parent account '%s' doesn't exist on "
					       "cluster %s\n"
					       "        Contact your admin to add this "
					       "account.\n"
					       " No associations created.",
					       parent, cl);
			else if ((rc = new_assoc(db, cl, name, NULL, NULL, ch, r)) == 0)
				rc = acct_set_str(
				    &acct_find_assoc_id(db, r->added[r->n_added - 1])
					 ->parent,
				    parent);
		}
	}
	acct_strs_clear(&clusters);
	return rc;
}

/* DefaultAccount= first, then Account=, each once. */
static int accounts_of(const struct drv_rec_acct_cond *c,
		       const struct drv_rec_acct_change *ch, struct acct_strs *out)
{
	if (ch->default_account && acct_strs_add(out, ch->default_account) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_accounts; i++)
		if (acct_strs_add(out, c->accounts[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* The default account an add gives a user (accounts: accounts_of's, not
 * empty): as Slurm's database, the one given, else the first by name. */
static const char *default_of(const struct acct_strs *accounts,
			      const struct drv_rec_acct_change *ch)
{
	const char *def = accounts->v[0];
	for (size_t a = 1; !ch->default_account && a < accounts->n; a++)
		if (strcmp(accounts->v[a], def) < 0)
			def = accounts->v[a];
	return def;
}

static int user_assocs(struct acct_db *db, const char *user, const char *account,
		       const char *cluster, const struct drv_rec_acct_cond *c,
		       const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (!acct_find_assoc(db, cluster, account, NULL, NULL))
		return acct_fail(r, DRV_RC_INVALID_ACCOUNT,
				 " This account '%s' doesn't exist on cluster %s\n"
				 "        Contact your admin to add this account.\n"
				 " No associations or wckeys created.",
				 account, cluster);
	int rc = 0;
	for (size_t p = 0; rc == 0 && p < c->n_partitions; p++)
		if (!acct_find_assoc(db, cluster, account, user, c->partitions[p]))
			rc = new_assoc(db, cluster, account, user, c->partitions[p], ch,
				       r);
	if (rc == 0 && !c->n_partitions &&
	    !acct_find_assoc(db, cluster, account, user, NULL))
		rc = new_assoc(db, cluster, account, user, NULL, ch, r);
	return rc;
}

static int add_user(struct acct_db *db, const char *local_cluster,
		    const struct drv_rec_acct_cond *c,
		    const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	struct acct_strs accounts = {0}, clusters = {0};
	int rc = no_blank(c, r);
	if (rc == 0)
		rc = accounts_of(c, ch, &accounts);
	if (rc == 0 && !accounts.n)
		rc = acct_fail(r, DRV_RC_INVALID_ACCOUNT,
			       " Need name of account to add user to.");
	for (size_t i = 0; rc == 0 && i < accounts.n; i++)
		if (!acct_find_account(db, accounts.v[i]))
			rc = acct_fail(r, DRV_RC_INVALID_ACCOUNT,
				       " This account '%s' doesn't exist.\n"
				       "        Contact your admin to add this account.\n"
				       " No associations or wckeys created.",
				       accounts.v[i]);
	if (rc == 0)
		rc = clusters_of(db, c, &clusters, r);
	for (size_t i = 0; rc == 0 && i < c->n_names; i++) {
		const char *name = c->names[i];
		struct acct_user *u = acct_find_user(db, name);
		if (!u) {
			const char *def = default_of(&accounts, ch);
			if (!(u = acct_add_user(db, name)) ||
			    acct_set_str(&u->default_account, def) < 0 ||
			    acct_strs_add(&r->names, name) < 0) {
				rc = -ENOMEM;
				break;
			}
			if (ch->admin_level)
				acct_admin_parse(ch->admin_level, &u->admin);
		} else if (ch->default_account) {
			rc = acct_set_str(&u->default_account, ch->default_account);
		} else if (!u->default_account) {
			/* as slurmdbd: a user with no default gets one with its
			 * next association */
			rc = acct_set_str(&u->default_account, default_of(&accounts, ch));
		}
		for (size_t a = 0; rc == 0 && a < accounts.n; a++)
			for (size_t k = 0; rc == 0 && k < clusters.n; k++)
				rc = user_assocs(db, name, accounts.v[a], clusters.v[k],
						 c, ch, r);
	}
	acct_strs_clear(&accounts);
	acct_strs_clear(&clusters);
	return rc;
}

static int add_qos(struct acct_db *db, const char *local_cluster,
		   const struct drv_rec_acct_cond *c,
		   const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	int rc = no_blank(c, r);
	for (size_t i = 0; rc == 0 && i < c->n_names; i++) {
		if (acct_find_qos(db, c->names[i]))
			continue;
		struct acct_qos *q = acct_add_qos(db, c->names[i]);
		if (!q || acct_set_str(&q->description, c->names[i]) < 0)
			return -ENOMEM;
		rc = acct_apply_qos_change(db, q, ch, r);
		if (rc == 0)
			rc = acct_strs_add(&r->names, q->name);
	}
	return rc;
}

/* A new cluster's tree: root, root's user, and the limits given (those of
 * the cluster are its root association's). */
static int add_cluster(struct acct_db *db, const char *local_cluster,
		       const struct drv_rec_acct_cond *c,
		       const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	int rc = no_blank(c, r);
	for (size_t i = 0; rc == 0 && i < c->n_names; i++) {
		const char *name = c->names[i];
		if (acct_find_cluster(db, name))
			continue;
		if (!acct_add_cluster(db, name) || acct_strs_add(&r->names, name) < 0)
			return -ENOMEM;
		struct acct_assoc *top = acct_add_assoc(db, name, "root", NULL, NULL);
		if (!top || !acct_add_assoc(db, name, "root", "root", NULL))
			return -ENOMEM;
		if (acct_find_qos(db, "normal")) {
			top->qos_set = true;
			if (acct_strs_add(&top->qos, acct_find_qos(db, "normal")->name) <
			    0)
				return -ENOMEM;
		}
		rc = new_limits(db, top, ch, r);
	}
	return rc;
}

/* Coordinators: users (names) of accounts; both must exist. */
static int add_coord(struct acct_db *db, const char *local_cluster,
		     const struct drv_rec_acct_cond *c,
		     const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (!c->n_names)
		return acct_fail(r, DRV_RC_ERROR,
				 " You need to specify a user list here.");
	if (!c->n_accounts)
		return acct_fail(r, DRV_RC_ERROR,
				 " You need to specify an account list here.");
	for (size_t i = 0; i < c->n_accounts; i++)
		if (!acct_find_account(db, c->accounts[i]))
			return acct_fail(r, DRV_RC_INVALID_ACCOUNT,
					 " You specified a non-existent account '%s'.",
					 c->accounts[i]);
	for (size_t i = 0; i < c->n_names; i++)
		if (!acct_find_user(db, c->names[i]))
			return acct_fail(r, DRV_RC_ERROR,
					 " You specified a non-existent user '%s'.",
					 c->names[i]);
	for (size_t i = 0; i < c->n_names; i++) {
		struct acct_user *u = acct_find_user(db, c->names[i]);
		for (size_t k = 0; k < c->n_accounts; k++)
			if (acct_strs_add(&u->coord, c->accounts[k]) < 0)
				return -ENOMEM;
		if (acct_strs_add(&r->names, u->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

int acct_add(struct acct_db *db, const char *local_cluster,
	     const struct drv_assoc_update *m, struct acct_result *r)
{
	static const struct acct_verb add = {add_account, add_user, add_qos, add_cluster,
					     add_coord};
	return acct_verb_run(&add, db, local_cluster, m, r);
}
