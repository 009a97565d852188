/* sacctmgr_add.c — sacctmgr add|create for accounts, users, QOS,
 * clusters and coordinators: the words read as Slurm's sacctmgr reads
 * them, what will be added printed as it prints it (ctld works it out:
 * a dry run, or with -i the change itself), then the question (sm_run). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/sacctmgr.h"
#include "common/qos_flags.h"
#include "common/timefmt.h"

/* --- the " Settings" blocks --------------------------------------------------------- */

static void print_count(const char *label, bool has, int64_t v)
{
	if (!has)
		return;
	if (v < 0)
		printf("%sNONE\n", label);
	else
		printf("%s%lld\n", label, (long long)v);
}

static void print_tres(const char *label, const char *canonical)
{
	struct drv_tres t;
	struct drv_error err;
	char buf[512];
	if (!canonical || drv_tres_parse(canonical, &t, &err) < 0)
		return;
	drv_tres_format(&t, true, buf, sizeof(buf));
	printf("%s%s\n", label, buf);
}

static void print_minutes(const char *label, bool has, int64_t mins)
{
	char buf[64];
	if (!has)
		return;
	if (mins < 0) {
		printf("%sNONE\n", label);
		return;
	}
	drv_time_fmt_limit(mins * 60, buf, sizeof(buf));
	printf("%s%s\n", label, buf);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A QOS list as Slurm's get_qos_complete_str prints it: sorted, added and
 * removed names with their + and -. */
static void print_qos_names(const char *label, const char *const *set, size_t n_set,
			    const char *const *add, size_t n_add, const char *const *del,
			    size_t n_del)
{
	size_t n = n_set + n_add + n_del;
	char **v = calloc(n ? n : 1, sizeof(*v));
	if (!v || !n) {
		free(v);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = i < n_set	       ? set[i]
				   : i < n_set + n_add ? add[i - n_set]
						       : del[i - n_set - n_add];
		const char *prefix = i < n_set ? "" : i < n_set + n_add ? "+" : "-";
		if (asprintf(&v[i], "%s%s", prefix, name) < 0)
			v[i] = NULL;
	}
	qsort(v, n, sizeof(*v), by_text);
	printf("%s", label);
	for (size_t i = 0; i < n; i++) {
		printf("%s%s", i ? "," : "", v[i] ? v[i] : "");
		free(v[i]);
	}
	printf("\n");
	free(v);
}

void sm_print_assoc_limits(const struct sm_req *q)
{
	const struct drv_rec_acct_change *c = &q->m.change;
	if (c->has_shares && c->shares == 2147483647)
		printf("  Fairshare     = parent\n");
	else
		print_count("  Fairshare     = ", c->has_shares, c->shares);
	print_count("  GrpJobs       = ", c->has_grp_jobs, c->grp_jobs);
	print_count("  GrpSubmitJobs = ", c->has_grp_submit_jobs, c->grp_submit_jobs);
	print_tres("  GrpTRES       = ", c->grp_tres);
	print_count("  MaxJobs       = ", c->has_max_jobs, c->max_jobs);
	print_count("  MaxSubmitJobs = ", c->has_max_submit_jobs, c->max_submit_jobs);
	print_tres("  MaxTRES       = ", c->max_tres_per_job);
	print_minutes("  MaxWall       = ", c->has_max_wall, c->max_wall);
	if (c->parent)
		printf("  Parent        = %s\n", c->parent);
	if (c->n_qos || c->n_qos_add || c->n_qos_remove)
		print_qos_names("  QOS           = ", c->qos, c->n_qos, c->qos_add,
				c->n_qos_add, c->qos_remove, c->n_qos_remove);
	if (c->default_qos)
		printf("  DefQOS        = %s\n", c->default_qos);
}

/* Flags in Slurm's order ("Add,"/"Remove," for += and -=). */
static void print_flags(const struct drv_rec_acct_change *c)
{
	const char *const *v = c->n_flags	? c->flags
			       : c->n_flags_add ? c->flags_add
						: c->flags_remove;
	size_t n = c->n_flags	    ? c->n_flags
		   : c->n_flags_add ? c->n_flags_add
				    : c->n_flags_remove;
	uint32_t bits = 0;
	for (size_t i = 0; i < n; i++)
		bits |= drv_qos_flag_parse(v[i]);
	if (!bits)
		return;
	printf("  Flags                    = %s", c->n_flags_add      ? "Add,"
						  : c->n_flags_remove ? "Remove,"
								      : "");
	for (unsigned i = 0, first = 1; i < DRV_QOS_FLAG_COUNT; i++)
		if (bits & (1u << i)) {
			printf("%s%s", first ? "" : ",", drv_qos_flag_name(i));
			first = 0;
		}
	printf("\n");
}

void sm_print_qos_limits(const struct sm_req *q)
{
	const struct drv_rec_acct_change *c = &q->m.change;
	print_flags(c);
	print_count("  GraceTime                = ", c->has_grace_time, c->grace_time);
	print_count("  GrpJobs                  = ", c->has_grp_jobs, c->grp_jobs);
	print_count("  GrpSubmitJobs            = ", c->has_grp_submit_jobs,
		    c->grp_submit_jobs);
	print_tres("  GrpTRES                  = ", c->grp_tres);
	print_count("  MaxJobsPerUser = ", c->has_max_jobs_per_user,
		    c->max_jobs_per_user);
	print_count("  MaxSubmitJobsPerUser     = ", c->has_max_submit_jobs_per_user,
		    c->max_submit_jobs_per_user);
	print_tres("  MaxTRESPerJob            = ", c->max_tres_per_job);
	print_tres("  MaxTRESPerUser           = ", c->max_tres_per_user);
	print_minutes("  MaxWall                  = ", c->has_max_wall, c->max_wall);
	if (c->n_preempt || c->n_preempt_add || c->n_preempt_remove)
		print_qos_names("  Preempt                  = ", c->preempt, c->n_preempt,
				c->preempt_add, c->n_preempt_add, c->preempt_remove,
				c->n_preempt_remove);
	if (c->preempt_mode) {
		printf("  PreemptMode              = ");
		for (const char *p = c->preempt_mode; *p; p++)
			putchar(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		printf("\n");
	}
	print_count("  Priority                 = ", c->has_priority, c->priority);
	if (c->has_usage_factor && c->usage_factor < 0)
		printf("  UsageFactor              = NONE\n");
	else if (c->has_usage_factor)
		printf("  UsageFactor              = %.4lf\n",
		       (double)c->usage_factor / 1e6);
}

/* --- what every add shares ---------------------------------------------------------- */

/* The head of an add's listing: " Nothing new added." (then false) when
 * the reply adds no name (nor, with_assocs, association); else head and
 * the names added, each after label. */
static bool adding(const struct drv_assoc_update_reply *r, bool with_assocs,
		   const char *head, const char *label)
{
	if (!r->n_names && !(with_assocs && r->n_assocs)) {
		printf(" Nothing new added.\n");
		return false;
	}
	if (r->n_names) {
		printf("%s\n", head);
		for (size_t i = 0; i < r->n_names; i++)
			printf("  %s%s\n", label, r->names[i]);
	}
	return true;
}

/* A keyword with the length of its shortest form (sm_kw). */
struct key {
	const char *name;
	size_t min;
};

/* One word that names no entity; false stops the reading (q->bad set
 * when it refused the word). */
typedef bool (*word_f)(struct sm_req *q, const struct sm_word *w,
		       const struct cli_acct *t);

/* How an entity's add reads its words: a bare word, or one keyed by one
 * of names, is a name; "where" and "set" alone are skipped (skip_where;
 * else they are names too); other takes any other word. entity is for
 * " Need name of %s to add." (NULL: names may lack). */
struct add_words {
	const char *entity;
	bool skip_where;
	const struct key *names;
	word_f other;
};

static bool names_key(const struct sm_word *w, const struct key *keys)
{
	for (; keys->name; keys++)
		if (sm_kw(w->word, w->klen, keys->name, keys->min))
			return true;
	return false;
}

/* Reads an add's words as how says. 0, or 1 after the message of a word
 * refused or of names missing. */
static int read_words(struct sm_req *q, const struct cli_acct *t,
		      const struct add_words *how, int argc, char **argv)
{
	struct drv_rec_acct_cond *c = &q->m.cond;
	for (int i = 0; i < argc; i++) {
		struct sm_word w;
		sm_word_split(argv[i], &w);
		if (!w.value && how->skip_where &&
		    (sm_kw(w.word, w.klen, "Where", 5) ||
		     sm_kw(w.word, w.klen, "Set", 3)))
			continue;
		if (!w.value || names_key(&w, how->names))
			sm_list_add(q, &c->names, &c->n_names, &c->has_names,
				    w.value ? w.value : w.word, false);
		else if (!how->other(q, &w, t))
			break;
	}
	if (q->bad || q->soft_bad)
		return 1;
	if (how->entity && !c->n_names) {
		fprintf(stderr, " Need name of %s to add.\n", how->entity);
		return 1;
	}
	return 0;
}

/* --- accounts -------------------------------------------------------------------- */

static bool print_accounts(const struct sm_req *q, const struct drv_assoc_update_reply *r,
			   const void *arg, bool *failed)
{
	const struct drv_rec_acct_change *c = &q->m.change;
	if (!adding(r, true, " Adding Account(s)", ""))
		return false;
	if (r->n_names) {
		printf(" Settings\n");
		printf("  Description     = %s\n",
		       c->description ? c->description : "Account Name");
		printf("  Organization    = %s\n",
		       c->organization ? c->organization : "Parent/Account Name");
	}
	printf(" Associations\n");
	for (size_t i = 0; i < r->n_assocs; i++)
		printf("  A = %-10.10s C = %-10.10s\n", r->assocs[i].account,
		       r->assocs[i].cluster);
	if (q->limit_set) {
		printf(" Settings\n");
		sm_print_assoc_limits(q);
	}
	return true;
}

static bool account_word(struct sm_req *q, const struct sm_word *w,
			 const struct cli_acct *t)
{
	struct drv_rec_acct_cond *c = &q->m.cond;
	if (sm_kw(w->word, w->klen, "Clusters", 1)) {
		sm_list_add(q, &c->clusters, &c->n_clusters, &c->has_clusters, w->value,
			    false);
	} else if (sm_kw(w->word, w->klen, "Description", 1)) {
		q->m.change.description = sm_value(q, w->value, false);
		q->rec_user = true;
	} else if (sm_kw(w->word, w->klen, "Organization", 1)) {
		q->m.change.organization = sm_value(q, w->value, false);
		q->rec_user = true;
	} else if (sm_set_assoc_rec(q, w, t)) {
		q->rec_assoc = true;
	} else {
		sm_unknown_option(q, w);
	}
	return true;
}

static int add_account(const struct sm_opts *o, struct sm_req *q,
		       const struct cli_acct *t, int argc, char **argv)
{
	static const struct key names[] = {
	    {"Accounts", 1}, {"Names", 1}, {"Acct", 4}, {NULL, 0}};
	static const struct add_words how = {"account", true, names, account_word};
	if (read_words(q, t, &how, argc, argv))
		return 1;
	q->limit_set = q->rec_user || q->rec_assoc;
	if (!q->m.change.parent)
		q->m.change.parent = "root"; /* printed as Slurm does */
	return sm_run(o, q, print_accounts, NULL);
}

/* --- users ------------------------------------------------------------------------ */

static bool print_users(const struct sm_req *q, const struct drv_assoc_update_reply *r,
			const void *arg, bool *failed)
{
	const struct drv_rec_acct_change *c = &q->m.change;
	if (!adding(r, true, " Adding User(s)", ""))
		return false;
	if (r->n_names && (c->default_account || c->admin_level)) {
		printf(" Settings =\n");
		if (c->default_account)
			printf("  Default Account = %s\n", c->default_account);
		if (c->admin_level)
			printf("  Admin Level     = %s\n", c->admin_level);
	}
	printf(" Associations =\n");
	for (size_t i = 0; i < r->n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &r->assocs[i];
		if (a->partition)
			printf("  U = %-9.9s A = %-10.10s C = %-10.10s P = %-10.10s\n",
			       a->user, a->account, a->cluster, a->partition);
		else
			printf("  U = %-9.9s A = %-10.10s C = %-10.10s\n", a->user,
			       a->account, a->cluster);
	}
	if (q->limit_set) {
		printf(" Non Default Settings\n");
		sm_print_assoc_limits(q);
	}
	return true;
}

/* AdminLevel=: Slurm reads the first letter. */
static const char *admin_level(const char *v)
{
	switch (v[0] | 32) {
	case 'n':
		return "None";
	case 'o':
		return "Operator";
	case 's':
	case 'a':
		return "Administrator";
	default:
		return NULL;
	}
}

/* New users with no passwd entry: Slurm asks first (not with -i). */
static bool users_exist(const struct sm_opts *o, const struct sm_req *q,
			const struct cli_acct *t)
{
	for (size_t i = 0; !o->immediate && i < q->m.cond.n_names; i++) {
		const char *name = q->m.cond.names[i];
		char warning[512];
		if (cli_acct_user(t, name) || getpwnam(name))
			continue;
		snprintf(
		    warning, sizeof(warning),
		    "There is no uid for user '%s'\nAre you sure you want to continue?",
		    name);
		if (!sm_ask(warning))
			return false;
	}
	return true;
}

static bool user_word(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t)
{
	const char *k = w->word;
	size_t n = w->klen;
	if (sm_kw(k, n, "AdminLevel", 2)) {
		q->m.change.admin_level = admin_level(w->value);
	} else if (sm_kw(k, n, "DefaultAccount", 8)) {
		if (q->m.change.default_account) {
			fprintf(stderr, " Already listed DefaultAccount %s\n",
				q->m.change.default_account);
			q->bad = true;
		} else {
			q->m.change.default_account = sm_value(q, w->value, false);
		}
	} else if (sm_kw(k, n, "DefaultWCKey", 8) || sm_kw(k, n, "WCKeys", 1)) {
		/* WCKeys are not tracked */
	} else if (sm_set_assoc_rec(q, w, t) || sm_set_assoc_cond(q, w)) {
		q->limit_set = true;
	} else if (!q->bad) {
		q->bad = true;
		fprintf(stderr, " Unknown option: %s\n", k);
	}
	return true;
}

static int add_user(const struct sm_opts *o, struct sm_req *q, const struct cli_acct *t,
		    int argc, char **argv)
{
	static const struct key names[] = {{"Names", 1}, {"Users", 1}, {NULL, 0}};
	static const struct add_words how = {"user", false, names, user_word};
	if (read_words(q, t, &how, argc, argv))
		return 1;
	if (!q->m.cond.n_accounts && !q->m.change.default_account) {
		fprintf(stderr, " Need name of account to add user to.\n");
		return 1;
	}
	if (!users_exist(o, q, t))
		return 1;
	return sm_run(o, q, print_users, NULL);
}

/* --- QOS ---------------------------------------------------------------------------- */

static bool print_qos(const struct sm_req *q, const struct drv_assoc_update_reply *r,
		      const void *arg, bool *failed)
{
	if (!adding(r, false, " Adding QOS(s)", ""))
		return false;
	printf(" Settings\n");
	printf("  Description    = %s\n", q->m.change.description
					      ? q->m.change.description
					      : r->names[r->n_names - 1]);
	sm_print_qos_limits(q);
	return true;
}

static bool qos_word(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t)
{
	if (!sm_set_qos_rec(q, w, t)) {
		q->bad = true; /* Slurm says this one on stdout */
		printf(" Unknown option: %s\n Use keyword 'where' to modify condition\n",
		       w->word);
	}
	return true;
}

static int add_qos(const struct sm_opts *o, struct sm_req *q, const struct cli_acct *t,
		   int argc, char **argv)
{
	static const struct key names[] = {{"Names", 1}, {NULL, 0}};
	static const struct add_words how = {"qos", true, names, qos_word};
	if (read_words(q, t, &how, argc, argv))
		return 1;
	return sm_run(o, q, print_qos, NULL);
}

/* --- clusters -------------------------------------------------------------------------
 */

static bool print_clusters(const struct sm_req *q, const struct drv_assoc_update_reply *r,
			   const void *arg, bool *failed)
{
	if (!adding(r, false, " Adding Cluster(s)", "Name           = "))
		return false;
	if (q->limit_set) {
		printf(" Setting\n");
		printf("  Default Limits:\n");
		sm_print_assoc_limits(q);
	}
	return true;
}

static bool cluster_word(struct sm_req *q, const struct sm_word *w,
			 const struct cli_acct *t)
{
	if (sm_set_assoc_rec(q, w, t))
		q->limit_set = true;
	else if (!q->bad)
		sm_unknown_option(q, w);
	return true;
}

static int add_cluster(const struct sm_opts *o, struct sm_req *q,
		       const struct cli_acct *t, int argc, char **argv)
{
	static const struct key names[] = {{"Names", 1}, {"Clusters", 1}, {NULL, 0}};
	static const struct add_words how = {"cluster", true, names, cluster_word};
	struct drv_rec_acct_cond *c = &q->m.cond;
	if (read_words(q, t, &how, argc, argv))
		return 1;
	size_t kept = 0;
	for (size_t i = 0; i < c->n_names; i++) {
		if (cli_acct_cluster(t, c->names[i]))
			printf(" This cluster %s already exists.  Not adding.\n",
			       c->names[i]);
		else
			c->names[kept++] = c->names[i];
	}
	c->n_names = kept;
	return kept ? sm_run(o, q, print_clusters, NULL) : 1;
}

/* --- coordinators ---------------------------------------------------------------------
 */

static bool print_coords(const struct sm_req *q, const struct drv_assoc_update_reply *r,
			 const void *arg, bool *failed)
{
	const struct drv_rec_acct_cond *c = &q->m.cond;
	printf(" Adding Coordinator User(s)\n");
	for (size_t i = 0; i < c->n_names; i++)
		printf("  %s\n", c->names[i]);
	printf(" To Account(s) and all sub-accounts\n");
	for (size_t i = 0; i < c->n_accounts; i++)
		printf("  %s\n", c->accounts[i]);
	return r->n_names > 0;
}

static bool coord_word(struct sm_req *q, const struct sm_word *w,
		       const struct cli_acct *t)
{
	struct drv_rec_acct_cond *c = &q->m.cond;
	if (sm_kw(w->word, w->klen, "Accounts", 2) ||
	    sm_kw(w->word, w->klen, "Acct", 4)) {
		sm_list_add(q, &c->accounts, &c->n_accounts, &c->has_accounts, w->value,
			    false);
		return true;
	}
	fprintf(stderr, " Unknown condition: %s\n", w->word);
	q->bad = true;
	return false;
}

static int add_coord(const struct sm_opts *o, struct sm_req *q, const struct cli_acct *t,
		     int argc, char **argv)
{
	static const struct key names[] = {{"Names", 1}, {"Users", 1}, {NULL, 0}};
	static const struct add_words how = {NULL, true, names, coord_word};
	if (read_words(q, t, &how, argc, argv))
		return 1;
	return sm_run(o, q, print_coords, NULL);
}

/* --- the verb
 * --------------------------------------------------------------------------- */

int sm_add(const struct sm_opts *o, int argc, char **argv)
{
	const char *e = argc > 0 ? argv[0] : "";
	size_t n = strlen(e);
	const char *entity = !n ? NULL
			     : sm_kw(e, n, "Account", 1) || sm_kw(e, n, "Acct", 4)
				 ? "account"
			     : sm_kw(e, n, "Cluster", 2)     ? "cluster"
			     : sm_kw(e, n, "Coordinator", 2) ? "coordinator"
			     : sm_kw(e, n, "QOS", 1)	     ? "qos"
			     : sm_kw(e, n, "User", 1)	     ? "user"
							     : NULL;
	if (!entity) {
		fprintf(stderr,
			"No valid entity in add command\n"
			"Input line must include \"Account\", \"Cluster\", "
			"\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", or "
			"\"User\"\n");
		return 1;
	}
	struct cli_acct t;
	if (sm_load_tables(
		&t, NULL, " Problem getting accounts from database.  Contact your admin.",
		false))
		return 1;
	int rc;
	struct sm_req q;
	sm_req_init(&q, "add", entity);
	if (!strcmp(entity, "account"))
		rc = add_account(o, &q, &t, argc - 1, argv + 1);
	else if (!strcmp(entity, "user"))
		rc = add_user(o, &q, &t, argc - 1, argv + 1);
	else if (!strcmp(entity, "qos"))
		rc = add_qos(o, &q, &t, argc - 1, argv + 1);
	else if (!strcmp(entity, "cluster"))
		rc = add_cluster(o, &q, &t, argc - 1, argv + 1);
	else
		rc = add_coord(o, &q, &t, argc - 1, argv + 1);
	sm_req_fini(&q);
	cli_acct_fini(&t);
	return rc;
}
