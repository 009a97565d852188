/* test_sched.c — the pure scheduler's placement and quick pass: sharing
 * nodes by CPU ids, memory and GPU devices, task layout over nodes,
 * --exclusive, strict priority per partition, partition order by Weight,
 * PriorityTier, and refusal of malformed snapshots. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_fixture.h"

static void jobs_share_nodes_by_cpus(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 4, 0, 0, NULL);
	fx_node(f, 4, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 1);
	fx_job(f, 1, 50, p, 4, 1, 600);
	fx_job(f, 2, 40, p, 1, 2, 600);
	fx_job(f, 3, 30, p, 3, 1, 600);
	fx_job(f, 4, 20, p, 1, 1, 600);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.stats.started, 2);
	const struct sched_decision *d1 = fx_dec(f, 1), *d2 = fx_dec(f, 2);
	assert_int_equal(d1->verdict, SCHED_START);
	assert_int_equal(fx_alloc(f, d1, 0)->node, 0);
	assert_int_equal(fx_alloc(f, d1, 0)->cpus, 4);
	assert_int_equal(fx_alloc(f, d1, 0)->cpu_ids[0], 0xf);
	assert_int_equal(d1->start, 1000);
	assert_int_equal(d1->time_limit, 600);
	assert_int_equal(d2->verdict, SCHED_START);
	assert_int_equal(fx_alloc(f, d2, 0)->node, 1);
	assert_int_equal(fx_alloc(f, d2, 0)->cpus, 2);
	assert_int_equal(fx_alloc(f, d2, 0)->cpu_ids[0], 0x3); /* the lowest ids */
	/* 3 CPUs are not free anywhere: job 3 waits, and so does the smaller job 4 */
	assert_string_equal(fx_what(f, 3), "Resources");
	assert_true(fx_dec(f, 3)->lacks & 1u << SCHED_TRES_CPU);
	assert_string_equal(fx_what(f, 4), "Priority");
	fx_free(f);
}

static void cpu_ids_of_running_jobs_are_not_given_again(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 8, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 90, p, 5000, 0, 0x0f0); /* CPUs 4-7 */
	fx_run(f, 91, p, 5000, 0, 0x001); /* CPU 0 */
	fx_job(f, 1, 50, p, 3, 1, 600);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	const struct sched_decision *d = fx_dec(f, 1);
	assert_int_equal(d->verdict, SCHED_START);
	assert_int_equal(fx_alloc(f, d, 0)->cpu_ids[0], 0x00e);
	fx_free(f);
}

static void memory_limits_sharing(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 8, 1000, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_req(f, fx_job(f, 1, 50, p, 2, 1, 600))->mem_per_cpu = 300; /* 600 MiB */
	fx_req(f, fx_job(f, 2, 40, p, 1, 1, 600))->mem_per_node = 400;
	fx_req(f, fx_job(f, 3, 30, p, 1, 1, 600))->mem_per_node = SCHED_MEM_WHOLE;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.stats.started, 2);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->mem, 600);
	assert_int_equal(fx_alloc(f, fx_dec(f, 2), 0)->mem, 400);
	assert_string_equal(fx_what(f, 3), "Resources");
	assert_true(fx_dec(f, 3)->lacks & 1u << SCHED_TRES_MEM);
	/* memory too large for the node ever: the partition cannot hold it */
	struct sched_req huge = {
	    .min_nodes = 1, .ntasks = 1, .cpus_per_task = 1, .mem_per_node = 5000};
	assert_int_equal(sched_fits_config(f->nodes, 1, &f->parts[p], &huge), -ENOSPC);
	huge.mem_per_node = 1000;
	assert_int_equal(sched_fits_config(f->nodes, 1, &f->parts[p], &huge), 0);
	fx_free(f);
}

