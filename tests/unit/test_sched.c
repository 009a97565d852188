/* test_sched.c — the pure scheduler: priority order, strict per partition,
 * whole free nodes, and refusal of malformed snapshots. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched/sched.h"

static const uint32_t all4[] = {0, 1, 2, 3};
static const uint32_t first2[] = {0, 1};

static struct sched_job job(uint32_t id, uint64_t prio, uint32_t part, uint32_t n)
{
	struct sched_job j = {
	    .job_id = id, .priority = prio, .part = part, .num_nodes = n};
	return j;
}

static const struct sched_job *find(const struct sched_input *in, uint32_t id)
{
	for (size_t i = 0; i < in->n_jobs; i++)
		if (in->jobs[i].job_id == id)
			return &in->jobs[i];
	return NULL;
}

static void starts_in_priority_order(void **state)
{
	struct sched_node nodes[4] = {{true}, {true}, {true}, {true}};
	struct sched_part parts[] = {{all4, 4, true}};
	struct sched_job jobs[] = {job(1, 10, 0, 2), job(2, 30, 0, 2), job(3, 20, 0, 1)};
	struct sched_input in = {nodes, 4, parts, 1, jobs, 3};
	uint32_t alloc[8];
	assert_int_equal(sched_run(&in, alloc, 8), 2);
	const struct sched_job *j2 = find(&in, 2), *j3 = find(&in, 3), *j1 = find(&in, 1);
	assert_int_equal(j2->verdict, SCHED_START);
	assert_int_equal(alloc[j2->alloc_off], 0);
	assert_int_equal(alloc[j2->alloc_off + 1], 1);
	assert_int_equal(j3->verdict, SCHED_START);
	assert_int_equal(alloc[j3->alloc_off], 2);
	/* job 1 needs two nodes, one is left: it waits for resources */
	assert_int_equal(j1->verdict, SCHED_WAIT_RESOURCES);
	assert_false(nodes[0].free);
	assert_true(nodes[3].free);
}

static void blocked_job_holds_back_lower_priority(void **state)
{
	struct sched_node nodes[4] = {{true}, {false}, {false}, {false}};
	struct sched_part parts[] = {{all4, 4, true}};
	struct sched_job jobs[] = {job(1, 50, 0, 2), job(2, 40, 0, 1)};
	struct sched_input in = {nodes, 4, parts, 1, jobs, 2};
	uint32_t alloc[4];
	assert_int_equal(sched_run(&in, alloc, 4), 0);
	assert_int_equal(find(&in, 1)->verdict, SCHED_WAIT_RESOURCES);
	/* a single free node would fit job 2, but strict priority keeps it waiting */
	assert_int_equal(find(&in, 2)->verdict, SCHED_WAIT_PRIORITY);
	assert_true(nodes[0].free);
}

static void blocking_is_per_partition(void **state)
{
	struct sched_node nodes[4] = {{false}, {true}, {false}, {true}};
	const uint32_t p1[] = {0, 1}, p2[] = {2, 3};
	struct sched_part parts[] = {{p1, 2, true}, {p2, 2, true}};
	struct sched_job jobs[] = {job(1, 50, 0, 2), job(2, 40, 1, 1), job(3, 30, 0, 1)};
	struct sched_input in = {nodes, 4, parts, 2, jobs, 3};
	uint32_t alloc[4];
	assert_int_equal(sched_run(&in, alloc, 4), 1);
	assert_int_equal(find(&in, 2)->verdict, SCHED_START);
	assert_int_equal(alloc[find(&in, 2)->alloc_off], 3);
	assert_int_equal(find(&in, 3)->verdict, SCHED_WAIT_PRIORITY);
}

static void equal_priority_goes_by_job_id(void **state)
{
	struct sched_node nodes[2] = {{true}, {false}};
	struct sched_part parts[] = {{first2, 2, true}};
	struct sched_job jobs[] = {job(9, 5, 0, 1), job(4, 5, 0, 1)};
	struct sched_input in = {nodes, 2, parts, 1, jobs, 2};
	uint32_t alloc[2];
	assert_int_equal(sched_run(&in, alloc, 2), 1);
	assert_int_equal(find(&in, 4)->verdict, SCHED_START);
	assert_int_equal(find(&in, 9)->verdict, SCHED_WAIT_RESOURCES);
}

static void down_partition_and_oversize_do_not_block(void **state)
{
	struct sched_node nodes[4] = {{true}, {true}, {true}, {true}};
	const uint32_t p2[] = {2, 3};
	struct sched_part parts[] = {{first2, 2, false}, {p2, 2, true}};
	struct sched_job jobs[] = {job(1, 50, 0, 1), job(2, 40, 1, 3), job(3, 30, 1, 2)};
	struct sched_input in = {nodes, 4, parts, 2, jobs, 3};
	uint32_t alloc[8];
	assert_int_equal(sched_run(&in, alloc, 8), 1);
	assert_int_equal(find(&in, 1)->verdict, SCHED_WAIT_PART_DOWN);
	assert_int_equal(find(&in, 2)->verdict, SCHED_WAIT_NODE_CONFIG);
	assert_int_equal(find(&in, 3)->verdict, SCHED_START);
	assert_string_equal(sched_verdict_reason(SCHED_WAIT_PRIORITY), "Priority");
	assert_string_equal(sched_verdict_reason(SCHED_WAIT_RESOURCES), "Resources");
}

static void malformed_snapshot_is_refused(void **state)
{
	struct sched_node nodes[2] = {{true}, {true}};
	const uint32_t bad[] = {0, 7};
	struct sched_part parts[] = {{bad, 2, true}};
	struct sched_job jobs[] = {job(1, 1, 0, 1)};
	struct sched_input in = {nodes, 2, parts, 1, jobs, 1};
	uint32_t alloc[2];
	assert_int_equal(sched_run(&in, alloc, 2), -EINVAL);
	assert_true(nodes[0].free);
	parts[0].nodes = first2;
	jobs[0].part = 3;
	assert_int_equal(sched_run(&in, alloc, 2), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(starts_in_priority_order),
	    cmocka_unit_test(blocked_job_holds_back_lower_priority),
	    cmocka_unit_test(blocking_is_per_partition),
	    cmocka_unit_test(equal_priority_goes_by_job_id),
	    cmocka_unit_test(down_partition_and_oversize_do_not_block),
	    cmocka_unit_test(malformed_snapshot_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
