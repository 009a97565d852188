/* Unit tests for cli/srun_opts.c: srun's and salloc's options and input
 * variables, with the messages and exit classes of Slurm 22.05's srun. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/common.h"
#include "cli/srun_opts.h"

/* Parses a NULL-terminated list of words after "srun". */
static int parse(struct srun_opts *o, int *cmd, bool salloc, ...)
{
	static char *argv[32];
	va_list ap;
	int argc = 0;

	argv[argc++] = salloc ? "salloc" : "srun";
	va_start(ap, salloc);
	for (char *w; (w = va_arg(ap, char *)) != NULL;)
		argv[argc++] = w;
	va_end(ap);
	argv[argc] = NULL;
	srun_opts_init(o);
	return srun_opts_parse(argc, argv, o, cmd, salloc);
}

static void test_shared_options(void **state)
{
	struct srun_opts o;
	int cmd;

	assert_int_equal(parse(&o, &cmd, false, "-N2", "-n", "4", "-c2", "-p", "gpu",
			       "-t", "10", "-J", "x", "--mem=1G", "-G", "a100:2",
			       "--exclusive", "-w", "n[1-2]", "-D", "/tmp", "hostname",
			       "-n", "9", NULL),
			 0);
	assert_int_equal(cmd, 19);
	assert_string_equal(o.job.nodes, "2");
	assert_string_equal(o.job.ntasks, "4");
	assert_string_equal(o.job.cpus_per_task, "2");
	assert_string_equal(o.job.partition, "gpu");
	assert_string_equal(o.job.time, "10");
	assert_string_equal(o.job.job_name, "x");
	assert_string_equal(o.job.mem, "1G");
	assert_string_equal(o.job.gpus, "a100:2");
	assert_string_equal(o.job.exclusive, "exclusive");
	assert_string_equal(o.job.nodelist, "n[1-2]");
	assert_string_equal(o.job.chdir, "/tmp");
	assert_int_equal(o.dist, DIST_UNSET);
	assert_int_equal(o.wait_secs, -1);
	assert_int_equal(o.kill_on_bad_exit, -1);

	assert_int_equal(parse(&o, &cmd, false, NULL), 0);
	assert_int_equal(cmd, 1);
}

static void test_step_options(void **state)
{
	struct srun_opts o;
	int cmd;

	assert_int_equal(parse(&o, &cmd, false, "-l", "-u", "-o", "out-%t", "-e", "err",
			       "-i", "3", "-K", "-W", "30", "--multi-prog", "--exact",
			       "--overlap", "--jobid=12", "-m", "cyclic:block,Pack",
			       "--cpu-bind=verbose,map_cpu:0,1", "--gpu-bind=closest",
			       "--gpus-per-task=2", "--ntasks-per-gpu=1", "--mpi=pmix",
			       "-I", "-Q", "-v", "-v", "-O", "--propagate", "prog", NULL),
			 0);
	assert_true(o.label && o.unbuffered && o.multi_prog && o.exact && o.overlap);
	assert_true(o.quiet && o.overcommit);
	assert_string_equal(o.output, "out-%t");
	assert_null(o.job.output); /* step I/O is not the job's */
	assert_string_equal(o.error, "err");
	assert_int_equal(o.input_mode, SRUN_IN_TASK);
	assert_int_equal(o.input_task, 3);
	assert_int_equal(o.kill_on_bad_exit, 1);
	assert_int_equal(o.wait_secs, 30);
	assert_int_equal(o.jobid, 12);
	assert_int_equal(o.dist, DIST_CYCLIC);
	assert_string_equal(o.cpu_bind, "verbose,map_cpu:0,1");
	assert_int_equal(o.gpus_per_task_n, 2);
	assert_int_equal(o.ntasks_per_gpu, 1);
	assert_string_equal(o.mpi, "pmix");
	assert_int_equal(o.immediate, 1);
	assert_int_equal(o.verbose, 2);
	assert_string_equal(o.propagate, "ALL");

	assert_int_equal(
	    parse(&o, &cmd, false, "-K0", "--immediate=5", "-i", "none", NULL), 0);
	assert_int_equal(o.kill_on_bad_exit, 0);
	assert_int_equal(o.immediate, 5);
	assert_int_equal(o.input_mode, SRUN_IN_NONE);
	assert_int_equal(parse(&o, &cmd, false, "--input=in-%t", NULL), 0);
	assert_int_equal(o.input_mode, SRUN_IN_FILE);
}

