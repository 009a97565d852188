/* sacctmgr_list.c — sacctmgr list|show for users, accounts, associations,
 * QOS and clusters, from the tables ctld returns whole (assoc.query):
 * Slurm's conditions, default formats, withassoc, withcoord, tree and
 * WOPLimits, filtered and laid out here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/sacctmgr.h"
#include "cli/sacctmgr_fields.h"

struct sm_list_opts {
	bool assoc, coord, tree, wop_limits;
	const char *format;
	struct sm_req q; /* its cond holds the conditions */
	const char **descs, **orgs, **defaccts, **admins, **ids;
	size_t n_descs, n_orgs, n_defaccts, n_admins, n_ids;
	bool has_descs, has_orgs, has_defaccts, has_admins, has_ids;
};

static bool in(const char *const *v, size_t n, bool given, const char *s)
{
	if (!given)
		return true;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s ? s : ""))
			return true;
	return false;
}

static bool in_case(const char *const *v, size_t n, bool given, const char *s)
{
	if (!given)
		return true;
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(v[i], s ? s : ""))
			return true;
	return false;
}

/* Does the association pass the conditions (accounts, clusters, users,
 * partitions, parents; names too when names_are accounts or users)? */
static bool assoc_ok(const struct sm_list_opts *o, const struct drv_rec_acct_assoc *a,
		     char names_are)
{
	const struct drv_rec_acct_cond *c = &o->q.m.cond;
	char id[16];
	snprintf(id, sizeof(id), "%u", a->id);
	return in(c->accounts, c->n_accounts, c->has_accounts, a->account) &&
	       in(c->clusters, c->n_clusters, c->has_clusters, a->cluster) &&
	       in(c->users, c->n_users, c->has_users, a->user) &&
	       in(c->partitions, c->n_partitions, c->has_partitions, a->partition) &&
	       in(c->parents, c->n_parents, c->has_parents, a->user ? NULL : a->parent) &&
	       in(o->ids, o->n_ids, o->has_ids, id) &&
	       (names_are != 'a' || in(c->names, c->n_names, c->has_names, a->account)) &&
	       (names_are != 'u' || in(c->names, c->n_names, c->has_names, a->user));
}

static bool assoc_conds(const struct sm_list_opts *o)
{
	const struct drv_rec_acct_cond *c = &o->q.m.cond;
	return c->has_accounts || c->has_clusters || c->has_users || c->has_partitions ||
	       c->has_parents;
}

/* One word of a list command. 0, or 1 after Slurm's message. entity: 'u'
 * user, 'a' account, 's' association, 'q' QOS, 'c' cluster. */
