/* test_sched_rules.c — partition rules in the pure scheduler: MaxTime,
 * Min/MaxNodes, MaxCPUsPerNode (summed over the partition's jobs),
 * MaxMemPerNode, OverSubscribe=NO|EXCLUSIVE|YES:N|FORCE:N, partitions that
 * share nodes, nodes that are down, jobs past their expected end. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_fixture.h"

static void max_time_and_node_counts(void **state)
{
	struct fx *f = fx_new(0);
	for (int i = 0; i < 4; i++)
		fx_node(f, 4, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 3);
	f->parts[p].max_time = 3600;
	f->parts[p].max_nodes = 2;
	f->parts[p].min_nodes = 2;
	fx_job(f, 1, 9, p, 2, 1, 7200);
	struct sched_req *r2 = fx_req(f, fx_job(f, 2, 8, p, 3, 1, 3600));
	r2->min_nodes = r2->max_nodes = 3;
	struct sched_req *r3 = fx_req(f, fx_job(f, 3, 7, p, 1, 1, 3600));
	r3->max_nodes = 1;
	struct sched_req *r4 = fx_req(f, fx_job(f, 4, 6, p, 2, 1, 3600));
	r4->min_nodes = r4->max_nodes = 2;
	fx_job(f, 5, 5, p, 12, 1, 3600); /* -n12 spans three nodes: over MaxNodes */
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "PartitionTimeLimit");
	assert_string_equal(fx_what(f, 2), "PartitionNodeLimit");
	assert_string_equal(fx_what(f, 3), "PartitionNodeLimit");
	assert_string_equal(fx_what(f, 4), "start");
	assert_int_equal(fx_dec(f, 4)->alloc_n, 2);
	assert_string_equal(fx_what(f, 5), "PartitionNodeLimit");
	/* none of them holds the others up, nor is any planned */
	assert_int_equal(f->res.stats.planned, 0);
	fx_free(f);
}

static void max_cpus_per_node_counts_the_partitions_jobs(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 8, 0, 2, NULL);
	uint32_t cpu = fx_part(f, 0, 0), gpu = fx_part(f, 0, 0);
	f->parts[cpu].max_cpus_per_node = 6;
	fx_run(f, 90, cpu, 500, 0, 0x1); /* one of cpu's six */
	fx_job(f, 1, 9, cpu, 4, 1, 100);
	fx_job(f, 2, 8, cpu, 2, 1, 100); /* one left: waits */
	fx_req(f, fx_job(f, 3, 7, gpu, 2, 1, 100))->gpus_per_node = 1;
	fx_job(f, 4, 6, cpu, 7, 1, 100); /* more than cpu may ever have here */
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_string_equal(fx_what(f, 2), "Resources");
	assert_int_equal(fx_dec(f, 2)->start, 100);  /* when job 1 ends */
	assert_string_equal(fx_what(f, 3), "start"); /* the gpu partition's CPUs */
	assert_int_equal(fx_alloc(f, fx_dec(f, 3), 0)->cpu_ids[0], 0x60);
	assert_string_equal(fx_what(f, 4), "PartitionNodeLimit");
	fx_free(f);
}

static void max_mem_per_node_bounds_each_job(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 8, 1000, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	f->parts[p].max_mem_per_node = 500;
	fx_req(f, fx_job(f, 1, 9, p, 1, 1, 100))->mem_per_node = 600;
	fx_req(f, fx_job(f, 2, 8, p, 2, 1, 100))->mem_per_cpu = 300;
	fx_req(f, fx_job(f, 3, 7, p, 1, 1, 100))->mem_per_node = SCHED_MEM_WHOLE;
	fx_req(f, fx_job(f, 4, 6, p, 1, 1, 100))->mem_per_node = 500;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "PartitionNodeLimit");
	assert_string_equal(fx_what(f, 2), "PartitionNodeLimit"); /* 600 on one node */
	assert_string_equal(fx_what(f, 3), "start");
	assert_int_equal(fx_alloc(f, fx_dec(f, 3), 0)->mem, 500); /* all it may have */
	assert_string_equal(fx_what(f, 4), "start"); /* the node's other 500 */
	fx_free(f);
}

static void oversubscribe_no_never_shares_a_cpu(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 2, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	for (uint32_t id = 1; id <= 3; id++)
		fx_req(f, fx_job(f, id, 10 - id, p, 1, 1, 100))->oversubscribe = true;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_string_equal(fx_what(f, 2), "start");
	assert_string_equal(fx_what(f, 3), "Resources");
	fx_free(f);
}

