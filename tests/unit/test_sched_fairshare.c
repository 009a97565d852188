/* Unit tests for sched/fairshare.c: Fair Tree on the example of Slurm's
 * fair_tree documentation (ranking computed by hand) and on the tree of
 * Slurm's own Fair Tree test (test24.4: ties, Fairshare=parent, zero
 * shares and usage), classic fair share by hand and on Slurm's test24.3,
 * decay, malformed trees and the edges where a division by zero lurks. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched.h"

#define EPS 1e-6 /* sshare's six decimals */
#define PARENT SCHED_FS_PARENT
#define ACCT SCHED_NONE

/* One association: its parent, a uid (ACCT for an account), raw shares and
 * its own usage. */
static struct sched_assoc assoc(uint32_t parent, uint32_t uid, uint32_t shares,
				double usage)
{
	struct sched_assoc a;

	memset(&a, 0, sizeof(a));
	a.parent = parent;
	a.uid = uid;
	a.shares = shares;
	a.usage = usage;
	return a;
}

/* What sshare -l prints of one association: NormShares, RawUsage,
 * NormUsage, EffectvUsage, FairShare, LevelFS (NAN: not checked, where
 * sshare prints nothing). */
struct want {
	const char *name;
	double norm_shares, raw_usage, norm_usage, eff_usage, factor, level_fs;
};

/* got == want within EPS (NAN: not checked; INFINITY: infinity), naming
 * the association and the figure when not. */
static void near(const char *name, const char *what, double got, double want)
{
	bool ok;

	if (isnan(want))
		return;
	if (isinf(want))
		ok = isinf(got) && got > 0;
	else
		ok = fabs(got - want) <= EPS;
	if (!ok)
		fail_msg("%s %s: got %f, want %f", name, what, got, want);
}

static void check(const struct sched_fs *got, const struct want *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		near(w[i].name, "NormShares", got[i].norm_shares, w[i].norm_shares);
		near(w[i].name, "RawUsage", got[i].raw_usage, w[i].raw_usage);
		near(w[i].name, "NormUsage", got[i].norm_usage, w[i].norm_usage);
		near(w[i].name, "EffectvUsage", got[i].eff_usage, w[i].eff_usage);
		near(w[i].name, "FairShare", got[i].factor, w[i].factor);
		near(w[i].name, "LevelFS", got[i].level_fs, w[i].level_fs);
	}
}

/* fair_tree.html: "root => Acct1 => Acct12 => UserA, root => Acct1 =>
 * Acct16 => UserB: if UserB has a higher FairShare value than UserA, Acct16
 * has a higher Level FS value than Acct12." With Acct2 beside Acct1:
 *   root level: Acct1 S=.5 U=400/1000 LF=1.25; Acct2 S=.5 U=.6 LF=.8333
 *   Acct1 level: Acct12 S=.5 U=.75 LF=.6667; Acct16 S=.5 U=.25 LF=2
 *   Acct2 level: UserD S=.5 U=0 LF=inf; UserC S=.5 U=1 LF=.5
 * The walk meets UserB, UserA, UserD, UserC: ranks 4, 3, 2, 1 of 4. */
static void fair_tree_ranks_by_level_fs_depth_first(void **state)
{
	const struct sched_assoc a[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0), /* 0 root */
	    assoc(0, ACCT, 50, 0),	   /* 1 Acct1 */
	    assoc(1, ACCT, 1, 0),	   /* 2 Acct12 */
	    assoc(2, 1001, 1, 300),	   /* 3 UserA */
	    assoc(1, ACCT, 1, 0),	   /* 4 Acct16 */
	    assoc(4, 1002, 1, 100),	   /* 5 UserB */
	    assoc(0, ACCT, 50, 0),	   /* 6 Acct2 */
	    assoc(6, 1003, 1, 600),	   /* 7 UserC */
	    assoc(6, 1004, 1, 0),	   /* 8 UserD */
	};
	const struct want w[] = {
	    {"root", 0, 1000, 1, 1, 0, 0},
	    {"Acct1", .5, 400, .4, .4, 0, 1.25},
	    {"Acct12", .5, 300, .3, .75, 0, 2.0 / 3},
	    {"UserA", 1, 300, .3, 1, .75, 1},
	    {"Acct16", .5, 100, .1, .25, 0, 2},
	    {"UserB", 1, 100, .1, 1, 1, 1},
	    {"Acct2", .5, 600, .6, .6, 0, .5 / .6},
	    {"UserC", .5, 600, .6, 1, .25, .5},
	    {"UserD", .5, 0, 0, 0, .5, INFINITY},
	};
	struct sched_fs out[9];

	assert_int_equal(sched_fairshare(a, 9, SCHED_FS_FAIR_TREE, out), 0);
	check(out, w, 9);
	assert_true(out[5].factor > out[3].factor); /* UserB above UserA */
}

