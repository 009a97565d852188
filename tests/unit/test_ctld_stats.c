/* test_ctld_stats.c — sdiag's counters (src/ctld/stats.c): RPCs summed by
 * type and by user, scheduler passes (last, max, sums), job ends by kind,
 * and a reset that keeps nothing but ctld's start of backfill's total. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ctld/stats.h"

static void rpcs_by_type_and_user(void **state)
{
	struct ctld_stats s;
	stats_init(&s, 100);
	assert_int_equal(s.since, 100);
	/* more types than the first allocation holds */
	static const char *const types[] = {"job.submit", "job.query", "node.ping"};
	for (int i = 0; i < 100; i++)
		stats_rpc(&s, types[i % 3], (uint32_t)(i % 2), 10);
	assert_int_equal(s.n_rpcs, 3);
	assert_string_equal(s.rpcs[0].type, "job.submit");
	assert_int_equal(s.rpcs[0].count, 34);
	assert_int_equal(s.rpcs[0].usec, 340);
	assert_int_equal(s.n_users, 2);
	assert_int_equal(s.users[0].uid, 0);
	assert_int_equal(s.users[0].count, 50);
	assert_int_equal(s.users[1].usec, 500);
	stats_fini(&s);
}

static void passes_and_job_ends(void **state)
{
	struct ctld_stats s;
	stats_init(&s, 0);
	stats_pass(&s.main, 30, 2, 5, 1, 0, 7);
	stats_pass(&s.main, 10, 4, 3, 0, 0, 8);
	assert_int_equal(s.main.count, 2);
	assert_int_equal(s.main.last_usec, 10);
	assert_int_equal(s.main.max_usec, 30);
	assert_int_equal(s.main.sum_usec, 40);
	assert_int_equal(s.main.depth_sum, 6);
	assert_int_equal(s.main.last_queue_len, 3);
	assert_int_equal(s.main.last_when, 8);
	stats_pass(&s.backfill, 5, 1, 1, 2, 3, 9);
	assert_int_equal(s.backfill.started, 2);
	assert_int_equal(s.backfill.last_table_size, 3);
	stats_job_end(&s, STATS_END_COMPLETED);
	stats_job_end(&s, STATS_END_CANCELED);
	stats_job_end(&s, STATS_END_FAILED);
	stats_job_end(&s, STATS_END_FAILED);
	assert_int_equal(s.jobs_completed, 1);
	assert_int_equal(s.jobs_canceled, 1);
	assert_int_equal(s.jobs_failed, 2);
	stats_rpc(&s, "job.query", 5, 1);
	stats_reset(&s, 50);
	assert_int_equal(s.since, 50);
	assert_int_equal(s.jobs_failed, 0);
	assert_int_equal(s.main.count, 0);
	assert_int_equal(s.main.max_usec, 0);
	assert_int_equal(s.backfill.started_total, 0);
	assert_int_equal(s.n_rpcs, 0);
	assert_int_equal(s.n_users, 0);
	stats_rpc(&s, "job.query", 5, 1); /* the tables still work after it */
	assert_int_equal(s.rpcs[0].count, 1);
	stats_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rpcs_by_type_and_user),
	    cmocka_unit_test(passes_and_job_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