static void oversubscribe_exclusive_gives_whole_nodes(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 4, 1000, 1, NULL);
	fx_node(f, 4, 1000, 1, NULL);
	uint32_t p = fx_part(f, 0, 1);
	f->parts[p].oversubscribe = SCHED_OS_EXCLUSIVE;
	for (uint32_t id = 1; id <= 3; id++)
		fx_job(f, id, 10 - id, p, 1, 1, 100);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	const struct sched_alloc *a = fx_alloc(f, fx_dec(f, 1), 0);
	assert_int_equal(a->cpus, 4);
	assert_int_equal(a->gpu_units[0], 1);
	assert_int_equal(fx_alloc(f, fx_dec(f, 2), 0)->node, 1);
	assert_string_equal(fx_what(f, 3), "Resources");
	assert_int_equal(fx_dec(f, 3)->start, 100);
	/* a running job of an exclusive partition keeps its node whole */
	f->snap.n_pending = 0;
	uint32_t q = fx_part(f, 0, 1);
	fx_run(f, 90, p, 500, 0, 0x1);
	fx_job(f, 4, 9, q, 1, 1, 100);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(fx_alloc(f, fx_dec(f, 4), 0)->node, 1);
	fx_free(f);
}

static void oversubscribe_yes_shares_with_those_who_ask(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 1, 1000, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	f->parts[p].oversubscribe = SCHED_OS_YES;
	f->parts[p].oversubscribe_max = 2;
	for (uint32_t id = 1; id <= 3; id++) {
		struct sched_req *r = fx_req(f, fx_job(f, id, 10 - id, p, 1, 1, 100));
		r->oversubscribe = true;
		r->mem_per_node = 100;
	}
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_string_equal(fx_what(f, 2), "start"); /* the same CPU 0 */
	assert_int_equal(fx_alloc(f, fx_dec(f, 2), 0)->cpu_ids[0], 0x1);
	assert_string_equal(fx_what(f, 3), "Resources"); /* a third: YES:2 */
	assert_int_equal(fx_dec(f, 3)->start, 100);
	/* without -s, a job of a YES partition takes its CPUs alone */
	fx_req(f, &f->pending[1])->oversubscribe = false;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 2), "Resources");
	/* FORCE shares without being asked */
	f->parts[p].oversubscribe = SCHED_OS_FORCE;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 2), "start");
	assert_string_equal(fx_what(f, 3), "Resources");
	fx_free(f);
}

static void a_sharing_job_never_shares_with_one_that_does_not(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 2, 0, 0, NULL);
	uint32_t yes = fx_part(f, 0, 0), no = fx_part(f, 0, 0);
	f->parts[yes].oversubscribe = SCHED_OS_FORCE;
	f->parts[yes].oversubscribe_max = 4;
	fx_run(f, 90, no, 500, 0, 0x1); /* CPU 0, alone */
	for (uint32_t id = 1; id <= 3; id++)
		fx_job(f, id, 10 - id, yes, 1, 1, 100);
	fx_job(f, 4, 1, no, 1, 1, 100);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	for (uint32_t id = 1; id <= 3; id++) {
		assert_string_equal(fx_what(f, id), "start");
		assert_int_equal(fx_alloc(f, fx_dec(f, id), 0)->cpu_ids[0], 0x2);
	}
	assert_string_equal(fx_what(f, 4), "Resources"); /* CPU 1 is shared */
	assert_int_equal(fx_dec(f, 4)->start, 100);
	fx_free(f);
}

static void down_nodes_take_nothing_and_still_hold_their_jobs(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 2, 0, 0, NULL);
	fx_node(f, 2, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 1), q = fx_part(f, 1, 1);
	f->nodes[0].up = false;
	fx_run(f, 90, p, 500, 0, 0x3); /* on the down node */
	fx_job(f, 1, 9, p, 1, 1, 100);
	fx_job(f, 2, 8, p, 4, 1, 100); /* needs both nodes: waits, never planned */
	f->nodes[1].up = false;
	fx_job(f, 3, 7, q, 1, 1, 100);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	assert_int_equal(fx_dec(f, 1)->start, 0);
	assert_string_equal(fx_what(f, 3), "Resources");
	f->nodes[1].up = true;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->node, 1);
	assert_int_equal(fx_dec(f, 2)->start, 0);
	fx_free(f);
}

static void a_job_past_its_expected_end_still_holds_its_cpus(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 90, p, 900, 0, 0x1);
	fx_job(f, 1, 9, p, 1, 1, 100);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	assert_int_equal(fx_dec(f, 1)->start, 1001);
	f->par.bf_resolution = 60;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(fx_dec(f, 1)->start, 1020);
	fx_free(f);
}

static void an_unlimited_running_job_is_never_planned_around(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 90, p, SCHED_NEVER, 0, 0x1);
	fx_job(f, 1, 9, p, 1, 1, SCHED_NEVER);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	assert_int_equal(fx_dec(f, 1)->start, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(max_time_and_node_counts),
	    cmocka_unit_test(max_cpus_per_node_counts_the_partitions_jobs),
	    cmocka_unit_test(max_mem_per_node_bounds_each_job),
	    cmocka_unit_test(oversubscribe_no_never_shares_a_cpu),
	    cmocka_unit_test(oversubscribe_exclusive_gives_whole_nodes),
	    cmocka_unit_test(oversubscribe_yes_shares_with_those_who_ask),
	    cmocka_unit_test(a_sharing_job_never_shares_with_one_that_does_not),
	    cmocka_unit_test(down_nodes_take_nothing_and_still_hold_their_jobs),
	    cmocka_unit_test(a_job_past_its_expected_end_still_holds_its_cpus),
	    cmocka_unit_test(an_unlimited_running_job_is_never_planned_around),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