static void gpu_devices_are_disjoint_and_typed(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 8, 0, 4, "a100");
	f->gpus[0][2].type = f->gpus[0][3].type = "v100";
	uint32_t p = fx_part(f, 0, 0);
	fx_req(f, fx_job(f, 1, 50, p, 1, 1, 600))->gpus_per_node = 2;
	struct sched_req *v1 = fx_req(f, fx_job(f, 2, 40, p, 1, 1, 600));
	v1->gpus_total = 1;
	v1->gpu_type = "v100";
	struct sched_req *a1 = fx_req(f, fx_job(f, 3, 30, p, 1, 1, 600));
	a1->gpus_per_node = 1;
	a1->gpu_type = "a100";
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.stats.started, 2);
	const uint32_t *u1 = fx_alloc(f, fx_dec(f, 1), 0)->gpu_units;
	const uint32_t *u2 = fx_alloc(f, fx_dec(f, 2), 0)->gpu_units;
	assert_int_equal(u1[0] + u1[1] * 2 + u1[2] * 4 + u1[3] * 8, 0x3);
	assert_int_equal(u2[0] + u2[1] * 2 + u2[2] * 4 + u2[3] * 8, 0x4);
	assert_string_equal(fx_what(f, 3), "Resources");
	assert_true(fx_dec(f, 3)->lacks & 1u << SCHED_TRES_GPU);
	struct sched_req h1 = {.min_nodes = 1,
			       .ntasks = 1,
			       .cpus_per_task = 1,
			       .gpus_per_node = 1,
			       .gpu_type = "h100"};
	assert_int_equal(sched_fits_config(f->nodes, 1, &f->parts[p], &h1), -ENOSPC);
	struct sched_req five = {.min_nodes = 1, .ntasks = 1, .gpus_per_node = 5};
	assert_int_equal(sched_fits_config(f->nodes, 1, &f->parts[p], &five), -ENOSPC);
	fx_free(f);
}

static void a_gpu_held_by_a_running_job_is_busy(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 8, 0, 2, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 90, p, 5000, 0, 0x1);
	f->runits[0][0][0] = 1; /* device 0 */
	fx_req(f, fx_job(f, 1, 50, p, 1, 1, 600))->gpus_per_node = 1;
	fx_req(f, fx_job(f, 2, 40, p, 1, 1, 600))->gpus_per_node = 1;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->gpu_units[1], 1);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->gpu_units[0], 0);
	assert_string_equal(fx_what(f, 2), "Resources");
	fx_free(f);
}

static void tasks_spread_over_nodes_as_slurm(void **state)
{
	struct fx *f = fx_new(1000);
	for (int i = 0; i < 4; i++)
		fx_node(f, 4, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 3);
	fx_job(f, 1, 90, p, 8, 1, 600); /* -n8 on 4-CPU nodes, no -N: fills two */
	struct sched_req *r2 = fx_req(f, fx_job(f, 2, 80, p, 3, 1, 600));
	r2->min_nodes = r2->max_nodes = 2; /* -N2 -n3: 2,1 */
	fx_req(f, fx_job(f, 3, 70, p, 0, 1, 600))->ntasks_per_node = 2;
	fx_req(f, fx_job(f, 4, 60, p, 4, 1, 600))->max_nodes = 1; /* 3 left on node 3 */
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	const struct sched_decision *d = fx_dec(f, 1);
	assert_int_equal(d->alloc_n, 2);
	assert_int_equal(fx_alloc(f, d, 0)->node, 0);
	assert_int_equal(fx_alloc(f, d, 0)->tasks, 4);
	assert_int_equal(fx_alloc(f, d, 1)->tasks, 4);
	d = fx_dec(f, 2);
	assert_int_equal(d->alloc_n, 2);
	assert_int_equal(fx_alloc(f, d, 0)->node, 2);
	assert_int_equal(fx_alloc(f, d, 0)->tasks, 2);
	assert_int_equal(fx_alloc(f, d, 1)->tasks, 1);
	d = fx_dec(f, 3); /* --ntasks-per-node=2 -N1 on what is left: node 2 */
	assert_int_equal(d->alloc_n, 1);
	assert_int_equal(fx_alloc(f, d, 0)->node, 2);
	assert_int_equal(fx_alloc(f, d, 0)->tasks, 2);
	assert_string_equal(fx_what(f, 4), "Resources");
	fx_free(f);
}

