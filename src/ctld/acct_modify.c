/* acct_modify.c — sacctmgr modify: accounts, users, QOS and clusters, and
 * the pieces add and delete share (a request routed to its verb's handler
 * for its entity, a change applied to an association or a QOS, the lines
 * Slurm's database names associations by, the conditions' matching rules).
 * Works on a copy of the tables (acct.h): on any refusal the caller drops
 * the copy. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/proto.h"
#include "common/proto_gen.h"
#include "ctld/acct.h"
#include "ctld/acct_tree.h"

/* --- results ------------------------------------------------------------------ */

void acct_result_fini(struct acct_result *r)
{
	acct_strs_clear(&r->names);
	acct_strs_clear(&r->lines);
	acct_strs_clear(&r->orphans);
	free(r->added);
	free(r->error);
	free(r->notice);
	*r = (struct acct_result){0};
}

static int vset(char **field, const char *fmt, va_list ap)
{
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) < 0)
		return -ENOMEM;
	free(*field);
	*field = text;
	return -EINVAL;
}

int acct_fail(struct acct_result *r, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = vset(&r->error, fmt, ap);
	va_end(ap);
	r->rc = rc;
	return ret;
}

int acct_refuse(struct acct_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = vset(&r->notice, fmt, ap);
	va_end(ap);
	return ret;
}

int acct_verb_run(const struct acct_verb *v, struct acct_db *db,
		  const char *local_cluster, const struct drv_assoc_update *m,
		  struct acct_result *r)
{
	static const struct drv_rec_acct_cond none = {0};
	static const struct drv_rec_acct_change nothing = {0};
	const struct drv_rec_acct_cond *c = m->has_cond ? &m->cond : &none;
	const struct drv_rec_acct_change *ch = m->has_change ? &m->change : &nothing;
	acct_entity_f f = !strcmp(m->entity, "account")	  ? v->account
			  : !strcmp(m->entity, "user")	  ? v->user
			  : !strcmp(m->entity, "qos")	  ? v->qos
			  : !strcmp(m->entity, "cluster") ? v->cluster
							  : v->other;
	return f(db, local_cluster, c, ch, r);
}

void acct_assoc_line(const struct acct_assoc *a, bool wide_account, char *buf, size_t len)
{
	if (!a->user && a->parent)
		snprintf(buf, len, "C = %-10s A = %s of %s", a->cluster, a->account,
			 a->parent);
	else if (!a->user)
		snprintf(buf, len, "C = %-10s A = %s", a->cluster, a->account);
	else if (a->partition)
		snprintf(buf, len, "C = %-10s A = %-*s U = %-9s P = %s", a->cluster,
			 wide_account ? 20 : 10, a->account, a->user, a->partition);
	else
		snprintf(buf, len, "C = %-10s A = %-*s U = %-9s", a->cluster,
			 wide_account ? 20 : 10, a->account, a->user);
}

/* --- one association's change -------------------------------------------------- */

bool acct_change_has_assoc_fields(const struct drv_rec_acct_change *ch)
{
	return ch->parent || ch->has_shares || ch->grp_tres || ch->has_grp_jobs ||
	       ch->has_grp_submit_jobs || ch->has_max_jobs || ch->has_max_submit_jobs ||
	       ch->max_tres_per_job || ch->has_max_wall || ch->has_qos ||
	       ch->has_qos_add || ch->has_qos_remove || ch->default_qos;
}

/* Does ch change something a's children inherit (Slurm's "unset users")? */
static bool inheritable(const struct drv_rec_acct_change *ch)
{
	return ch->has_max_jobs || ch->has_max_submit_jobs || ch->has_max_wall ||
	       ch->max_tres_per_job || ch->has_qos || ch->has_qos_add ||
	       ch->has_qos_remove || ch->default_qos;
}

