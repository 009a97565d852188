/* test_prio_calc.c — fair-share usage arithmetic (ctld/prio_calc.c): what a
 * job is billed with and without TRESBillingWeights, what seconds of it add
 * with a QOS UsageFactor, when each PriorityUsageResetPeriod resets next
 * (Slurm's _next_reset, here in UTC), and the protocol's fixed point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "ctld/prio_calc.h"

/* 2024-03-13 15:30:00 UTC, a Wednesday. */
#define WED 1710343800LL
#define DAY 86400LL

static void test_billing(void **state)
{
	struct prio_held h = {.cpus = 1, .nodes = 1, .gpus = 0, .mem = 8192};
	assert_true(prio_billing(NULL, &h) == 1.0); /* no weights: CPUs */
	struct drv_tres_weights w = {0};
	assert_true(prio_billing(&w, &h) == 1.0); /* unset list: CPUs */
	struct drv_error err;
	/* slurm.conf(5)'s example: 1 CPU, 8 GB: 1*1.0 + 8*0.25 + 0*2.0 = 3.0 */
	assert_int_equal(
	    drv_tres_weights_parse("CPU=1.0,Mem=0.25G,GRES/gpu=2.0", &w, &err), 0);
	assert_true(prio_billing(&w, &h) == 3.0);
	h.gpus = 2;
	h.nodes = 2;
	assert_true(prio_billing(&w, &h) == 7.0);
	/* a weight for CPUs only bills nothing else */
	assert_int_equal(drv_tres_weights_parse("cpu=4", &w, &err), 0);
	assert_true(prio_billing(&w, &h) == 4.0);
}

static void test_accrue(void **state)
{
	assert_true(prio_accrue(3.0, 10, 1.0) == 30.0);
	assert_true(prio_accrue(3.0, 10, 0.5) == 15.0); /* UsageFactor */
	assert_true(prio_accrue(3.0, 10, 0.0) == 0.0);
	assert_true(prio_accrue(3.0, 0, 1.0) == 0.0);
	assert_true(prio_accrue(3.0, -5, 1.0) == 0.0); /* a clock stepped back */
}

static void test_next_reset(void **state)
{
	enum drv_prio_reset r;
	int64_t midnight = WED - 15 * 3600 - 30 * 60;
	assert_int_equal(prio_next_reset(DRV_PRIO_RESET_DAILY, WED, WED), midnight + DAY);
	/* a daily reset long missed: the last one before now */
	assert_int_equal(prio_next_reset(DRV_PRIO_RESET_DAILY, WED, WED + 10 * DAY),
			 midnight + 10 * DAY);
	/* weekly: the next Sunday 00:00 (2024-03-17) */
	assert_int_equal(prio_next_reset(DRV_PRIO_RESET_WEEKLY, WED, WED),
			 midnight + 4 * DAY);
	/* monthly: 2024-04-01; quarterly: 2024-04-01; yearly: 2025-01-01 */
	assert_int_equal(prio_next_reset(DRV_PRIO_RESET_MONTHLY, WED, WED), 1711929600LL);
	assert_int_equal(prio_next_reset(DRV_PRIO_RESET_QUARTERLY, WED, WED),
			 1711929600LL);
	assert_int_equal(prio_next_reset(DRV_PRIO_RESET_YEARLY, WED, WED), 1735689600LL);
	/* December: into the next year (2024-12-15 -> 2025-01-01) */
	assert_int_equal(
	    prio_next_reset(DRV_PRIO_RESET_MONTHLY, 1734220800LL, 1734220800LL),
	    1735689600LL);
	assert_int_equal(
	    prio_next_reset(DRV_PRIO_RESET_QUARTERLY, 1734220800LL, 1734220800LL),
	    1735689600LL);
	/* a quarter's first day stays in its quarter: 2024-07-01 -> 10-01 */
	assert_int_equal(
	    prio_next_reset(DRV_PRIO_RESET_QUARTERLY, 1719792000LL, 1719792000LL),
	    1727740800LL);
	for (r = DRV_PRIO_RESET_NONE; r <= DRV_PRIO_RESET_NOW; r++)
		assert_int_equal(prio_next_reset(r, WED, WED), 0);
}

static void test_fixed(void **state)
{
	assert_int_equal(prio_fixed(0.375, PRIO_BILLIONTHS), 375000000);
	assert_int_equal(prio_fixed(1.0 / 3, PRIO_BILLIONTHS), 333333333);
	assert_int_equal(prio_fixed(12.3456, PRIO_THOUSANDTHS), 12346);
	assert_int_equal(prio_fixed(-1.0, PRIO_BILLIONTHS), 0);
	assert_int_equal(prio_fixed(0.0 / 0.0, PRIO_BILLIONTHS), 0);
	assert_int_equal(prio_fixed(1e300, PRIO_BILLIONTHS), INT64_MAX);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_billing),
	    cmocka_unit_test(test_accrue),
	    cmocka_unit_test(test_next_reset),
	    cmocka_unit_test(test_fixed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
