/* test_timefmt.c — Slurm time-limit syntax and the printed forms. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/timefmt.h"

static int64_t parse_ok(const char *s)
{
	int64_t v = -12345;
	assert_int_equal(drv_time_parse_limit(s, &v), 0);
	return v;
}

static void parse_bad(const char *s)
{
	int64_t v = -12345;
	assert_int_equal(drv_time_parse_limit(s, &v), -EINVAL);
	assert_int_equal(v, -12345); /* nothing set */
}

static void test_parse_forms(void **state)
{
	assert_int_equal(parse_ok("5"), 300);
	assert_int_equal(parse_ok("0"), 0);
	assert_int_equal(parse_ok("0:30"), 30);
	assert_int_equal(parse_ok("1:02:03"), 3723);
	assert_int_equal(parse_ok("2-0"), 2 * 86400);
	assert_int_equal(parse_ok("1-2:3"), 86400 + 2 * 3600 + 3 * 60);
	assert_int_equal(parse_ok("1-2:3:4"), 86400 + 2 * 3600 + 3 * 60 + 4);
	assert_int_equal(parse_ok("48:00:00"), 48 * 3600);
	assert_int_equal(parse_ok("0:5:0"), 300);
	assert_int_equal(parse_ok("0:3600"), 3600);
	assert_int_equal(parse_ok("90"), 5400);
}

static void test_parse_unlimited(void **state)
{
	assert_int_equal(parse_ok("UNLIMITED"), DRV_INFINITE);
	assert_int_equal(parse_ok("unlimited"), DRV_INFINITE);
	assert_int_equal(parse_ok("INFINITE"), DRV_INFINITE);
	assert_int_equal(parse_ok("-1"), DRV_INFINITE);
}

static void test_parse_bad(void **state)
{
	parse_bad("99:99:99:99");
	parse_bad("abc");
	parse_bad("1-");
	parse_bad("-5");
	parse_bad("");
	parse_bad(NULL);
	parse_bad("1:");
	parse_bad(":5");
	parse_bad("1-2-3");
	parse_bad("1-2:3:4:5");
	parse_bad(" 5");
	parse_bad("5m");
	parse_bad("1234567890123");
}

static void check_elapsed(int64_t s, const char *want)
{
	char buf[32];
	drv_time_fmt_elapsed(s, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void check_limit(int64_t s, const char *want)
{
	char buf[32];
	drv_time_fmt_limit(s, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_fmt_elapsed(void **state)
{
	check_elapsed(0, "0:00");
	check_elapsed(83, "1:23");
	check_elapsed(3723, "1:02:03");
	check_elapsed(2 * 86400 + 3723, "2-01:02:03");
	check_elapsed(59 * 60 + 59, "59:59");
	check_elapsed(-5, "0:00");
	check_elapsed(DRV_INFINITE, "UNLIMITED");
}

static void test_fmt_limit(void **state)
{
	check_limit(DRV_INFINITE, "UNLIMITED");
	check_limit(DRV_NO_VAL, "NONE");
	check_limit(300, "00:05:00");
	check_limit(0, "00:00:00");
	check_limit(2 * 86400, "2-00:00:00");
	check_limit(86400 + 3723, "1-01:02:03");
}

static void test_fmt_iso(void **state)
{
	char buf[32];
	setenv("TZ", "UTC", 1);
	drv_time_fmt_iso(0, buf, sizeof(buf));
	assert_string_equal(buf, "Unknown");
	drv_time_fmt_iso(1796044369, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-30T13:12:49");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_forms), cmocka_unit_test(test_parse_unlimited),
	    cmocka_unit_test(test_parse_bad),	cmocka_unit_test(test_fmt_elapsed),
	    cmocka_unit_test(test_fmt_limit),	cmocka_unit_test(test_fmt_iso),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
