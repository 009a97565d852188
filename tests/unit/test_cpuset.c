/* test_cpuset.c — CPU id sets: Slurm's range text from bitmaps and back,
 * truncation, counting, and refusal of malformed or out-of-range text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/cpuset.h"

static void formats_ranges(void **state)
{
	uint64_t bits[2] = {0x0f | 1ULL << 8 | 1ULL << 10 | 1ULL << 11, 1ULL << 6};
	char buf[64];
	assert_int_equal(drv_cpuset_format(bits, 128, buf, sizeof(buf)), 14);
	assert_string_equal(buf, "0-3,8,10-11,70");
	uint64_t none[1] = {0};
	drv_cpuset_format(none, 64, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* bits past n_bits are not shown */
	uint64_t high[1] = {1ULL << 5 | 1};
	drv_cpuset_format(high, 4, buf, sizeof(buf));
	assert_string_equal(buf, "0");
}

static void truncates_like_snprintf(void **state)
{
	uint64_t bits[1] = {0x0f | 1ULL << 8};
	char buf[5];
	assert_int_equal(drv_cpuset_format(bits, 64, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "0-3");
}

static void parses_and_round_trips(void **state)
{
	uint64_t bits[2] = {~0ULL, ~0ULL};
	assert_int_equal(drv_cpuset_parse("0-3,8,10-11,70", bits, 128), 0);
	assert_int_equal(bits[0], 0x0f | 1ULL << 8 | 1ULL << 10 | 1ULL << 11);
	assert_int_equal(bits[1], 1ULL << 6);
	assert_int_equal(drv_cpuset_count(bits, 128), 8);
	char buf[64];
	drv_cpuset_format(bits, 128, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8,10-11,70");
	assert_int_equal(drv_cpuset_parse("", bits, 128), 0);
	assert_int_equal(drv_cpuset_count(bits, 128), 0);
}

static void refuses_bad_text(void **state)
{
	uint64_t bits[1] = {5};
	const char *bad[] = {"a", "1-", "3-1", "1,,2", "1,", "-1", "64", "1 2", "0-64"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(drv_cpuset_parse(bad[i], bits, 64), -EINVAL);
		assert_int_equal(bits[0], 5); /* unchanged */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(formats_ranges),
	    cmocka_unit_test(truncates_like_snprintf),
	    cmocka_unit_test(parses_and_round_trips),
	    cmocka_unit_test(refuses_bad_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
