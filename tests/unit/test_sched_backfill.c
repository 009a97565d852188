/* test_sched_backfill.c — time in the pure scheduler: planned starts from
 * running jobs' ends on the bf_resolution grid, a hand-computed backfill
 * schedule checked job by job, a quick pass honouring the last backfill's
 * plans, --time-min, licenses over time, array tasks, bf_max_job_test,
 * bf_max_job_user, stop and resume (bf_continue). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_fixture.h"

static void a_job_is_planned_where_running_jobs_end(void **state)
{
	struct fx *f = fx_new(1000);
	fx_node(f, 4, 0, 0, NULL);
	fx_node(f, 4, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 1);
	fx_run(f, 90, p, 1100, 0, 0xf);
	fx_run(f, 91, p, 1500, 1, 0x3);
	fx_job(f, 1, 9, p, 4, 1, 600);
	f->par.bf_resolution = 60;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	const struct sched_decision *d = fx_dec(f, 1);
	assert_int_equal(d->verdict, SCHED_WAIT);
	assert_string_equal(sched_reason_name(d->reason), "Resources");
	assert_int_equal(d->start, 1140); /* 1100 rounded up to the minute */
	assert_int_equal(d->alloc_n, 1);
	assert_int_equal(fx_alloc(f, d, 0)->node, 0);
	assert_int_equal(fx_alloc(f, d, 0)->cpu_ids[0], 0xf);
	assert_int_equal(f->res.stats.planned, 1);
	/* a quick pass never plans */
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(fx_dec(f, 1)->start, 0);
	/* beyond bf_window: not planned */
	f->par.bf_window = 60;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(fx_dec(f, 1)->start, 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	fx_free(f);
}

/* The trace, on one node of 4 CPUs at time 0, bf_resolution 1:
 *   R1 holds CPUs 0-1 until 100; R2 holds CPU 2 until 50; CPU 3 is free.
 *   pending, by priority:  J1 4 CPUs 100 s   J2 2 CPUs 40 s   J3 1 CPU 30 s
 *                          J4 1 CPU 200 s    J5 2 CPUs 10 s   J6 1 CPU 20 s
 * By hand:
 *   J1: all four CPUs are free from 100 (R1's end)    -> planned 100, 0-3
 *   J2: CPUs 2-3 are free over [50, 90) (R2 ends, J1 later) -> planned 50
 *   J3: CPU 3 over [0, 30) touches no plan             -> starts now, CPU 3
 *   J4: one CPU for 200 s: each window from 30, 50, 90, 100 meets J2 or J1;
 *       all is free again at 200 (J1's end)             -> planned 200, CPU 0
 *   J5: two CPUs for 10 s: at 30 only CPU 3 (R2 holds 2 until 50); at 50
 *       J2 and R1 hold all; [90, 100) has CPUs 2-3      -> planned 90, 2-3
 *   J6: one CPU for 20 s: [30, 50) on CPU 3, before J2  -> planned 30, CPU 3
 * J1 waits for Resources, the others behind it for Priority (J3 starts). */
static void a_hand_computed_backfill_schedule(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 4, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 91, p, 100, 0, 0x3);
	fx_run(f, 92, p, 50, 0, 0x4);
	const struct {
		uint32_t cpus;
		int64_t limit;
		const char *what;
		int64_t start;
		uint64_t ids;
	} want[6] = {
	    {4, 100, "Resources", 100, 0xf}, {2, 40, "Priority", 50, 0xc},
	    {1, 30, "start", 0, 0x8},	     {1, 200, "Priority", 200, 0x1},
	    {2, 10, "Priority", 90, 0xc},    {1, 20, "Priority", 30, 0x8},
	};
	for (uint32_t i = 0; i < 6; i++)
		fx_job(f, i + 1, 100 - i, p, want[i].cpus, 1, want[i].limit);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	for (uint32_t i = 0; i < 6; i++) {
		const struct sched_decision *d = fx_dec(f, i + 1);
		assert_non_null(d);
		assert_string_equal(fx_what(f, i + 1), want[i].what);
		assert_int_equal(d->start, want[i].start);
		assert_int_equal(d->alloc_n, 1);
		assert_int_equal(fx_alloc(f, d, 0)->cpu_ids[0], want[i].ids);
	}
	assert_int_equal(f->res.stats.started, 1);
	assert_int_equal(f->res.stats.planned, 5);
	assert_false(f->res.stats.stopped);
	assert_false(f->res.resume.valid);
	fx_free(f);
}

