/* test_shepherd_lines.c — Slurm 22.05's slurmstepd lines, byte for byte:
 * the cancel line with each reason's tail, and the OOM line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <regex.h>
#include <string.h>

#include "shepherd/shepherd.h"

static void assert_matches(const char *text, const char *pattern)
{
	regex_t re;
	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	int rc = regexec(&re, text, 0, NULL, 0);
	regfree(&re);
	if (rc != 0)
		fail_msg("'%s' does not match '%s'", text, pattern);
}

#define STAMP "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"

static void test_cancelled_lines(void **state)
{
	char buf[200];
	int n = lines_cancelled(buf, sizeof(buf), "JOB 5", "n1", DRV_KILL_WHY_CANCEL);
	assert_int_equal(n, (int)strlen(buf));
	assert_matches(buf,
		       "^slurmstepd: error: \\*\\*\\* JOB 5 ON n1 CANCELLED AT " STAMP
		       " \\*\\*\\*\n$");
	lines_cancelled(buf, sizeof(buf), "STEP 5.0", "n2", DRV_KILL_WHY_TIME_LIMIT);
	assert_matches(
	    buf, "^slurmstepd: error: \\*\\*\\* STEP 5\\.0 ON n2 CANCELLED AT " STAMP
		 " DUE TO TIME LIMIT \\*\\*\\*\n$");
	lines_cancelled(buf, sizeof(buf), "JOB 7", "n1", DRV_KILL_WHY_REQUEUE);
	assert_matches(buf,
		       "^slurmstepd: error: \\*\\*\\* JOB 7 ON n1 CANCELLED AT " STAMP
		       " DUE TO JOB REQUEUE \\*\\*\\*\n$");
	/* too small a buffer: an error, never a cut line */
	assert_int_equal(lines_cancelled(buf, 20, "JOB 5", "n1", DRV_KILL_WHY_CANCEL),
			 -ENAMETOOLONG);
}

static void test_oom_line(void **state)
{
	char buf[256];
	int n = lines_oom(buf, sizeof(buf), "5.batch", 1);
	assert_string_equal(buf, "slurmstepd: error: Detected 1 oom_kill event in "
				 "StepId=5.batch. Some of the step tasks have been OOM "
				 "Killed.\n");
	assert_int_equal(n, (int)strlen(buf));
	lines_oom(buf, sizeof(buf), "12.0", 3);
	assert_non_null(strstr(buf, "Detected 3 oom_kill events in StepId=12.0. "));
}

static void test_kill_why_parse(void **state)
{
	assert_int_equal(drv_kill_why_parse(NULL), DRV_KILL_WHY_NONE);
	assert_int_equal(drv_kill_why_parse("cancel"), DRV_KILL_WHY_CANCEL);
	assert_int_equal(drv_kill_why_parse("time_limit"), DRV_KILL_WHY_TIME_LIMIT);
	assert_int_equal(drv_kill_why_parse("requeue"), DRV_KILL_WHY_REQUEUE);
	assert_int_equal(drv_kill_why_parse("other"), DRV_KILL_WHY_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cancelled_lines),
	    cmocka_unit_test(test_oom_line),
	    cmocka_unit_test(test_kill_why_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
