/* acct_delete.c — sacctmgr delete: accounts (with every association below
 * theirs), users or some of their associations, QOS, clusters and
 * coordinators. Slurm's rule on defaults holds: a user's default account
 * may only go with all of the user's associations. root, the local cluster
 * and the QOS normal always exist (docs/compat.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "common/proto_gen.h"
#include "ctld/acct.h"
#include "ctld/acct_tree.h"

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The associations to remove, marked in gone[] (by position in db). */
struct doomed {
	bool *gone;
	size_t n;
};

static bool doomed(const struct acct_db *db, const struct doomed *d,
		   const struct acct_assoc *a)
{
	for (size_t i = 0; i < db->n_assocs; i++)
		if (db->assocs[i] == a)
			return d->gone[i];
	return false;
}

/* Does u keep an association that is not doomed (with account, when given)? */
static bool keeps(const struct acct_db *db, const struct doomed *d, const char *user,
		  const char *account)
{
	for (size_t i = 0; i < db->n_assocs; i++) {
		const struct acct_assoc *a = db->assocs[i];
		if (!d->gone[i] && a->user && !strcmp(a->user, user) &&
		    (!account || !strcmp(a->account, account)))
			return true;
	}
	return false;
}

struct doomed_row {
	const struct acct_assoc *a;
	bool is_def; /* its account is its user's default */
};

static int by_user_then_default(const void *x, const void *y)
{
	const struct doomed_row *a = x, *b = y;
	int c = strcmp(a->a->user, b->a->user);
	return c ? c : (int)a->is_def - (int)b->is_def;
}

/* Slurm 22.05's check before it removes user associations (slurmdbd's
 * _check_is_def_acct_before_remove), kept as it behaves: the rows to
 * remove, by user and non-default first; once any non-default row was
 * seen, every default row after it is refused. Meant as "a default account
 * may only go with all of a user's associations". */
static int check_defaults(const struct acct_db *db, const struct doomed *d,
			  const bool *checked, bool users, struct acct_result *r)
{
	struct doomed_row *rows = calloc(db->n_assocs + 1, sizeof(*rows));
	size_t n = 0, len = 0;
	char *bad = NULL;
	FILE *f = rows ? open_memstream(&bad, &len) : NULL;
	if (!f) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < db->n_assocs; i++) {
		const struct acct_assoc *a = db->assocs[i];
		const struct acct_user *u = a->user ? acct_find_user(db, a->user) : NULL;
		if (d->gone[i] && a->user && (!checked || checked[i]))
			rows[n++] = (struct doomed_row){
			    a, u && u->default_account &&
				   !strcmp(u->default_account, a->account)};
	}
	qsort(rows, n, sizeof(*rows), by_user_then_default);
	bool other = false;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].is_def)
			other = true;
		else if (other)
			fprintf(f, "  C = %-15s A = %-10s U = %-9s\n", rows[i].a->cluster,
				rows[i].a->account, rows[i].a->user);
	}
	fclose(f);
	free(rows);
	int rc = 0;
	if (len && users)
		rc =
		    acct_fail(r, DRV_RC_ERROR,
			      " Error with request: You can not remove the default "
			      "account of a user\n%s"
			      " You must change the default account of these users or "
			      "remove the users completely from the affected clusters to "
			      "allow these changes.\n"
			      " Changes Discarded",
			      bad);
	else if (len)
		rc =
		    acct_fail(r, DRV_RC_ERROR,
			      " Error with request: You can not remove the default "
			      "account of a user\n%s"
			      " Please either remove the accounts listed above from list "
			      "and resubmit,\n"
			      " or change these users' default accounts to remove the "
			      "account(s).\n"
			      " Changes Discarded",
			      bad);
	free(bad);
	return rc;
}

/* Removes the doomed associations, and what hangs on them: a default
 * account no association backs any more. */
static void remove_doomed(struct acct_db *db, struct doomed *d)
{
	for (size_t i = db->n_assocs; i > 0; i--) {
		if (!d->gone[i - 1])
			continue;
		struct acct_assoc *a = db->assocs[i - 1];
		struct acct_user *u = a->user ? acct_find_user(db, a->user) : NULL;
		char *account = strdup(a->account);
		acct_remove_assoc(db, a);
		memmove(&d->gone[i - 1], &d->gone[i], (d->n - i) * sizeof(*d->gone));
		d->n--;
		if (u && account && u->default_account &&
		    !strcmp(u->default_account, account) &&
		    !keeps(db, d, u->name, account))
			acct_set_str(&u->default_account, NULL);
		free(account);
	}
}

/* The doomed associations of one kind (accounts' own, or users') into
 * r->lines, as Slurm's database names and orders them. */