/* Copies the planned decisions of f's result into plans for a quick pass. */
static uint32_t plans_of(const struct fx *f, struct sched_plan *pl, uint32_t cap)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->res.n_decisions && n < cap; i++) {
		const struct sched_decision *d = &f->res.decisions[i];
		if (d->verdict != SCHED_WAIT || !d->start)
			continue;
		pl[n++] = (struct sched_plan){
		    .job_id = d->job_id,
		    .part = d->part,
		    .start = d->start,
		    .end = d->start + d->time_limit,
		    .alloc = &f->res.allocs[d->alloc_off],
		    .n_alloc = d->alloc_n,
		};
	}
	return n;
}

static void a_quick_pass_honours_the_plans_of_jobs_above(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 2, 0, 0, NULL);
	uint32_t p1 = fx_part(f, 0, 0), p2 = fx_part(f, 0, 0);
	fx_run(f, 90, p1, 100, 0, 0x1);
	fx_job(f, 1, 10, p1, 2, 1, 100); /* A: planned at 100 on both CPUs */
	fx_job(f, 3, 5, p2, 1, 1, 500);	 /* C: would run over A's plan */
	fx_job(f, 2, 6, p2, 1, 1, 50);	 /* B: done before A's plan */
	fx_job(f, 4, 20, p2, 1, 1, 500); /* D: above A */
	f->snap.n_pending = 1; /* the backfill pass that made the plan saw A only */
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	struct sched_plan pl[4];
	uint32_t n = plans_of(f, pl, 4);
	assert_int_equal(n, 1);
	assert_int_equal(pl[0].start, 100);
	struct sched_result keep = f->res; /* the plans point into it */
	memset(&f->res, 0, sizeof(f->res));
	f->snap.plans = pl;
	f->snap.n_plans = n;
	f->snap.n_pending = 3;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "Resources");
	assert_int_equal(fx_dec(f, 1)->start, 100); /* its plan, repeated */
	assert_int_equal(fx_dec(f, 1)->alloc_n, 1);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->cpu_ids[0], 0x3);
	assert_string_equal(fx_what(f, 2), "start");
	assert_string_equal(fx_what(f, 3), "Resources");
	/* D is above A: A's plan does not hold it back */
	f->snap.n_pending = 4;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 4), "start");
	assert_string_equal(fx_what(f, 2), "Resources");
	/* without the plans, C would start */
	f->snap.n_pending = 2;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 3), "Resources");
	f->snap.n_plans = 0;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 3), "start");
	sched_result_free(&keep);
	fx_free(f);
}

/* A quick pass at 100: A (above P) starts on n0 where the last backfill
 * pass planned P from 100 (CPU plan_cpus, 600 MiB); P's plan is still
 * honoured for the jobs after it, and with A it holds more of n0 than n0
 * has (CPU 0 twice, or 1,400 of 1,000 MiB). C needs one CPU and no memory:
 * n0 still has a CPU nobody holds, so C starts there, first in order. */
static void overbooked(uint32_t cpus, uint64_t plan_cpus, uint64_t c_cpu)
{
	struct fx *f = fx_new(100);
	fx_node(f, cpus, 1000, 0, NULL); /* n0, first by weight */
	fx_node(f, cpus, 1000, 0, NULL);
	f->nodes[1].weight = 1;
	uint32_t all = fx_part(f, 0, 1), small = fx_part(f, 0, 0);
	fx_req(f, fx_job(f, 1, 30, all, 1, 1, 600))->mem_per_node = 800;   /* A */
	fx_req(f, fx_job(f, 2, 20, small, 1, 1, 600))->mem_per_node = 600; /* P */
	fx_job(f, 3, 10, all, 1, 1, 600);				   /* C */
	uint64_t ids[1] = {plan_cpus};
	struct sched_alloc a = {
	    .node = 0, .cpus = 1, .tasks = 1, .mem = 600, .cpu_ids = ids};
	struct sched_plan pl = {.job_id = 2,
				.part = small,
				.start = 100,
				.end = 700,
				.alloc = &a,
				.n_alloc = 1};
	f->snap.plans = &pl;
	f->snap.n_plans = 1;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->node, 0);
	assert_string_equal(fx_what(f, 2), "Resources");
	assert_string_equal(fx_what(f, 3), "start");
	assert_int_equal(fx_alloc(f, fx_dec(f, 3), 0)->node, 0);
	assert_int_equal(fx_alloc(f, fx_dec(f, 3), 0)->cpu_ids[0], c_cpu);
	fx_free(f);
}