/* Slurm's testsuite/expect/test24.4: its tree and the figures it expects
 * of sshare. Users are 21. Ties: u1, aE's and aF's users all have no usage
 * (Level FS infinity) and share rank 21; uG1 ties with account aGA, so
 * aGA's first user uGA1 keeps uG1's rank 4; Fairshare=parent users uD1 and
 * uDA1 rank first in aD; uD3 and uDA3 (equal Level FS) share rank 7. */

static void fair_tree_matches_slurm_test24_4(void **state)
{
	const struct sched_assoc t244[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0), /* 0 root */
	    assoc(0, ACCT, 40, 0),	   /* 1 aA */
	    assoc(1, ACCT, 30, 0),	   /* 2 aAA */
	    assoc(2, 211, 1, 20),	   /* 3 uAA1 */
	    assoc(1, ACCT, 10, 0),	   /* 4 aAB */
	    assoc(4, 221, 1, 25),	   /* 5 uAB1 */
	    assoc(4, 222, 1, 0),	   /* 6 uAB2 */
	    assoc(0, ACCT, 60, 0),	   /* 7 aB */
	    assoc(7, ACCT, 25, 0),	   /* 8 aBA */
	    assoc(8, 311, 1, 25),	   /* 9 uBA1 */
	    assoc(7, ACCT, 35, 0),	   /* 10 aBB */
	    assoc(10, 321, 1, 0),	   /* 11 uBB1 */
	    assoc(0, ACCT, 0, 0),	   /* 12 aC */
	    assoc(12, 41, 0, 30),	   /* 13 uC1 */
	    assoc(0, ACCT, 50, 0),	   /* 14 aD */
	    assoc(14, ACCT, PARENT, 0),	   /* 15 aDA */
	    assoc(15, 511, PARENT, 10),	   /* 16 uDA1 */
	    assoc(15, 512, 30, 10),	   /* 17 uDA2 */
	    assoc(15, 513, 50, 25),	   /* 18 uDA3 */
	    assoc(14, 52, PARENT, 20),	   /* 19 uD1 */
	    assoc(14, 53, 40, 20),	   /* 20 uD2 */
	    assoc(14, 54, 50, 25),	   /* 21 uD3 */
	    assoc(0, ACCT, 10, 0),	   /* 22 aE */
	    assoc(22, 61, 10, 0),	   /* 23 aE1 */
	    assoc(22, 62, 10, 0),	   /* 24 aE2 */
	    assoc(0, 7, 10, 0),		   /* 25 u1 */
	    assoc(0, ACCT, 20, 0),	   /* 26 aF */
	    assoc(26, 81, 10, 0),	   /* 27 uF1 */
	    assoc(26, 82, 20, 0),	   /* 28 uF2 */
	    assoc(0, ACCT, 8, 0),	   /* 29 aG */
	    assoc(29, 91, 10, 10),	   /* 30 uG1 */
	    assoc(29, ACCT, 10, 0),	   /* 31 aGA */
	    assoc(31, 921, 20, 4),	   /* 32 uGA1 */
	    assoc(31, 922, 20, 6),	   /* 33 uGA2 */
	    assoc(0, 1001, 10, 10),	   /* 34 u2 */
	};
	const struct want w[] = {
	    {"root", 0, 240, 1, 1, NAN, NAN},
	    {"aA", 0.192308, 45, 0.187500, 0.187500, 0, 1.025641},
	    {"aAA", 0.750000, 20, 0.083333, 0.444444, 0, 1.687500},
	    {"uAA1", 1, 20, 0.083333, 1, 0.619048, 1},
	    {"aAB", 0.250000, 25, 0.104167, 0.555556, 0, 0.450000},
	    {"uAB1", 0.5, 25, 0.104167, 1, 0.523810, 0.5},
	    {"uAB2", 0.5, 0, 0, 0, 0.571429, INFINITY},
	    {"aB", 0.288462, 25, 0.104167, 0.104167, 0, 2.769231},
	    {"aBA", 0.416667, 25, 0.104167, 1, 0, 0.416667},
	    {"uBA1", 1, 25, 0.104167, 1, 0.714286, 1},
	    {"aBB", 0.583333, 0, 0, 0, 0, INFINITY},
	    {"uBB1", 1, 0, 0, 0, 0.761905, INFINITY},
	    {"aC", 0, 30, 0.125, 0.125, 0, 0},
	    {"uC1", 0, 30, 0.125, 1, 0.047619, 0},
	    {"aD", 0.240385, 110, 0.458333, 0.458333, 0, 0.524476},
	    {"aDA", 0.240385, 45, 0.187500, 0.409091, 0, NAN},
	    {"uDA1", 0.240385, 10, 0.041667, 0.090909, 0.476190, NAN},
	    {"uDA2", 0.176471, 10, 0.041667, 0.090909, 0.380952, 1.941176},
	    {"uDA3", 0.294118, 25, 0.104167, 0.227273, 0.333333, 1.294118},
	    {"uD1", 0.240385, 20, 0.083333, 0.181818, 0.476190, NAN},
	    {"uD2", 0.235294, 20, 0.083333, 0.181818, 0.238095, 1.294118},
	    {"uD3", 0.294118, 25, 0.104167, 0.227273, 0.333333, 1.294118},
	    {"aE", 0.048077, 0, 0, 0, 0, INFINITY},
	    {"aE1", 0.5, 0, 0, 0, 1, INFINITY},
	    {"aE2", 0.5, 0, 0, 0, 1, INFINITY},
	    {"u1", 0.048077, 0, 0, 0, 1, INFINITY},
	    {"aF", 0.096154, 0, 0, 0, 0, INFINITY},
	    {"uF1", 0.333333, 0, 0, 0, 1, INFINITY},
	    {"uF2", 0.666667, 0, 0, 0, 1, INFINITY},
	    {"aG", 0.038462, 20, 0.083333, 0.083333, 0, 0.461538},
	    {"uG1", 0.5, 10, 0.041667, 0.5, 0.190476, 1},
	    {"aGA", 0.5, 10, 0.041667, 0.5, 0, 1},
	    {"uGA1", 0.5, 4, 0.016667, 0.4, 0.190476, 1.25},
	    {"uGA2", 0.5, 6, 0.025, 0.6, 0.095238, 0.833333},
	    {"u2", 0.048077, 10, 0.041667, 0.041667, 0.666667, 1.153846},
	};
	const uint32_t n = sizeof(t244) / sizeof(t244[0]);
	struct sched_fs out[sizeof(t244) / sizeof(t244[0])];

	assert_int_equal(n, sizeof(w) / sizeof(w[0]));
	assert_int_equal(sched_fairshare(t244, n, SCHED_FS_FAIR_TREE, out), 0);
	check(out, w, n);
}