static int list_word(struct sm_list_opts *o, char entity, const char *word)
{
	struct sm_word w;
	struct drv_rec_acct_cond *c = &o->q.m.cond;
	sm_word_split(word, &w);
	size_t n = w.klen;
	if (!w.value) {
		if (sm_kw(word, n, "where", 5))
			return 0;
		if ((entity == 'u' || entity == 'a') && sm_kw(word, n, "WithAssoc", 5))
			o->assoc = true;
		else if ((entity == 'u' || entity == 'a') &&
			 sm_kw(word, n, "WithCoordinators", 5))
			o->coord = true;
		else if (sm_kw(word, n, "WithDeleted", 5))
			return 0;
		else if (entity == 's' && sm_kw(word, n, "Tree", 4))
			o->tree = true;
		else if ((entity == 's' || entity == 'a') &&
			 (sm_kw(word, n, "WOPLimits", 4) ||
			  sm_kw(word, n, "WOLimits", 3)))
			o->wop_limits = true;
		else if (entity == 's')
			sm_list_add(&o->q, &o->ids, &o->n_ids, &o->has_ids, word, false);
		else
			sm_list_add(&o->q, &c->names, &c->n_names, &c->has_names, word,
				    false);
		return 0;
	}
	if (sm_kw(word, n, "Format", 1)) {
		o->format = w.value;
		return 0;
	}
	if ((entity == 'u' &&
	     (sm_kw(word, n, "Names", 1) || sm_kw(word, n, "Users", 1))) ||
	    (entity == 'a' &&
	     (sm_kw(word, n, "Names", 1) || sm_kw(word, n, "Accounts", 1) ||
	      sm_kw(word, n, "Acct", 4))) ||
	    ((entity == 'q' || entity == 'c') &&
	     (sm_kw(word, n, "Names", 1) || sm_kw(word, n, "Clusters", 1)))) {
		sm_list_add(&o->q, &c->names, &c->n_names, &c->has_names, w.value, false);
		return 0;
	}
	if (entity == 'u' && sm_kw(word, n, "AdminLevel", 2)) {
		sm_list_add(&o->q, &o->admins, &o->n_admins, &o->has_admins, w.value,
			    true);
		return 0;
	}
	if (entity == 'u' && sm_kw(word, n, "DefaultAccount", 8)) {
		sm_list_add(&o->q, &o->defaccts, &o->n_defaccts, &o->has_defaccts,
			    w.value, false);
		return 0;
	}
	if (entity == 'a' && sm_kw(word, n, "Descriptions", 1)) {
		sm_list_add(&o->q, &o->descs, &o->n_descs, &o->has_descs, w.value, false);
		return 0;
	}
	if (entity == 'a' && sm_kw(word, n, "Organizations", 1)) {
		sm_list_add(&o->q, &o->orgs, &o->n_orgs, &o->has_orgs, w.value, false);
		return 0;
	}
	if ((entity == 's' || entity == 'q') &&
	    (sm_kw(word, n, "Ids", 1) || sm_kw(word, n, "Associations", 2))) {
		sm_list_add(&o->q, &o->ids, &o->n_ids, &o->has_ids, w.value, false);
		return 0;
	}
	if ((entity == 'u' || entity == 'a' || entity == 's') &&
	    sm_set_assoc_cond(&o->q, &w))
		return 0;
	fprintf(stderr, " Unknown condition: %s\n%s", word,
		entity == 's' ? "" : " Use keyword 'set' to modify value\n");
	return 1;
}

static void header(const struct sm_opts *o, const struct cli_fields *fl)
{
	if (!o->noheader)
		cli_fields_header(stdout, fl, o->mode);
}

static int by_user(const void *a, const void *b)
{
	return strcmp((*(const struct drv_rec_acct_user *const *)a)->name,
		      (*(const struct drv_rec_acct_user *const *)b)->name);
}

/* Slurm's database order (lft): the ids from the cluster's root down to
 * a, into ids (at most max); how many. */
static int lft_path(const struct cli_acct *t, const struct drv_rec_acct_assoc *a,
		    uint32_t *ids, int max)
{
	int n = 0;
	for (; a && n < max; a = cli_acct_parent(t, a))
		ids[n++] = a->id;
	for (int i = 0; i < n / 2; i++) {
		uint32_t x = ids[i];
		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = x;
	}
	return n;
}

/* Before b in the database: a parent before its children, newer siblings
 * first (each new association goes first under its parent). */
static bool lft_before(const struct cli_acct *t, const struct drv_rec_acct_assoc *a,
		       const struct drv_rec_acct_assoc *b)
{
	uint32_t pa[64], pb[64];
	int c = strcmp(a->cluster, b->cluster);
	if (c)
		return c < 0;
	int na = lft_path(t, a, pa, 64), nb = lft_path(t, b, pb, 64);
	for (int i = 0; i < na && i < nb; i++)
		if (pa[i] != pb[i])
			return pa[i] > pb[i];
	return na < nb;
}

/* A user's associations in the database's order (few: an insertion sort). */
static void lft_sort(const struct cli_acct *t, const struct drv_rec_acct_assoc **v,
		     size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && lft_before(t, v[k], v[k - 1]); k--) {
			const struct drv_rec_acct_assoc *x = v[k];
			v[k] = v[k - 1];
			v[k - 1] = x;
		}
}

