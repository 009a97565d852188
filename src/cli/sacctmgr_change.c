/* sacctmgr_change.c — sacctmgr modify|update and delete|remove for
 * accounts, users, QOS, clusters (and delete coordinator): "where" and
 * "set" read as Slurm's sacctmgr reads them, what changes listed as
 * Slurm's database lists it (ctld: a dry run, or with -i the change
 * itself), then the question. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/sacctmgr.h"

/* What the listing after the request prints: the sections Slurm prints. */
struct sm_report {
	const char *names_head; /* " Modified accounts..." or NULL */
	const char *lines_head; /* " Modified account associations..." */
	const char *orphans_head;
	const char *nothing; /* " Nothing modified" / " Nothing deleted" */
};

/* One section of the listing: head and the items; nothing (then *failed)
 * when there are none. */
static void section(const char *head, const char *const *v, size_t n, const char *nothing,
		    bool *any, bool *failed)
{
	if (!n) {
		printf("%s\n", nothing);
		*failed = true;
		return;
	}
	printf("%s\n", head);
	for (size_t i = 0; i < n; i++)
		printf("  %s\n", v[i]);
	*any = true;
}

/* Prints the reply's sections (arg: the struct sm_report); *failed when a
 * section found nothing (Slurm then exits 1); true when something will
 * change. */
static bool report(const struct sm_req *q, const struct drv_assoc_update_reply *r,
		   const void *arg, bool *failed)
{
	const struct sm_report *rp = arg;
	bool any = false;
	if (rp->names_head)
		section(rp->names_head, r->names, r->n_names, rp->nothing, &any, failed);
	if (rp->lines_head)
		section(rp->lines_head, r->lines, r->n_lines, rp->nothing, &any, failed);
	if (rp->orphans_head && r->n_orphans) {
		printf("%s\n", rp->orphans_head);
		for (size_t i = 0; i < r->n_orphans; i++)
			printf("  %s\n", r->orphans[i]);
	}
	return any;
}

/* Sends q (a dry run unless -i), reports, asks, commits. */
static int run(const struct sm_opts *o, struct sm_req *q, const struct sm_report *rp)
{
	if (!strcmp(q->m.entity, "cluster") && !strcmp(q->m.action, "modify")) {
		printf(" Setting\n  Default Limits:\n"); /* Slurm says first */
		sm_print_assoc_limits(q);
	}
	return sm_run(o, q, report, rp);
}

static char entity_of(const char *e, bool delete)
{
	size_t n = strlen(e);
	if (!n)
		return 0;
	if (sm_kw(e, n, "Accounts", 1) || sm_kw(e, n, "Acct", 4))
		return 'a';
	if (sm_kw(e, n, "Clusters", delete ? 2 : 5))
		return 'c';
	if (delete &&sm_kw(e, n, "Coordinators", 2))
		return 'o';
	if (sm_kw(e, n, "QOSs", delete ? 2 : 1))
		return 'q';
	if (sm_kw(e, n, "Users", 1))
		return 'u';
	return 0;
}

/* One condition word ("where"); false when unknown (message printed). */
static bool cond_word(struct sm_req *q, char entity, const struct sm_word *w)
{
	struct drv_rec_acct_cond *c = &q->m.cond;
	const char *k = w->word;
	size_t n = w->klen;
	if (!w->value) {
		if (sm_kw(k, n, "WithAssoc", 5) || sm_kw(k, n, "WithCoordinators", 5) ||
		    sm_kw(k, n, "WithDeleted", 5) || sm_kw(k, n, "Where", 5))
			return true;
		q->cond_set = true;
		sm_list_add(q, &c->names, &c->n_names, &c->has_names, k, false);
		return true;
	}
	bool named =
	    sm_kw(k, n, "Names", 1) ||
	    (entity == 'a' && (sm_kw(k, n, "Accounts", 1) || sm_kw(k, n, "Acct", 4))) ||
	    ((entity == 'u' || entity == 'o') && sm_kw(k, n, "Users", 1)) ||
	    (entity == 'c' && sm_kw(k, n, "Clusters", 1));
	if (named) {
		q->cond_set = true;
		sm_list_add(q, &c->names, &c->n_names, &c->has_names, w->value, false);
		return true;
	}
	if ((entity == 'a' || entity == 'u' || entity == 'o') &&
	    sm_set_assoc_cond(q, w)) {
		q->cond_set = true;
		q->rec_assoc = true; /* a condition on associations */
		return true;
	}
	fprintf(stderr, " Unknown condition: %s\n Use keyword 'set' to modify value\n",
		k);
	return false;
}

