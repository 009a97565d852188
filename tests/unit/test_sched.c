/* test_sched.c — the pure scheduler: sharing nodes by CPUs, memory and GPUs,
 * task layout over nodes, strict priority per partition, and refusal of
 * malformed snapshots. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched.h"

static const uint32_t all4[] = {0, 1, 2, 3};
static const uint32_t first2[] = {0, 1};
static const char *const types4[] = {"a100", "a100", "v100", "v100"};

static struct sched_node node(uint32_t cpus, uint64_t mem, uint32_t gpus)
{
	struct sched_node n = {
	    .up = true, .cpus_total = cpus, .mem_total = mem, .n_gpus = gpus};
	return n;
}

static struct sched_req req(uint32_t ntasks, uint32_t cpt)
{
	struct sched_req r = {.min_nodes = 1, .ntasks = ntasks, .cpus_per_task = cpt};
	return r;
}

static struct sched_job job(uint32_t id, uint64_t prio, uint32_t part,
			    const struct sched_req *r)
{
	struct sched_job j = {.job_id = id, .priority = prio, .part = part, .req = r};
	return j;
}

static const struct sched_job *find(const struct sched_input *in, uint32_t id)
{
	for (size_t i = 0; i < in->n_jobs; i++)
		if (in->jobs[i].job_id == id)
			return &in->jobs[i];
	return NULL;
}

static void jobs_share_nodes_by_cpus(void **state)
{
	struct sched_node nodes[2] = {node(4, 0, 0), node(4, 0, 0)};
	struct sched_part parts[] = {{first2, 2, true}};
	struct sched_req four = req(4, 1), two = req(1, 2), three = req(3, 1),
			 one = req(1, 1);
	struct sched_job jobs[] = {job(1, 50, 0, &four), job(2, 40, 0, &two),
				   job(3, 30, 0, &three), job(4, 20, 0, &one)};
	struct sched_input in = {nodes, 2, parts, 1, jobs, 4};
	struct sched_alloc alloc[8];
	assert_int_equal(sched_run(&in, alloc, 8), 2);
	const struct sched_job *j1 = find(&in, 1), *j2 = find(&in, 2);
	assert_int_equal(j1->verdict, SCHED_START);
	assert_int_equal(alloc[j1->alloc_off].node, 0);
	assert_int_equal(alloc[j1->alloc_off].cpus, 4);
	assert_int_equal(j2->verdict, SCHED_START);
	assert_int_equal(alloc[j2->alloc_off].node, 1);
	assert_int_equal(alloc[j2->alloc_off].cpus, 2);
	/* 3 CPUs are not free anywhere: job 3 waits, and so does the smaller job 4 */
	assert_int_equal(find(&in, 3)->verdict, SCHED_WAIT_RESOURCES);
	assert_int_equal(find(&in, 4)->verdict, SCHED_WAIT_PRIORITY);
	assert_int_equal(nodes[1].cpus_used, 2);
}

static void memory_limits_sharing(void **state)
{
	struct sched_node nodes[1] = {node(8, 1000, 0)};
	struct sched_part parts[] = {{first2, 1, true}};
	struct sched_req per_cpu = req(2, 1), whole = req(1, 1), small = req(1, 1);
	per_cpu.mem_per_cpu = 300; /* 600 MiB */
	whole.mem_per_node = SCHED_MEM_WHOLE;
	small.mem_per_node = 400;
	struct sched_job jobs[] = {job(1, 50, 0, &per_cpu), job(2, 40, 0, &small),
				   job(3, 30, 0, &whole)};
	struct sched_input in = {nodes, 1, parts, 1, jobs, 3};
	struct sched_alloc alloc[4];
	assert_int_equal(sched_run(&in, alloc, 4), 2);
	assert_int_equal(alloc[find(&in, 1)->alloc_off].mem, 600);
	assert_int_equal(alloc[find(&in, 2)->alloc_off].mem, 400);
	assert_int_equal(find(&in, 3)->verdict, SCHED_WAIT_RESOURCES);
	assert_int_equal(nodes[0].mem_used, 1000);
	/* memory too large for the node ever: the partition cannot hold it */
	struct sched_req huge = req(1, 1);
	huge.mem_per_node = 5000;
	assert_int_equal(sched_fits_config(nodes, 1, &parts[0], &huge), -ENOSPC);
}

