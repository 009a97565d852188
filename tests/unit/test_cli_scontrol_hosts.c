/* Unit tests for the hostlist diagnostics of `scontrol show hostnames`
 * (cli/scontrol_hosts.c): Slurm's first line for a bad bracket range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/scontrol.h"

static const char *diag(const char *expr)
{
	static char buf[160];

	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	if (sctl_hostlist_diag(expr, buf, sizeof(buf)) == 0)
		assert_string_equal(buf, "");
	return buf;
}

static void test_good_ranges(void **state)
{
	assert_string_equal(diag("n[1-3],x"), "");
	assert_string_equal(diag("n[001-003,7]x[1-2]"), "");
	assert_string_equal(diag("n[1-65536]"), ""); /* Slurm's largest range */
	assert_string_equal(diag("n[2-]"), "");	     /* 2 to Slurm */
	assert_string_equal(diag("plain"), "");
}

static void test_bad_ranges(void **state)
{
	assert_string_equal(diag("n[3-1]"), "_parse_single_range: Invalid range: `3-1'");
	assert_string_equal(diag("n[1-3,5-4]"),
			    "_parse_single_range: Invalid range: `5-4'");
	assert_string_equal(diag("n[a-b]"), "_parse_single_range: Invalid range: `a-b'");
	assert_string_equal(diag("n[]"), "_parse_single_range: Invalid range: `'");
	assert_string_equal(diag("n[1,,2]"), "_parse_single_range: Invalid range: `'");
	assert_string_equal(diag("n[-2]"), "_parse_single_range: Invalid range: `-2'");
	assert_string_equal(diag("n[1-65537]"),
			    "_parse_single_range: Too many hosts in range `1-65537'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good_ranges),
	    cmocka_unit_test(test_bad_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