/* --pty: stdin goes to task 0 unless -i says otherwise, as Slurm's */
static void test_pty_input(void **state)
{
	struct srun_opts o;
	int cmd;

	assert_int_equal(parse(&o, &cmd, false, "--pty", "bash", NULL), 0);
	assert_true(o.pty);
	assert_int_equal(o.input_mode, SRUN_IN_TASK);
	assert_int_equal(o.input_task, 0);
	assert_int_equal(parse(&o, &cmd, false, "--pty", "-i", "all", "bash", NULL), 0);
	assert_int_equal(o.input_mode, SRUN_IN_ALL);
	assert_int_equal(parse(&o, &cmd, false, "bash", NULL), 0);
	assert_false(o.pty);
	assert_int_equal(o.input_mode, SRUN_IN_ALL);
}

static void test_distribution(void **state)
{
	static const struct {
		const char *s;
		int rc;
		enum drv_dist d;
		uint32_t plane;
	} cases[] = {
	    {"block", 0, DIST_BLOCK, 0},
	    {"Cyclic", 0, DIST_CYCLIC, 0},
	    {"arbitrary", 0, DIST_ARBITRARY, 0},
	    {"plane=4", 0, DIST_PLANE, 4},
	    {"*:cyclic", 0, DIST_BLOCK, 0},
	    {"block:cyclic:fcyclic", 0, DIST_BLOCK, 0},
	    {"cyclic,NoPack", 0, DIST_CYCLIC, 0},
	    {"foo", -EINVAL, DIST_UNSET, 0},
	    {"plane", -EINVAL, DIST_UNSET, 0},
	    {"plane=0", -EINVAL, DIST_UNSET, 0},
	    {"block:foo", -EINVAL, DIST_UNSET, 0},
	    {"block,Pack,x", -EINVAL, DIST_UNSET, 0},
	    {"plane=4:block", -EINVAL, DIST_UNSET, 0},
	    {"plane=4,Pack", -EINVAL, DIST_UNSET, 0},
	    {"cyclic:*", 0, DIST_CYCLIC, 0},
	    {"block:block:block:block", -EINVAL, DIST_UNSET, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum drv_dist d = DIST_UNSET;
		uint32_t plane = 99;
		assert_int_equal(srun_dist_parse(cases[i].s, &d, &plane), cases[i].rc);
		if (cases[i].rc == 0) {
			assert_int_equal(d, cases[i].d);
			assert_int_equal(plane, cases[i].plane);
		}
	}
}

/* Exit classes as Slurm's srun: -EDOM exits 255, -EINVAL exits 1. */
static void test_bad_values(void **state)
{
	struct srun_opts o;
	int cmd;

	assert_int_equal(parse(&o, &cmd, false, "--foo", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, false, "-m", "foo", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, false, "-m", "plane=0", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, false, "--gpu-bind=single", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, false, "--gpu-bind=single:2", NULL), 0);
	assert_int_equal(parse(&o, &cmd, false, "--gpu-bind=verbose,map_gpu:0,1", NULL),
			 0);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=foo", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--cpu_bind=map_cpu", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=q,cores", NULL), 0);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=mask_cpu:0x3,0xc", NULL), 0);
	assert_int_equal(parse(&o, &cmd, false, "-W", "abc", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "-W", "-1", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "-Kx", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--immediate=abc", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--jobid=0", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--ntasks-per-gpu=x", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--gpus-per-task=0", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--propagate=FOO", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--propagate=NOFILE,RLIMIT_CORE", NULL),
			 0);
	assert_int_equal(parse(&o, &cmd, false, "--propagate=nofile", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=map_cpu:0,1,verbose", NULL),
			 0);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=cores,v", NULL), 0);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=map_cpu:zz", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--cpu-bind=cores:1", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--gpu-bind=verbose", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, false, "--gpu-bind=map_gpu:x", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, false, "--gpu-bind=verbose,CLOSEST", NULL), 0);
	assert_int_equal(parse(&o, &cmd, false, "--het-group=0", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "-Z", NULL), -EINVAL);
	assert_int_equal(parse(&o, &cmd, false, "--no-shell", NULL), -EDOM);
	assert_int_equal(
	    parse(&o, &cmd, false, "--mail-type=END", "--hint=nomultithread", NULL), 0);
}

