/* Unit tests for sbatch's input variables (cli/sbatch_opts.c,
 * sbatch_opts_from_env) and --wait's exit status (cli/sbatch_wait.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sbatch_opts.h"
#include "cli/sbatch_wait.h"

static void test_value_variables(void **state)
{
	struct sbatch_opts o = {.job_name = "from-script", .partition = "p1"};

	setenv("SBATCH_JOB_NAME", "from-env", 1);
	setenv("SBATCH_TIMELIMIT", "5:00", 1);
	setenv("SBATCH_OUTPUT", "out-%j", 1);
	setenv("SBATCH_CLUSTERS", "drover", 1);
	setenv("SBATCH_PARTITION", "", 1); /* empty: no value, keeps p1 */
	sbatch_opts_from_env(&o);
	assert_string_equal(o.job_name, "from-env");
	assert_string_equal(o.time, "5:00");
	assert_string_equal(o.output, "out-%j");
	assert_string_equal(o.clusters, "drover");
	assert_string_equal(o.partition, "p1");
	unsetenv("SBATCH_JOB_NAME");
	unsetenv("SBATCH_TIMELIMIT");
	unsetenv("SBATCH_OUTPUT");
	unsetenv("SBATCH_CLUSTERS");
	unsetenv("SBATCH_PARTITION");
}

/* Flags: on when empty, "yes" or a non-zero number (sbatch(1)). */
static void test_flag_variables(void **state)
{
	static const struct {
		const char *value;
		bool on;
	} cases[] = {{"", true},  {"yes", true}, {"YES", true}, {"1", true},
		     {"7", true}, {"0", false},	 {"no", false}, {"x", false}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbatch_opts o = {0};
		setenv("SBATCH_WAIT", cases[i].value, 1);
		sbatch_opts_from_env(&o);
		assert_int_equal(o.wait, cases[i].on);
	}
	unsetenv("SBATCH_WAIT");
	struct sbatch_opts o = {0};
	setenv("SBATCH_EXCLUSIVE", "", 1);
	sbatch_opts_from_env(&o);
	assert_string_equal(o.exclusive, "exclusive");
	setenv("SBATCH_EXCLUSIVE", "user", 1);
	sbatch_opts_from_env(&o);
	assert_string_equal(o.exclusive, "user");
	unsetenv("SBATCH_EXCLUSIVE");
}

static void test_wait_status(void **state)
{
	assert_int_equal(sbatch_wait_status("COMPLETED", 0, 0), 0);
	assert_int_equal(sbatch_wait_status("FAILED", 3, 0), 3);
	assert_int_equal(sbatch_wait_status("FAILED", 0, 9), 1);
	assert_int_equal(sbatch_wait_status("CANCELLED", 0, 15), 1);
	assert_int_equal(sbatch_wait_status("TIMEOUT", 0, 15), 1);
	assert_int_equal(sbatch_wait_status("NODE_FAIL", 0, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_value_variables),
	    cmocka_unit_test(test_flag_variables),
	    cmocka_unit_test(test_wait_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