/* One value word ("set"); false when unknown or bad (message printed). */
static bool set_word(struct sm_req *q, char entity, const struct sm_word *w,
		     const struct cli_acct *t)
{
	struct drv_rec_acct_change *ch = &q->m.change;
	const char *k = w->word;
	size_t n = w->klen;
	if (!w->value && sm_kw(k, n, "set", 3))
		return true;
	if (!w->value && entity == 'u') {
		fprintf(stderr, " Bad format on %s: End your option with an '=' sign\n",
			k);
		return false;
	}
	if (entity == 'a' && w->value &&
	    (sm_kw(k, n, "Description", 1) || sm_kw(k, n, "Organization", 1))) {
		*(sm_kw(k, n, "Description", 1) ? &ch->description : &ch->organization) =
		    sm_value(q, w->value, false);
		q->rec_user = true;
		return true;
	}
	if (entity == 'u' && sm_kw(k, n, "AdminLevel", 2)) {
		char c = w->value[0] | 32;
		ch->admin_level = c == 'n'   ? "None"
				  : c == 'o' ? "Operator"
					     : "Administrator";
		q->rec_user = true;
		return true;
	}
	if (entity == 'u' && sm_kw(k, n, "DefaultAccount", 8)) {
		ch->default_account = sm_value(q, w->value, false);
		q->rec_user = true;
		return true;
	}
	if (entity == 'q') {
		if (sm_set_qos_rec(q, w, t)) {
			q->rec_user |= !q->bad && !q->soft_bad;
			return !q->bad;
		}
		/* Slurm says this one on stdout */
		printf(" Unknown option: %s\n Use keyword 'where' to modify condition\n",
		       k);
		return false;
	}
	if (sm_set_assoc_rec(q, w, t)) {
		q->limit_set = true;
		return !q->bad;
	}
	if (!q->bad)
		sm_unknown_option(q, w); /* sets q->bad: the command fails either way */
	return false;
}

static const struct sm_report modify_reports[] = {
    {" Modified accounts...", " Modified account associations...", NULL,
     " Nothing modified"},
    {" Modified users...", " Modified user associations...", NULL, " Nothing modified"},
    {" Modified qos...", NULL, NULL, " Nothing modified"},
    {NULL, " Modified cluster defaults for associations...", NULL, " Nothing modified"},
};

