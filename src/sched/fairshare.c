/* fairshare.c — the fair-share factor of every association, from raw shares
 * and decayed usage over the association tree: Fair Tree (Slurm's default:
 * siblings ranked by Level FS = S / U, users ranked by a depth-first walk of
 * the tree in that order, factor = rank / users) or classic
 * (2^(-EffectvUsage / NormShares)), with Fairshare=parent; and the decay of
 * usage. Pure: no clock, no globals; what it computes is what sshare -l
 * shows. Follows Slurm 22.05's fair_tree.c, priority_multifactor.c and
 * assoc_mgr.c, ties and edge cases included (docs/compat.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

/* Slurm's sort key for a Fairshare=parent account (NO_VAL): above every
 * finite Level FS, below infinity. */
#define FT_NO_VAL 4294967294.0L

/* The tree as fair share sees it: each association's "fair-share parent"
 * (its nearest ancestor that is not Fairshare=parent; Slurm's fs_assoc_ptr)
 * and, per association, the list of those it is the fair-share parent of,
 * in input order (Slurm's children_list). */
struct fs_tree {
	const struct sched_assoc *a;
	uint32_t n, n_users;
	uint32_t *fs_parent;	/* SCHED_NONE for the root */
	uint32_t *kids, *first; /* kids[first[i] .. first[i+1]) */
	long double *raw;	/* subtree usage over the real tree */
	uint64_t *level_shares; /* shares among its fair-share siblings */
	long double *key;	/* Fair Tree: Level FS, the sort key */
};

static bool is_parent_shares(const struct sched_assoc *x)
{
	return x->shares == SCHED_FS_PARENT;
}

static bool is_user(const struct sched_assoc *x)
{
	return x->uid != SCHED_NONE;
}

static void tree_free(struct fs_tree *t)
{
	free(t->fs_parent);
	free(t->kids);
	free(t->first);
	free(t->raw);
	free(t->level_shares);
	free(t->key);
}

/* One root at 0, parents before children, no children under users. */
static int check_tree(const struct sched_assoc *a, uint32_t n)
{
	if (a[0].parent != SCHED_NONE || is_user(&a[0]))
		return -EINVAL;
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = a[i].parent;

		if (p == SCHED_NONE || p >= i || is_user(&a[p]))
			return -EINVAL;
		if (!(a[i].usage >= 0.0) || isinf(a[i].usage))
			return -EINVAL;
	}
	return a[0].usage >= 0.0 && !isinf(a[0].usage) ? 0 : -EINVAL;
}

/* Fair-share parents, their lists of children, subtree usage and level
 * shares. */
static void tree_link(struct fs_tree *t, uint32_t *fill)
{
	const struct sched_assoc *a = t->a;

	t->fs_parent[0] = SCHED_NONE;
	for (uint32_t i = 1; i < t->n; i++) {
		uint32_t p = a[i].parent;

		/* p < i: its own fair-share parent is known already */
		if (p != 0 && is_parent_shares(&a[p]))
			p = t->fs_parent[p];
		t->fs_parent[i] = p;
		t->first[p + 1]++;
	}
	for (uint32_t i = 0; i < t->n; i++)
		t->first[i + 1] += t->first[i];
	memcpy(fill, t->first, t->n * sizeof(*fill));
	for (uint32_t i = 1; i < t->n; i++)
		t->kids[fill[t->fs_parent[i]]++] = i;

	for (uint32_t i = 0; i < t->n; i++) {
		t->raw[i] = a[i].usage;
		t->n_users += is_user(&a[i]);
	}
	for (uint32_t i = t->n; i-- > 1;)
		t->raw[a[i].parent] += t->raw[i];

	/* a Fairshare=parent sibling adds nothing: its own children are
	 * its fair-share parent's (Slurm's _get_children_level_shares) */
	for (uint32_t p = 0; p < t->n; p++) {
		uint64_t sum = 0;

		for (uint32_t k = t->first[p]; k < t->first[p + 1]; k++)
			if (!is_parent_shares(&a[t->kids[k]]))
				sum += a[t->kids[k]].shares;
		for (uint32_t k = t->first[p]; k < t->first[p + 1]; k++)
			t->level_shares[t->kids[k]] = sum;
	}
	t->level_shares[0] = 0;
}

