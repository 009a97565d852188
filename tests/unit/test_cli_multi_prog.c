/* Unit tests for cli/multi_prog.c: --multi-prog files and Slurm's
 * messages for bad ones (checked against Slurm 22.05's srun). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/multi_prog.h"

static void test_good(void **state)
{
	struct multi_prog mp;
	struct drv_error err = {{0}};
	const char *text = "# a comment\n"
			   "\n"
			   "0     hostname\n"
			   "1-2,4 echo 'task %t' \"off %o\" x%%t\n"
			   "*     /bin/true  # the rest\n";

	assert_int_equal(multi_prog_parse(text, "mp.conf", 6, &mp, &err), 0);
	assert_string_equal(mp.argv[0][0], "hostname");
	assert_null(mp.argv[0][1]);
	assert_string_equal(mp.argv[2][0], "echo");
	assert_string_equal(mp.argv[2][1], "task 2");
	assert_string_equal(mp.argv[2][2], "off 1");
	assert_string_equal(mp.argv[4][1], "task 4");
	assert_string_equal(mp.argv[4][2], "off 2");
	assert_string_equal(mp.argv[4][3], "x%4"); /* no %% escape, as Slurm */
	assert_string_equal(mp.argv[3][0], "/bin/true");
	assert_null(mp.argv[3][1]);
	assert_string_equal(mp.argv[5][0], "/bin/true");
	multi_prog_fini(&mp);
	multi_prog_fini(NULL);
}

static void expect_error(const char *text, uint32_t ntasks, const char *want)
{
	struct multi_prog mp = {0};
	struct drv_error err = {{0}};

	assert_int_equal(multi_prog_parse(text, "f.conf", ntasks, &mp, &err), -EINVAL);
	assert_string_equal(err.text, want);
	assert_null(mp.argv);
}

static void test_errors(void **state)
{
	expect_error(
	    "0 echo a\n0 echo b\n", 2,
	    "Duplicate record for task 0\nLine 2 of configuration file f.conf invalid");
	expect_error(
	    "0-1 echo a\n5 echo b\n", 2,
	    "Invalid task id, 5 >= ntasks\nLine 2 of configuration file f.conf invalid");
	expect_error("0 echo a\n", 2,
		     "Configuration file f.conf invalid, no record for task id 1");
	expect_error("0\n1 echo\n", 2, "Line 1 of configuration file f.conf invalid");
	expect_error("x echo\n", 1,
		     "Invalid task range specification (x)\n"
		     "Line 1 of configuration file f.conf invalid");
	expect_error(
	    "2-1 echo\n", 3,
	    "Invalid task range, 2-1\nLine 1 of configuration file f.conf invalid");
	expect_error("* echo b\n0 echo a\n", 2,
		     "Task range specification with asterisk must be last\n"
		     "Line 2 of configuration file f.conf invalid");
	expect_error("0 echo 'open\n", 1, "Line 1 of configuration file f.conf invalid");
}

static void test_load(void **state)
{
	char path[] = "/tmp/test_multi_prog_XXXXXX";
	int fd = mkstemp(path);
	struct multi_prog mp;
	struct drv_error err = {{0}};

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "* prog %t\n", 10), 10);
	close(fd);
	assert_int_equal(multi_prog_load(path, 2, &mp, &err), 0);
	assert_string_equal(mp.argv[1][1], "1");
	multi_prog_fini(&mp);
	unlink(path);
	assert_int_equal(multi_prog_load(path, 2, &mp, &err), -ENOENT);
	char want[128];
	snprintf(want, sizeof(want), "Could not open multi_prog config file %s", path);
	assert_string_equal(err.text, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
