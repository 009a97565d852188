/* Unit tests for cli/io_pattern.c: srun's -o/-e/-i filename patterns. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/io_pattern.h"

static const struct io_pattern_ctx ctx = {.job_id = 42,
					  .step_id = 3,
					  .task_id = 7,
					  .node_id = 1,
					  .node_name = "n2",
					  .user = "alice",
					  .job_name = "sim"};

static void expect(const char *pat, const char *want)
{
	char out[128];

	assert_int_equal(io_pattern_expand(pat, &ctx, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_letters(void **state)
{
	expect("out-%t", "out-7");
	expect("%j.%s.%n.%N", "42.3.1.n2");
	expect("%J", "42.3");
	expect("%u-%x", "alice-sim");
	expect("%A_%a", "42_4294967294");
	expect("100%%", "100%");
	expect("plain", "plain");
}

static void test_width(void **state)
{
	expect("%3t", "007");
	expect("%5j-%2n", "00042-01");
	expect("%1t", "7");
}

static void test_array(void **state)
{
	struct io_pattern_ctx a = ctx;
	char out[64];

	a.array_job_id = 40;
	a.array_task_id = 2;
	assert_int_equal(io_pattern_expand("%A_%a", &a, out, sizeof(out)), 0);
	assert_string_equal(out, "40_2");
}

static void test_unknown_and_limits(void **state)
{
	char out[6];

	expect("%q-%", "%q-%");
	expect("%3q", "%3q");
	assert_int_equal(io_pattern_expand("abcdefgh", &ctx, out, sizeof(out)),
			 -ENAMETOOLONG);
	assert_string_equal(out, "abcde");
	assert_int_equal(io_pattern_expand(NULL, &ctx, out, sizeof(out)), -EINVAL);
}

static void test_per_task(void **state)
{
	assert_true(io_pattern_per_task("out-%t"));
	assert_true(io_pattern_per_task("out-%3n"));
	assert_true(io_pattern_per_task("%N.log"));
	assert_false(io_pattern_per_task("out-%j"));
	assert_false(io_pattern_per_task("100%%t"));
	assert_false(io_pattern_per_task(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_letters),  cmocka_unit_test(test_width),
	    cmocka_unit_test(test_array),    cmocka_unit_test(test_unknown_and_limits),
	    cmocka_unit_test(test_per_task),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
