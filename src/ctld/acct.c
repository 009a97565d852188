/* acct.c — the policy's tables (acct.h): their lifecycle, deep copies,
 * lookups, records added and removed, and the defaults that always exist
 * (root, the local cluster, normal). Knows nothing of the store or the
 * wire; never logs. */
#include "ctld/acct.h"

#include "common/qos_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- small pieces ---------------------------------------------------------- */

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int acct_set_str(char **field, const char *s)
{
	char *copy = s ? strdup(s) : NULL;
	if (s && !copy)
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

bool acct_strs_has(const struct acct_strs *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

int acct_strs_add(struct acct_strs *l, const char *s)
{
	if (acct_strs_has(l, s))
		return 0;
	char **v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	if (!(v[l->n] = strdup(s)))
		return -ENOMEM;
	l->n++;
	return 0;
}

void acct_strs_remove(struct acct_strs *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s)) {
			free(l->v[i]);
			memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
			l->n--;
			return;
		}
}

void acct_strs_clear(struct acct_strs *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int acct_strs_copy(struct acct_strs *dst, const struct acct_strs *src)
{
	*dst = (struct acct_strs){0};
	for (size_t i = 0; i < src->n; i++)
		if (acct_strs_add(dst, src->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* Appends p to the pointer array *v of *n entries. */
static int push(void *vp, size_t *n, void *p)
{
	void ***v = vp;
	void **nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = p;
	*v = nv;
	return 0;
}

/* Drops p from the pointer array v of *n entries (keeping the order). */
static void drop(void *vp, size_t *n, const void *p)
{
	void **v = *(void ***)vp;
	for (size_t i = 0; i < *n; i++)
		if (v[i] == p) {
			memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
			(*n)--;
			return;
		}
}

/* --- freeing --------------------------------------------------------------- */

static void cluster_free(struct acct_cluster *c)
{
	if (c)
		free(c->name);
	free(c);
}

static void account_free(struct acct_account *a)
{
	if (a) {
		free(a->name);
		free(a->description);
		free(a->organization);
	}
	free(a);
}

static void user_free(struct acct_user *u)
{
	if (u) {
		free(u->name);
		free(u->default_account);
		acct_strs_clear(&u->coord);
	}
	free(u);
}

static void assoc_free(struct acct_assoc *a)
{
	if (a) {
		free(a->cluster);
		free(a->account);
		free(a->user);
		free(a->partition);
		free(a->parent);
		acct_strs_clear(&a->qos);
		free(a->default_qos);
	}
	free(a);
}

static void qos_free(struct acct_qos *q)
{
	if (q) {
		free(q->name);
		free(q->description);
		acct_strs_clear(&q->preempt);
		free(q->preempt_mode);
	}
	free(q);
}

struct acct_db *acct_db_new(void)
{
	struct acct_db *db = calloc(1, sizeof(*db));
	if (db)
		db->next_assoc_id = db->next_qos_id = 1;
	return db;
}

void acct_db_free(struct acct_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n_clusters; i++)
		cluster_free(db->clusters[i]);
	for (size_t i = 0; i < db->n_accounts; i++)
		account_free(db->accounts[i]);
	for (size_t i = 0; i < db->n_users; i++)
		user_free(db->users[i]);
	for (size_t i = 0; i < db->n_assocs; i++)
		assoc_free(db->assocs[i]);
	for (size_t i = 0; i < db->n_qos; i++)
		qos_free(db->qos[i]);
	free(db->clusters);
	free(db->accounts);
	free(db->users);
	free(db->assocs);
	free(db->qos);
	free(db);
}

/* --- copies ------------------------------------------------------------------ */

/* strdup that records a failure in *bad instead of returning it. */
static char *dup_or(const char *s, bool *bad)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		*bad = true;
	return d;
}

static struct acct_user *user_clone(const struct acct_user *u, bool *bad)
{
	struct acct_user *c = calloc(1, sizeof(*c));
	if (!c) {
		*bad = true;
		return NULL;
	}
	*c = *u;
	c->name = dup_or(u->name, bad);
	c->default_account = dup_or(u->default_account, bad);
	if (acct_strs_copy(&c->coord, &u->coord) < 0)
		*bad = true;
	return c;
}

static struct acct_assoc *assoc_clone(const struct acct_assoc *a, bool *bad)
{
	struct acct_assoc *c = calloc(1, sizeof(*c));
	if (!c) {
		*bad = true;
		return NULL;
	}
	*c = *a;
	c->cluster = dup_or(a->cluster, bad);
	c->account = dup_or(a->account, bad);
	c->user = dup_or(a->user, bad);
	c->partition = dup_or(a->partition, bad);
	c->parent = dup_or(a->parent, bad);
	c->default_qos = dup_or(a->default_qos, bad);
	if (acct_strs_copy(&c->qos, &a->qos) < 0)
		*bad = true;
	return c;
}

static struct acct_qos *qos_clone(const struct acct_qos *q, bool *bad)
{
	struct acct_qos *c = calloc(1, sizeof(*c));
	if (!c) {
		*bad = true;
		return NULL;
	}
	*c = *q;
	c->name = dup_or(q->name, bad);
	c->description = dup_or(q->description, bad);
	c->preempt_mode = dup_or(q->preempt_mode, bad);
	if (acct_strs_copy(&c->preempt, &q->preempt) < 0)
		*bad = true;
	return c;
}

struct acct_db *acct_db_clone(const struct acct_db *db)
{
	struct acct_db *c = acct_db_new();
	bool bad = !c;
	for (size_t i = 0; !bad && i < db->n_clusters; i++) {
		struct acct_cluster *x = calloc(1, sizeof(*x));
		if (x)
			x->name = dup_or(db->clusters[i]->name, &bad);
		bad |= !x || push(&c->clusters, &c->n_clusters, x) < 0;
	}
	for (size_t i = 0; !bad && i < db->n_accounts; i++) {
		const struct acct_account *a = db->accounts[i];
		struct acct_account *x = calloc(1, sizeof(*x));
		if (x) {
			x->name = dup_or(a->name, &bad);
			x->description = dup_or(a->description, &bad);
			x->organization = dup_or(a->organization, &bad);
		}
		bad |= !x || push(&c->accounts, &c->n_accounts, x) < 0;
	}
	for (size_t i = 0; !bad && i < db->n_users; i++) {
		struct acct_user *x = user_clone(db->users[i], &bad);
		bad |= !x || push(&c->users, &c->n_users, x) < 0;
	}
	for (size_t i = 0; !bad && i < db->n_assocs; i++) {
		struct acct_assoc *x = assoc_clone(db->assocs[i], &bad);
		bad |= !x || push(&c->assocs, &c->n_assocs, x) < 0;
	}
	for (size_t i = 0; !bad && i < db->n_qos; i++) {
		struct acct_qos *x = qos_clone(db->qos[i], &bad);
		bad |= !x || push(&c->qos, &c->n_qos, x) < 0;
	}
	if (bad) {
		acct_db_free(c);
		return NULL;
	}
	c->next_assoc_id = db->next_assoc_id;
	c->next_qos_id = db->next_qos_id;
	return c;
}

/* --- lookups ------------------------------------------------------------------ */

struct acct_cluster *acct_find_cluster(const struct acct_db *db, const char *name)
{
	for (size_t i = 0; name && i < db->n_clusters; i++)
		if (!strcmp(db->clusters[i]->name, name))
			return db->clusters[i];
	return NULL;
}

struct acct_account *acct_find_account(const struct acct_db *db, const char *name)
{
	for (size_t i = 0; name && i < db->n_accounts; i++)
		if (!strcmp(db->accounts[i]->name, name))
			return db->accounts[i];
	return NULL;
}

struct acct_user *acct_find_user(const struct acct_db *db, const char *name)
{
	for (size_t i = 0; name && i < db->n_users; i++)
		if (!strcmp(db->users[i]->name, name))
			return db->users[i];
	return NULL;
}

struct acct_qos *acct_find_qos(const struct acct_db *db, const char *name)
{
	for (size_t i = 0; name && i < db->n_qos; i++)
		if (!strcasecmp(db->qos[i]->name, name))
			return db->qos[i];
	return NULL;
}

struct acct_qos *acct_find_qos_id(const struct acct_db *db, uint32_t id)
{
	for (size_t i = 0; i < db->n_qos; i++)
		if (db->qos[i]->id == id)
			return db->qos[i];
	return NULL;
}

struct acct_assoc *acct_find_assoc_id(const struct acct_db *db, uint32_t id)
{
	for (size_t i = 0; i < db->n_assocs; i++)
		if (db->assocs[i]->id == id)
			return db->assocs[i];
	return NULL;
}

struct acct_assoc *acct_find_assoc(const struct acct_db *db, const char *cluster,
				   const char *account, const char *user,
				   const char *partition)
{
	for (size_t i = 0; i < db->n_assocs; i++) {
		struct acct_assoc *a = db->assocs[i];
		if (same(a->cluster, cluster) && same(a->account, account) &&
		    same(a->user, user) && same(a->partition, partition))
			return a;
	}
	return NULL;
}

struct acct_assoc *acct_parent(const struct acct_db *db, const struct acct_assoc *a)
{
	if (a->user)
		return acct_find_assoc(db, a->cluster, a->account, NULL, NULL);
	return a->parent ? acct_find_assoc(db, a->cluster, a->parent, NULL, NULL) : NULL;
}

bool acct_in_subtree(const struct acct_db *db, const struct acct_assoc *a,
		     const struct acct_assoc *top)
{
	/* the depth is bounded by the number of associations: a cycle (which
	 * updates never make) cannot loop forever */
	for (size_t hops = 0; a && hops <= db->n_assocs; hops++) {
		if (a == top)
			return true;
		a = acct_parent(db, a);
	}
	return false;
}

/* --- adding and removing ---------------------------------------------------- */

struct acct_cluster *acct_add_cluster(struct acct_db *db, const char *name)
{
	struct acct_cluster *c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name)) ||
	    push(&db->clusters, &db->n_clusters, c) < 0) {
		cluster_free(c);
		return NULL;
	}
	return c;
}