/* One row per association of v, each with its limits (inherited ones too
 * when inherit); with none, r itself with its numbers 0 (as Slurm prints
 * a user or an account none of whose associations is shown). */
static void assoc_rows(const struct sm_opts *so, const struct cli_acct *t,
		       const struct cli_fields *fl, struct sm_row r,
		       const struct drv_rec_acct_assoc *const *v, size_t n, bool inherit)
{
	if (!n) {
		r.zeros = true;
		sm_print_row(fl, so->mode, &r);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct cli_acct_eff e;
		cli_acct_effective(t, v[i], inherit, &e);
		r.assoc = v[i];
		r.eff = &e;
		sm_print_row(fl, so->mode, &r);
	}
}

static void coordinated(const struct cli_acct *t, const struct drv_rec_acct_user *u,
			char *buf, size_t len);

static void user_rows(const struct sm_opts *so, struct sm_list_opts *o,
		      const struct cli_acct *t, const struct drv_conf *conf,
		      const struct cli_fields *fl, const struct drv_rec_acct_user *u)
{
	char coords[1024];
	coordinated(t, u, coords, sizeof(coords));
	struct sm_row r = {.t = t,
			   .conf = conf,
			   .user = u,
			   .coords = coords,
			   .def_acct = u->default_account};
	/* with conditions on associations, Slurm knows the default account
	 * only when its association is among those selected */
	const struct drv_rec_acct_assoc *def = NULL;
	for (size_t i = 0; u->default_account && !def && i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (a->user && !strcmp(a->user, u->name) &&
		    !strcmp(a->account, u->default_account) && assoc_ok(o, a, 0))
			def = a;
	}
	if (assoc_conds(o) && !def)
		r.def_acct = "";
	if (!o->assoc) {
		sm_print_row(fl, so->mode, &r);
		return;
	}
	const struct drv_rec_acct_assoc **v = calloc(t->r.n_assocs + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; v && i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (a->user && !strcmp(a->user, u->name) && assoc_ok(o, a, 0))
			v[n++] = a;
	}
	lft_sort(t, v, n);
	assoc_rows(so, t, fl, r, v, n, true);
	free(v);
}

#define USER_FORMAT "U,DefaultA,Ad"
#define USER_ASSOC_FORMAT                                                                \
	"Cl,Acc,Part,Share,Priority,MaxJ,MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,"         \
	"DefaultQOS"

static int list_users(const struct sm_opts *so, struct sm_list_opts *o,
		      const struct cli_acct *t, const struct drv_conf *conf)
{
	struct cli_fields fl = {.n = 0};
	char spec[512];
	snprintf(spec, sizeof(spec), "%s%s%s%s", USER_FORMAT, o->coord ? ",Coord" : "",
		 o->assoc ? "," : "", o->assoc ? USER_ASSOC_FORMAT : "");
	if (sm_parse_format(o->format ? o->format : spec, false, &fl) < 0)
		return 1;
	const struct drv_rec_acct_user **v = calloc(t->r.n_users + 1, sizeof(*v));
	size_t n = 0;
	const struct drv_rec_acct_cond *c = &o->q.m.cond;
	for (size_t i = 0; v && i < t->r.n_users; i++) {
		const struct drv_rec_acct_user *u = &t->r.users[i];
		if (in(c->names, c->n_names, c->has_names, u->name) &&
		    in(o->defaccts, o->n_defaccts, o->has_defaccts, u->default_account) &&
		    in_case(o->admins, o->n_admins, o->has_admins, u->admin_level))
			v[n++] = u;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_user);
	header(so, &fl);
	for (size_t i = 0; i < n; i++)
		user_rows(so, o, t, conf, &fl, v[i]);
	free(v);
	return 0;
}

static int by_account(const void *a, const void *b)
{
	return strcmp((*(const struct drv_rec_acct_account *const *)a)->name,
		      (*(const struct drv_rec_acct_account *const *)b)->name);
}