int sm_modify(const struct sm_opts *o, int argc, char **argv)
{
	char entity = argc > 0 ? entity_of(argv[0], false) : 0;
	if (!entity) {
		fprintf(stderr,
			"No valid entity in modify command\n"
			"Input line must include \"Account\", \"Cluster\", "
			"\"Federation\", \"Job\", \"QOS\", \"Resource\" or \"User\"\n");
		return 1;
	}
	struct cli_acct t;
	if (sm_load_tables(&t, NULL, " Error with request:", true))
		return 1;
	struct sm_req q;
	const char *name = entity == 'a'   ? "account"
			   : entity == 'u' ? "user"
			   : entity == 'q' ? "qos"
					   : "cluster";
	sm_req_init(&q, "modify", name);
	bool setting = false, ok = true;
	for (int i = 1; ok && i < argc; i++) {
		struct sm_word w;
		size_t len = strlen(argv[i]);
		sm_word_split(argv[i], &w);
		if (!w.value && sm_kw(argv[i], len, "Where", 5))
			setting = false;
		else if (!w.value && sm_kw(argv[i], len, "Set", 3))
			setting = true;
		else
			ok = setting ? set_word(&q, entity, &w, &t)
				     : cond_word(&q, entity, &w);
	}
	/* what was set: the entity's own fields, or its associations' */
	bool rec = q.rec_user || q.limit_set;
	struct sm_report rp = modify_reports[entity == 'a'   ? 0
					     : entity == 'u' ? 1
					     : entity == 'q' ? 2
							     : 3];
	if ((entity == 'a' || entity == 'u') && !q.rec_user)
		rp.names_head = NULL;
	if ((entity == 'a' || entity == 'u') && !q.limit_set)
		rp.lines_head = NULL;
	int rc = 1;
	if (ok && !q.bad && q.soft_bad && !rec) {
		/* Slurm's QOS words leave a bad count unset, then this */
		fprintf(stderr, " You didn't give me anything to set\n");
	} else if (!ok || q.bad || q.soft_bad) {
	} else if (!rec) {
		fprintf(stderr, " You didn't give me anything to set\n");
	} else if (!q.cond_set && !o->immediate &&
		   !sm_ask("You didn't set any conditions with 'WHERE'.\n"
			   "Are you sure you want to continue?")) {
		printf("Aborted\n");
		rc = 0;
	} else {
		rc = run(o, &q, &rp);
	}
	sm_req_fini(&q);
	cli_acct_fini(&t);
	return rc;
}

int sm_delete(const struct sm_opts *o, int argc, char **argv)
{
	char entity = argc > 0 ? entity_of(argv[0], true) : 0;
	if (!entity) {
		fprintf(stderr,
			"No valid entity in delete command\n"
			"Input line must include \"Account\", \"Cluster\", "
			"\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", or "
			"\"User\"\n");
		return 1;
	}
	struct sm_req q;
	const char *name = entity == 'a'   ? "account"
			   : entity == 'u' ? "user"
			   : entity == 'q' ? "qos"
			   : entity == 'o' ? "coordinator"
					   : "cluster";
	sm_req_init(&q, "delete", name);
	bool ok = true;
	for (int i = 1; ok && i < argc; i++) {
		struct sm_word w;
		sm_word_split(argv[i], &w);
		ok = cond_word(&q, entity, &w);
	}
	if (!ok) {
		sm_req_fini(&q);
		return 1;
	}
	if (!q.cond_set) {
		fprintf(stderr, " No conditions given to remove, not executing.\n");
		sm_req_fini(&q);
		return 1;
	}
	struct sm_report rp = {NULL, NULL, NULL, " Nothing deleted"};
	const struct drv_rec_acct_cond *c = &q.m.cond;
	if (entity == 'a' && q.rec_assoc)
		rp.lines_head = " Deleting account associations...";
	else if (entity == 'a')
		rp.names_head = " Deleting accounts...";
	else if (entity == 'u' && q.rec_assoc) {
		rp.lines_head = " Deleting user associations...";
		rp.orphans_head = " Deleting users (No Associations)...";
	} else if (entity == 'u')
		rp.names_head = " Deleting users...";
	else if (entity == 'q')
		rp.names_head = " Deleting QOS(s)...";
	else if (entity == 'c')
		rp.names_head = " Deleting clusters...";
	int rc;
	if (entity == 'o') {
		printf(" Removing Coordinators with user name\n");
		for (size_t i = 0; i < c->n_names; i++)
			printf("  %s\n", c->names[i]);
		if (c->n_accounts) {
			printf(" From Account(s)\n");
			for (size_t i = 0; i < c->n_accounts; i++)
				printf("  %s\n", c->accounts[i]);
		} else {
			printf(" From all accounts\n");
		}
		rp.lines_head = " Removed Coordinators (sub accounts not listed)...";
		rp.nothing = " Nothing removed";
	}
	rc = run(o, &q, &rp);
	sm_req_fini(&q);
	return rc;
}