static int doomed_lines(const struct acct_db *db, const struct doomed *d, bool users,
			struct acct_result *r)
{
	struct acct_assoc **order = acct_lft_order(db);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < db->n_assocs; i++) {
		char line[512];
		if ((order[i]->user != NULL) != users || !doomed(db, d, order[i]))
			continue;
		acct_assoc_line(order[i], false, line, sizeof(line));
		rc = acct_strs_add(&r->lines, line);
	}
	free(order);
	return rc;
}

static int doomed_init(const struct acct_db *db, struct doomed *d)
{
	d->n = db->n_assocs;
	d->gone = calloc(d->n ? d->n : 1, sizeof(*d->gone));
	return d->gone ? 0 : -ENOMEM;
}

static int delete_account(struct acct_db *db, const char *local_cluster,
			  const struct drv_rec_acct_cond *c,
			  const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	struct doomed d;
	bool *checked = calloc(db->n_assocs + 1, sizeof(*checked));
	if (!checked || doomed_init(db, &d) < 0) {
		free(checked);
		return -ENOMEM;
	}
	for (size_t i = 0; i < db->n_assocs; i++) {
		const struct acct_assoc *top = db->assocs[i];
		if (top->user ||
		    !acct_listed(c->names, c->n_names, c->has_names, top->account) ||
		    !acct_listed(c->clusters, c->n_clusters, c->has_clusters,
				 top->cluster) ||
		    !acct_listed(c->parents, c->n_parents, c->has_parents, top->parent))
			continue;
		if (!strcmp(top->account, "root")) {
			free(d.gone);
			free(checked);
			return acct_fail(
			    r, DRV_RC_ERROR,
			    " Error with request: the root account can not be "
			    "removed");
		}
		for (size_t k = 0; k < db->n_assocs; k++) {
			const struct acct_assoc *a = db->assocs[k];
			d.gone[k] |= acct_in_subtree(db, a, top);
			/* Slurm checks the users of the accounts named only */
			checked[k] |= a->user && !strcmp(a->account, top->account) &&
				      !strcmp(a->cluster, top->cluster);
		}
	}
	int rc = check_defaults(db, &d, checked, false, r);
	free(checked);
	if (rc < 0) {
		free(d.gone);
		return rc;
	}
	/* the account associations that go (sacctmgr prints them when
	 * clusters were named) */
	rc = doomed_lines(db, &d, false, r);
	/* the accounts named whose every association goes */
	for (size_t i = db->n_accounts; rc == 0 && i > 0; i--) {
		struct acct_account *a = db->accounts[i - 1];
		bool named = acct_listed(c->names, c->n_names, c->has_names, a->name);
		bool any = false, kept = false;
		for (size_t k = 0; k < db->n_assocs; k++)
			if (!db->assocs[k]->user &&
			    !strcmp(db->assocs[k]->account, a->name)) {
				any = true;
				kept |= !d.gone[k];
			}
		if (!named || !any || kept || !strcmp(a->name, "root"))
			continue;
		rc = acct_strs_add(&r->names, a->name);
		for (size_t u = 0; rc == 0 && u < db->n_users; u++)
			acct_strs_remove(&db->users[u]->coord, a->name);
		if (rc == 0)
			acct_remove_account(db, a);
	}
	remove_doomed(db, &d);
	free(d.gone);
	if (r->names.n > 1) /* as Slurm's database lists them */
		qsort(r->names.v, r->names.n, sizeof(*r->names.v), by_text);
	return rc;
}

/* Without account, cluster or partition conditions a user goes whole;
 * with them only the associations they select, and a user left with none
 * goes too (Slurm's "Deleting users (No Associations)"). */
static int delete_user(struct acct_db *db, const char *local_cluster,
		       const struct drv_rec_acct_cond *c,
		       const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	bool whole = !c->has_accounts && !c->has_clusters && !c->has_partitions;
	struct doomed d;
	if (doomed_init(db, &d) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < db->n_assocs; i++) {
		const struct acct_assoc *a = db->assocs[i];
		d.gone[i] = a->user &&
			    acct_listed(c->names, c->n_names, c->has_names, a->user) &&
			    acct_listed(c->accounts, c->n_accounts, c->has_accounts,
					a->account) &&
			    acct_listed(c->clusters, c->n_clusters, c->has_clusters,
					a->cluster) &&
			    acct_part_listed(c, a->partition);
	}
	int rc = whole ? 0 : check_defaults(db, &d, NULL, true, r);
	if (rc == 0 && !whole)
		rc = doomed_lines(db, &d, true, r);
	for (size_t i = db->n_users; rc == 0 && i > 0; i--) {
		struct acct_user *u = db->users[i - 1];
		if (!acct_listed(c->names, c->n_names, c->has_names, u->name) ||
		    !strcmp(u->name, "root"))
			continue;
		if (whole || !keeps(db, &d, u->name, NULL)) {
			bool had = false;
			for (size_t k = 0; k < db->n_assocs; k++)
				had |= d.gone[k] && db->assocs[k]->user &&
				       !strcmp(db->assocs[k]->user, u->name);
			if (!whole && !had)
				continue;
			rc = acct_strs_add(whole ? &r->names : &r->orphans, u->name);
			if (rc == 0)
				acct_remove_user(db, u);
		}
	}
	if (rc == 0)
		remove_doomed(db, &d);
	free(d.gone);
	return rc;
}

