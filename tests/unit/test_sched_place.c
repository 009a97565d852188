/* test_sched_place.c — the placement rules of the pure scheduler: -w, -x,
 * -C (the expression parser and matching, [a|b], a*N), --mincpus and --tmp,
 * and that sched_fits_config refuses what no node could ever hold. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_fixture.h"

/* Four nodes of cpus each, with features and TmpDisk. */
static struct fx *four(const uint32_t cpus[4], const char *const feat[4],
		       const uint64_t tmp[4])
{
	struct fx *f = fx_new(1000);
	for (int i = 0; i < 4; i++) {
		fx_node(f, cpus ? cpus[i] : 2, 0, 0, NULL);
		f->nodes[i].features = feat ? feat[i] : NULL;
		f->nodes[i].tmp_disk = tmp ? tmp[i] : 0;
	}
	fx_part(f, 0, 3);
	return f;
}

/* Places r (one job) on f's four nodes by a quick pass; returns the node
 * count (0: refused) and the node indices in out. */
static uint32_t place(struct fx *f, const struct sched_req *r, uint32_t *out)
{
	f->snap.n_pending = 0;
	struct sched_pending *j = fx_job(f, 1, 1, 0, 1, 1, 600);
	*fx_req(f, j) = *r;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	const struct sched_decision *d = fx_dec(f, 1);
	if (!d || d->verdict != SCHED_START)
		return 0;
	for (uint32_t i = 0; i < d->alloc_n; i++)
		out[i] = fx_alloc(f, d, i)->node;
	return d->alloc_n;
}

static struct sched_req one_task(void)
{
	struct sched_req r = {.min_nodes = 1, .cpus_per_task = 1};
	return r;
}

static void constraint_parser_takes_slurm_syntax(void **state)
{
	struct sched_constraint c;
	assert_int_equal(sched_constraint_parse("a", &c), 0);
	assert_int_equal(c.n_terms, 1);
	assert_false(c.match_or);
	assert_int_equal(sched_constraint_parse("a&b|c", &c), 0);
	assert_int_equal(c.n_terms, 3);
	assert_true(c.terms[1].and_prev);
	assert_false(c.terms[2].and_prev);
	assert_int_equal(sched_constraint_parse("[a|b|c]", &c), 0);
	assert_true(c.match_or);
	assert_int_equal(c.n_terms, 3);
	assert_string_equal(c.terms[2].name, "c");
	assert_int_equal(sched_constraint_parse("gpu*2&ib", &c), 0);
	assert_int_equal(c.terms[0].count, 2);
	assert_string_equal(c.terms[0].name, "gpu");
	const char *bad[] = {"",      "&a",  "a&",  "a&&b",   "[a|b",	 "a|b]",
			     "[a&b]", "a*",  "a*0", "a*x",    "[a*2|b]", "a b",
			     "(a)",   "a,b", "[]",  "[a|b]c", NULL};
	for (int i = 0; bad[i]; i++) {
		c.n_terms = 99;
		assert_int_equal(sched_constraint_parse(bad[i], &c), -EINVAL);
		assert_int_equal(c.n_terms, 99); /* unchanged on failure */
	}
	assert_int_equal(sched_constraint_parse(NULL, &c), -EINVAL);
}

static void constraint_matching_goes_left_to_right(void **state)
{
	struct sched_constraint c;
	assert_true(sched_node_has_feature("ib,gpu,big", "gpu"));
	assert_false(sched_node_has_feature("ib,gpux", "gpu"));
	assert_false(sched_node_has_feature(NULL, "gpu"));
	assert_int_equal(sched_constraint_parse("a&b", &c), 0);
	assert_true(sched_constraint_match(&c, "b,a", -1));
	assert_false(sched_constraint_match(&c, "a", -1));
	assert_int_equal(sched_constraint_parse("a|b&c", &c), 0); /* (a|b)&c */
	assert_true(sched_constraint_match(&c, "b,c", -1));
	assert_false(sched_constraint_match(&c, "a", -1));
	assert_int_equal(sched_constraint_parse("[a|b]", &c), 0);
	assert_true(sched_constraint_match(&c, "b", 1));
	assert_false(sched_constraint_match(&c, "b", 0));
	assert_true(sched_constraint_match(NULL, NULL, -1));
}

static void nodelist_and_exclude(void **state)
{
	struct fx *f = four(NULL, NULL, NULL);
	uint32_t out[4];
	struct sched_req r = one_task();
	const uint32_t want[] = {2}, two[] = {3, 1}, exc[] = {0, 1};
	r.req_nodes = want;
	r.n_req_nodes = 1;
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 2);
	/* -w nodes count toward -N: two listed make a 2-node job, in order */
	r.req_nodes = two;
	r.n_req_nodes = 2;
	assert_int_equal(place(f, &r, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 3);
	/* -N 3 with one listed node: that one plus the first others */
	r.req_nodes = want;
	r.n_req_nodes = 1;
	r.min_nodes = 3;
	assert_int_equal(place(f, &r, out), 3);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 0);
	/* a busy listed node: no placement, though others are free */
	r.min_nodes = 1;
	fx_run(f, 90, 0, 5000, 2, 0x3);
	assert_int_equal(place(f, &r, out), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	f->snap.n_running = 0;
	r.req_nodes = NULL;
	r.n_req_nodes = 0;
	r.exc_nodes = exc;
	r.n_exc_nodes = 2;
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 2);
	r.min_nodes = 3; /* only two left */
	assert_int_equal(place(f, &r, out), 0);
	assert_string_equal(fx_what(f, 1), "PartitionNodeLimit");
	fx_free(f);
}

