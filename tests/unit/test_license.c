/* test_license.c — Slurm's license lists (drover.conf Licenses=, -L): the
 * forms Slurm takes, counts that add up, and each refusal with its reason. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/license.h"

static void test_forms(void **state)
{
	struct drv_license *v = NULL;
	size_t n = 0;
	struct drv_error err = {{0}};
	assert_int_equal(drv_licenses_parse("matlab", &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "matlab");
	assert_int_equal(v[0].count, 1);
	drv_licenses_free(v, n);

	assert_int_equal(drv_licenses_parse("a:2,b;c:0,,a:3", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "a");
	assert_int_equal(v[0].count, 5);
	assert_string_equal(v[1].name, "b");
	assert_int_equal(v[1].count, 1);
	assert_string_equal(v[2].name, "c");
	assert_int_equal(v[2].count, 0);
	drv_licenses_free(v, n);

	assert_int_equal(drv_licenses_parse("big:2147483647,big:9", &v, &n, &err), 0);
	assert_int_equal(v[0].count, 2147483647); /* capped, never wraps */
	drv_licenses_free(v, n);
	drv_licenses_free(NULL, 0);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"", "no license named"},
	    {",;", "no license named"},
	    {":2", "a license has no name"},
	    {"a:", "'' is not a license count"},
	    {"a:x", "'x' is not a license count"},
	    {"a:-1", "'-1' is not a license count"},
	    {"a:2147483648", "'2147483648' is not a license count"},
	    {"a:1:2", "'1:2' is not a license count"},
	    {"my lic", "a license name holds a space"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drv_license *v = (struct drv_license *)0x1;
		size_t n = 99;
		struct drv_error err = {{0}};
		assert_int_equal(drv_licenses_parse(bad[i].text, &v, &n, &err), -EINVAL);
		assert_ptr_equal(v, (struct drv_license *)0x1);
		assert_int_equal(n, 99);
		assert_string_equal(err.text, bad[i].why);
	}
	struct drv_license *v = (struct drv_license *)0x1;
	size_t n = 99;
	assert_int_equal(drv_licenses_parse(NULL, &v, &n, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forms),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