struct acct_account *acct_add_account(struct acct_db *db, const char *name)
{
	struct acct_account *a = calloc(1, sizeof(*a));
	if (!a || !(a->name = strdup(name)) || !(a->description = strdup("")) ||
	    !(a->organization = strdup("")) ||
	    push(&db->accounts, &db->n_accounts, a) < 0) {
		account_free(a);
		return NULL;
	}
	return a;
}

struct acct_user *acct_add_user(struct acct_db *db, const char *name)
{
	struct acct_user *u = calloc(1, sizeof(*u));
	if (!u || !(u->name = strdup(name)) || push(&db->users, &db->n_users, u) < 0) {
		user_free(u);
		return NULL;
	}
	return u;
}

struct acct_qos *acct_add_qos(struct acct_db *db, const char *name)
{
	struct acct_qos *q = calloc(1, sizeof(*q));
	if (!q || !(q->name = strdup(name)) || !(q->description = strdup("")) ||
	    !(q->preempt_mode = strdup("cluster"))) {
		qos_free(q);
		return NULL;
	}
	q->id = db->next_qos_id;
	q->max_wall = q->max_jobs_per_user = q->max_submit_jobs_per_user = ACCT_UNSET;
	q->grp_jobs = q->grp_submit_jobs = ACCT_UNSET;
	q->usage_factor = ACCT_USAGE_FACTOR_ONE;
	drv_tres_init(&q->max_tres_per_user);
	drv_tres_init(&q->max_tres_per_job);
	drv_tres_init(&q->grp_tres);
	if (push(&db->qos, &db->n_qos, q) < 0) {
		qos_free(q);
		return NULL;
	}
	db->next_qos_id++;
	return q;
}

