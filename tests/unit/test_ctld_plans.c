/* test_ctld_plans.c — the plans ctld keeps between passes (sched_plans.c):
 * deep copies of a backfill pass's planned starts, replaced by the next
 * pass, or, when that pass went on where the last one stopped
 * (bf_continue), merged with the plans of the jobs it did not decide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/sched_snap.h"

static const struct sched_gpu gpus[2] = {{NULL, 1}, {NULL, 1}};
static const struct sched_node nodes[2] = {
    {.up = true, .n_cpus = 70, .n_gpus = 2, .gpus = gpus},
    {.up = true, .n_cpus = 4},
};
static const struct sched_snapshot snap = {.nodes = nodes, .n_nodes = 2};

/* A result: job 1 planned at 100 on node 0 (CPUs 3 and 65, GPU 1), job 2
 * waiting without a plan, job 3 started. */
static void result(struct sched_result *r, struct sched_decision *d,
		   struct sched_alloc *a, uint64_t *bits, uint32_t *units)
{
	bits[0] = 1ULL << 3;
	bits[1] = 1ULL << 1;
	units[0] = 0;
	units[1] = 1;
	a[0] = (struct sched_alloc){.node = 0,
				    .cpus = 2,
				    .tasks = 1,
				    .mem = 10,
				    .cpu_ids = bits,
				    .gpu_units = units};
	a[1] = (struct sched_alloc){.node = 1, .cpus = 1, .tasks = 1};
	d[0] = (struct sched_decision){.job_id = 1,
				       .verdict = SCHED_WAIT,
				       .part = 2,
				       .start = 100,
				       .time_limit = 50,
				       .alloc_n = 1};
	d[1] = (struct sched_decision){.job_id = 2, .verdict = SCHED_WAIT};
	d[2] = (struct sched_decision){
	    .job_id = 3, .verdict = SCHED_START, .alloc_off = 1, .alloc_n = 1};
	*r = (struct sched_result){
	    .decisions = d, .n_decisions = 3, .allocs = a, .n_allocs = 2};
}

static void keeps_deep_copies_of_planned_starts(void **state)
{
	struct sched_result r;
	struct sched_decision d[3];
	struct sched_alloc a[2];
	uint64_t bits[2];
	uint32_t units[2];
	result(&r, d, a, bits, units);
	struct sched_plans p = {0};
	assert_int_equal(sched_plans_set(&p, &snap, &r, false), 0);
	memset(bits, 0, sizeof(bits)); /* the result goes away after the pass */
	memset(units, 0, sizeof(units));
	assert_int_equal(p.n, 1);
	assert_int_equal(p.v[0].job_id, 1);
	assert_int_equal(p.v[0].part, 2);
	assert_int_equal(p.v[0].start, 100);
	assert_int_equal(p.v[0].end, 150);
	assert_int_equal(p.v[0].n_alloc, 1);
	assert_int_equal(p.v[0].alloc[0].cpus, 2);
	assert_int_equal(p.v[0].alloc[0].cpu_ids[0], 1ULL << 3);
	assert_int_equal(p.v[0].alloc[0].cpu_ids[1], 1ULL << 1);
	assert_int_equal(p.v[0].alloc[0].gpu_units[1], 1);
	sched_plans_clear(&p);
}

static void a_resumed_pass_keeps_the_plans_it_did_not_decide(void **state)
{
	struct sched_result r;
	struct sched_decision d[3];
	struct sched_alloc a[2];
	uint64_t bits[2];
	uint32_t units[2];
	result(&r, d, a, bits, units);
	struct sched_plans p = {0};
	assert_int_equal(sched_plans_set(&p, &snap, &r, false), 0);
	/* the next pass decides only job 9, planned unlimited on node 1 */
	struct sched_alloc a9 = {.node = 1, .cpus = 4, .tasks = 4};
	struct sched_decision d9 = {.job_id = 9,
				    .verdict = SCHED_WAIT,
				    .start = 300,
				    .time_limit = SCHED_NEVER,
				    .alloc_n = 1};
	struct sched_result r9 = {
	    .decisions = &d9, .n_decisions = 1, .allocs = &a9, .n_allocs = 1};
	assert_int_equal(sched_plans_set(&p, &snap, &r9, true), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.v[0].job_id, 9);
	assert_int_equal(p.v[0].end, SCHED_NEVER);
	assert_int_equal(p.v[1].job_id, 1); /* kept, still a deep copy */
	assert_int_equal(p.v[1].alloc[0].cpu_ids[0], 1ULL << 3);
	/* one that decides job 1 again without a plan drops its old one (and
	 * keeps job 9's); a pass from the top replaces them all */
	d9.job_id = 1;
	d9.start = 0;
	assert_int_equal(sched_plans_set(&p, &snap, &r9, true), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.v[0].job_id, 9);
	assert_int_equal(sched_plans_set(&p, &snap, &r, false), 0);
	assert_int_equal(sched_plans_set(&p, &snap, &r9, false), 0);
	assert_int_equal(p.n, 0);
	sched_plans_clear(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(keeps_deep_copies_of_planned_starts),
	    cmocka_unit_test(a_resumed_pass_keeps_the_plans_it_did_not_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