static void exclusive_needs_an_idle_node_and_takes_it_all(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 4, 100, 2, NULL);
	fx_node(f, 4, 100, 2, NULL);
	uint32_t p = fx_part(f, 0, 1);
	fx_run(f, 90, p, 5000, 0, 0x1);
	fx_req(f, fx_job(f, 1, 50, p, 1, 1, 600))->exclusive = true;
	fx_req(f, fx_job(f, 2, 40, p, 1, 1, 600))->exclusive = true;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	const struct sched_alloc *a = fx_alloc(f, fx_dec(f, 1), 0);
	assert_int_equal(a->node, 1);
	assert_int_equal(a->cpus, 4);
	assert_int_equal(a->gpu_units[0] + a->gpu_units[1], 2);
	assert_string_equal(fx_what(f, 2), "Resources");
	fx_free(f);
}

static void blocking_is_per_partition(void **state)
{
	struct fx *f = fx_new(1000);
	for (int i = 0; i < 4; i++)
		fx_node(f, 1, 0, 0, NULL);
	uint32_t p1 = fx_part(f, 0, 1), p2 = fx_part(f, 2, 3);
	fx_run(f, 90, p1, 5000, 0, 0x1);
	fx_run(f, 91, p2, 5000, 2, 0x1);
	fx_job(f, 1, 50, p1, 2, 1, 600);
	fx_job(f, 2, 40, p2, 1, 1, 600);
	fx_job(f, 3, 30, p1, 1, 1, 600);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	assert_int_equal(fx_alloc(f, fx_dec(f, 2), 0)->node, 3);
	assert_string_equal(fx_what(f, 3), "Priority");
	fx_free(f);
}

static void down_partition_and_oversize_do_not_block(void **state)
{
	struct fx *f = fx_new(1000);
	for (int i = 0; i < 4; i++)
		fx_node(f, 2, 0, 0, NULL);
	uint32_t p1 = fx_part(f, 0, 1), p2 = fx_part(f, 2, 3);
	f->parts[p1].up = false;
	fx_job(f, 1, 50, p1, 1, 1, 600);
	fx_job(f, 2, 40, p2, 1, 8, 600);
	fx_job(f, 3, 30, p2, 4, 1, 600);
	fx_job(f, 4, 30, p2, 1, 1, 600);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "PartitionDown");
	assert_string_equal(fx_what(f, 2), "PartitionNodeLimit");
	assert_string_equal(fx_what(f, 3), "start");
	assert_int_equal(fx_dec(f, 3)->alloc_n, 2);
	assert_string_equal(fx_what(f, 4), "Resources");
	fx_free(f);
}

static void equal_priority_goes_by_job_id(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_job(f, 9, 5, p, 1, 1, 600);
	fx_job(f, 4, 5, p, 1, 1, 600);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 4), "start");
	assert_string_equal(fx_what(f, 9), "Resources");
	assert_int_equal(f->res.decisions[0].job_id, 4); /* tried in order */
	fx_free(f);
}

static void higher_priority_tier_goes_first(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t lo = fx_part(f, 0, 0), hi = fx_part(f, 0, 0);
	f->parts[hi].priority_tier = 2;
	fx_job(f, 1, 1000, lo, 1, 1, 600);
	fx_job(f, 2, 1, hi, 1, 1, 600);
	/* in both: the best candidate's tier counts */
	struct sched_pending *j3 = fx_job(f, 3, 500, lo, 1, 1, 600);
	f->jparts[2][1] = hi;
	j3->n_parts = 2;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.decisions[0].job_id, 3);
	assert_int_equal(f->res.decisions[1].job_id, 2);
	assert_int_equal(f->res.decisions[2].job_id, 1);
	assert_string_equal(fx_what(f, 3), "start");
	fx_free(f);
}

static void lowest_weight_fills_first_then_config_order(void **state)
{
	struct fx *f = fx_new(1000);
	for (int i = 0; i < 4; i++)
		fx_node(f, 1, 0, 0, NULL);
	f->nodes[0].weight = 10;
	f->nodes[1].weight = 5;
	f->nodes[2].weight = 1;
	f->nodes[3].weight = 5;
	uint32_t p = fx_part(f, 0, 3);
	for (uint32_t id = 1; id <= 4; id++)
		fx_job(f, id, 10 - id, p, 1, 1, 600);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->node, 2);
	assert_int_equal(fx_alloc(f, fx_dec(f, 2), 0)->node, 1);
	assert_int_equal(fx_alloc(f, fx_dec(f, 3), 0)->node, 3);
	assert_int_equal(fx_alloc(f, fx_dec(f, 4), 0)->node, 0);
	fx_free(f);
}