static void a_plan_honoured_over_a_start_hides_no_free_cpu(void **state)
{
	overbooked(2, 0x1, 0x2); /* CPU 0 held twice: CPU 1 is free */
	overbooked(4, 0x2, 0x4); /* memory over, which C does not need */
}

static void time_min_starts_with_the_longest_limit_that_fits(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 2, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 90, p, 1000, 0, 0x1);
	fx_job(f, 1, 10, p, 2, 1, 100); /* planned at 1000 on both CPUs */
	struct sched_pending *b = fx_job(f, 2, 5, p, 1, 1, 2000);
	b->time_min = 300;
	struct sched_pending *c = fx_job(f, 3, 4, p, 1, 1, 2000);
	c->time_min = 1500; /* even its minimum runs into job 1's plan */
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	const struct sched_decision *d = fx_dec(f, 2);
	assert_int_equal(d->verdict, SCHED_START);
	assert_int_equal(d->time_limit, 1000); /* up to job 1's planned start */
	assert_int_equal(fx_alloc(f, d, 0)->cpu_ids[0], 0x2);
	assert_int_equal(fx_dec(f, 3)->verdict, SCHED_WAIT);
	assert_int_equal(fx_dec(f, 3)->start, 1100); /* after job 1: its full limit */
	assert_int_equal(fx_dec(f, 3)->time_limit, 2000);
	/* without a plan in the way it runs with its own limit */
	f->snap.n_running = 0;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_string_equal(fx_what(f, 2), "Resources");
	assert_int_equal(fx_dec(f, 2)->start, 100);
	assert_int_equal(fx_dec(f, 2)->time_limit, 2000);
	fx_free(f);
}

static void licenses_are_scheduled_over_time(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 8, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0), l = fx_lic(f, "matlab", 2);
	struct sched_running *r = fx_run(f, 90, p, 500, 0, 0x1);
	f->rlics[0][0] = (struct sched_lic_req){l, 1};
	r->lics = f->rlics[0];
	r->n_lics = 1;
	fx_job_lic(f, fx_job(f, 1, 10, p, 1, 1, 1000), l, 2);
	fx_job_lic(f, fx_job(f, 2, 5, p, 1, 1, 400), l, 1);
	fx_job_lic(f, fx_job(f, 3, 4, p, 1, 1, 600), l, 1);
	fx_job(f, 4, 3, p, 1, 1, 600); /* no license: nothing holds it */
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "Licenses");
	assert_int_equal(fx_dec(f, 1)->start, 500);
	assert_string_equal(fx_what(f, 2), "start"); /* ends at 400, before 500 */
	assert_string_equal(fx_what(f, 3), "Licenses");
	assert_int_equal(fx_dec(f, 3)->start, 1500); /* after job 1 */
	assert_string_equal(fx_what(f, 4), "start");
	/* a quick pass: licenses do not hold the partition up */
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "Licenses");
	assert_string_equal(fx_what(f, 2), "start");
	assert_string_equal(fx_what(f, 4), "start");
	/* more than exist: never */
	fx_job_lic(f, fx_job(f, 5, 99, p, 1, 1, 10), l, 3);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 5), "Licenses");
	assert_int_equal(fx_dec(f, 5)->start, 0);
	fx_free(f);
}

static void array_tasks_start_as_far_as_they_fit(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 2, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_job(f, 1, 10, p, 1, 1, 100)->count = 3;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(f->res.n_decisions, 3);
	assert_int_equal(fx_dec_k(f, 1, 0)->verdict, SCHED_START);
	assert_int_equal(fx_dec_k(f, 1, 1)->verdict, SCHED_START);
	assert_int_not_equal(fx_alloc(f, fx_dec_k(f, 1, 0), 0)->cpu_ids[0],
			     fx_alloc(f, fx_dec_k(f, 1, 1), 0)->cpu_ids[0]);
	assert_int_equal(fx_dec_k(f, 1, 2)->verdict, SCHED_WAIT);
	assert_int_equal(fx_dec_k(f, 1, 2)->start, 100);
	assert_int_equal(fx_dec_k(f, 1, 2)->index, 0);
	f->pending[0].count = 2; /* all that may start do: no waiting decision */
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.n_decisions, 2);
	fx_free(f);
}