static void constraints_choose_nodes(void **state)
{
	const char *const feat[4] = {NULL, "a,ib", "b,ib", "b"};
	struct fx *f = four(NULL, feat, NULL);
	uint32_t out[4];
	struct sched_constraint c;
	struct sched_req r = one_task();
	r.constraint = &c;
	assert_int_equal(sched_constraint_parse("b", &c), 0);
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 2);
	assert_int_equal(sched_constraint_parse("b&ib", &c), 0);
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 2);
	fx_run(f, 90, 0, 5000, 2, 0x3);
	assert_int_equal(place(f, &r, out), 0);
	f->snap.n_running = 0;
	/* [a|b] over two nodes: only b has two, so both are b nodes */
	assert_int_equal(sched_constraint_parse("[a|b]", &c), 0);
	r.min_nodes = 2;
	assert_int_equal(place(f, &r, out), 2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 3);
	/* a|b over two nodes may mix them */
	assert_int_equal(sched_constraint_parse("a|b", &c), 0);
	assert_int_equal(place(f, &r, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	/* ib*2: the job gets two ib nodes, and -N 3 a third of any kind */
	assert_int_equal(sched_constraint_parse("ib*2", &c), 0);
	r.min_nodes = 1;
	assert_int_equal(place(f, &r, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	r.min_nodes = 3;
	assert_int_equal(place(f, &r, out), 3);
	assert_int_equal(out[2], 0);
	assert_int_equal(sched_constraint_parse("a*2", &c), 0);
	assert_int_equal(place(f, &r, out), 0);
	assert_int_equal(sched_constraint_parse("nosuch", &c), 0);
	r.min_nodes = 1;
	assert_int_equal(place(f, &r, out), 0);
	fx_free(f);
}

static void mincpus_and_tmp(void **state)
{
	const uint32_t cpus[4] = {2, 4, 8, 8};
	const uint64_t tmp[4] = {100, 50, 1000, 2000};
	struct fx *f = four(cpus, NULL, tmp);
	uint32_t out[4];
	struct sched_req r = one_task();
	r.min_cpus = 4;
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 1);
	/* it holds min_cpus CPUs, not just one per task */
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->cpus, 4);
	fx_run(f, 90, 0, 5000, 1, 0x1); /* three free: not enough */
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 2);
	r.min_cpus = 0;
	r.min_tmp = 500;
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 2);
	r.min_tmp = 1500;
	assert_int_equal(place(f, &r, out), 1);
	assert_int_equal(out[0], 3);
	r.min_tmp = 5000;
	assert_int_equal(sched_fits_config(f->nodes, 4, &f->parts[0], &r), -ENOSPC);
	r.min_tmp = 0;
	r.min_cpus = 16;
	assert_int_equal(sched_fits_config(f->nodes, 4, &f->parts[0], &r), -ENOSPC);
	r.min_cpus = 8;
	assert_int_equal(sched_fits_config(f->nodes, 4, &f->parts[0], &r), 0);
	fx_free(f);
}

static void a_down_listed_node_waits_without_blocking(void **state)
{
	struct fx *f = four(NULL, NULL, NULL);
	const uint32_t want[] = {3};
	struct sched_req *listed = fx_req(f, fx_job(f, 1, 9, 0, 1, 1, 600));
	listed->req_nodes = want;
	listed->n_req_nodes = 1;
	fx_job(f, 2, 1, 0, 1, 1, 600);
	f->nodes[3].up = false;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "ReqNodeNotAvail");
	assert_string_equal(fx_what(f, 2), "start");
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "ReqNodeNotAvail");
	assert_int_equal(fx_dec(f, 1)->start, 0); /* not planned */
	/* busy rather than down: Resources, and the partition waits behind it */
	f->nodes[3].up = true;
	fx_run(f, 90, 0, 5000, 3, 0x3);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	assert_string_equal(fx_what(f, 2), "Priority");
	/* a -w index outside the snapshot is a malformed snapshot */
	const uint32_t bad[] = {9};
	listed->req_nodes = bad;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), -EINVAL);
	fx_free(f);
}

/* --ntasks-per-node times the node count past 2^32 must not wrap to a
 * small task count that then fits: (2^31 + 1) * 2 wraps to 2. */
static void a_task_count_that_overflows_is_not_placed(void **state)
{
	struct fx *f = four(NULL, NULL, NULL);
	uint32_t out[4];
	struct sched_req r = one_task();
	r.min_nodes = 2;
	r.ntasks_per_node = 0x80000001u;
	assert_int_equal(place(f, &r, out), 0);
	assert_string_equal(fx_what(f, 1), "PartitionNodeLimit");
	r.ntasks_per_node = 2; /* the same request with a count that fits */
	assert_int_equal(place(f, &r, out), 2);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(constraint_parser_takes_slurm_syntax),
	    cmocka_unit_test(constraint_matching_goes_left_to_right),
	    cmocka_unit_test(nodelist_and_exclude),
	    cmocka_unit_test(constraints_choose_nodes),
	    cmocka_unit_test(mincpus_and_tmp),
	    cmocka_unit_test(a_down_listed_node_waits_without_blocking),
	    cmocka_unit_test(a_task_count_that_overflows_is_not_placed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