static void queue_depth_bounds_the_quick_pass(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 8, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	for (uint32_t id = 1; id <= 6; id++)
		fx_job(f, id, 100 - id, p, 1, 1, 600);
	f->par.default_queue_depth = 4;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.n_decisions, 4);
	assert_int_equal(f->res.stats.tested, 4);
	assert_string_equal(fx_what(f, 4), "start");
	assert_string_equal(fx_what(f, 5), "-"); /* not reached: keeps its state */
	fx_free(f);
}

/* Each snapshot is wrong in one way; each is refused whole. */
static void malformed_snapshots_are_refused(void **state)
{
	for (int bad = 0; bad < 12; bad++) {
		struct fx *f = fx_new(1000);
		fx_node(f, 4, 100, 1, NULL);
		fx_node(f, 4, 100, 1, NULL);
		uint32_t p = fx_part(f, 0, 1);
		uint32_t l = fx_lic(f, "matlab", 2);
		struct sched_running *r = fx_run(f, 90, p, 5000, 0, 0x1);
		struct sched_pending *j = fx_job(f, 1, 1, p, 1, 1, 600);
		struct sched_running *r2 = NULL;
		switch (bad) {
		case 0:
			f->part_nodes[p][1] = 7;
			break; /* a node out of range */
		case 1:
			f->jparts[0][0] = 3;
			break; /* a partition out of range */
		case 2:
			f->nodes[1].gpus = NULL;
			break; /* GPUs without devices */
		case 3:
			f->rcpus[0][0][0] = 0x30;
			break; /* CPU 5 of a 4-CPU node */
		case 4:
			f->ralloc[0][0].cpus = 3;
			break; /* ids and count disagree */
		case 5:
			r2 = fx_run(f, 91, p, 5000, 0, 0x3);
			break; /* CPU 0 twice */
		case 6:
			f->ralloc[0][0].mem = 101;
			break; /* more memory than the node */
		case 7:
			f->runits[0][0][0] = 2;
			break; /* 2 units of a 1-unit GPU */
		case 8:
			fx_job_lic(f, j, l + 1, 1);
			break; /* no such license */
		case 9:
			j->count = 0;
			break; /* no task may start */
		case 10:
			fx_req(f, j)->req_nodes = NULL, fx_req(f, j)->n_req_nodes = 1;
			break;
		case 11:
			r->alloc = NULL;
			break;
		}
		(void)r2;
		struct sched_result out = {.n_decisions = 77};
		f->par.kind = SCHED_PASS_BACKFILL;
		assert_int_equal(sched_run(&f->snap, &f->par, &out), -EINVAL);
		assert_int_equal(out.n_decisions, 77); /* untouched */
		fx_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(jobs_share_nodes_by_cpus),
	    cmocka_unit_test(cpu_ids_of_running_jobs_are_not_given_again),
	    cmocka_unit_test(memory_limits_sharing),
	    cmocka_unit_test(gpu_devices_are_disjoint_and_typed),
	    cmocka_unit_test(a_gpu_held_by_a_running_job_is_busy),
	    cmocka_unit_test(tasks_spread_over_nodes_as_slurm),
	    cmocka_unit_test(exclusive_needs_an_idle_node_and_takes_it_all),
	    cmocka_unit_test(blocking_is_per_partition),
	    cmocka_unit_test(down_partition_and_oversize_do_not_block),
	    cmocka_unit_test(equal_priority_goes_by_job_id),
	    cmocka_unit_test(higher_priority_tier_goes_first),
	    cmocka_unit_test(lowest_weight_fills_first_then_config_order),
	    cmocka_unit_test(queue_depth_bounds_the_quick_pass),
	    cmocka_unit_test(malformed_snapshots_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
