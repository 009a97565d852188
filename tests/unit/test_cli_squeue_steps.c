/* Unit tests for squeue -s (cli/squeue_steps, and -s in cli/squeue_opts):
 * which steps get a line, their order and the bytes of each line.
 * Expected texts are what Slurm 22.05's squeue printed for a batch job
 * running two sruns and an array of two tasks running one each, all
 * started 4 s before, with ids and times as there. */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/squeue_opts.h"
#include "cli/squeue_steps.h"

/* 2026-11-30T18:36:18 UTC, when the jobs started */
#define T0 ((int64_t)1796063778)

static struct cli_step steps[5];
static struct cli_job jobs[4];
static int bad_calls;
static char bad_letters[16];

static void bad(const char *what, size_t len, void *arg)
{
	if (bad_calls < 15)
		bad_letters[bad_calls++] = *what;
}

static struct cli_step step(int64_t id, const char *name, const char *state)
{
	return (struct cli_step){.step_id = id,
				 .name = name,
				 .state = state,
				 .nodelist = "n1",
				 .alloc_tres = "",
				 .tasks_per_node = "1",
				 .distribution = "Block",
				 .start_time = T0,
				 .num_nodes = 1,
				 .ntasks = 1,
				 .cpus = 1,
				 .cancel_uid = -1};
}

static struct cli_job job(int64_t id, const char *name, const char *state)
{
	struct cli_job j;
	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.name = name;
	j.state = state;
	j.user = "root";
	j.partition = "batch";
	j.nodelist = j.batch_host = "n1";
	j.start_time = T0;
	j.array_task_id = -1;
	return j;
}

/* In ctld's (job id) order: 23383 (steps 0, 1 running, 2 done, 3
 * pending), the array's tasks 2 (job 23384) and 1 (job 23385), and a
 * pending job. */
static int setup(void **state)
{
	steps[0] = step(0, "sleep", "RUNNING");
	steps[1] = step(1, "first", "RUNNING");
	steps[2] = step(2, "done", "COMPLETED");
	steps[3] = step(0, "sleep", "RUNNING");
	steps[4] = step(0, "sleep", "RUNNING");
	jobs[0] = job(23383, "twostep", "RUNNING");
	jobs[0].steps = steps;
	jobs[0].n_steps = 3;
	jobs[1] = job(23384, "arrl", "RUNNING");
	jobs[1].array_job_id = 23384;
	jobs[1].array_task_id = 2;
	jobs[1].steps = &steps[3];
	jobs[1].n_steps = 1;
	jobs[2] = job(23385, "arrl", "RUNNING");
	jobs[2].array_job_id = 23384;
	jobs[2].array_task_id = 1;
	jobs[2].steps = &steps[4];
	jobs[2].n_steps = 1;
	jobs[3] = job(23386, "wait", "PENDING");
	jobs[3].batch_host = "";
	jobs[3].start_time = 0;
	return 0;
}

static char *print(const char *format, bool header, const json_t *sel, int64_t now)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	bad_calls = 0;
	memset(bad_letters, 0, sizeof(bad_letters));
	assert_int_equal(sq_steps_print(format, header, sel, jobs, 4, now, bad, m), 0);
	fclose(m);
	return out;
}

static void test_default(void **state)
{
	char *out = print(NULL, true, NULL, T0 + 4);
	assert_string_equal(out,
			    "         STEPID     NAME PARTITION     USER      TIME "
			    "NODELIST\n"
			    "        23383.0    sleep     batch     root      0:04 n1\n"
			    "        23383.1    first     batch     root      0:04 n1\n"
			    "    23383.batch    batch     batch     root      0:04 n1\n"
			    "      23384_2.0    sleep     batch     root      0:04 n1\n"
			    "  23384_2.batch    batch     batch     root      0:04 n1\n"
			    "      23384_1.0    sleep     batch     root      0:04 n1\n"
			    "  23384_1.batch    batch     batch     root      0:04 n1\n");
	free(out);
	out = print(NULL, false, NULL, T0 + 4);
	assert_string_equal(out,
			    "        23383.0    sleep     batch     root      0:04 n1\n"
			    "        23383.1    first     batch     root      0:04 n1\n"
			    "    23383.batch    batch     batch     root      0:04 n1\n"
			    "      23384_2.0    sleep     batch     root      0:04 n1\n"
			    "  23384_2.batch    batch     batch     root      0:04 n1\n"
			    "      23384_1.0    sleep     batch     root      0:04 n1\n"
			    "  23384_1.batch    batch     batch     root      0:04 n1\n");
	free(out);
}

