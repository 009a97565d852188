/* perm_acctmgr.c — who may change the policy's tables (assoc.update, what
 * sacctmgr add/modify/delete send), with the rules of Slurm's database
 * (slurmdbd): QOS and clusters are for administrators; so is setting a
 * user's AdminLevel on a modify. Operators may do the rest. A coordinator
 * may add sub-accounts under the accounts it coordinates, add users to them
 * and remove users from them, change those users' associations, and add or
 * remove coordinators of them. A user may change their own default account.
 * Everyone else is refused. It decides; rpc_assoc.c refuses. */
#include <stdlib.h>
#include <string.h>

#include "common/proto_gen.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"

/* Does p coordinate every account of the list (a list that names none: no)? */
static bool coords_all(const struct perm *p, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!perm_is_coord(p, v[i]))
			return false;
	return n > 0;
}

/* sacctmgr modify user <me> set DefaultAccount=X: Slurm lets anyone change
 * their own default account, and nothing else of their own. */
static bool own_default_account(const struct perm *p, const struct drv_assoc_update *m)
{
	const struct drv_rec_acct_cond *c = &m->cond;
	const struct drv_rec_acct_change *ch = &m->change;
	if (strcmp(m->action, "modify") || strcmp(m->entity, "user") || c->n_names != 1 ||
	    !ch->default_account || acct_change_has_assoc_fields(ch) || ch->description ||
	    ch->organization || ch->admin_level)
		return false;
	char *me = identity_user_name(p->uid);
	bool same = me && !strcmp(me, c->names[0]);
	free(me);
	return same;
}

/* What a coordinator (not an operator) may do. */
static bool coordinator_may(const struct perm *p, const struct drv_assoc_update *m)
{
	const struct drv_rec_acct_cond *c = &m->cond;
	const struct drv_rec_acct_change *ch = &m->change;
	const char *entity = m->entity, *action = m->action;
	if (ch->admin_level)
		return false; /* Slurm: "Only admins/operators can add an admin/operator"
			       */
	if (!strcmp(entity, "account") && !strcmp(action, "add")) {
		const char *parent = ch->parent ? ch->parent : "root";
		return coords_all(p, &parent, 1);
	}
	if (!strcmp(entity, "user")) {
		/* the accounts an add gives, or those a modify/delete selects */
		if (ch->default_account && !perm_is_coord(p, ch->default_account))
			return false;
		if (!strcmp(action, "add") && !c->n_accounts)
			return ch->default_account != NULL;
		return coords_all(p, c->accounts, c->n_accounts);
	}
	if (!strcmp(entity, "coordinator"))
		return coords_all(p, c->accounts, c->n_accounts);
	return false;
}

bool perm_may_update_acct(const struct perm *p, const struct drv_assoc_update *m)
{
	if (perm_is_admin(p))
		return true;
	if (!strcmp(m->entity, "qos") || !strcmp(m->entity, "cluster"))
		return false;
	if (m->change.admin_level && !strcmp(m->action, "modify"))
		return false; /* "You must be a super user to modify a users admin level"
			       */
	if (perm_is_operator(p))
		return true;
	if (own_default_account(p, m))
		return true;
	return p->rec && p->rec->coord.n && coordinator_may(p, m);
}
