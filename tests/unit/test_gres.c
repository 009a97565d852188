/* test_gres.c — Gres= and --gres lists: counts, types, suffixes, hints, and
 * the malformed entries that must be refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/gres.h"

static void parses_counts_and_types(void **state)
{
	struct drv_gres *g;
	size_t n;
	struct drv_error err;
	assert_int_equal(drv_gres_parse("gpu:4", &g, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].name, "gpu");
	assert_string_equal(g[0].type, "");
	assert_int_equal(g[0].count, 4);
	free(g);
	assert_int_equal(
	    drv_gres_parse("gpu:a100:2,gpu:v100:1(S:0),mps:1k", &g, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].type, "a100");
	assert_int_equal(g[0].count, 2);
	assert_string_equal(g[1].type, "v100");
	assert_int_equal(g[1].count, 1);
	assert_string_equal(g[2].name, "mps");
	assert_int_equal(g[2].count, 1024);
	free(g);
	assert_int_equal(drv_gres_parse("gpu:h100", &g, &n, &err), 0);
	assert_string_equal(g[0].type, "h100");
	assert_int_equal(g[0].count, 1);
	free(g);
	assert_int_equal(drv_gres_parse("(null)", &g, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(drv_gres_parse(NULL, &g, &n, &err), 0);
	assert_int_equal(n, 0);
}

static void refuses_malformed_entries(void **state)
{
	const char *bad[] = {"gpu:0", "gpu:a100:0", ":2", "gpu:a100:x", "gpu::2",
			     "gpu,,x", "gpu:a100:-1",
			     /* 2^54 * 1024 is 2^64: it must not wrap to 0 */
			     "gpu:18014398509481984k", "mps:18014398509481985m"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drv_gres *g = (struct drv_gres *)0x1;
		size_t n = 7;
		struct drv_error err = {{0}};
		assert_int_equal(drv_gres_parse(bad[i], &g, &n, &err), -EINVAL);
		assert_null(g);
		assert_non_null(strstr(err.text, "invalid gres"));
	}
}

/* A node's Gres= line whose gpu counts wrap uint64_t: the sum was 1, so
 * ctld allocated one GPU slot and wrote 2^64 + 1 of them (heap overflow at
 * start-up). drv_gres_total refuses it, and still sums what fits. */
static void totals_do_not_wrap(void **state)
{
	(void)state;
	struct drv_gres *g = NULL;
	size_t n = 0;
	struct drv_error err = {{0}};
	uint64_t total = 99;
	assert_int_equal(drv_gres_parse("gpu:18446744073709551615,gpu:2", &g, &n, &err),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(drv_gres_total(g, n, "gpu", 64, &total), -E2BIG);
	assert_int_equal(drv_gres_total(g, n, "gpu", UINT64_MAX, &total), -E2BIG);
	assert_int_equal(total, 99);
	free(g);
	assert_int_equal(drv_gres_parse("gpu:a100:2,mps:100,gpu:v100:3", &g, &n, &err),
			 0);
	assert_int_equal(drv_gres_total(g, n, "gpu", 64, &total), 0);
	assert_int_equal(total, 5);
	assert_int_equal(drv_gres_total(g, n, "gpu", 5, &total), 0);
	assert_int_equal(drv_gres_total(g, n, "gpu", 4, &total), -E2BIG);
	assert_int_equal(drv_gres_total(g, n, "nic", 4, &total), 0);
	assert_int_equal(total, 0);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parses_counts_and_types),
	    cmocka_unit_test(refuses_malformed_entries),
	    cmocka_unit_test(totals_do_not_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
