/* perm_acct.c — what PrivateData hides of the policy's tables (assoc.query,
 * which sacctmgr list/show and sshare read whole): with users, a regular
 * user sees only themselves in the users; with accounts, only the accounts
 * they coordinate; with users or usage, only the associations they deal
 * with (their own, and those of the accounts they coordinate), as Slurm's
 * database and assoc_mgr answer. Operators see everything. The reply is
 * filtered here, in ctld, so a raw request sees no more than sacctmgr. */
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "common/proto_gen.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"

/* Keeps the elements of body's array `key` for which keep(p, me, element)
 * holds; me is the caller's user name. */
typedef bool (*keep_f)(const struct perm *p, const char *me, json_t *elem);

static void filter(json_t *body, int key, const struct perm *p, const char *me,
		   keep_f keep)
{
	json_t *a = json_object_get(body, drv_shape_assoc_query_reply.fields[key].name);
	for (size_t i = json_array_size(a); i > 0; i--)
		if (!keep(p, me, json_array_get(a, i - 1)))
			json_array_remove(a, i - 1);
}

static const char *str_field(json_t *o, const struct drv_shape *s, int field)
{
	return json_string_value(json_object_get(o, s->fields[field].name));
}

static bool keep_user(const struct perm *p, const char *me, json_t *u)
{
	(void)p;
	const char *name =
	    str_field(u, &drv_shape_rec_acct_user, DRV_REC_ACCT_USER__NAME);
	return name && !strcmp(name, me);
}

static bool keep_account(const struct perm *p, const char *me, json_t *a)
{
	(void)me;
	return perm_is_coord(
	    p, str_field(a, &drv_shape_rec_acct_account, DRV_REC_ACCT_ACCOUNT__NAME));
}

static bool keep_assoc(const struct perm *p, const char *me, json_t *a)
{
	const char *user =
	    str_field(a, &drv_shape_rec_acct_assoc, DRV_REC_ACCT_ASSOC__USER);
	const char *acct =
	    str_field(a, &drv_shape_rec_acct_assoc, DRV_REC_ACCT_ASSOC__ACCOUNT);
	return (user && !strcmp(user, me)) || perm_is_coord(p, acct);
}

void perm_filter_acct_reply(const struct perm *p, json_t *body)
{
	bool users = perm_private(p, DRV_PRIVATE_USERS);
	bool accounts = perm_private(p, DRV_PRIVATE_ACCOUNTS);
	bool usage = perm_private(p, DRV_PRIVATE_USAGE);
	if (!body || !(users || accounts || usage))
		return;
	/* out of memory for the name: "" matches no one, so all that is
	 * private is hidden rather than shown */
	char *me = identity_user_name(p->uid);
	const char *name = me ? me : "";
	if (users)
		filter(body, DRV_ASSOC_QUERY_REPLY__USERS, p, name, keep_user);
	if (accounts)
		filter(body, DRV_ASSOC_QUERY_REPLY__ACCOUNTS, p, name, keep_account);
	if (users || usage)
		filter(body, DRV_ASSOC_QUERY_REPLY__ASSOCS, p, name, keep_assoc);
	free(me);
}
