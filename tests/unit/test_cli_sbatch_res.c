/* Unit tests for cli/sbatch_res.c: memory units, --gpus, --gres lists, -N
 * ranges, Slurm's messages for bad values and the job.submit fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sbatch_res.h"

static int64_t mem(const char *s)
{
	int64_t v = -99;

	return sbatch_mem_parse(s, &v) == 0 ? v : -1;
}

static void test_memory_units(void **state)
{
	assert_int_equal(mem("200"), 200);
	assert_int_equal(mem("200M"), 200);
	assert_int_equal(mem("200m"), 200);
	assert_int_equal(mem("2G"), 2048);
	assert_int_equal(mem("8g"), 8192);
	assert_int_equal(mem("4GB"), 4096);
	assert_int_equal(mem("4gb"), 4096);
	assert_int_equal(mem("1T"), 1048576);
	assert_int_equal(mem("1048576K"), 1024);
	assert_int_equal(mem("1K"), 1); /* rounds up */
	assert_int_equal(mem("1025K"), 2);
	/* rounding up must not pass INT64_MAX on the way */
	assert_int_equal(mem("9223372036854775807K"), 9007199254740992LL);
	assert_int_equal(mem("16MB"), 16);
	assert_int_equal(mem("0"), 0);
	assert_int_equal(mem("abc"), -1);
	assert_int_equal(mem(""), -1);
	assert_int_equal(mem("-1"), -1);
	assert_int_equal(mem("16B"), -1);
	assert_int_equal(mem("16GiB"), -1);
	assert_int_equal(mem("16P"), -1);
	assert_int_equal(mem("1.5G"), -1);
}