/* Would a child that sets what it sets see the change? */
static bool child_sees(const struct acct_assoc *kid, const struct drv_rec_acct_change *ch)
{
	return (ch->has_max_jobs && kid->max_jobs == ACCT_UNSET) ||
	       (ch->has_max_submit_jobs && kid->max_submit_jobs == ACCT_UNSET) ||
	       (ch->has_max_wall && kid->max_wall == ACCT_UNSET) ||
	       ch->max_tres_per_job ||
	       ((ch->has_qos || ch->has_qos_add || ch->has_qos_remove) &&
		!kid->qos_set) ||
	       (ch->default_qos && !kid->default_qos);
}

static int64_t count_of(int64_t v)
{
	return v < 0 ? ACCT_UNSET : v;
}

static int check_qos_names(const struct acct_db *db, const char *const *v, size_t n,
			   struct acct_result *r)
{
	for (size_t i = 0; i < n; i++)
		if (!acct_find_qos(db, v[i]))
			return acct_fail(
			    r, DRV_RC_INVALID_QOS,
			    " You gave a bad qos '%s'.  Use 'list qos' to get "
			    "complete list.",
			    v[i]);
	return 0;
}

static int tres_change(struct drv_tres *t, const char *text, struct acct_result *r)
{
	struct drv_tres change;
	struct drv_error err = {""};
	if (!text)
		return 0;
	if (drv_tres_parse(text, &change, &err) < 0)
		return acct_fail(r, DRV_RC_ERROR, "%s", err.text);
	drv_tres_merge(t, &change);
	return 0;
}

/* QOS=, QOS+=, QOS-=: a list of its own from then on (Slurm keeps the
 * deltas; Drover writes the list out, docs/compat.md). */
