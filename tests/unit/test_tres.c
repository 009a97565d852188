/* test_tres.c — TRES lists as sacctmgr reads and prints them (tres.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/tres.h"

static struct drv_tres parse_ok(const char *s)
{
	struct drv_tres t;
	struct drv_error err = {""};
	assert_int_equal(drv_tres_parse(s, &t, &err), 0);
	return t;
}

static void parse_bad(const char *s, const char *message)
{
	struct drv_tres t;
	struct drv_error err = {""};
	drv_tres_init(&t);
	t.v[DRV_TRES_CPU] = 77;
	assert_int_equal(drv_tres_parse(s, &t, &err), -EINVAL);
	assert_string_equal(err.text, message);
	assert_int_equal(t.v[DRV_TRES_CPU], 77); /* nothing set */
}

static const char *text(const struct drv_tres *t, bool units)
{
	static char buf[256];
	drv_tres_format(t, units, buf, sizeof(buf));
	return buf;
}

static void test_parse_names_and_units(void **state)
{
	struct drv_tres t = parse_ok("gres/gpu=2,cpu=4,mem=10G,node=1,billing=7");
	assert_int_equal(t.v[DRV_TRES_CPU], 4);
	assert_int_equal(t.v[DRV_TRES_MEM], 10240);
	assert_int_equal(t.v[DRV_TRES_GPU], 2);
	assert_int_equal(t.v[DRV_TRES_ENERGY], DRV_TRES_NONE);
	/* sorted by name, as Slurm prints them */
	assert_string_equal(text(&t, true), "billing=7,cpu=4,gres/gpu=2,mem=10G,node=1");
	assert_string_equal(text(&t, false),
			    "billing=7,cpu=4,gres/gpu=2,mem=10240,node=1");
	/* counts scale by 1024 per unit above their base (mem: MiB) */
	t = parse_ok("cpu=3K,node=2M,mem=2T,vmem=5");
	assert_int_equal(t.v[DRV_TRES_CPU], 3072);
	assert_int_equal(t.v[DRV_TRES_NODE], 2097152);
	assert_int_equal(t.v[DRV_TRES_MEM], 2097152);
	t = parse_ok("mem=500K,MEM=1500"); /* the last one wins; K is below MiB */
	assert_int_equal(t.v[DRV_TRES_MEM], 1500);
	t = parse_ok("cpu=-1,mem=0");
	assert_int_equal(t.v[DRV_TRES_CPU], DRV_TRES_CLEAR);
	assert_string_equal(text(&t, false), "cpu=-1,mem=0");
	assert_string_equal(text(&t, true), "cpu=NONE,mem=0");
	t = parse_ok("");
	assert_true(drv_tres_empty(&t));
	t = parse_ok(NULL);
	assert_true(drv_tres_empty(&t));
	assert_string_equal(text(&t, true), "");
}

static void test_parse_refuses_wrong_shapes(void **state)
{
	parse_bad("cpu=x", "Invalid unit type 'x'. Possible options are 'KMGTP'");
	parse_bad("mem=1.5G", "Invalid unit type '.'. Possible options are 'KMGTP'");
	parse_bad("cpu=4Q", "Invalid unit type 'Q'. Possible options are 'KMGTP'");
	parse_bad("cpu=4GG", "Invalid unit type 'G'. Possible options are 'KMGTP'");
	parse_bad("foo=3", "slurmdb_format_tres_str: no TRES known by type foo");
	parse_bad("cpu", "slurmdb_format_tres_str: no TRES id found for cpu");
	parse_bad("cpu=1,,mem=2", "slurmdb_format_tres_str: no TRES id found for ,mem=2");
	parse_bad("cpu=99999999999999999999",
		  "Invalid TRES count '99999999999999999999'");
}

static void test_mem_units_as_slurm_prints_them(void **state)
{
	char buf[32];
	const struct {
		int64_t mib;
		const char *text;
	} cases[] = {{0, "0"},	      {1, "1M"},       {1500, "1500M"},
		     {1536, "1.50G"}, {10240, "10G"},  {1048576, "1T"},
		     {3145728, "3T"}, {2560, "2.50G"}, {1024 + 1, "1025M"}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		drv_tres_mem_text(cases[i].mib, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
}

static void test_merge(void **state)
{
	struct drv_tres t = parse_ok("cpu=4,mem=100,node=2");
	struct drv_tres change = parse_ok("cpu=-1,mem=200,gres/gpu=1");
	drv_tres_merge(&t, &change);
	assert_string_equal(text(&t, false), "gres/gpu=1,mem=200,node=2");
}

static void test_format_truncates_safely(void **state)
{
	struct drv_tres t = parse_ok("cpu=4,mem=100,node=2");
	char small[8];
	size_t need = drv_tres_format(&t, false, small, sizeof(small));
	assert_int_equal(need, strlen("cpu=4,mem=100,node=2"));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_names_and_units),
	    cmocka_unit_test(test_parse_refuses_wrong_shapes),
	    cmocka_unit_test(test_mem_units_as_slurm_prints_them),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_format_truncates_safely),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
