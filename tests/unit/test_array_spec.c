/* test_array_spec.c — sbatch --array specs as Slurm's controller reads them,
 * and the pending remainder written back as squeue/scontrol print it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/array_spec.h"

/* Parses spec under max and checks the set written back, the count, min,
 * max, step and throttle. */
static void check(const char *spec, uint32_t max, const char *want, uint32_t count,
		  uint32_t min, uint32_t hi, uint32_t step, uint32_t throttle)
{
	struct drv_array a;
	assert_int_equal(drv_array_parse(spec, max, &a), 0);
	char *s = drv_array_format(&a, a.throttle);
	assert_non_null(s);
	assert_string_equal(s, want);
	assert_int_equal(a.count, count);
	assert_int_equal(a.min, min);
	assert_int_equal(a.max, hi);
	assert_int_equal(a.step, step);
	assert_int_equal(a.throttle, throttle);
	free(s);
	drv_array_fini(&a);
}

static void test_parse_forms(void **state)
{
	(void)state;
	check("0-99", 1001, "0-99", 100, 0, 99, 1, 0);
	check("1,3,5", 1001, "1,3,5", 3, 1, 5, 1, 0);
	check("0-15:4", 1001, "0,4,8,12", 4, 0, 12, 4, 0);
	check("0-99%4", 1001, "0-99%4", 100, 0, 99, 1, 4);
	check("1-7:3,20,30-31%3", 1001, "1,4,7,20,30-31%3", 6, 1, 31, 3, 3);
	check("0-4,10-12:2", 1001, "0-4,10,12", 7, 0, 12, 2, 0);
	check("5,1-3", 1001, "1-3,5", 4, 1, 5, 1, 0);
	check("1,,3", 1001, "1,3", 2, 1, 3, 1, 0); /* empty tokens skipped */
	check(",1", 1001, "1", 1, 1, 1, 1, 0);
	check("1-5%", 1001, "1-5", 5, 1, 5, 1, 0); /* "%" alone: no throttle */
	check("1-5%0", 1001, "1-5", 5, 1, 5, 1, 0);
	check("0-10%5%", 1001, "0-10%5", 11, 0, 10, 1, 5);
	check("[1-3]", 1001, "1-3", 3, 1, 3, 1, 0);
	check("1000", 1001, "1000", 1, 1000, 1000, 1, 0); /* MaxArraySize-1 */
}

static void test_parse_refused(void **state)
{
	(void)state;
	const char *bad[] = {"abc",	"1-0",	"5-3",	  "0-10:0",	"-1",
			     "0-10:-1", "1:5",	"1-3x",	  "1-",		"",
			     ",",	"1001", "0-1001", "99999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drv_array a = {0};
		assert_int_equal(drv_array_parse(bad[i], 1001, &a), -EINVAL);
		assert_null(a.bits); /* untouched */
	}
}

static void test_clear_and_first(void **state)
{
	(void)state;
	struct drv_array a;
	assert_int_equal(drv_array_parse("2-6", 1001, &a), 0);
	assert_int_equal(drv_array_first(&a), 2);
	drv_array_clear(&a, 2);
	drv_array_clear(&a, 4);
	drv_array_clear(&a, 4); /* twice: no change */
	assert_int_equal(a.count, 3);
	assert_int_equal(drv_array_first(&a), 3);
	char *s = drv_array_format(&a, 2);
	assert_string_equal(s, "3,5-6%2");
	free(s);
	drv_array_clear(&a, 3);
	drv_array_clear(&a, 5);
	drv_array_clear(&a, 6);
	assert_int_equal(a.count, 0);
	assert_int_equal(drv_array_first(&a), -1);
	assert_false(drv_array_test(&a, 6));
	drv_array_fini(&a);
}

/* A stored remainder parses back without a bound; a large set stays one
 * bitmap of (max+1)/8 bytes. */
