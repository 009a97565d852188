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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_forms),	     cmocka_unit_test(test_parse_refused),
	    cmocka_unit_test(test_clear_and_first),  cmocka_unit_test(test_take),
	    cmocka_unit_test(test_stored_and_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
