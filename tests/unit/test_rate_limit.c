/* test_rate_limit.c — the per-uid token buckets of SlurmctldParameters=
 * rl_enable (src/ctld/rate_limit.c), with Slurm's semantics: a new uid
 * starts with a full bucket, an empty bucket refuses and takes nothing,
 * tokens come back rl_refill_rate per rl_refill_period boundary up to
 * rl_bucket_size, uids do not share buckets, a full table leaves newcomers
 * unlimited, rl_log_freq spaces the log lines, and off means off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ctld/rate_limit.h"

static struct drv_rl_conf conf(uint32_t bucket, uint32_t rate, uint32_t period)
{
	return (struct drv_rl_conf){.enable = true,
				    .bucket_size = bucket,
				    .refill_rate = rate,
				    .refill_period = period,
				    .table_size = 8192,
				    .log_freq = 0};
}

/* How many of n requests of uid at now were served. */
static int served(struct rate_limit *rl, const struct drv_rl_conf *c, uint32_t uid,
		  int64_t now, int n)
{
	int ok = 0;
	bool log_now;
	for (int i = 0; i < n; i++)
		ok += rate_limit_check(rl, c, uid, now, &log_now) == RATE_OK;
	return ok;
}

static void burst_then_refill(void **state)
{
	(void)state;
	struct rate_limit *rl = rate_limit_new();
	struct drv_rl_conf c = conf(30, 2, 1);
	assert_int_equal(served(rl, &c, 1000, 100, 40), 30); /* the burst */
	assert_int_equal(rate_limit_refused(rl), 10);
	assert_int_equal(served(rl, &c, 1000, 100, 5), 0);    /* same second */
	assert_int_equal(served(rl, &c, 1000, 101, 5), 2);    /* one period: 2 */
	assert_int_equal(served(rl, &c, 1000, 104, 10), 6);   /* three: 6 */
	assert_int_equal(served(rl, &c, 1000, 1000, 40), 30); /* never above */
	rate_limit_free(rl);
}

static void periods_are_whole(void **state)
{
	(void)state;
	struct rate_limit *rl = rate_limit_new();
	struct drv_rl_conf c = conf(4, 3, 10);
	assert_int_equal(served(rl, &c, 7, 101, 9), 4);
	assert_int_equal(served(rl, &c, 7, 109, 1), 0); /* same period (100..109) */
	assert_int_equal(served(rl, &c, 7, 110, 9), 3); /* a boundary crossed */
	assert_int_equal(served(rl, &c, 7, 90, 9), 0);	/* a clock stepped back */
	rate_limit_free(rl);
}

static void users_do_not_share(void **state)
{
	(void)state;
	struct rate_limit *rl = rate_limit_new();
	struct drv_rl_conf c = conf(3, 1, 1);
	assert_int_equal(served(rl, &c, 1001, 50, 10), 3);
	assert_int_equal(served(rl, &c, 1002, 50, 10), 3);
	/* 1001 + 8192 lands on 1001's slot and is kept apart */
	assert_int_equal(served(rl, &c, 1001 + 8192, 50, 10), 3);
	assert_int_equal(served(rl, &c, 0, 50, 100), 100); /* root: never */
	rate_limit_free(rl);
}

static void full_table_leaves_newcomers_unlimited(void **state)
{
	(void)state;
	struct rate_limit *rl = rate_limit_new();
	struct drv_rl_conf c = conf(1, 1, 1);
	c.table_size = 2;
	bool log_now;
	assert_int_equal(served(rl, &c, 1, 5, 2), 1);
	assert_int_equal(served(rl, &c, 2, 5, 2), 1);
	assert_int_equal(rate_limit_check(rl, &c, 3, 5, &log_now), RATE_UNTRACKED);
	assert_true(log_now); /* once */
	assert_int_equal(rate_limit_check(rl, &c, 3, 5, &log_now), RATE_UNTRACKED);
	assert_false(log_now);
	c.table_size = 4; /* reconfigure: a new table, full buckets again */
	assert_int_equal(served(rl, &c, 1, 5, 2), 1);
	assert_int_equal(served(rl, &c, 3, 5, 2), 1);
	rate_limit_free(rl);
}

static void log_freq_spaces_lines(void **state)
{
	(void)state;
	struct rate_limit *rl = rate_limit_new();
	struct drv_rl_conf c = conf(1, 1, 1000);
	bool log_now;
	c.log_freq = 10;
	assert_int_equal(served(rl, &c, 9, 100, 1), 1);
	assert_int_equal(rate_limit_check(rl, &c, 9, 100, &log_now), RATE_LIMITED);
	assert_true(log_now);
	assert_int_equal(rate_limit_check(rl, &c, 9, 105, &log_now), RATE_LIMITED);
	assert_false(log_now);
	assert_int_equal(rate_limit_check(rl, &c, 9, 110, &log_now), RATE_LIMITED);
	assert_true(log_now);
	c.log_freq = -1;
	assert_int_equal(rate_limit_check(rl, &c, 9, 500, &log_now), RATE_LIMITED);
	assert_false(log_now);
	c.log_freq = 0; /* every one */
	assert_int_equal(rate_limit_check(rl, &c, 9, 500, &log_now), RATE_LIMITED);
	assert_true(log_now);
	assert_int_equal(rate_limit_check(rl, &c, 9, 500, &log_now), RATE_LIMITED);
	assert_true(log_now);
	rate_limit_free(rl);
}

static void off_means_off(void **state)
{
	(void)state;
	struct rate_limit *rl = rate_limit_new();
	struct drv_rl_conf c = conf(1, 1, 1);
	c.enable = false;
	assert_int_equal(served(rl, &c, 1000, 1, 1000), 1000);
	assert_int_equal(rate_limit_refused(rl), 0);
	rate_limit_free(rl);
	rate_limit_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(burst_then_refill),
	    cmocka_unit_test(periods_are_whole),
	    cmocka_unit_test(users_do_not_share),
	    cmocka_unit_test(full_table_leaves_newcomers_unlimited),
	    cmocka_unit_test(log_freq_spaces_lines),
	    cmocka_unit_test(off_means_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
