/* test_hostlist.c — hostlist expansion and Slurm's compressed form. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostlist.h"

/* Expands expr and checks it gives exactly the names in want (space-separated). */
static void check_expand(const char *expr, const char *want)
{
	char **v = NULL;
	size_t n = 0;
	struct drv_error err = {{0}};
	assert_int_equal(drv_hostlist_expand(expr, &v, &n, &err), 0);
	char joined[4096] = "";
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, v[i]);
	}
	assert_string_equal(joined, want);
	drv_strv_free(v, n);
}

static void check_bad(const char *expr, const char *fragment)
{
	char **v = (char **)0x1;
	size_t n = 77;
	struct drv_error err = {{0}};
	assert_int_equal(drv_hostlist_expand(expr, &v, &n, &err), -EINVAL);
	assert_ptr_equal(v, (char **)0x1); /* untouched on failure */
	assert_int_equal(n, 77);
	assert_non_null(strstr(err.text, fragment));
}

/* Compresses the expansion of expr and checks Slurm's string. */
static void check_compress(const char *expr, const char *want)
{
	char **v = NULL;
	size_t n = 0;
	struct drv_error err;
	assert_int_equal(drv_hostlist_expand(expr, &v, &n, &err), 0);
	char *s = drv_hostlist_compress(v, n);
	assert_non_null(s);
	assert_string_equal(s, want);
	/* Round trip: the compressed form expands back to the same set. */
	char **v2 = NULL;
	size_t n2 = 0;
	assert_int_equal(drv_hostlist_expand(s, &v2, &n2, &err), 0);
	char *s2 = drv_hostlist_compress(v2, n2);
	assert_string_equal(s2, want);
	free(s);
	free(s2);
	drv_strv_free(v, n);
	drv_strv_free(v2, n2);
}

static void test_expand_simple(void **state)
{
	check_expand("n1", "n1");
	check_expand("n1,n2", "n1 n2");
	check_expand("n[1-3]", "n1 n2 n3");
	check_expand("gpu[01-04,07],cpu[1-3]",
		     "gpu01 gpu02 gpu03 gpu04 gpu07 cpu1 cpu2 cpu3");
	check_expand("n[01-10]", "n01 n02 n03 n04 n05 n06 n07 n08 n09 n10");
	check_expand("n[8-10]", "n8 n9 n10");
	check_expand("n[5]", "n5");
	check_expand("login", "login");
	check_expand("n[1-2]-ib", "n1-ib n2-ib");
	check_expand("[1-2]", "1 2");
}

static void test_expand_multi_bracket(void **state)
{
	check_expand("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
	check_expand("r[1-2]n[01,03]", "r1n01 r1n03 r2n01 r2n03");
}

static void test_expand_errors(void **state)
{
	check_bad("n[1-3", "unbalanced");
	check_bad("n1-3]", "unbalanced");
	check_bad("n[1-[2]]", "unbalanced");
	check_bad("n[3-1]", "n[3-1]");
	check_bad("n[3-1]", "backwards");
	check_bad("n[a-b]", "bad range");
	check_bad("n[]", "bad range");
	check_bad("n[1-]", "bad range");
	check_bad("", "empty");
	check_bad(",", "empty");
	check_bad("n[1-2000000]", "1000000");
	check_bad("a[1-1000]b[1-1001]", "1000000");
}

static void test_expand_cap(void **state)
{
	char **v = NULL;
	size_t n = 0;
	struct drv_error err;
	assert_int_equal(drv_hostlist_expand("n[1-1000000]", &v, &n, &err), 0);
	assert_int_equal(n, 1000000);
	assert_string_equal(v[999999], "n1000000");
	drv_strv_free(v, n);
}

static void test_compress_slurm_strings(void **state)
{
	check_compress("n1", "n1");
	check_compress("n1,n2,n3,n5", "n[1-3,5]");
	check_compress("n3,n1,n2", "n[1-3]");
	check_compress("gpu[01-04,07],cpu[1-3]", "cpu[1-3],gpu[01-04,07]");
	check_compress("n[8-10]", "n[8-10]");
	check_compress("n[01-10]", "n[01-10]");
	check_compress("n1,n01", "n[1,01]");
	check_compress("n01,n2", "n[01,2]");
	check_compress("n1,n1,n2", "n[1-2]");
	check_compress("login,n1", "login,n1");
	check_compress("b,a", "a,b");
	check_compress("a[1-2]b[3-4]", "a1b[3-4],a2b[3-4]");
	check_compress("n[1-2],m5", "m5,n[1-2]");
}

static void test_compress_empty(void **state)
{
	char *s = drv_hostlist_compress(NULL, 0);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand_simple),
	    cmocka_unit_test(test_expand_multi_bracket),
	    cmocka_unit_test(test_expand_errors),
	    cmocka_unit_test(test_expand_cap),
	    cmocka_unit_test(test_compress_slurm_strings),
	    cmocka_unit_test(test_compress_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
