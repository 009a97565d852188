/* acct_tree.c — order, inheritance and the scheduler's view of the
 * association tree (acct_tree.h). Built for thousands of associations:
 * parents are found through a sorted index, never by scanning the table
 * once per association. */
#include "ctld/acct_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* --- the index of account associations ----------------------------------------- */

struct acct_ref {
	const struct acct_assoc *a;
	size_t pos; /* in db->assocs */
};

static int by_cluster_account(const void *x, const void *y)
{
	const struct acct_assoc *a = ((const struct acct_ref *)x)->a;
	const struct acct_assoc *b = ((const struct acct_ref *)y)->a;
	int c = strcmp(a->cluster, b->cluster);
	return c ? c : strcmp(a->account, b->account);
}

/* The account associations of db sorted by (cluster, account); *n of them. */
static struct acct_ref *account_index(const struct acct_db *db, size_t *n)
{
	struct acct_ref *v = calloc(db->n_assocs ? db->n_assocs : 1, sizeof(*v));
	if (!v)
		abort();
	*n = 0;
	for (size_t i = 0; i < db->n_assocs; i++)
		if (!db->assocs[i]->user)
			v[(*n)++] = (struct acct_ref){db->assocs[i], i};
	qsort(v, *n, sizeof(*v), by_cluster_account);
	return v;
}

/* The position in db->assocs of the account association (cluster,
 * account), or -1. */
static long find_account(const struct acct_ref *idx, size_t n, const char *cluster,
			 const char *account)
{
	struct acct_assoc key = {.cluster = (char *)cluster, .account = (char *)account};
	struct acct_ref k = {&key, 0};
	const struct acct_ref *r = bsearch(&k, idx, n, sizeof(*idx), by_cluster_account);
	return r ? (long)r->pos : -1;
}

/* The parent's position of each association (-1 for none). */
static long *parents(const struct acct_db *db)
{
	size_t n_idx;
	struct acct_ref *idx = account_index(db, &n_idx);
	long *parent = calloc(db->n_assocs ? db->n_assocs : 1, sizeof(*parent));
	if (!parent)
		abort();
	for (size_t i = 0; i < db->n_assocs; i++) {
		const struct acct_assoc *a = db->assocs[i];
		const char *up = a->user ? a->account : a->parent;
		parent[i] = up ? find_account(idx, n_idx, a->cluster, up) : -1;
		if (parent[i] == (long)i)
			parent[i] = -1; /* never its own parent */
	}
	free(idx);
	return parent;
}

/* --- order ------------------------------------------------------------------------ */

struct kid {
	long parent;
	const struct acct_assoc *a;
	size_t pos;
};

/* Siblings: users first by user then partition, then accounts by name;
 * the roots (parent -1) by cluster. */
static int by_sibling_order(const void *x, const void *y)
{
	const struct kid *p = x, *q = y;
	if (p->parent != q->parent)
		return p->parent < q->parent ? -1 : 1;
	const struct acct_assoc *a = p->a, *b = q->a;
	if (p->parent < 0) {
		int c = strcmp(a->cluster, b->cluster);
		if (c)
			return c;
	}
	if (!a->user != !b->user)
		return a->user ? -1 : 1;
	/* ties (a user's partitions) keep the order they were made in */
	int c = a->user ? strcmp(a->user, b->user) : strcmp(a->account, b->account);
	return c ? c : (p->pos < q->pos ? -1 : 1);
}

/* The first kid of parent in the sorted kids (n of them), or n. */
static size_t first_kid(const struct kid *kids, size_t n, long parent)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (kids[mid].parent < parent)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Slurm's database order (lft): each new association goes first under its
 * parent, so siblings come newest first, users and accounts alike. */
static int by_lft(const void *x, const void *y)
{
	const struct kid *p = x, *q = y;
	if (p->parent != q->parent)
		return p->parent < q->parent ? -1 : 1;
	if (p->parent < 0) {
		int c = strcmp(p->a->cluster, q->a->cluster);
		if (c)
			return c;
	}
	return p->a->id > q->a->id ? -1 : p->a->id < q->a->id;
}

static struct acct_assoc **order_by(const struct acct_db *db,
				    int (*cmp)(const void *, const void *));

struct acct_assoc **acct_tree_order(const struct acct_db *db)
{
	return order_by(db, by_sibling_order);
}

struct acct_assoc **acct_lft_order(const struct acct_db *db)
{
	return order_by(db, by_lft);
}