static int qos_change(struct acct_db *db, struct acct_assoc *a,
		      const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (!ch->has_qos && !ch->has_qos_add && !ch->has_qos_remove)
		return 0;
	if (check_qos_names(db, ch->qos, ch->n_qos, r) < 0 ||
	    check_qos_names(db, ch->qos_add, ch->n_qos_add, r) < 0 ||
	    check_qos_names(db, ch->qos_remove, ch->n_qos_remove, r) < 0)
		return -EINVAL;
	struct acct_strs list = {0};
	if (ch->has_qos) {
		for (size_t i = 0; i < ch->n_qos; i++)
			if (acct_strs_add(&list, acct_find_qos(db, ch->qos[i])->name) < 0)
				return -ENOMEM;
	} else {
		struct acct_effective e;
		acct_effective(db, a, &e);
		if (e.qos && acct_strs_copy(&list, e.qos) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < ch->n_qos_add; i++)
		if (acct_strs_add(&list, acct_find_qos(db, ch->qos_add[i])->name) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < ch->n_qos_remove; i++)
		acct_strs_remove(&list, acct_find_qos(db, ch->qos_remove[i])->name);
	acct_strs_clear(&a->qos);
	a->qos = list;
	a->qos_set = ch->n_qos > 0 || !ch->has_qos || ch->has_qos_add;
	return 0;
}

/* Parent=: moves an account's association under another account of its
 * cluster; never under itself or its own subtree. */
static int parent_change(struct acct_db *db, struct acct_assoc *a, const char *parent,
			 struct acct_result *r)
{
	if (!parent || a->user)
		return 0;
	struct acct_assoc *p = acct_find_assoc(db, a->cluster, parent, NULL, NULL);
	if (!acct_find_account(db, parent))
		return acct_fail(r, DRV_RC_INVALID_PARENT_ACCOUNT,
				 " Parent Account %s doesn't exist.", parent);
	if (!p)
		return acct_fail(r, DRV_RC_INVALID_PARENT_ACCOUNT,
				 " Parent account '%s' doesn't exist on cluster %s\n"
				 "        Contact your admin to add this account.",
				 parent, a->cluster);
	if (acct_in_subtree(db, p, a))
		return acct_fail(
		    r, DRV_RC_INVALID_PARENT_ACCOUNT,
		    " Error with request: You can't make an account be a child "
		    "of it's self or one of its children");
	return acct_set_str(&a->parent, p->account);
}

int acct_apply_assoc_change(struct acct_db *db, struct acct_assoc *a,
			    const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (ch->has_shares)
		a->shares = ch->shares < 0 ? 1 : (uint32_t)ch->shares;
	if (tres_change(&a->grp_tres, ch->grp_tres, r) < 0 ||
	    tres_change(&a->max_tres_per_job, ch->max_tres_per_job, r) < 0)
		return -EINVAL;
	if (ch->has_grp_jobs)
		a->grp_jobs = count_of(ch->grp_jobs);
	if (ch->has_grp_submit_jobs)
		a->grp_submit_jobs = count_of(ch->grp_submit_jobs);
	if (ch->has_max_jobs)
		a->max_jobs = count_of(ch->max_jobs);
	if (ch->has_max_submit_jobs)
		a->max_submit_jobs = count_of(ch->max_submit_jobs);
	if (ch->has_max_wall)
		a->max_wall = count_of(ch->max_wall);
	int rc = qos_change(db, a, ch, r);
	if (rc == 0 && ch->default_qos) {
		const struct acct_qos *q = acct_find_qos(db, ch->default_qos);
		if (*ch->default_qos && !q)
			return acct_fail(
			    r, DRV_RC_INVALID_QOS,
			    "You gave a bad default qos '%s'.  Use 'list qos' "
			    "to get complete list.",
			    ch->default_qos);
		rc = acct_set_str(&a->default_qos, q ? q->name : NULL);
	}
	if (rc == 0)
		rc = parent_change(db, a, ch->parent, r);
	return rc;
}

/* Every association's default QOS must be one it may use (Slurm checks
 * this before it sets one). */
static int check_default_qos(const struct acct_db *db, const struct acct_assoc *const *v,
			     size_t n, struct acct_result *r)
{
	char *bad = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&bad, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct acct_effective e;
		acct_effective(db, v[i], &e);
		if (!e.default_qos || (e.qos && acct_strs_has(e.qos, e.default_qos)))
			continue;
		if (!v[i]->user)
			fprintf(f, "\n  DefQOS = %-10s C = %-10s A = %-20s ",
				e.default_qos, v[i]->cluster, v[i]->account);
		else
			fprintf(f, "\n  DefQOS = %-10s C = %-10s A = %-20s U = %-9s%s%s",
				e.default_qos, v[i]->cluster, v[i]->account, v[i]->user,
				v[i]->partition ? " P = " : "",
				v[i]->partition ? v[i]->partition : "");
	}
	fclose(f);
	int rc = 0;
	if (len)
		rc = acct_fail(
		    r, DRV_RC_INVALID_QOS,
		    " These associations don't have access to their default "
		    "qos.\n Please give them access before they the default can "
		    "be set to this.%s",
		    bad);
	free(bad);
	return rc;
}

