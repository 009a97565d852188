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

#include "sched/sched.h"

static const uint32_t all4[] = {0, 1, 2, 3};

static struct sched_node node(uint32_t cpus, const char *features, uint64_t tmp)
{
	struct sched_node n = {
	    .up = true, .cpus_total = cpus, .features = features, .tmp_disk = tmp};
	return n;
}

static struct sched_req one_task(void)
{
	struct sched_req r = {.min_nodes = 1, .cpus_per_task = 1};
	return r;
}

/* Places r on (a copy of) the four nodes; returns the node count (0:
 * refused) and the node indices in out. */
static uint32_t place(const struct sched_node *nodes, const struct sched_req *r,
		      uint32_t *out)
{
	struct sched_part p = {all4, 4, true};
	struct sched_alloc a[4];
	struct sched_node copy[4];
	uint32_t n = 0;
	memcpy(copy, nodes, sizeof(copy));
	if (sched_place(copy, &p, r, a, 4, &n) < 0)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		out[i] = a[i].node;
	return n;
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
	struct sched_node nodes[4] = {node(2, NULL, 0), node(2, NULL, 0),
				      node(2, NULL, 0), node(2, NULL, 0)};
	uint32_t out[4];
	struct sched_req r = one_task();
	const uint32_t want[] = {2}, two[] = {3, 1}, exc[] = {0, 1};
	r.req_nodes = want;
	r.n_req_nodes = 1;
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 2);
	/* -w nodes count toward -N: two listed make a 2-node job, in order */
	r.req_nodes = two;
	r.n_req_nodes = 2;
	assert_int_equal(place(nodes, &r, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 3);
	/* -N 3 with one listed node: that one plus the first others */
	r.req_nodes = want;
	r.n_req_nodes = 1;
	r.min_nodes = 3;
	assert_int_equal(place(nodes, &r, out), 3);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 0);
	/* a busy listed node: no placement, though others are free */
	r.min_nodes = 1;
	nodes[2].cpus_used = 2;
	assert_int_equal(place(nodes, &r, out), 0);
	nodes[2].cpus_used = 0;
	r.req_nodes = NULL;
	r.n_req_nodes = 0;
	r.exc_nodes = exc;
	r.n_exc_nodes = 2;
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 2);
	r.min_nodes = 3; /* only two left */
	assert_int_equal(place(nodes, &r, out), 0);
}

static void constraints_choose_nodes(void **state)
{
	struct sched_node nodes[4] = {node(2, NULL, 0), node(2, "a,ib", 0),
				      node(2, "b,ib", 0), node(2, "b", 0)};
	uint32_t out[4];
	struct sched_constraint c;
	struct sched_req r = one_task();
	r.constraint = &c;
	assert_int_equal(sched_constraint_parse("b", &c), 0);
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 2);
	assert_int_equal(sched_constraint_parse("b&ib", &c), 0);
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 2);
	nodes[2].cpus_used = 2;
	assert_int_equal(place(nodes, &r, out), 0);
	nodes[2].cpus_used = 0;
	/* [a|b] over two nodes: only b has two, so both are b nodes */
	assert_int_equal(sched_constraint_parse("[a|b]", &c), 0);
	r.min_nodes = 2;
	assert_int_equal(place(nodes, &r, out), 2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 3);
	/* a|b over two nodes may mix them */
	assert_int_equal(sched_constraint_parse("a|b", &c), 0);
	assert_int_equal(place(nodes, &r, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	/* ib*2: the job gets two ib nodes, and -N 3 a third of any kind */
	assert_int_equal(sched_constraint_parse("ib*2", &c), 0);
	r.min_nodes = 1;
	assert_int_equal(place(nodes, &r, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	r.min_nodes = 3;
	assert_int_equal(place(nodes, &r, out), 3);
	assert_int_equal(out[2], 0);
	assert_int_equal(sched_constraint_parse("a*2", &c), 0);
	assert_int_equal(place(nodes, &r, out), 0);
	assert_int_equal(sched_constraint_parse("nosuch", &c), 0);
	r.min_nodes = 1;
	assert_int_equal(place(nodes, &r, out), 0);
}

static void mincpus_and_tmp(void **state)
{
	struct sched_node nodes[4] = {node(2, NULL, 100), node(4, NULL, 50),
				      node(8, NULL, 1000), node(8, NULL, 2000)};
	uint32_t out[4];
	struct sched_req r = one_task();
	struct sched_part p = {all4, 4, true};
	r.min_cpus = 4;
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 1);
	/* it holds min_cpus CPUs, not just one per task */
	struct sched_alloc a[1];
	uint32_t n;
	assert_int_equal(sched_place(nodes, &p, &r, a, 1, &n), 0);
	assert_int_equal(a[0].cpus, 4);
	assert_int_equal(nodes[1].cpus_used, 4);
	nodes[1].cpus_used = 1; /* three free: not enough */
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 2);
	r.min_cpus = 0;
	r.min_tmp = 500;
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 2);
	r.min_tmp = 1500;
	assert_int_equal(place(nodes, &r, out), 1);
	assert_int_equal(out[0], 3);
	r.min_tmp = 5000;
	assert_int_equal(sched_fits_config(nodes, 4, &p, &r), -ENOSPC);
	r.min_tmp = 0;
	r.min_cpus = 16;
	assert_int_equal(sched_fits_config(nodes, 4, &p, &r), -ENOSPC);
	r.min_cpus = 8;
	assert_int_equal(sched_fits_config(nodes, 4, &p, &r), 0);
}