static struct acct_assoc **order_by(const struct acct_db *db,
				    int (*cmp)(const void *, const void *))
{
	size_t n = db->n_assocs, out_n = 0, top = 0;
	long *parent = parents(db);
	struct kid *kids = calloc(n ? n : 1, sizeof(*kids));
	struct acct_assoc **out = calloc(n ? n : 1, sizeof(*out));
	size_t *stack = calloc(n ? n : 1, sizeof(*stack)); /* positions in kids */
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	if (!kids || !out || !stack || !seen)
		abort();
	for (size_t i = 0; i < n; i++)
		kids[i] = (struct kid){parent[i], db->assocs[i], i};
	qsort(kids, n, sizeof(*kids), cmp);
	/* depth first, from the roots (the kids of -1, which sort first);
	 * the stack holds kids still to visit, pushed in reverse */
	for (size_t k = first_kid(kids, n, 0); k > 0; k--)
		stack[top++] = k - 1;
	while (top > 0) {
		const struct kid *kd = &kids[stack[--top]];
		if (seen[kd->pos])
			continue;
		seen[kd->pos] = true;
		out[out_n++] = (struct acct_assoc *)kd->a;
		size_t first = first_kid(kids, n, (long)kd->pos);
		size_t last = first_kid(kids, n, (long)kd->pos + 1);
		for (size_t k = last; k > first && top < n; k--)
			if (!seen[kids[k - 1].pos])
				stack[top++] = k - 1;
	}
	for (size_t i = 0; i < n; i++) /* a broken chain: still listed */
		if (!seen[i])
			out[out_n++] = db->assocs[i];
	free(parent);
	free(kids);
	free(stack);
	free(seen);
	return out;
}

int acct_tree_depth(const struct acct_db *db, const struct acct_assoc *a)
{
	int depth = 0;
	for (const struct acct_assoc *p = acct_parent(db, a);
	     p && depth <= (int)db->n_assocs; p = acct_parent(db, p))
		depth++;
	return depth;
}

/* --- inheritance ---------------------------------------------------------------------
 */

/* Fills out's unset values from a's own. */
static void inherit_from(struct acct_effective *out, const struct acct_assoc *a)
{
	if (out->max_jobs == ACCT_UNSET)
		out->max_jobs = a->max_jobs;
	if (out->max_submit_jobs == ACCT_UNSET)
		out->max_submit_jobs = a->max_submit_jobs;
	if (out->max_wall == ACCT_UNSET)
		out->max_wall = a->max_wall;
	for (int t = 0; t < DRV_TRES_COUNT; t++)
		if (out->max_tres_per_job.v[t] == DRV_TRES_NONE)
			out->max_tres_per_job.v[t] = a->max_tres_per_job.v[t];
	if (!out->qos && a->qos_set)
		out->qos = &a->qos;
	if (!out->default_qos)
		out->default_qos = a->default_qos;
}

void acct_effective(const struct acct_db *db, const struct acct_assoc *a,
		    struct acct_effective *out)
{
	*out = (struct acct_effective){.max_jobs = ACCT_UNSET,
				       .max_submit_jobs = ACCT_UNSET,
				       .max_wall = ACCT_UNSET};
	drv_tres_init(&out->max_tres_per_job);
	for (size_t hops = 0; a && hops <= db->n_assocs; hops++) {
		inherit_from(out, a);
		a = acct_parent(db, a);
	}
}

/* --- the scheduler's view ------------------------------------------------------------
 */

struct acct_policy_key {
	const char *user, *account, *partition;
	uint32_t index;
};

static int by_key(const void *x, const void *y)
{
	const struct acct_policy_key *a = x, *b = y;
	int c = strcmp(a->user, b->user);
	if (!c)
		c = strcmp(a->account, b->account);
	return c ? c : cmp_str(a->partition, b->partition);
}

static void policy_qos(const struct acct_qos *q, struct acct_policy_qos *out)
{
	*out = (struct acct_policy_qos){
	    .name = q->name,
	    .id = q->id,
	    .priority = q->priority,
	    .usage_factor = (double)q->usage_factor / ACCT_USAGE_FACTOR_ONE,
	    .max_wall = q->max_wall == ACCT_UNSET ? ACCT_UNSET : q->max_wall * 60,
	    .max_jobs_per_user = q->max_jobs_per_user,
	    .max_submit_jobs_per_user = q->max_submit_jobs_per_user,
	    .grp_jobs = q->grp_jobs,
	    .grp_submit_jobs = q->grp_submit_jobs,
	    .max_tres_per_user = q->max_tres_per_user,
	    .max_tres_per_job = q->max_tres_per_job,
	    .grp_tres = q->grp_tres,
	    .deny_on_limit = q->flags & ACCT_QOS_DENY_ON_LIMIT,
	};
}

/* Index of account `account` among the policy's first n entries (the
 * account associations placed so far), or ACCT_POLICY_NONE. Parents come
 * before children, so a child's parent is always among them. */
static uint32_t account_slot(const struct acct_policy_key *acc, size_t n_acc,
			     const char *account)
{
	struct acct_policy_key k = {"", account, NULL, 0};
	const struct acct_policy_key *r = bsearch(&k, acc, n_acc, sizeof(*acc), by_key);
	return r ? r->index : ACCT_POLICY_NONE;
}

/* Places one association at index i, its Max* limits resolved from its
 * parent's (already resolved) entry. */