static void test_widths(void **state)
{
	char *out = print("%.3i|%.2j|%.2P|%.2u|%.2M|%.2N|%.1A|%.3l|%.5S|%.2U|%.2b|", true,
			  NULL, T0 + 8);
	assert_string_equal(out, "STE|NA|PA|US|TI|NODELIST|T|TIM|START|UI|TR|\n"
				 "233|sl|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n"
				 "233|fi|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n"
				 "233|ba|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n"
				 "233|sl|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n"
				 "233|ba|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n"
				 "233|sl|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n"
				 "233|ba|ba|ro|0:08|n1|1|UNL|2026-| 0|(n|\n");
	free(out);
	out = print("%3i|%2j|%2P|%2u|%2M|%2N|%1A|%3l|%5S|%2U|%2b|", true, NULL, T0 + 8);
	assert_string_equal(out, "STE|NA|PA|US|TI|NO|T|TIM|START|UI|TR|\n"
				 "233|sl|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n"
				 "233|fi|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n"
				 "233|ba|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n"
				 "233|sl|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n"
				 "233|ba|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n"
				 "233|sl|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n"
				 "233|ba|ba|ro|0:|n1|1|UNL|2026-|0 |  |\n");
	free(out);
}

/* Every step letter, unknown ones copied through and reported once. */
static void test_letters(void **state)
{
	struct cli_step s = step(0, "mystep", "RUNNING");
	s.nodelist = "n[1-2]";
	s.ntasks = 4;
	jobs[0].steps = &s;
	jobs[0].n_steps = 1;
	char *out =
	    print("%i|%j|%P|%u|%M|%N|%A|%l|%S|%b|%L|%t|%T|%D|%C|%X", true, NULL, T0 + 27);
	jobs[0].steps = steps;
	jobs[0].n_steps = 3;
	assert_string_equal(out,
			    "STEPID|NAME|PARTITION|USER|TIME|NODELIST|TASKS|TIME_LIMIT|"
			    "START_TIME|TRES_PER_JOB|%L|%t|%T|%D|%C|%X\n"
			    "23383.0|mystep|batch|root|0:27|n[1-2]|4|UNLIMITED|"
			    "2026-11-30T18:36:18|(null)|%L|%t|%T|%D|%C|%X\n"
			    "23383.batch|batch|batch|root|0:27|n1|1|UNLIMITED|"
			    "2026-11-30T18:36:18|(null)|%L|%t|%T|%D|%C|%X\n"
			    "23384_2.0|sleep|batch|root|0:27|n1|1|UNLIMITED|"
			    "2026-11-30T18:36:18|(null)|%L|%t|%T|%D|%C|%X\n"
			    "23384_2.batch|batch|batch|root|0:27|n1|1|UNLIMITED|"
			    "2026-11-30T18:36:18|(null)|%L|%t|%T|%D|%C|%X\n"
			    "23384_1.0|sleep|batch|root|0:27|n1|1|UNLIMITED|"
			    "2026-11-30T18:36:18|(null)|%L|%t|%T|%D|%C|%X\n"
			    "23384_1.batch|batch|batch|root|0:27|n1|1|UNLIMITED|"
			    "2026-11-30T18:36:18|(null)|%L|%t|%T|%D|%C|%X\n");
	assert_string_equal(bad_letters, "LtTDCX");
	free(out);
	/* reported without a header too */
	free(print("%i %L", false, NULL, T0));
	assert_string_equal(bad_letters, "L");
}

static int parse(struct sq_opts *o, ...)
{
	char *argv[32] = {"squeue"};
	int argc = 1;
	va_list ap;
	va_start(ap, o);
	for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	memset(o, 0, sizeof(*o));
	optind = 0;
	return sq_opts_parse(argc, argv, o);
}

/* --steps=23383.1,23385.batch: Slurm reads ".batch" as step 0, so the
 * second names job 23385's (task 23384_1's) step 0. */
static void test_step_list(void **state)
{
	struct sq_opts o;
	assert_int_equal(parse(&o, "--steps=23383.1,23385.batch", NULL), 0);
	assert_true(o.step_flag);
	char *out = print(NULL, true, o.steps, T0 + 9);
	assert_string_equal(out,
			    "         STEPID     NAME PARTITION     USER      TIME "
			    "NODELIST\n"
			    "        23383.1    first     batch     root      0:09 n1\n"
			    "      23384_1.0    sleep     batch     root      0:09 n1\n");
	free(out);
	sq_opts_fini(&o);
	assert_int_equal(parse(&o, "-s", "23384_1.0", NULL), 0);
	out = print(NULL, false, o.steps, T0 + 61);
	assert_string_equal(out,
			    "      23384_1.0    sleep     batch     root      1:01 n1\n");
	free(out);
	sq_opts_fini(&o);
	assert_int_equal(parse(&o, "-s", "-j", "23384", NULL), 0);
	assert_true(o.step_flag && !o.steps);
	assert_int_equal(json_array_size(o.job_ids), 1);
	sq_opts_fini(&o);
	/* a job id without a step */
	assert_int_equal(parse(&o, "--steps=23383", NULL), -EINVAL);
	sq_opts_fini(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default),
	    cmocka_unit_test(test_widths),
	    cmocka_unit_test(test_letters),
	    cmocka_unit_test(test_step_list),
	};
	cli_init("squeue");
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, setup, NULL);
}