/* Classic by hand: root -> A (40), B (60); A -> u1 (usage 30), u2 (10);
 * B -> u3 (60). Root usage 100.
 *   A: NormShares .4, EffUsage = NormUsage .4, 2^(-1) = .5; B alike.
 *   u1: NormShares .4 x 1/2 = .2; UE = .3 + (.4 - .3) x 1/2 = .35;
 *       2^(-.35/.2) = 2^(-1.75) = 0.297302
 *   u2: UE = .1 + (.4 - .1) x 1/2 = .25; 2^(-1.25) = 0.420448
 *   u3: NormShares .6; UE = .6 + 0 = .6; 2^(-1) = .5 */
static void classic_by_hand(void **state)
{
	const struct sched_assoc a[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0),
	    assoc(0, ACCT, 40, 0),
	    assoc(1, 1, 1, 30),
	    assoc(1, 2, 1, 10),
	    assoc(0, ACCT, 60, 0),
	    assoc(4, 3, 1, 60),
	};
	const struct want w[] = {
	    {"root", 1, 100, 1, 1, 0.5, 0},	  {"A", .4, 40, .4, .4, .5, 0},
	    {"u1", .2, 30, .3, .35, 0.297302, 0}, {"u2", .2, 10, .1, .25, 0.420448, 0},
	    {"B", .6, 60, .6, .6, .5, 0},	  {"u3", .6, 60, .6, .6, .5, 0},
	};
	struct sched_fs out[6];

	assert_int_equal(sched_fairshare(a, 6, SCHED_FS_CLASSIC, out), 0);
	check(out, w, 6);
}