/* Forgets a QOS everywhere it is named. */
static int forget_qos(struct acct_db *db, const char *name)
{
	for (size_t i = 0; i < db->n_assocs; i++) {
		struct acct_assoc *a = db->assocs[i];
		acct_strs_remove(&a->qos, name);
		if (a->default_qos && !strcmp(a->default_qos, name))
			acct_set_str(&a->default_qos, NULL);
	}
	for (size_t i = 0; i < db->n_qos; i++)
		acct_strs_remove(&db->qos[i]->preempt, name);
	return 0;
}

static int delete_qos(struct acct_db *db, const char *local_cluster,
		      const struct drv_rec_acct_cond *c,
		      const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	for (size_t i = db->n_qos; i > 0; i--) {
		struct acct_qos *q = db->qos[i - 1];
		if (!acct_qos_named(c, q->name))
			continue;
		if (!strcmp(q->name, "normal"))
			return acct_fail(r, DRV_RC_ERROR,
					 " Error with request: the QOS normal can not be "
					 "removed");
		if (acct_strs_add(&r->names, q->name) < 0 || forget_qos(db, q->name) < 0)
			return -ENOMEM;
		acct_remove_qos(db, q);
	}
	return 0;
}

static int delete_cluster(struct acct_db *db, const char *local_cluster,
			  const struct drv_rec_acct_cond *c,
			  const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	for (size_t i = db->n_clusters; i > 0; i--) {
		struct acct_cluster *cl = db->clusters[i - 1];
		if (!acct_listed(c->names, c->n_names, c->has_names, cl->name))
			continue;
		if (!strcmp(cl->name, local_cluster))
			return acct_fail(
			    r, DRV_RC_ERROR,
			    " Error with request: cluster %s is the one this "
			    "controller runs (ClusterName) and can not be "
			    "removed",
			    cl->name);
		for (size_t k = db->n_assocs; k > 0; k--)
			if (!strcmp(db->assocs[k - 1]->cluster, cl->name))
				acct_remove_assoc(db, db->assocs[k - 1]);
		if (acct_strs_add(&r->names, cl->name) < 0)
			return -ENOMEM;
		acct_remove_cluster(db, cl);
	}
	return 0;
}

static int delete_coord(struct acct_db *db, const char *local_cluster,
			const struct drv_rec_acct_cond *c,
			const struct drv_rec_acct_change *ch, struct acct_result *r)
{
	if (!c->n_names && !c->n_accounts)
		return acct_fail(r, DRV_RC_ERROR,
				 " You need to specify a user list here.");
	for (size_t i = 0; i < db->n_users; i++) {
		struct acct_user *u = db->users[i];
		if (!acct_listed(c->names, c->n_names, c->has_names, u->name))
			continue;
		for (size_t k = u->coord.n; k > 0; k--) {
			char line[512];
			const char *acct = u->coord.v[k - 1];
			if (!acct_listed(c->accounts, c->n_accounts, c->has_accounts,
					 acct))
				continue;
			snprintf(line, sizeof(line), "U = %-9s A = %-10s", u->name, acct);
			if (acct_strs_add(&r->lines, line) < 0)
				return -ENOMEM;
			acct_strs_remove(&u->coord, acct);
		}
	}
	return 0;
}

int acct_delete(struct acct_db *db, const char *local_cluster,
		const struct drv_assoc_update *m, struct acct_result *r)
{
	static const struct acct_verb delete = {delete_account, delete_user, delete_qos,
						delete_cluster, delete_coord};
	return acct_verb_run(&delete, db, local_cluster, m, r);
}

int acct_update(struct acct_db *db, const char *local_cluster,
		const struct drv_assoc_update *m, struct acct_result *r)
{
	if (!strcmp(m->action, "add"))
		return acct_add(db, local_cluster, m, r);
	if (!strcmp(m->action, "modify"))
		return acct_modify(db, local_cluster, m, r);
	return acct_delete(db, local_cluster, m, r);
}