int acct_apply_qos_change(struct acct_db *db, struct acct_qos *q,
			  const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	int rc = 0;
	if (ch->description)
		rc = acct_set_str(&q->description, ch->description);
	if (ch->has_priority)
		q->priority = ch->priority < 0 ? 0 : (uint32_t)ch->priority;
	if (ch->has_grace_time)
		q->grace_time = ch->grace_time < 0 ? 0 : ch->grace_time;
	if (ch->has_max_wall)
		q->max_wall = count_of(ch->max_wall);
	if (ch->has_max_jobs_per_user)
		q->max_jobs_per_user = count_of(ch->max_jobs_per_user);
	if (ch->has_max_submit_jobs_per_user)
		q->max_submit_jobs_per_user = count_of(ch->max_submit_jobs_per_user);
	if (ch->has_grp_jobs)
		q->grp_jobs = count_of(ch->grp_jobs);
	if (ch->has_grp_submit_jobs)
		q->grp_submit_jobs = count_of(ch->grp_submit_jobs);
	if (ch->has_usage_factor)
		q->usage_factor =
		    ch->usage_factor < 0 ? ACCT_USAGE_FACTOR_ONE : ch->usage_factor;
	if (rc == 0 &&
	    (tres_change(&q->max_tres_per_user, ch->max_tres_per_user, r) < 0 ||
	     tres_change(&q->max_tres_per_job, ch->max_tres_per_job, r) < 0 ||
	     tres_change(&q->grp_tres, ch->grp_tres, r) < 0))
		return -EINVAL;
	uint32_t flags = ch->has_flags ? 0 : q->flags;
	for (int pass = 0; pass < 3; pass++) {
		const char *const *v = pass == 0   ? ch->flags
				       : pass == 1 ? ch->flags_add
						   : ch->flags_remove;
		size_t n = pass == 0   ? ch->n_flags
			   : pass == 1 ? ch->n_flags_add
				       : ch->n_flags_remove;
		for (size_t i = 0; i < n; i++) {
			uint32_t bit = acct_qos_flag_parse(v[i]);
			if (!bit)
				return acct_fail(r, DRV_RC_ERROR,
						 " Unknown QOS flag '%s'", v[i]);
			flags = pass == 2 ? flags & ~bit : flags | bit;
		}
	}
	q->flags = flags;
	if (ch->has_preempt)
		acct_strs_clear(&q->preempt);
	for (int pass = 0; rc == 0 && pass < 3; pass++) {
		const char *const *v = pass == 0   ? ch->preempt
				       : pass == 1 ? ch->preempt_add
						   : ch->preempt_remove;
		size_t n = pass == 0   ? ch->n_preempt
			   : pass == 1 ? ch->n_preempt_add
				       : ch->n_preempt_remove;
		if (check_qos_names(db, v, n, r) < 0)
			return -EINVAL;
		for (size_t i = 0; rc == 0 && i < n; i++) {
			const char *name = acct_find_qos(db, v[i])->name;
			if (pass == 2)
				acct_strs_remove(&q->preempt, name);
			else if (!strcasecmp(name, q->name))
				return acct_fail(r, DRV_RC_QOS_PREEMPTION_LOOP,
						 " QOS '%s' can not preempt itself",
						 name);
			else
				rc = acct_strs_add(&q->preempt, name);
		}
	}
	if (rc == 0 && ch->preempt_mode)
		rc = acct_set_str(&q->preempt_mode, ch->preempt_mode);
	return rc;
}

/* --- the matching rules (modify and delete) ------------------------------------- */

bool acct_listed(const char *const *v, size_t n, bool given, const char *s)
{
	if (!given)
		return true;
	for (size_t i = 0; i < n; i++)
		if (s && !strcmp(v[i], s))
			return true;
	return false;
}

bool acct_part_listed(const struct drv_rec_acct_cond *c, const char *part)
{
	if (!c->has_partitions)
		return true;
	for (size_t i = 0; i < c->n_partitions; i++)
		if (!strcmp(c->partitions[i], part ? part : ""))
			return true;
	return false;
}

bool acct_qos_named(const struct drv_rec_acct_cond *c, const char *name)
{
	bool named = !c->has_names;
	for (size_t k = 0; k < c->n_names; k++)
		named |= !strcasecmp(c->names[k], name);
	return named;
}

/* Associations' kids (direct children) newest first: the order Slurm's
 * database keeps them in (each new one goes first under its parent). */
static void inherit_lines(struct acct_db *db, const struct acct_assoc *top,
			  const struct drv_rec_acct_change *ch, struct acct_result *r,
			  size_t depth)
{
	if (depth > db->n_assocs)
		return;
	for (size_t i = db->n_assocs; i > 0; i--) {
		const struct acct_assoc *kid = db->assocs[i - 1];
		if (kid == top || acct_parent(db, kid) != top || !child_sees(kid, ch))
			continue;
		if (!kid->user) {
			inherit_lines(db, kid, ch, r, depth + 1);
			continue;
		}
		char line[512];
		acct_assoc_line(kid, true, line, sizeof(line));
		if (acct_strs_add(&r->lines, line) < 0)
			return;
	}
}