/* Slurm's testsuite/expect/test24.3 (classic, with Fairshare=parent). */
static void classic_matches_slurm_test24_3(void **state)
{
	const struct sched_assoc a[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0), /* 0 root */
	    assoc(0, ACCT, 40, 0),	   /* 1 AccountA */
	    assoc(1, ACCT, 30, 0),	   /* 2 AccountB */
	    assoc(2, 1, 1, 20),		   /* 3 User1 */
	    assoc(1, ACCT, 10, 0),	   /* 4 AccountC */
	    assoc(4, 2, 1, 25),		   /* 5 User2 */
	    assoc(4, 3, 1, 0),		   /* 6 User3 */
	    assoc(0, ACCT, 60, 0),	   /* 7 AccountD */
	    assoc(7, ACCT, 25, 0),	   /* 8 AccountE */
	    assoc(8, 4, 1, 25),		   /* 9 User4 */
	    assoc(7, ACCT, 35, 0),	   /* 10 AccountF */
	    assoc(10, 5, 1, 0),		   /* 11 User5 */
	    assoc(0, ACCT, 0, 0),	   /* 12 AccountG */
	    assoc(12, 6, 0, 30),	   /* 13 User6 */
	    assoc(0, ACCT, 50, 0),	   /* 14 AccountH */
	    assoc(14, ACCT, PARENT, 0),	   /* 15 AccountHTA */
	    assoc(15, 511, PARENT, 10),	   /* 16 UHTAStd1 */
	    assoc(15, 512, 30, 10),	   /* 17 UHTAStd2 */
	    assoc(15, 513, 50, 25),	   /* 18 UHTAStd3 */
	    assoc(14, 52, PARENT, 20),	   /* 19 UHRA1 */
	    assoc(14, 53, 40, 20),	   /* 20 UHRA2 */
	    assoc(14, 54, 50, 25),	   /* 21 UHRA3 */
	};
	const struct want w[] = {
	    {"root", 1, 210, 1, 1, 0.5, NAN},
	    {"AccountA", 0.266667, 45, 0.214286, 0.214286, 0.572929, NAN},
	    {"AccountB", 0.200000, 20, 0.095238, 0.184524, 0.527550, NAN},
	    {"User1", 0.200000, 20, 0.095238, 0.184524, 0.527550, NAN},
	    {"AccountC", 0.066667, 25, 0.119048, 0.142857, 0.226431, NAN},
	    {"User2", 0.033333, 25, 0.119048, 0.130952, 0.065672, NAN},
	    {"User3", 0.033333, 0, 0, 0.071429, 0.226431, NAN},
	    {"AccountD", 0.4, 25, 0.119048, 0.119048, 0.813594, NAN},
	    {"AccountE", 0.166667, 25, 0.119048, 0.119048, 0.609507, NAN},
	    {"User4", 0.166667, 25, 0.119048, 0.119048, 0.609507, NAN},
	    {"AccountF", 0.233333, 0, 0, 0.069444, 0.813594, NAN},
	    {"User5", 0.233333, 0, 0, 0.069444, 0.813594, NAN},
	    {"AccountG", 0, 30, 0.142857, 0.142857, 0, NAN},
	    {"User6", 0, 30, 0.142857, 0.142857, 0, NAN},
	    {"AccountH", 0.333333, 110, 0.523810, 0.523810, 0.336475, NAN},
	    {"AccountHTA", 0.333333, 45, 0.214286, 0.523810, 0.336475, NAN},
	    {"UHTAStd1", 0.333333, 10, 0.047619, 0.523810, 0.336475, NAN},
	    {"UHTAStd2", 0.058824, 10, 0.047619, 0.131653, 0.211966, NAN},
	    {"UHTAStd3", 0.098039, 25, 0.119048, 0.238095, 0.185749, NAN},
	    {"UHRA1", 0.333333, 20, 0.095238, 0.523810, 0.336475, NAN},
	    {"UHRA2", 0.078431, 20, 0.095238, 0.196078, 0.176777, NAN},
	    {"UHRA3", 0.098039, 25, 0.119048, 0.238095, 0.185749, NAN},
	};
	struct sched_fs out[22];

	assert_int_equal(sched_fairshare(a, 22, SCHED_FS_CLASSIC, out), 0);
	check(out, w, 22);
}