static void gpu_indices_are_disjoint_and_typed(void **state)
{
	struct sched_node nodes[1] = {node(8, 0, 4)};
	nodes[0].gpu_type = types4;
	struct sched_part parts[] = {{first2, 1, true}};
	struct sched_req g2 = req(1, 1), v1 = req(1, 1), a1 = req(1, 1), h1 = req(1, 1);
	g2.gpus_per_node = 2;
	v1.gpus_total = 1;
	v1.gpu_type = "v100";
	a1.gpus_per_node = 1;
	a1.gpu_type = "a100";
	h1.gpus_per_node = 1;
	h1.gpu_type = "h100";
	struct sched_job jobs[] = {job(1, 50, 0, &g2), job(2, 40, 0, &v1),
				   job(3, 30, 0, &a1)};
	struct sched_input in = {nodes, 1, parts, 1, jobs, 3};
	struct sched_alloc alloc[4];
	assert_int_equal(sched_run(&in, alloc, 4), 2);
	assert_int_equal(alloc[find(&in, 1)->alloc_off].gpus, 0x3);
	assert_int_equal(alloc[find(&in, 2)->alloc_off].gpus, 0x4);
	assert_int_equal(find(&in, 3)->verdict, SCHED_WAIT_RESOURCES);
	assert_int_equal(sched_fits_config(nodes, 1, &parts[0], &h1), -ENOSPC);
	struct sched_req five = req(1, 1);
	five.gpus_per_node = 5;
	assert_int_equal(sched_fits_config(nodes, 1, &parts[0], &five), -ENOSPC);
}