struct acct_assoc *acct_add_assoc(struct acct_db *db, const char *cluster,
				  const char *account, const char *user,
				  const char *partition)
{
	struct acct_assoc *a = calloc(1, sizeof(*a));
	bool bad = !a;
	if (a) {
		a->cluster = dup_or(cluster, &bad);
		a->account = dup_or(account, &bad);
		a->user = dup_or(user, &bad);
		a->partition = dup_or(partition, &bad);
	}
	if (bad || push(&db->assocs, &db->n_assocs, a) < 0) {
		assoc_free(a);
		return NULL;
	}
	a->id = db->next_assoc_id++;
	a->shares = 1;
	a->grp_jobs = a->grp_submit_jobs = a->max_jobs = a->max_submit_jobs = ACCT_UNSET;
	a->max_wall = ACCT_UNSET;
	drv_tres_init(&a->grp_tres);
	drv_tres_init(&a->max_tres_per_job);
	return a;
}

void acct_remove_cluster(struct acct_db *db, struct acct_cluster *c)
{
	drop(&db->clusters, &db->n_clusters, c);
	cluster_free(c);
}

void acct_remove_account(struct acct_db *db, struct acct_account *a)
{
	drop(&db->accounts, &db->n_accounts, a);
	account_free(a);
}

void acct_remove_user(struct acct_db *db, struct acct_user *u)
{
	drop(&db->users, &db->n_users, u);
	user_free(u);
}