/* PriorityDecayHalfLife: u x 2^(-dt / half-life). */
static void decay_halves_per_half_life(void **state)
{
	const int64_t week = 7 * 86400;

	assert_float_equal(sched_decay(1000, week, week), 500, 1e-9);
	assert_float_equal(sched_decay(1000, 2 * week, week), 250, 1e-9);
	assert_float_equal(sched_decay(1000, week / 2, week), 1000 / M_SQRT2, 1e-9);
	assert_float_equal(sched_decay(1000, 0, week), 1000, 0);
	assert_float_equal(sched_decay(1000, -60, week), 1000, 0);
	/* PriorityDecayHalfLife=0: no decay at all */
	assert_float_equal(sched_decay(1000, 10 * week, 0), 1000, 0);
	assert_float_equal(sched_decay(0, week, week), 0, 0);
}

/* A malformed tree is refused and out is left as it was. */
static void malformed_trees_are_refused(void **state)
{
	struct sched_assoc a[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0),
	    assoc(2, 1, 1, 10), /* its parent comes after it */
	    assoc(0, ACCT, 1, 0),
	};
	struct sched_fs out[3];
	const struct sched_fs untouched = {42, 42, 42, 42, 42, 42};

	for (int i = 0; i < 3; i++)
		out[i] = untouched;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_FAIR_TREE, out), -EINVAL);
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_CLASSIC, out), -EINVAL);
	assert_float_equal(out[1].factor, 42, 0);
	/* its own parent */
	a[1].parent = 1;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_FAIR_TREE, out), -EINVAL);
	/* a second root */
	a[1].parent = SCHED_NONE;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_FAIR_TREE, out), -EINVAL);
	/* the root not first, or a user */
	a[1].parent = 0;
	a[0].uid = 5;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_FAIR_TREE, out), -EINVAL);
	a[0].uid = ACCT;
	/* an association under a user */
	a[2].parent = 1;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_FAIR_TREE, out), -EINVAL);
	a[2].parent = 0;
	/* usage that is negative or not a number */
	a[1].usage = -1;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_CLASSIC, out), -EINVAL);
	a[1].usage = NAN;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_CLASSIC, out), -EINVAL);
	a[1].usage = INFINITY;
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_CLASSIC, out), -EINVAL);
	assert_float_equal(out[1].factor, 42, 0);
	/* an unknown algorithm */
	a[1].usage = 0;
	assert_int_equal(sched_fairshare(a, 3, (enum sched_fs_algo)7, out), -EINVAL);
	/* the fixed tree is taken; an empty one is nothing to do */
	assert_int_equal(sched_fairshare(a, 3, SCHED_FS_FAIR_TREE, out), 0);
	assert_int_equal(sched_fairshare(NULL, 0, SCHED_FS_FAIR_TREE, NULL), 0);
}

static void assert_no_nan(const struct sched_fs *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		assert_false(isnan(f[i].norm_shares) || isinf(f[i].norm_shares));
		assert_false(isnan(f[i].raw_usage) || isnan(f[i].norm_usage));
		assert_false(isnan(f[i].eff_usage) || isinf(f[i].eff_usage));
		assert_false(isnan(f[i].level_fs));
		assert_false(isnan(f[i].factor) || isinf(f[i].factor));
		assert_true(f[i].factor >= 0 && f[i].factor <= 1);
	}
}

/* No usage anywhere: every user is equally under-served (Fair Tree: all
 * tied at 1.0; classic: 2^0 = 1), and nothing divides by zero. */