static void tasks_spread_over_nodes_as_slurm(void **state)
{
	struct sched_node nodes[4] = {node(4, 0, 0), node(4, 0, 0), node(4, 0, 0),
				      node(4, 0, 0)};
	struct sched_part part = {all4, 4, true};
	struct sched_alloc a[4];
	uint32_t n;
	struct sched_req r = req(8, 1); /* -n8 on 4-CPU nodes, no -N: fills two nodes */
	assert_int_equal(sched_place(nodes, &part, &r, a, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(a[0].node, 0);
	assert_int_equal(a[0].tasks, 4);
	assert_int_equal(a[1].tasks, 4);
	r = req(3, 1);
	r.min_nodes = r.max_nodes = 2; /* -N2 -n3: 2,1 */
	assert_int_equal(sched_place(nodes, &part, &r, a, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(a[0].node, 2);
	assert_int_equal(a[0].tasks, 2);
	assert_int_equal(a[1].tasks, 1);
	r = req(0, 1); /* --ntasks-per-node=2 -N1 on what is left: 2 on node 2 */
	r.ntasks_per_node = 2;
	assert_int_equal(sched_place(nodes, &part, &r, a, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].node, 2);
	assert_int_equal(a[0].tasks, 2);
	r = req(4, 1); /* needs 4 CPUs in one place; only 3 are left on node 3 */
	r.max_nodes = 1;
	assert_int_equal(sched_place(nodes, &part, &r, a, 4, &n), -ENOSPC);
	assert_int_equal(nodes[3].cpus_used, 1);
}

static void exclusive_needs_an_idle_node_and_takes_it_all(void **state)
{
	struct sched_node nodes[2] = {node(4, 100, 2), node(4, 100, 2)};
	nodes[0].cpus_used = 1;
	struct sched_part part = {first2, 2, true};
	struct sched_req r = req(1, 1);
	r.exclusive = true;
	struct sched_alloc a[2];
	uint32_t n;
	assert_int_equal(sched_place(nodes, &part, &r, a, 2, &n), 0);
	assert_int_equal(a[0].node, 1);
	assert_int_equal(a[0].cpus, 4);
	assert_int_equal(a[0].gpus, 0x3);
	assert_int_equal(sched_place(nodes, &part, &r, a, 2, &n), -ENOSPC);
}

static void blocking_is_per_partition(void **state)
{
	struct sched_node nodes[4] = {node(1, 0, 0), node(1, 0, 0), node(1, 0, 0),
				      node(1, 0, 0)};
	nodes[0].cpus_used = 1;
	nodes[2].cpus_used = 1;
	const uint32_t p1[] = {0, 1}, p2[] = {2, 3};
	struct sched_part parts[] = {{p1, 2, true}, {p2, 2, true}};
	struct sched_req two = req(2, 1), one = req(1, 1);
	struct sched_job jobs[] = {job(1, 50, 0, &two), job(2, 40, 1, &one),
				   job(3, 30, 0, &one)};
	struct sched_input in = {nodes, 4, parts, 2, jobs, 3};
	struct sched_alloc alloc[8];
	assert_int_equal(sched_run(&in, alloc, 8), 1);
	assert_int_equal(find(&in, 1)->verdict, SCHED_WAIT_RESOURCES);
	assert_int_equal(alloc[find(&in, 2)->alloc_off].node, 3);
	assert_int_equal(find(&in, 3)->verdict, SCHED_WAIT_PRIORITY);
}

static void down_partition_and_oversize_do_not_block(void **state)
{
	struct sched_node nodes[4] = {node(2, 0, 0), node(2, 0, 0), node(2, 0, 0),
				      node(2, 0, 0)};
	const uint32_t p2[] = {2, 3};
	struct sched_part parts[] = {{first2, 2, false}, {p2, 2, true}};
	struct sched_req one = req(1, 1), big = req(1, 8), fits = req(4, 1);
	struct sched_job jobs[] = {job(1, 50, 0, &one), job(2, 40, 1, &big),
				   job(3, 30, 1, &fits), job(4, 30, 1, &one)};
	struct sched_input in = {nodes, 4, parts, 2, jobs, 4};
	struct sched_alloc alloc[8];
	assert_int_equal(sched_run(&in, alloc, 8), 1);
	assert_int_equal(find(&in, 1)->verdict, SCHED_WAIT_PART_DOWN);
	assert_int_equal(find(&in, 2)->verdict, SCHED_WAIT_NODE_CONFIG);
	assert_int_equal(find(&in, 3)->verdict, SCHED_START);
	assert_int_equal(find(&in, 3)->alloc_n, 2);
	assert_int_equal(find(&in, 4)->verdict, SCHED_WAIT_RESOURCES);
	assert_string_equal(sched_verdict_reason(SCHED_WAIT_PRIORITY), "Priority");
	assert_string_equal(sched_verdict_reason(SCHED_WAIT_RESOURCES), "Resources");
}

static void equal_priority_goes_by_job_id(void **state)
{
	struct sched_node nodes[1] = {node(1, 0, 0)};
	struct sched_part parts[] = {{first2, 1, true}};
	struct sched_req one = req(1, 1);
	struct sched_job jobs[] = {job(9, 5, 0, &one), job(4, 5, 0, &one)};
	struct sched_input in = {nodes, 1, parts, 1, jobs, 2};
	struct sched_alloc alloc[2];
	assert_int_equal(sched_run(&in, alloc, 2), 1);
	assert_int_equal(find(&in, 4)->verdict, SCHED_START);
	assert_int_equal(find(&in, 9)->verdict, SCHED_WAIT_RESOURCES);
}

static void malformed_snapshot_is_refused(void **state)
{
	struct sched_node nodes[2] = {node(1, 0, 0), node(1, 0, 0)};
	const uint32_t bad[] = {0, 7};
	struct sched_part parts[] = {{bad, 2, true}};
	struct sched_req one = req(1, 1);
	struct sched_job jobs[] = {job(1, 1, 0, &one)};
	struct sched_input in = {nodes, 2, parts, 1, jobs, 1};
	struct sched_alloc alloc[2];
	assert_int_equal(sched_run(&in, alloc, 2), -EINVAL);
	assert_int_equal(nodes[0].cpus_used, 0);
	parts[0].nodes = first2;
	jobs[0].part = 3;
	assert_int_equal(sched_run(&in, alloc, 2), -EINVAL);
	jobs[0].part = 0;
	nodes[1].n_gpus = SCHED_MAX_GPUS + 1;
	assert_int_equal(sched_run(&in, alloc, 2), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(jobs_share_nodes_by_cpus),
	    cmocka_unit_test(memory_limits_sharing),
	    cmocka_unit_test(gpu_indices_are_disjoint_and_typed),
	    cmocka_unit_test(tasks_spread_over_nodes_as_slurm),
	    cmocka_unit_test(exclusive_needs_an_idle_node_and_takes_it_all),
	    cmocka_unit_test(blocking_is_per_partition),
	    cmocka_unit_test(down_partition_and_oversize_do_not_block),
	    cmocka_unit_test(equal_priority_goes_by_job_id),
	    cmocka_unit_test(malformed_snapshot_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