static void bf_max_job_test_and_bf_max_job_user_bound_the_pass(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	for (uint32_t id = 1; id <= 5; id++)
		fx_job(f, id, 100 - id, p, 1, 1, 100);
	f->pending[4].uid = 2000;
	f->par.bf_max_job_test = 3;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(f->res.n_decisions, 3);
	assert_int_equal(f->res.stats.tested, 3);
	assert_true(f->res.stats.stopped);
	assert_false(f->res.resume.valid); /* bf_continue is for stop only */
	f->par.bf_max_job_test = 100;
	f->par.bf_max_job_user = 2;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_int_equal(fx_dec(f, 2)->start, 100);
	assert_string_equal(fx_what(f, 3), "-"); /* uid 1000's third */
	assert_string_equal(fx_what(f, 4), "-");
	assert_int_equal(fx_dec(f, 5)->start, 200); /* another user */
	fx_free(f);
}

static int stop_calls;

static bool stop_on_first_ask(void *arg)
{
	stop_calls++;
	return true;
}

static void stop_ends_the_pass_and_resume_goes_on_with_its_plans(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t p = fx_part(f, 0, 0);
	fx_run(f, 90, p, 100, 0, 0x1);
	for (uint32_t id = 1; id <= 20; id++)
		fx_job(f, id, 100 - id, p, 1, 1, 100);
	f->par.stop = stop_on_first_ask;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(stop_calls, 1);
	assert_true(f->res.stats.stopped);
	assert_int_equal(f->res.n_decisions, 16); /* asked every 16 jobs */
	assert_int_equal(fx_dec(f, 16)->start, 1600);
	assert_true(f->res.resume.valid);
	assert_int_equal(f->res.resume.job_id, 16);
	assert_int_equal(f->res.resume.priority, 84);
	struct sched_plan pl[20];
	f->snap.plans = pl;
	f->snap.n_plans = plans_of(f, pl, 20);
	struct sched_result keep = f->res;
	memset(&f->res, 0, sizeof(f->res));
	f->par.resume = keep.resume;
	f->par.stop = NULL;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(f->res.n_decisions, 4);
	assert_null(fx_dec(f, 16));
	/* the plans before the resume point stand: 17 goes after all 16 */
	assert_int_equal(fx_dec(f, 17)->start, 1700);
	assert_int_equal(fx_dec(f, 20)->start, 2000);
	sched_result_free(&keep);
	fx_free(f);
}

static void a_job_in_two_partitions_takes_the_earliest(void **state)
{
	struct fx *f = fx_new(0);
	fx_node(f, 1, 0, 0, NULL);
	fx_node(f, 1, 0, 0, NULL);
	uint32_t a = fx_part(f, 0, 0), b = fx_part(f, 1, 1);
	struct sched_pending *j = fx_job(f, 1, 10, a, 1, 1, 100);
	f->jparts[0][1] = b;
	j->n_parts = 2;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(fx_dec(f, 1)->part, a); /* both free: the order given */
	fx_run(f, 90, a, 500, 0, 0x1);
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(fx_dec(f, 1)->part, b);
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->node, 1);
	fx_run(f, 91, b, 300, 1, 0x1);
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(fx_dec(f, 1)->part, b); /* 300 before 500 */
	assert_int_equal(fx_dec(f, 1)->start, 300);
	f->running[1].end = 500;
	assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
	assert_int_equal(fx_dec(f, 1)->part, a); /* a tie: the order given */
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_job_is_planned_where_running_jobs_end),
	    cmocka_unit_test(a_hand_computed_backfill_schedule),
	    cmocka_unit_test(a_quick_pass_honours_the_plans_of_jobs_above),
	    cmocka_unit_test(time_min_starts_with_the_longest_limit_that_fits),
	    cmocka_unit_test(licenses_are_scheduled_over_time),
	    cmocka_unit_test(array_tasks_start_as_far_as_they_fit),
	    cmocka_unit_test(bf_max_job_test_and_bf_max_job_user_bound_the_pass),
	    cmocka_unit_test(stop_ends_the_pass_and_resume_goes_on_with_its_plans),
	    cmocka_unit_test(a_job_in_two_partitions_takes_the_earliest),
	    cmocka_unit_test(a_plan_honoured_over_a_start_hides_no_free_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