/* Does u coordinate account: it, or an account above it in any cluster's
 * tree (a coordinator has the sub-accounts too)? */
static bool coordinates(const struct cli_acct *t, const struct drv_rec_acct_user *u,
			const char *account)
{
	for (size_t k = 0; k < u->n_coord_accounts; k++)
		if (!strcmp(u->coord_accounts[k], account))
			return true;
	for (size_t i = 0; i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (a->user || strcmp(a->account, account))
			continue;
		int hops = 0;
		for (a = cli_acct_parent(t, a); a && hops++ <= (int)t->r.n_assocs;
		     a = cli_acct_parent(t, a))
			for (size_t k = 0; k < u->n_coord_accounts; k++)
				if (!strcmp(u->coord_accounts[k], a->account))
					return true;
	}
	return false;
}

/* The users who coordinate account, joined (account withcoord). */
static void coordinators(const struct cli_acct *t, const char *account, char *buf,
			 size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < t->r.n_users && used < len; i++)
		if (coordinates(t, &t->r.users[i], account))
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "," : "", t->r.users[i].name);
}

/* The accounts u coordinates, sub-accounts included, sorted (user
 * withcoord). */
static void coordinated(const struct cli_acct *t, const struct drv_rec_acct_user *u,
			char *buf, size_t len)
{
	const char **v = calloc(t->r.n_accounts + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; v && i < t->r.n_accounts; i++)
		if (coordinates(t, u, t->r.accounts[i].name))
			v[n++] = t->r.accounts[i].name;
	sm_joined(v, n, true, buf, len);
	free(v);
}