/* Applies ch to every matched association; their lines (and, for an
 * account's, those of the users below that inherit the change). */
static int modify_assocs(struct acct_db *db, struct acct_assoc **v, size_t n,
			 const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	for (size_t i = 0; i < n; i++) {
		char line[512]; /* as it was: Slurm names a moved account by its old
				   parent */
		acct_assoc_line(v[i], true, line, sizeof(line));
		int rc = acct_apply_assoc_change(db, v[i], ch, r);
		if (rc < 0)
			return rc;
		if (acct_strs_add(&r->lines, line) < 0)
			return -ENOMEM;
		if (!v[i]->user && inheritable(ch))
			inherit_lines(db, v[i], ch, r, 0);
	}
	/* every association below a changed one may now inherit a default
	 * QOS it may not use */
	if (!ch->default_qos && !ch->has_qos && !ch->has_qos_add && !ch->has_qos_remove)
		return 0;
	const struct acct_assoc **below = calloc(db->n_assocs + 1, sizeof(*below));
	size_t n_below = 0;
	if (!below)
		return -ENOMEM;
	struct acct_assoc **lft = acct_lft_order(db);
	for (size_t k = 0; k < db->n_assocs; k++)
		for (size_t i = 0; i < n; i++)
			if (acct_in_subtree(db, lft[k], v[i])) {
				below[n_below++] = lft[k];
				break;
			}
	free(lft);
	int rc = check_default_qos(db, below, n_below, r);
	free(below);
	return rc;
}

/* The associations cond selects: accounts' own (users false) or users'. */
static struct acct_assoc **select_assocs(const struct acct_db *db,
					 const struct drv_rec_acct_cond *c, bool users,
					 size_t *n)
{
	struct acct_assoc **order = acct_lft_order(db);
	size_t k = 0;
	for (size_t i = 0; i < db->n_assocs; i++) {
		struct acct_assoc *a = order[i];
		bool ok =
		    users
			? a->user &&
			      acct_listed(c->names, c->n_names, c->has_names, a->user) &&
			      acct_listed(c->accounts, c->n_accounts, c->has_accounts,
					  a->account)
			: !a->user &&
			      acct_listed(c->names, c->n_names, c->has_names, a->account);
		ok = ok &&
		     acct_listed(c->clusters, c->n_clusters, c->has_clusters,
				 a->cluster) &&
		     acct_part_listed(c, a->partition) &&
		     acct_listed(c->parents, c->n_parents, c->has_parents, a->parent);
		if (ok)
			order[k++] = a;
	}
	*n = k;
	return order;
}

/* --- sacctmgr modify ---------------------------------------------------------------- */

static int modify_account(struct acct_db *db, const char *local_cluster,
			  const struct drv_rec_acct_cond *c,
			  const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (ch->description || ch->organization)
		for (size_t i = 0; i < db->n_accounts; i++) {
			struct acct_account *a = db->accounts[i];
			if (!acct_listed(c->names, c->n_names, c->has_names, a->name))
				continue;
			if ((ch->description &&
			     acct_set_str(&a->description, ch->description)) ||
			    (ch->organization &&
			     acct_set_str(&a->organization, ch->organization)) ||
			    acct_strs_add(&r->names, a->name) < 0)
				return -ENOMEM;
		}
	if (!acct_change_has_assoc_fields(ch))
		return 0;
	size_t n;
	struct acct_assoc **v = select_assocs(db, c, false, &n);
	int rc = modify_assocs(db, v, n, ch, r);
	free(v);
	return rc;
}

/* DefaultAccount=: each user must have an association with it (Slurm says
 * so on stdout and changes nothing). */