static int tree_build(const struct sched_assoc *a, uint32_t n, struct fs_tree *t)
{
	uint32_t *fill = calloc(n, sizeof(*fill));

	memset(t, 0, sizeof(*t));
	t->a = a;
	t->n = n;
	t->fs_parent = calloc(n, sizeof(*t->fs_parent));
	t->kids = calloc(n, sizeof(*t->kids));
	t->first = calloc((size_t)n + 1, sizeof(*t->first));
	t->raw = calloc(n, sizeof(*t->raw));
	t->level_shares = calloc(n, sizeof(*t->level_shares));
	t->key = calloc(n, sizeof(*t->key));
	if (!fill || !t->fs_parent || !t->kids || !t->first || !t->raw ||
	    !t->level_shares || !t->key) {
		free(fill);
		tree_free(t);
		return -ENOMEM;
	}
	tree_link(t, fill);
	free(fill);
	return 0;
}

/* Its raw usage over the whole tree's, at most 1 (the half-life may have
 * changed under the usage); 0 when nothing was used anywhere. */
static double norm_usage(const struct fs_tree *t, uint32_t i)
{
	long double u;

	if (!(t->raw[0] > 0))
		return 0.0;
	u = t->raw[i] / t->raw[0];
	return (double)(u > 1 ? 1 : u);
}

/* Shares over level shares, 0 when the level has none; a double, as
 * Slurm's shares_norm (Level FS ties depend on that rounding). */
static double share_of_level(const struct fs_tree *t, uint32_t i)
{
	if (!t->level_shares[i])
		return 0;
	return (double)t->a[i].shares / (double)t->level_shares[i];
}

/* --- Fair Tree ------------------------------------------------------------- */

/* S, U and Level FS of every association but the root. */
static void ft_levels(const struct fs_tree *t, struct sched_fs *out)
{
	for (uint32_t i = 1; i < t->n; i++) {
		const struct sched_assoc *x = &t->a[i];
		uint32_t p = t->fs_parent[i];
		uint32_t from = is_parent_shares(x) ? p : i; /* whose shares */
		double s = from ? share_of_level(t, from) : 0;
		long double u = t->raw[p] > 0 ? t->raw[i] / t->raw[p] : 0;

		out[i].norm_shares = s;
		out[i].eff_usage = (double)u;
		if (is_parent_shares(x)) {
			/* users defer to no one in their account; accounts
			 * have no level of their own */
			t->key[i] = is_user(x) ? (long double)INFINITY : FT_NO_VAL;
			continue;
		}
		/* S == 0 ranks lowest; U == 0 with S > 0 is infinity */
		t->key[i] = s == 0 ? 0 : (long double)s / u;
		out[i].level_fs = (double)t->key[i];
	}
}

/* Slurm's _cmp_level_fs: higher Level FS first, then users before accounts;
 * then, where Slurm's qsort leaves the order to chance, the input order. */
