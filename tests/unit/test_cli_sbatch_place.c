/* test_cli_sbatch_place.c — sbatch's --signal parser and the job.submit
 * fields of -w, -x, -C, --mincpus, --tmp, --signal and --time-min. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sbatch_place.h"

static void signal_spec(void **state)
{
	int sig = -1, secs = -1;
	bool batch = true;
	assert_int_equal(sbatch_signal_parse("USR1", &sig, &secs, &batch), 0);
	assert_int_equal(sig, SIGUSR1);
	assert_int_equal(secs, 60);
	assert_false(batch);
	assert_int_equal(sbatch_signal_parse("B:USR1@5", &sig, &secs, &batch), 0);
	assert_int_equal(sig, SIGUSR1);
	assert_int_equal(secs, 5);
	assert_true(batch);
	assert_int_equal(sbatch_signal_parse("R:SIGTERM@120", &sig, &secs, &batch), 0);
	assert_int_equal(sig, SIGTERM);
	assert_int_equal(secs, 120);
	assert_false(batch);
	assert_int_equal(sbatch_signal_parse("10@0", &sig, &secs, &batch), 0);
	assert_int_equal(sig, 10);
	assert_int_equal(secs, 0);
	assert_int_equal(sbatch_signal_parse("99", &sig, &secs, &batch), 0);
	assert_int_equal(sbatch_signal_parse("RB:USR1@5", &sig, &secs, &batch), 0);
	assert_true(batch);
	assert_int_equal(sbatch_signal_parse("br:usr2", &sig, &secs, &batch), 0);
	assert_true(batch);
	assert_int_equal(sig, SIGUSR2);
	assert_int_equal(sbatch_signal_parse("b:usr1@65535", &sig, &secs, &batch), 0);
	assert_int_equal(secs, 65535);
	assert_int_equal(sbatch_signal_parse("r:10", &sig, &secs, &batch), 0);
	assert_false(batch);
	const char *bad[] = {"",      "FOO",	 "B:",	     "B:USR1@abc", "USR1@-5",
			     "USR1@", "X:USR1",	 "0",	     "128",	   "USR1@65536",
			     "@5",    "USR1@5s", "B:B:USR1", NULL};
	for (int i = 0; bad[i]; i++) {
		sig = secs = -7;
		assert_int_equal(sbatch_signal_parse(bad[i], &sig, &secs, &batch),
				 -EINVAL);
		assert_int_equal(sig, -7);
	}
}

static void placement_fields(void **state)
{
	struct sbatch_opts o = {0};
	struct drv_error err = {{0}}, warn = {{0}};
	json_t *body = json_object();
	o.nodelist = "n[2,1]";
	o.exclude = "n3";
	o.constraint = "[a|b]";
	o.mincpus = "2";
	o.tmp = "1G";
	o.signal = "B:USR1@5";
	o.time_min = "5";
	assert_int_equal(sbatch_place_to_json(&o, body, &err, &warn), 0);
	assert_string_equal(json_string_value(json_object_get(body, "req_nodes")),
			    "n[1-2]");
	assert_string_equal(json_string_value(json_object_get(body, "exc_nodes")), "n3");
	assert_string_equal(json_string_value(json_object_get(body, "features")),
			    "[a|b]");
	assert_int_equal(json_integer_value(json_object_get(body, "min_cpus")), 2);
	assert_int_equal(json_integer_value(json_object_get(body, "tmp")), 1024);
	assert_int_equal(json_integer_value(json_object_get(body, "signal")), SIGUSR1);
	assert_int_equal(json_integer_value(json_object_get(body, "signal_time")), 5);
	assert_true(json_is_true(json_object_get(body, "signal_batch")));
	assert_int_equal(json_integer_value(json_object_get(body, "time_min")), 300);
	json_decref(body);

	struct {
		struct sbatch_opts o;
		int rc;
		const char *text;
	} bad[] = {
	    {{.signal = "FOO"}, -EDOM, "Invalid --signal specification"},
	    {{.mincpus = "abc"}, -EINVAL, "Invalid numeric value \"abc\" for --mincpus."},
	    {{.mincpus = "-1"}, -EINVAL, "Invalid numeric value \"-1\" for --mincpus."},
	    {{.tmp = "abc"}, -EDOM, "Invalid --tmp specification"},
	    {{.time_min = "abc"}, -EDOM, "Invalid --time-min specification"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		body = json_object();
		memset(&err, 0, sizeof(err));
		assert_int_equal(sbatch_place_to_json(&bad[i].o, body, &err, &warn),
				 bad[i].rc);
		assert_string_equal(err.text, bad[i].text);
		json_decref(body);
	}
}

/* -w against -N and -n, as Slurm's sbatch. */
static void nodelist_and_counts(void **state)
{
	struct drv_error err = {{0}}, warn = {{0}};
	json_t *body = json_object();
	struct sbatch_opts o = {.nodelist = "n[1-2]", .nodes = "1"};
	assert_int_equal(sbatch_place_to_json(&o, body, &err, &warn), -EINVAL);
	assert_string_equal(err.text, "invalid number of nodes (-N 2-1)");
	o.nodes = "1-1";
	assert_int_equal(sbatch_place_to_json(&o, body, &err, &warn), -EINVAL);
	o.nodes = "2";
	assert_int_equal(sbatch_place_to_json(&o, body, &err, &warn), 0);
	assert_string_equal(warn.text, "");
	o.nodes = NULL;
	o.ntasks = "1";
	assert_int_equal(sbatch_place_to_json(&o, body, &err, &warn), 0);
	assert_string_equal(warn.text,
			    "can't run 1 processes on 2 nodes, setting nnodes to 1");
	assert_string_equal(json_string_value(json_object_get(body, "req_nodes")), "n1");
	struct sbatch_opts dup = {.nodelist = "n1,n1"};
	warn.text[0] = '\0';
	assert_int_equal(sbatch_place_to_json(&dup, body, &err, &warn), 0);
	assert_string_equal(json_string_value(json_object_get(body, "req_nodes")), "n1");
	json_decref(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(signal_spec),
	    cmocka_unit_test(placement_fields),
	    cmocka_unit_test(nodelist_and_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