static int by_id_desc(const void *a, const void *b)
{
	uint32_t x = (*(const struct drv_rec_acct_assoc *const *)a)->id;
	uint32_t y = (*(const struct drv_rec_acct_assoc *const *)b)->id;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* An account's associations: its own (per cluster), then its users newest
 * first (the order Slurm's database keeps them in). */
static void account_rows(const struct sm_opts *so, struct sm_list_opts *o,
			 const struct cli_acct *t, const struct cli_fields *fl,
			 const struct sm_row *r)
{
	const struct drv_rec_acct_assoc **v = calloc(t->r.n_assocs + 1, sizeof(*v));
	size_t n = 0, own = 0;
	for (size_t i = 0; v && i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (!a->user && !strcmp(a->account, r->account->name) &&
		    assoc_ok(o, a, 0))
			v[n++] = a;
	}
	own = n;
	for (size_t i = 0; v && i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (a->user && !strcmp(a->account, r->account->name) && assoc_ok(o, a, 0))
			v[n++] = a;
	}
	if (n - own > 1)
		qsort(v + own, n - own, sizeof(*v), by_id_desc);
	assoc_rows(so, t, fl, *r, v, n, !o->wop_limits);
	free(v);
}

#define ACCOUNT_FORMAT "Acc,Des,O"
#define ACCOUNT_ASSOC_FORMAT                                                             \
	"Cl,ParentN,U,Share,Priority,GrpJ,GrpN,GrpCPUs,GrpMEM,GrpS,GrpWall,GrpCPUMins,"  \
	"MaxJ,MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS"

static int list_accounts(const struct sm_opts *so, struct sm_list_opts *o,
			 const struct cli_acct *t, const struct drv_conf *conf)
{
	struct cli_fields fl = {.n = 0};
	char spec[512];
	snprintf(spec, sizeof(spec), "%s%s%s%s", ACCOUNT_FORMAT, o->assoc ? "," : "",
		 o->assoc ? ACCOUNT_ASSOC_FORMAT : "", o->coord ? ",Coord" : "");
	if (sm_parse_format(o->format ? o->format : spec, false, &fl) < 0)
		return 1;
	const struct drv_rec_acct_account **v = calloc(t->r.n_accounts + 1, sizeof(*v));
	size_t n = 0;
	const struct drv_rec_acct_cond *c = &o->q.m.cond;
	for (size_t i = 0; v && i < t->r.n_accounts; i++) {
		const struct drv_rec_acct_account *a = &t->r.accounts[i];
		if (in(c->names, c->n_names, c->has_names, a->name) &&
		    in(o->descs, o->n_descs, o->has_descs, a->description) &&
		    in(o->orgs, o->n_orgs, o->has_orgs, a->organization))
			v[n++] = a;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_account);
	header(so, &fl);
	for (size_t i = 0; i < n; i++) {
		char coords[1024];
		coordinators(t, v[i]->name, coords, sizeof(coords));
		struct sm_row r = {
		    .t = t, .conf = conf, .account = v[i], .coords = coords};
		if (o->assoc)
			account_rows(so, o, t, &fl, &r);
		else
			sm_print_row(&fl, so->mode, &r);
	}
	free(v);
	return 0;
}

#define ASSOC_FORMAT "Cluster,Account,User,Part"
#define ASSOC_LIMITS_FORMAT                                                              \
	"Share,Priority,GrpJ,GrpTRES,GrpS,GrpWall,GrpTRESMins,MaxJ,MaxTRES,MaxTRESPerN," \
	"MaxS,MaxW,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins"

static int list_assocs(const struct sm_opts *so, struct sm_list_opts *o,
		       const struct cli_acct *t, const struct drv_conf *conf)
{
	struct cli_fields fl = {.n = 0};
	if (sm_parse_format(o->format	    ? o->format
			    : o->wop_limits ? ASSOC_FORMAT
					    : ASSOC_FORMAT "," ASSOC_LIMITS_FORMAT,
			    o->tree, &fl) < 0)
		return 1;
	header(so, &fl);
	for (size_t i = 0; i < t->r.n_assocs; i++) { /* parents before children */
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (!assoc_ok(o, a, 0))
			continue;
		struct cli_acct_eff e;
		char tree[512];
		cli_acct_effective(t, a, !o->wop_limits, &e);
		snprintf(tree, sizeof(tree), "%*s%s", cli_acct_depth(t, a), "",
			 a->account);
		struct sm_row r = {.t = t,
				   .conf = conf,
				   .assoc = a,
				   .eff = &e,
				   .tree_account = o->tree ? tree : NULL};
		sm_print_row(&fl, so->mode, &r);
	}
	return 0;
}

#define QOS_FORMAT                                                                       \
	"Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,"    \
	"GrpTRES,GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,"         \
	"MaxTRESMins,MaxW,MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,"           \
	"MaxTRESPerAcct,MaxJobsPerAcct,MaxSubmitJobsPerAcct,MinTRES"

static int list_qos(const struct sm_opts *so, struct sm_list_opts *o,
		    const struct cli_acct *t, const struct drv_conf *conf)
{
	struct cli_fields fl = {.n = 0};
	const struct drv_rec_acct_cond *c = &o->q.m.cond;
	if (sm_parse_format(o->format ? o->format : QOS_FORMAT, false, &fl) < 0)
		return 1;
	header(so, &fl);
	for (size_t i = 0; i < t->r.n_qos; i++) {
		const struct drv_rec_acct_qos *q = &t->r.qos[i];
		char id[16];
		snprintf(id, sizeof(id), "%u", q->id);
		if (!in_case(c->names, c->n_names, c->has_names, q->name) ||
		    !in(o->ids, o->n_ids, o->has_ids, id))
			continue;
		struct sm_row r = {.t = t, .conf = conf, .qos = q};
		sm_print_row(&fl, so->mode, &r);
	}
	return 0;
}

static int by_cluster(const void *a, const void *b)
{
	return strcmp((*(const struct drv_rec_acct_cluster *const *)a)->name,
		      (*(const struct drv_rec_acct_cluster *const *)b)->name);
}

#define CLUSTER_FORMAT                                                                   \
	"Cl,Controlh,Controlp,RPC,Fa,GrpJ,GrpTRES,GrpS,MaxJ,MaxTRES,MaxS,MaxW,QOS,"      \
	"DefaultQOS"

static int list_clusters(const struct sm_opts *so, struct sm_list_opts *o,
			 const struct cli_acct *t, const struct drv_conf *conf)
{
	struct cli_fields fl = {.n = 0};
	const struct drv_rec_acct_cond *c = &o->q.m.cond;
	if (sm_parse_format(o->format ? o->format : CLUSTER_FORMAT, false, &fl) < 0)
		return 1;
	const struct drv_rec_acct_cluster **v = calloc(t->r.n_clusters + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; v && i < t->r.n_clusters; i++)
		if (in(c->names, c->n_names, c->has_names, t->r.clusters[i].name))
			v[n++] = &t->r.clusters[i];
	if (n > 1)
		qsort(v, n, sizeof(*v), by_cluster);
	header(so, &fl);
	for (size_t i = 0; i < n; i++) {
		struct cli_acct_eff e;
		const struct drv_rec_acct_assoc *top =
		    cli_acct_account_assoc(t, v[i]->name, "root");
		if (top)
			cli_acct_effective(t, top, true, &e);
		struct sm_row r = {.t = t,
				   .conf = conf,
				   .cluster = v[i],
				   .assoc = top,
				   .eff = top ? &e : NULL};
		sm_print_row(&fl, so->mode, &r);
	}
	free(v);
	return 0;
}

static void no_entity(void)
{
	fprintf(stderr,
		"No valid entity in list command\n"
		"Input line must include \"Account\", \"Association\", "
		"\"Cluster\", \"Configuration\",\n"
		"\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", "
		"\"Reservation\",\n"
		"\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", "
		"or \"WCKey\"\n");
}

/* The entity a list names: 'u', 'a', 's', 'q', 'c', or 0. */
static char entity_of(const char *word)
{
	size_t n = strlen(word);
	if (sm_kw(word, n, "Accounts", 2) || sm_kw(word, n, "Acct", 4))
		return 'a';
	if (sm_kw(word, n, "Associations", 2))
		return 's';
	if (sm_kw(word, n, "Clusters", 2))
		return 'c';
	if (sm_kw(word, n, "QOS", 1))
		return 'q';
	if (sm_kw(word, n, "Users", 1))
		return 'u';
	return 0;
}

static int run(const struct sm_opts *so, struct sm_list_opts *o, char entity)
{
	struct drv_conf *conf = NULL;
	struct cli_acct t;
	if (entity == 'u' && !o->assoc && assoc_conds(o) && !so->immediate &&
	    !sm_ask("You requested options that are only valid when querying with the "
		    "withassoc option.\nAre you sure you want to continue?")) {
		printf("Aborted\n");
		return 0;
	}
	if (sm_load_tables(&t, &conf, " Problem with query.", false))
		return 1;
	int rc = entity == 'u'	 ? list_users(so, o, &t, conf)
		 : entity == 'a' ? list_accounts(so, o, &t, conf)
		 : entity == 's' ? list_assocs(so, o, &t, conf)
		 : entity == 'q' ? list_qos(so, o, &t, conf)
				 : list_clusters(so, o, &t, conf);
	cli_acct_fini(&t);
	drv_conf_free(conf);
	return rc;
}

int sm_list(const struct sm_opts *so, int argc, char **argv)
{
	char entity = argc > 0 ? entity_of(argv[0]) : 0;
	if (!entity) {
		no_entity();
		return 1;
	}
	struct sm_list_opts o = {.assoc = so->assoc && (entity == 'u' || entity == 'a')};
	sm_req_init(&o.q, "modify", "user");
	int rc = 0;
	for (int i = 1; rc == 0 && i < argc; i++)
		rc = list_word(&o, entity, argv[i]);
	if (rc == 0)
		rc = run(so, &o, entity);
	sm_req_fini(&o.q);
	return rc;
}