static void policy_assoc(const struct acct_policy *p, const struct acct_assoc *a,
			 uint32_t parent, struct acct_policy_assoc *out)
{
	*out = (struct acct_policy_assoc){
	    .id = a->id,
	    .parent = parent,
	    .user = a->user,
	    .account = a->account,
	    .partition = a->partition,
	    .shares = a->shares,
	    .usage = a->usage,
	    .grp_jobs = a->grp_jobs,
	    .grp_submit_jobs = a->grp_submit_jobs,
	    .max_jobs = a->max_jobs,
	    .max_submit_jobs = a->max_submit_jobs,
	    .max_wall = a->max_wall == ACCT_UNSET ? ACCT_UNSET : a->max_wall * 60,
	    .grp_tres = a->grp_tres,
	    .max_tres_per_job = a->max_tres_per_job,
	    .default_qos = a->default_qos ? acct_policy_qos_index(p, a->default_qos)
					  : ACCT_POLICY_NONE,
	};
	if (parent == ACCT_POLICY_NONE)
		return;
	const struct acct_policy_assoc *up = &p->assocs[parent];
	if (out->max_jobs == ACCT_UNSET)
		out->max_jobs = up->max_jobs;
	if (out->max_submit_jobs == ACCT_UNSET)
		out->max_submit_jobs = up->max_submit_jobs;
	if (out->max_wall == ACCT_UNSET)
		out->max_wall = up->max_wall;
	for (int t = 0; t < DRV_TRES_COUNT; t++)
		if (out->max_tres_per_job.v[t] == DRV_TRES_NONE)
			out->max_tres_per_job.v[t] = up->max_tres_per_job.v[t];
	if (out->default_qos == ACCT_POLICY_NONE)
		out->default_qos = up->default_qos;
}

/* Inserts key into the sorted acc (n entries, room for one more). */
static void insert_sorted(struct acct_policy_key *acc, size_t *n,
			  const struct acct_policy_key *key)
{
	size_t at = *n;
	while (at > 0 && by_key(&acc[at - 1], key) > 0)
		at--;
	memmove(&acc[at + 1], &acc[at], (*n - at) * sizeof(*acc));
	acc[at] = *key;
	(*n)++;
}

int acct_policy_build(const struct acct_db *db, const char *cluster, unsigned enforce,
		      struct acct_policy *p)
{
	*p = (struct acct_policy){.enforce_limits = enforce & DRV_ENFORCE_LIMITS,
				  .enforce_qos = enforce & DRV_ENFORCE_QOS};
	size_t n = db->n_assocs ? db->n_assocs : 1, n_acc = 0, n_keys = 0;
	p->qos = calloc(db->n_qos ? db->n_qos : 1, sizeof(*p->qos));
	p->assocs = calloc(n, sizeof(*p->assocs));
	p->keys = calloc(n, sizeof(*p->keys));
	struct acct_policy_key *acc = calloc(n, sizeof(*acc));
	if (!p->qos || !p->assocs || !p->keys || !acc) {
		free(acc);
		acct_policy_fini(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < db->n_qos; i++)
		policy_qos(db->qos[i], &p->qos[p->n_qos++]);
	struct acct_assoc **order = acct_tree_order(db);
	for (size_t i = 0; i < db->n_assocs; i++) {
		const struct acct_assoc *a = order[i];
		if (strcmp(a->cluster, cluster))
			continue;
		const char *up = a->user ? a->account : a->parent;
		uint32_t parent = up ? account_slot(acc, n_acc, up) : ACCT_POLICY_NONE;
		if (up && parent == ACCT_POLICY_NONE)
			continue; /* its parent is not in the tree: unreachable */
		uint32_t at = p->n_assocs++;
		policy_assoc(p, a, parent, &p->assocs[at]);
		struct acct_policy_key key = {a->user ? a->user : "", a->account,
					      a->partition, at};
		if (a->user)
			p->keys[n_keys++] = key;
		else
			insert_sorted(acc, &n_acc, &key);
	}
	free(order);
	free(acc);
	qsort(p->keys, n_keys, sizeof(*p->keys), by_key);
	p->n_keys = (uint32_t)n_keys;
	return 0;
}

void acct_policy_fini(struct acct_policy *p)
{
	free(p->qos);
	free(p->assocs);
	free(p->keys);
	*p = (struct acct_policy){0};
}

uint32_t acct_policy_assoc_index(const struct acct_policy *p, const char *user,
				 const char *account, const char *partition)
{
	size_t n = p->n_keys;
	struct acct_policy_key k = {user, account, partition, 0};
	const struct acct_policy_key *r =
	    partition ? bsearch(&k, p->keys, n, sizeof(*p->keys), by_key) : NULL;
	if (!r) {
		k.partition = NULL;
		r = bsearch(&k, p->keys, n, sizeof(*p->keys), by_key);
	}
	return r ? r->index : ACCT_POLICY_NONE;
}

uint32_t acct_policy_qos_index(const struct acct_policy *p, const char *name)
{
	for (uint32_t i = 0; name && i < p->n_qos; i++)
		if (!strcasecmp(p->qos[i].name, name))
			return i;
	return ACCT_POLICY_NONE;
}