static void zero_usage_everywhere(void **state)
{
	const struct sched_assoc a[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0),
	    assoc(0, ACCT, 3, 0),
	    assoc(1, 1, 1, 0),
	    assoc(1, 2, 2, 0),
	    assoc(0, 3, 1, 0),
	};
	struct sched_fs out[5];

	assert_int_equal(sched_fairshare(a, 5, SCHED_FS_FAIR_TREE, out), 0);
	assert_no_nan(out, 5);
	assert_float_equal(out[2].factor, 1, 0);
	assert_float_equal(out[3].factor, 1, 0);
	assert_float_equal(out[4].factor, 1, 0);
	assert_true(isinf(out[2].level_fs));
	assert_float_equal(out[2].norm_usage, 0, 0);
	assert_int_equal(sched_fairshare(a, 5, SCHED_FS_CLASSIC, out), 0);
	assert_no_nan(out, 5);
	assert_float_equal(out[2].factor, 1, 0);
	assert_float_equal(out[4].factor, 1, 0);
}

/* No shares: Level FS and NormShares 0, the lowest rank (Fair Tree) and a
 * factor of 0 (classic), never 0/0. */
static void zero_shares(void **state)
{
	const struct sched_assoc a[] = {
	    assoc(SCHED_NONE, ACCT, 1, 0),
	    assoc(0, ACCT, 0, 0),
	    assoc(1, 1, 0, 50),
	    assoc(1, 2, 0, 0),
	    assoc(0, 3, 0, 0),
	};
	struct sched_fs out[5];

	assert_int_equal(sched_fairshare(a, 5, SCHED_FS_FAIR_TREE, out), 0);
	assert_no_nan(out, 5);
	for (int i = 1; i < 5; i++) {
		assert_float_equal(out[i].norm_shares, 0, 0);
		assert_float_equal(out[i].level_fs, 0, 0);
	}
	/* all tied at Level FS 0: users 3 (under root, first) and 1, 2 */
	assert_float_equal(out[4].factor, 1, 0);
	assert_int_equal(sched_fairshare(a, 5, SCHED_FS_CLASSIC, out), 0);
	assert_no_nan(out, 5);
	for (int i = 1; i < 5; i++)
		assert_float_equal(out[i].factor, 0, 0);
}

/* A chain deeper than any stack a recursive walk could take. */
static void a_deep_tree_is_walked(void **state)
{
	enum { N = 200000 };
	struct sched_assoc *a = test_calloc(N, sizeof(*a));
	struct sched_fs *out = test_calloc(N, sizeof(*out));

	a[0] = assoc(SCHED_NONE, ACCT, 1, 0);
	for (uint32_t i = 1; i < N - 1; i++)
		a[i] = assoc(i - 1, ACCT, 1, 0);
	a[N - 1] = assoc(N - 2, 1, 1, 5);
	assert_int_equal(sched_fairshare(a, N, SCHED_FS_FAIR_TREE, out), 0);
	assert_float_equal(out[N - 1].factor, 1, 0);
	assert_float_equal(out[1].raw_usage, 5, 0);
	/* every account Fairshare=parent: the user's level is the root's, where
	 * it is alone (found without walking the chain for each account) */
	for (uint32_t i = 1; i < N - 1; i++)
		a[i].shares = SCHED_FS_PARENT;
	assert_int_equal(sched_fairshare(a, N, SCHED_FS_FAIR_TREE, out), 0);
	assert_float_equal(out[N - 1].norm_shares, 1, 0);
	assert_float_equal(out[N - 1].eff_usage, 1, 0);
	assert_float_equal(out[N - 1].factor, 1, 0);
	assert_int_equal(sched_fairshare(a, N, SCHED_FS_CLASSIC, out), 0);
	assert_float_equal(out[N - 1].norm_shares, 1, 0);
	assert_float_equal(out[N - 1].factor, 0.5, 1e-12); /* 2^(-1/1) */
	test_free(a);
	test_free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fair_tree_ranks_by_level_fs_depth_first),
	    cmocka_unit_test(fair_tree_matches_slurm_test24_4),
	    cmocka_unit_test(classic_by_hand),
	    cmocka_unit_test(classic_matches_slurm_test24_3),
	    cmocka_unit_test(decay_halves_per_half_life),
	    cmocka_unit_test(malformed_trees_are_refused),
	    cmocka_unit_test(zero_usage_everywhere),
	    cmocka_unit_test(zero_shares),
	    cmocka_unit_test(a_deep_tree_is_walked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