static int set_default_account(const struct acct_db *db, struct acct_user **users,
			       size_t n, const char *account, struct acct_result *r)
{
	char *bad = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&bad, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < db->n_clusters; k++) {
			const char *cl = db->clusters[k]->name;
			bool has = false;
			for (size_t a = 0; a < db->n_assocs && !has; a++)
				has = db->assocs[a]->user &&
				      !strcmp(db->assocs[a]->user, users[i]->name) &&
				      !strcmp(db->assocs[a]->cluster, cl) &&
				      !strcmp(db->assocs[a]->account, account);
			if (!has)
				fprintf(f, "\n  U = %s C = %s", users[i]->name, cl);
		}
	fclose(f);
	int rc = 0;
	if (len)
		rc = acct_refuse(
		    r,
		    " Can't modify because these users aren't associated with "
		    "new default account '%s'...%s",
		    account, bad);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = acct_set_str(&users[i]->default_account, account);
	free(bad);
	return rc;
}

static int modify_user(struct acct_db *db, const char *local_cluster,
		       const struct drv_rec_acct_cond *c,
		       const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (ch->default_account || ch->admin_level) {
		struct acct_user **v = calloc(db->n_users ? db->n_users : 1, sizeof(*v));
		size_t n = 0;
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < db->n_users; i++)
			if (acct_listed(c->names, c->n_names, c->has_names,
					db->users[i]->name))
				v[n++] = db->users[i];
		int rc = ch->default_account
			     ? set_default_account(db, v, n, ch->default_account, r)
			     : 0;
		for (size_t i = 0; rc == 0 && i < n; i++) {
			if (ch->admin_level)
				acct_admin_parse(ch->admin_level, &v[i]->admin);
			rc = acct_strs_add(&r->names, v[i]->name);
		}
		free(v);
		if (rc < 0)
			return rc;
	}
	if (!acct_change_has_assoc_fields(ch))
		return 0;
	if (ch->parent)
		return acct_fail(r, DRV_RC_ERROR, " Can't modify the parent of a user");
	size_t n;
	struct acct_assoc **v = select_assocs(db, c, true, &n);
	int rc = modify_assocs(db, v, n, ch, r);
	free(v);
	return rc;
}

static int modify_qos(struct acct_db *db, const char *local_cluster,
		      const struct drv_rec_acct_cond *c,
		      const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	for (size_t i = 0; i < db->n_qos; i++) {
		struct acct_qos *q = db->qos[i];
		if (!acct_qos_named(c, q->name))
			continue;
		int rc = acct_apply_qos_change(db, q, ch, r);
		if (rc == 0)
			rc = acct_strs_add(&r->names, q->name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A cluster's limits are those of its root association. */
static int modify_cluster(struct acct_db *db, const char *local_cluster,
			  const struct drv_rec_acct_cond *c,
			  const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (ch->parent)
		return acct_fail(r, DRV_RC_ERROR,
				 " Can't modify the parent of a cluster");
	struct acct_assoc **v = calloc(db->n_clusters ? db->n_clusters : 1, sizeof(*v));
	size_t n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < db->n_clusters; i++) {
		const char *name = db->clusters[i]->name;
		struct acct_assoc *top = acct_find_assoc(db, name, "root", NULL, NULL);
		if (top && acct_listed(c->names, c->n_names, c->has_names, name))
			v[n++] = top;
	}
	int rc = modify_assocs(db, v, n, ch, r);
	free(v);
	return rc;
}

/* sacctmgr modify coordinator: Slurm has no such thing. */
static int modify_other(struct acct_db *db, const char *local_cluster,
			const struct drv_rec_acct_cond *c,
			const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	return acct_fail(
	    r, DRV_RC_NOT_SUPPORTED,
	    "No valid entity in modify command\n"
	    "Input line must include \"Account\", \"Cluster\", \"Federation\", "
	    "\"Job\", \"QOS\", \"Resource\" or \"User\"");
}

int acct_modify(struct acct_db *db, const char *local_cluster,
		const struct drv_assoc_update *m, struct acct_result *r)
{
	static const struct acct_verb modify = {modify_account, modify_user, modify_qos,
						modify_cluster, modify_other};
	return acct_verb_run(&modify, db, local_cluster, m, r);
}