static int cmp_level(const void *x, const void *y, void *arg)
{
	const struct fs_tree *t = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	bool ui = is_user(&t->a[i]), uj = is_user(&t->a[j]);

	if (t->key[i] != t->key[j])
		return t->key[i] < t->key[j] ? 1 : -1;
	if (ui != uj)
		return ui ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void ft_sort_kids(struct fs_tree *t)
{
	for (uint32_t p = 0; p < t->n; p++)
		qsort_r(t->kids + t->first[p], t->first[p + 1] - t->first[p],
			sizeof(*t->kids), cmp_level, t);
}

/* One level being walked: its sorted children [start, end), where the walk
 * is in them, the Level FS before, and whether the level starts tied (its
 * account was tied with the sibling before it). */
struct ft_frame {
	uint32_t start, pos, end;
	long double prev;
	bool account_tied;
};

static struct ft_frame ft_level(const struct fs_tree *t, uint32_t parent, bool tied)
{
	return (struct ft_frame){.start = t->first[parent],
				 .pos = t->first[parent],
				 .end = t->first[parent + 1],
				 .prev = FT_NO_VAL,
				 .account_tied = tied};
}

/* The depth-first walk of Slurm's _calc_tree_fs, without recursion (a deep
 * tree must not overflow the stack): users take rank / users in the order
 * met; a user tied with the sibling before it keeps the rank before, and an
 * account tied with the sibling before it passes the tie to its first child
 * (Slurm's merging of tied accounts never happens in its code: the check
 * stops at the first account). */
static int ft_rank(const struct fs_tree *t, struct sched_fs *out)
{
	struct ft_frame *stack = calloc(t->n, sizeof(*stack));
	uint32_t depth = 0, rank = t->n_users, rnt = t->n_users;

	if (!stack)
		return -ENOMEM;
	stack[depth++] = ft_level(t, 0, false);
	while (depth) {
		struct ft_frame *f = &stack[depth - 1];
		uint32_t k = f->pos, i;
		bool tied;

		if (k == f->end) {
			depth--;
			continue;
		}
		f->pos++;
		i = t->kids[k];
		tied = (k == f->start && f->account_tied) || f->prev == t->key[i];
		f->prev = t->key[i];
		if (is_user(&t->a[i])) {
			if (!tied)
				rank = rnt;
			out[i].factor = (double)rank / (double)t->n_users;
			rnt--;
		} else {
			stack[depth++] = ft_level(t, i, tied);
		}
	}
	free(stack);
	return 0;
}

static int fair_tree(struct fs_tree *t, struct sched_fs *out)
{
	ft_levels(t, out);
	ft_sort_kids(t);
	return ft_rank(t, out);
}

/* --- classic ----------------------------------------------------------------- */

/* Classic normalized shares: the product of shares over level shares from
 * the association up to the root, skipping Fairshare=parent ones; a
 * Fairshare=parent one has its fair-share parent's. */
static int classic_shares(const struct fs_tree *t, struct sched_fs *out)
{
	double *chain = calloc(t->n, sizeof(*chain));

	if (!chain)
		return -ENOMEM;
	chain[0] = 1;
	out[0].norm_shares = 1.0;
	for (uint32_t i = 1; i < t->n; i++) {
		const struct sched_assoc *x = &t->a[i];

		if (is_parent_shares(x)) {
			chain[i] = chain[x->parent];
			out[i].norm_shares = out[t->fs_parent[i]].norm_shares;
		} else {
			chain[i] = share_of_level(t, i) * chain[x->parent];
			out[i].norm_shares = chain[i];
		}
	}
	free(chain);
	return 0;
}

/* Classic effective usage: UE = UA + (UE_parent - UA) * S / S_siblings
 * (classic_fair_share), the normalized usage under the root and the
 * parent's under Fairshare=parent; factor = 2^(-UE / NormShares), 0 with
 * no shares. */
static int classic(const struct fs_tree *t, struct sched_fs *out)
{
	if (classic_shares(t, out))
		return -ENOMEM;
	out[0].eff_usage = 1.0;
	for (uint32_t i = 1; i < t->n; i++) {
		uint32_t p = t->fs_parent[i];
		long double ua = out[i].norm_usage, ue;

		if (p == 0)
			ue = ua;
		else if (is_parent_shares(&t->a[i]))
			ue = out[p].eff_usage;
		else if (!t->level_shares[i])
			ue = out[p].eff_usage;
		else
			ue = ua + (out[p].eff_usage - ua) * share_of_level(t, i);
		out[i].eff_usage = (double)ue;
	}
	for (uint32_t i = 0; i < t->n; i++)
		out[i].factor = out[i].norm_shares > 0
				    ? exp2(-out[i].eff_usage / out[i].norm_shares)
				    : 0.0;
	return 0;
}

int sched_fairshare(const struct sched_assoc *a, uint32_t n, enum sched_fs_algo algo,
		    struct sched_fs *out)
{
	struct fs_tree t;
	struct sched_fs *fs;
	int rc;

	if (!n)
		return 0;
	if (!a || !out || (algo != SCHED_FS_FAIR_TREE && algo != SCHED_FS_CLASSIC))
		return -EINVAL;
	rc = check_tree(a, n);
	if (rc)
		return rc;
	fs = calloc(n, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	rc = tree_build(a, n, &t);
	if (rc) {
		free(fs);
		return rc;
	}
	for (uint32_t i = 0; i < n; i++) {
		fs[i].raw_usage = (double)t.raw[i];
		fs[i].norm_usage = i ? norm_usage(&t, i) : 1.0;
	}
	if (algo == SCHED_FS_FAIR_TREE) {
		fs[0].eff_usage = 1.0;
		rc = fair_tree(&t, fs);
	} else {
		rc = classic(&t, fs);
	}
	tree_free(&t);
	if (!rc)
		memcpy(out, fs, n * sizeof(*fs));
	free(fs);
	return rc;
}

double sched_decay(double u, int64_t dt, int64_t half_life)
{
	if (half_life <= 0 || dt <= 0)
		return u;
	return u * exp2(-(double)dt / (double)half_life);
}