static void test_take(void **state)
{
	struct drv_array from, set, out;
	assert_int_equal(drv_array_parse("0-9:3", 0, &from), 0); /* 0,3,6,9 */
	assert_int_equal(drv_array_parse("2-6,42", 0, &set), 0);
	assert_int_equal(drv_array_take(&from, &set, &out), 0);
	assert_int_equal(out.count, 2);
	assert_int_equal(out.min, 3);
	assert_int_equal(out.max, 6);
	assert_int_equal(out.step, 3);
	assert_int_equal(from.count, 2);
	assert_int_equal(from.min, 0);
	assert_int_equal(from.max, 9);
	assert_false(drv_array_test(&from, 3));
	assert_true(drv_array_test(&out, 6));
	drv_array_fini(&out);
	/* the rest whole: from is left empty */
	drv_array_fini(&set);
	assert_int_equal(drv_array_parse("0-99", 0, &set), 0);
	assert_int_equal(drv_array_take(&from, &set, &out), 0);
	assert_int_equal(out.count, 2);
	assert_int_equal(from.count, 0);
	assert_int_equal(drv_array_first(&from), -1);
	drv_array_fini(&out);
	drv_array_fini(&set);
	drv_array_fini(&from);
}

static void test_stored_and_large(void **state)
{
	(void)state;
	struct drv_array a;
	assert_int_equal(drv_array_parse("8-99999%10", 0, &a), 0);
	assert_int_equal(a.count, 99992);
	assert_int_equal(a.nbits, 100000);
	char *s = drv_array_format(&a, a.throttle);
	assert_string_equal(s, "8-99999%10");
	free(s);
	drv_array_fini(&a);
	/* many ranges: the text grows past its first buffer */
	assert_int_equal(drv_array_parse("0-9999:2", 10000, &a), 0);
	s = drv_array_format(&a, 7);
	assert_int_equal(strncmp(s, "0,2,4,6,", 8), 0);
	assert_string_equal(s + strlen(s) - 7, ",9998%7");
	free(s);
	drv_array_fini(&a);
}

/* min and max as a full rescan finds them. */
static void assert_bounds(const struct drv_array *a)
{
	uint32_t lo = 0, hi = 0, n = 0;
	for (uint32_t i = 0; i < a->nbits; i++)
		if (drv_array_test(a, i)) {
			lo = n++ ? lo : i;
			hi = i;
		}
	assert_int_equal(a->count, n);
	assert_int_equal(a->min, lo);
	assert_int_equal(a->max, hi);
}

/* Clearing the lowest (as ctld splits tasks off) or the highest index moves
 * min/max to the next set one, across empty bytes, without rescanning the
 * whole set each time: fuzz_array_spec's slow unit "0-30220,30-302" took
 * 32 s, and a MaxArraySize array cost ctld 10^10 bit tests over its life. */
static void test_clear_keeps_bounds_cheaply(void **state)
{
	(void)state;
	struct drv_array a;
	assert_int_equal(drv_array_parse("3,5,40-41,97,200", 1001, &a), 0);
	const uint32_t order[] = {3, 200, 5, 97, 41, 40};
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		drv_array_clear(&a, order[k]);
		assert_bounds(&a);
	}
	drv_array_fini(&a);
	assert_int_equal(drv_array_parse("0-999:7,8-15,1000", 0, &a), 0);
	for (uint32_t i = 0; i <= 1000; i += 3) {
		drv_array_clear(&a, i);
		assert_bounds(&a);
	}
	drv_array_fini(&a);

	/* 2 * 10^6 clears from both ends: linear, well under a second even
	 * under ASan; a rescan per clear is 10^12 bit tests */
	assert_int_equal(drv_array_parse("0-1999999", 0, &a), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t k = 0; a.count; k++) {
		int64_t first = drv_array_first(&a);
		assert_true(first >= 0);
		drv_array_clear(&a, k % 2 ? a.max : (uint32_t)first);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 20);
	assert_int_equal(drv_array_first(&a), -1);
	drv_array_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_forms),
	    cmocka_unit_test(test_parse_refused),
	    cmocka_unit_test(test_clear_and_first),
	    cmocka_unit_test(test_take),
	    cmocka_unit_test(test_stored_and_large),
	    cmocka_unit_test(test_clear_keeps_bounds_cheaply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