static void a_down_listed_node_waits_without_blocking(void **state)
{
	struct sched_node nodes[4] = {node(2, NULL, 0), node(2, NULL, 0),
				      node(2, NULL, 0), node(2, NULL, 0)};
	struct sched_part parts[] = {{all4, 4, true}};
	const uint32_t want[] = {3};
	struct sched_req listed = one_task(), any = one_task();
	listed.req_nodes = want;
	listed.n_req_nodes = 1;
	nodes[3].up = false;
	struct sched_job jobs[] = {{.job_id = 1, .priority = 9, .req = &listed},
				   {.job_id = 2, .priority = 1, .req = &any}};
	struct sched_input in = {nodes, 4, parts, 1, jobs, 2};
	struct sched_alloc alloc[8];
	assert_int_equal(sched_run(&in, alloc, 8), 1);
	assert_int_equal(jobs[0].verdict, SCHED_WAIT_REQ_NODE);
	assert_string_equal(sched_verdict_reason(jobs[0].verdict), "ReqNodeNotAvail");
	assert_int_equal(jobs[1].verdict, SCHED_START);
	/* busy rather than down: Resources, and the partition waits behind it */
	nodes[3].up = true;
	nodes[3].cpus_used = 2;
	jobs[0].verdict = jobs[1].verdict = SCHED_START;
	assert_int_equal(sched_run(&in, alloc, 8), 0);
	assert_int_equal(jobs[0].verdict, SCHED_WAIT_RESOURCES);
	assert_int_equal(jobs[1].verdict, SCHED_WAIT_PRIORITY);
	/* a -w index outside the snapshot is a malformed snapshot */
	const uint32_t bad[] = {9};
	listed.req_nodes = bad;
	assert_int_equal(sched_run(&in, alloc, 8), -EINVAL);
}

/* --ntasks-per-node times the node count past 2^32 must not wrap to a
 * small task count that then fits: (2^31 + 1) * 2 wraps to 2. */
static void a_task_count_that_overflows_is_not_placed(void **state)
{
	struct sched_node nodes[4] = {node(0x80000001u, NULL, 0),
				      node(0x80000001u, NULL, 0), node(2, NULL, 0),
				      node(2, NULL, 0)};
	uint32_t out[4];
	struct sched_req r = one_task();
	r.min_nodes = 2;
	r.ntasks_per_node = 0x80000001u;
	assert_int_equal(place(nodes, &r, out), 0);
	r.ntasks_per_node = 2; /* the same request with a count that fits */
	assert_int_equal(place(nodes, &r, out), 2);
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