void acct_remove_qos(struct acct_db *db, struct acct_qos *q)
{
	drop(&db->qos, &db->n_qos, q);
	qos_free(q);
}

void acct_remove_assoc(struct acct_db *db, struct acct_assoc *a)
{
	drop(&db->assocs, &db->n_assocs, a);
	assoc_free(a);
}

/* --- defaults ------------------------------------------------------------------- */

int acct_db_ensure_defaults(struct acct_db *db, const char *cluster)
{
	struct acct_account *root = acct_find_account(db, "root");
	if (!root) {
		if (!(root = acct_add_account(db, "root")) ||
		    acct_set_str(&root->description, "default root account") < 0 ||
		    acct_set_str(&root->organization, "root") < 0)
			return -ENOMEM;
	}
	struct acct_user *u = acct_find_user(db, "root");
	if (!u) {
		if (!(u = acct_add_user(db, "root")) ||
		    acct_set_str(&u->default_account, "root") < 0)
			return -ENOMEM;
		u->admin = ACCT_ADMIN_ADMINISTRATOR;
	}
	struct acct_qos *normal = acct_find_qos(db, "normal");
	if (!normal) {
		if (!(normal = acct_add_qos(db, "normal")) ||
		    acct_set_str(&normal->description, "Normal QOS default") < 0)
			return -ENOMEM;
	}
	if (!acct_find_cluster(db, cluster) && !acct_add_cluster(db, cluster))
		return -ENOMEM;
	struct acct_assoc *top = acct_find_assoc(db, cluster, "root", NULL, NULL);
	if (!top) {
		if (!(top = acct_add_assoc(db, cluster, "root", NULL, NULL)))
			return -ENOMEM;
		/* the cluster's QOS list: every association inherits it */
		top->qos_set = true;
		if (acct_strs_add(&top->qos, "normal") < 0)
			return -ENOMEM;
	}
	if (!acct_find_assoc(db, cluster, "root", "root", NULL) &&
	    !acct_add_assoc(db, cluster, "root", "root", NULL))
		return -ENOMEM;
	return 0;
}

/* --- names ---------------------------------------------------------------------- */

static const char *const admin_names[] = {"None", "Operator", "Administrator"};

const char *acct_admin_name(enum acct_admin a)
{
	return a <= ACCT_ADMIN_ADMINISTRATOR ? admin_names[a] : "None";
}

int acct_admin_parse(const char *s, enum acct_admin *out)
{
	for (int i = 0; i <= ACCT_ADMIN_ADMINISTRATOR; i++)
		if (!strcasecmp(s, admin_names[i])) {
			*out = (enum acct_admin)i;
			return 0;
		}
	return -EINVAL;
}

uint32_t acct_qos_flag_parse(const char *name)
{
	return drv_qos_flag_parse(name);
}

const char *acct_qos_flag_name(uint32_t bit)
{
	for (unsigned i = 0; i < DRV_QOS_FLAG_COUNT; i++)
		if (bit == 1u << i)
			return drv_qos_flag_name(i);
	return NULL;
}