static void test_gpus(void **state)
{
	char type[32];
	int64_t n = 0;

	assert_int_equal(sbatch_gpus_parse("2", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(type, "");
	assert_int_equal(sbatch_gpus_parse("a100:3", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(type, "a100");
	assert_int_equal(sbatch_gpus_parse("gpu:v100:1", &n, type, sizeof(type)), 0);
	assert_string_equal(type, "v100");
	assert_int_equal(sbatch_gpus_parse("gpu:4", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 4);
	assert_string_equal(type, "");
	assert_int_equal(sbatch_gpus_parse("-1", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gpus_parse("0", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gpus_parse("x", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gpus_parse("a100:", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gpus_parse(":2", &n, type, sizeof(type)), -EINVAL);
}

static void test_gres(void **state)
{
	char type[32];
	int64_t n = 0;

	assert_int_equal(sbatch_gres_parse("gpu:2", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(type, "");
	assert_int_equal(sbatch_gres_parse("gpu", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sbatch_gres_parse("gpu:a100:1", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(type, "a100");
	assert_int_equal(sbatch_gres_parse("gpu:tesla", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(type, "tesla");
	assert_int_equal(sbatch_gres_parse("gres:gpu:3", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(sbatch_gres_parse("none", &n, type, sizeof(type)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(sbatch_gres_parse("gpu:-1", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gres_parse("gpu:0", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gres_parse("gpu:a100:x", &n, type, sizeof(type)),
			 -EINVAL);
	assert_int_equal(sbatch_gres_parse("gpu:2,foo:1", &n, type, sizeof(type)),
			 -ENOENT);
	assert_int_equal(sbatch_gres_parse("foo:1", &n, type, sizeof(type)), -ENOENT);
	assert_int_equal(sbatch_gres_parse("gpus:1", &n, type, sizeof(type)), -ENOENT);
	assert_int_equal(sbatch_gres_parse("gpu:1,", &n, type, sizeof(type)), -EINVAL);
	assert_int_equal(sbatch_gres_parse("", &n, type, sizeof(type)), -EINVAL);
}

static void test_nodes(void **state)
{
	int64_t lo = 0, hi = 0;

	assert_int_equal(sbatch_nodes_parse("3", &lo, &hi), 0);
	assert_int_equal(lo, 3);
	assert_true(hi == SBATCH_UNSET);
	assert_int_equal(sbatch_nodes_parse("2-4", &lo, &hi), 0);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 4);
	assert_int_equal(sbatch_nodes_parse("4-2", &lo, &hi), -EINVAL);
	assert_int_equal(sbatch_nodes_parse("0", &lo, &hi), -EINVAL);
	assert_int_equal(sbatch_nodes_parse("abc", &lo, &hi), -EINVAL);
	assert_int_equal(sbatch_nodes_parse("2-", &lo, &hi), -EINVAL);
}

/* The message sbatch_res_from_opts gives for o, or "" when it accepts. */
static const char *message(const struct sbatch_opts *o)
{
	static struct drv_error err;
	struct sbatch_res r;

	memset(&err, 0, sizeof(err));
	if (sbatch_res_from_opts(o, &r, &err) == 0)
		return "";
	return err.text;
}

/* What Slurm's option parser refuses makes sbatch exit 255: -EDOM. */
static void test_exit_classes(void **state)
{
	struct drv_error err;
	struct sbatch_res r;

	assert_int_equal(
	    sbatch_res_from_opts(&(struct sbatch_opts){.mem = "x"}, &r, &err), -EDOM);
	assert_int_equal(
	    sbatch_res_from_opts(&(struct sbatch_opts){.open_mode = "x"}, &r, &err),
	    -EDOM);
	assert_int_equal(
	    sbatch_res_from_opts(&(struct sbatch_opts){.exclusive = "x"}, &r, &err),
	    -EDOM);
	assert_int_equal(
	    sbatch_res_from_opts(&(struct sbatch_opts){.nodes = "x"}, &r, &err), -EDOM);
	assert_int_equal(
	    sbatch_res_from_opts(&(struct sbatch_opts){.cpus_per_task = "0"}, &r, &err),
	    -EINVAL);
	assert_int_equal(
	    sbatch_res_from_opts(&(struct sbatch_opts){.gres = "gpu:-1"}, &r, &err),
	    -EINVAL);
}

static void test_messages(void **state)
{
	assert_string_equal(message(&(struct sbatch_opts){.mem = "abc"}),
			    "Invalid --mem specification");
	assert_string_equal(message(&(struct sbatch_opts){.mem_per_cpu = "1x"}),
			    "Invalid --mem-per-cpu specification");
	assert_string_equal(message(&(struct sbatch_opts){.cpus_per_task = "0"}),
			    "Invalid numeric value \"0\" for --cpus-per-task.");
	assert_string_equal(message(&(struct sbatch_opts){.ntasks = "0"}),
			    "Invalid numeric value \"0\" for --ntasks.");
	assert_string_equal(message(&(struct sbatch_opts){.gpus = "-1"}),
			    "submit: Invalid generic resource (gres) specification");
	assert_string_equal(message(&(struct sbatch_opts){.gres = "gpu:-1"}),
			    "submit: Invalid generic resource (gres) specification");
	assert_string_equal(message(&(struct sbatch_opts){.open_mode = "foo"}),
			    "Invalid --open-mode specification");
	assert_string_equal(message(&(struct sbatch_opts){.nice = "abc"}),
			    "Invalid --nice value: abc");
	assert_string_equal(message(&(struct sbatch_opts){.nice = "2147483646"}),
			    "Invalid --nice value, out of range (+/- 2147483645)");
	/* LLONG_MIN parses without ERANGE, and its absolute value overflows */
	assert_string_equal(
	    message(&(struct sbatch_opts){.nice = "-9223372036854775808"}),
	    "Invalid --nice value, out of range (+/- 2147483645)");
	assert_string_equal(message(&(struct sbatch_opts){.exclusive = "bogus"}),
			    "Invalid --exclusive specification");
	assert_string_equal(
	    message(&(struct sbatch_opts){.mem = "1G", .mem_per_cpu = "1"}),
	    "fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually "
	    "exclusive.");
	assert_string_equal(message(&(struct sbatch_opts){.nodes = "x"}),
			    "\"x\" is not a valid node count");
	assert_string_equal(message(&(struct sbatch_opts){.nodes = "4-2"}),
			    "Maximum node count 2 is less than minimum node count 4");
	assert_string_equal(message(&(struct sbatch_opts){.nodes = "2-"}),
			    "Maximum node count -1 is less than minimum node count 2");
	assert_string_equal(message(&(struct sbatch_opts){.mem = "0", .nice = "-5"}), "");
}

static void test_json(void **state)
{
	struct sbatch_opts o = {.ntasks = "2",
				.cpus_per_task = "2",
				.nodes = "1-2",
				.mem = "2G",
				.gres = "gpu:a100:2",
				.exclusive = "exclusive",
				.nice = "100",
				.account = "proj",
				.qos = "high",
				.dependency = "afterok:5",
				.open_mode = "Append",
				.input = "in.txt"};
	struct drv_error err = {{0}};
	struct sbatch_res r;
	json_t *body = json_object();
	char *s;

	assert_int_equal(sbatch_res_from_opts(&o, &r, &err), 0);
	assert_int_equal(sbatch_res_to_json(&r, body), 0);
	s = json_dumps(body, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(
	    s, "{\"account\":\"proj\",\"cpus_per_task\":2,\"dependency\":\"afterok:5\","
	       "\"exclusive\":true,\"gpu_type\":\"a100\",\"gpus_per_node\":2,"
	       "\"mem_per_node\":2048,\"nice\":100,\"nodes\":1,\"nodes_max\":2,"
	       "\"ntasks\":2,\"open_mode\":\"append\",\"qos\":\"high\","
	       "\"stdin\":\"in.txt\"}");
	free(s);
	json_decref(body);

	body = json_object();
	assert_int_equal(sbatch_res_from_opts(&(struct sbatch_opts){0}, &r, &err), 0);
	assert_int_equal(sbatch_res_to_json(&r, body), 0);
	s = json_dumps(body, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(s, "{}"); /* no -N: ctld applies Slurm's default */
	free(s);
	json_decref(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_memory_units), cmocka_unit_test(test_gpus),
	    cmocka_unit_test(test_gres),	 cmocka_unit_test(test_nodes),
	    cmocka_unit_test(test_messages),	 cmocka_unit_test(test_exit_classes),
	    cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