static void test_salloc(void **state)
{
	struct srun_opts o;
	int cmd;

	assert_int_equal(
	    parse(&o, &cmd, true, "-N1", "--no-shell", "-K", "-I5", "bash", NULL), 0);
	assert_true(o.no_shell);
	assert_string_equal(o.kill_command, "TERM");
	assert_int_equal(o.immediate, 5);
	assert_int_equal(o.kill_on_bad_exit, -1);
	assert_int_equal(cmd, 5);
	assert_int_equal(parse(&o, &cmd, true, "--kill-command=KILL", NULL), 0);
	assert_string_equal(o.kill_command, "KILL");
	assert_int_equal(parse(&o, &cmd, true, "-o", "x", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, true, "-W", "5", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, true, "-l", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, true, "--jobid=5", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, true, "--export=ALL", NULL), -EDOM);
	assert_int_equal(parse(&o, &cmd, true, "--wait-all-nodes=1", NULL), 0);
}

static void test_mem_overrides_env(void **state)
{
	struct srun_opts o;
	static char *argv[] = {"srun", "--mem=2G", NULL};

	srun_opts_init(&o);
	setenv("SLURM_MEM_PER_CPU", "100", 1);
	srun_opts_from_env(&o, false);
	unsetenv("SLURM_MEM_PER_CPU");
	assert_string_equal(o.job.mem_per_cpu, "100");
	assert_int_equal(srun_opts_parse(2, argv, &o, NULL, false), 0);
	assert_string_equal(o.job.mem, "2G");
	assert_null(o.job.mem_per_cpu);
}

static void test_env(void **state)
{
	struct srun_opts o;
	static char *argv[] = {"srun", "-p", "cli", NULL};

	srun_opts_init(&o);
	setenv("SLURM_PARTITION", "envp", 1);
	setenv("SLURM_TIMELIMIT", "5", 1);
	setenv("SLURM_LABELIO", "1", 1);
	setenv("SLURM_UNBUFFEREDIO", "0", 1);
	setenv("SLURM_KILL_BAD_EXIT", "1", 1);
	setenv("SLURM_WAIT", "7", 1);
	setenv("SLURM_DISTRIBUTION", "cyclic", 1);
	setenv("SLURM_STDOUTMODE", "o-%t", 1);
	setenv("SLURM_JOBID", "77", 1);
	setenv("SLURM_NTASKS", "64", 1);
	setenv("SALLOC_PARTITION", "sallocp", 1);
	srun_opts_from_env(&o, false);
	assert_string_equal(o.job.partition, "envp");
	assert_string_equal(o.job.time, "5");
	assert_true(o.label);
	assert_false(o.unbuffered);
	assert_int_equal(o.kill_on_bad_exit, 1);
	assert_int_equal(o.wait_secs, 7);
	assert_string_equal(o.output, "o-%t");
	assert_string_equal(o.env_jobid, "77");
	assert_null(o.job.ntasks);
	setenv("SLURM_JOB_ID", "78", 1);
	srun_opts_from_env(&o, false);
	assert_string_equal(o.env_jobid, "78");
	assert_int_equal(srun_opts_parse(3, argv, &o, NULL, false), 0);
	assert_string_equal(o.job.partition, "cli");
	assert_int_equal(o.dist, DIST_CYCLIC); /* checked whatever its source */

	struct srun_opts s;
	srun_opts_init(&s);
	setenv("SALLOC_NO_BELL", "1", 1);
	srun_opts_from_env(&s, true);
	assert_string_equal(s.job.partition, "sallocp");
	assert_null(s.env_jobid);
	assert_false(s.label);

	setenv("SLURM_DISTRIBUTION", "bogus", 1);
	srun_opts_init(&o);
	srun_opts_from_env(&o, false);
	assert_int_equal(srun_opts_parse(1, argv, &o, NULL, false), -EDOM);
	const char *vars[] = {
	    "SLURM_PARTITION",	  "SLURM_TIMELIMIT",	 "SLURM_LABELIO",
	    "SLURM_UNBUFFEREDIO", "SLURM_KILL_BAD_EXIT", "SLURM_WAIT",
	    "SLURM_DISTRIBUTION", "SLURM_STDOUTMODE",	 "SLURM_JOBID",
	    "SLURM_JOB_ID",	  "SLURM_NTASKS",	 "SALLOC_PARTITION",
	    "SALLOC_NO_BELL"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void test_usage(void **state)
{
	srun_usage(false);
	srun_usage(true);
}

int main(void)
{
	cli_init("srun");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shared_options),
	    cmocka_unit_test(test_step_options),
	    cmocka_unit_test(test_pty_input),
	    cmocka_unit_test(test_distribution),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_salloc),
	    cmocka_unit_test(test_mem_overrides_env),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_usage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
