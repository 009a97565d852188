/* test_shepherd_run.c — the shepherd's parts without noded: output name
 * patterns, the job environment, the spec reader, and a real run of small
 * scripts (exit codes, signals, output files, the recorded status). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

static struct spec sample_spec(void)
{
	static const char *env[] = {"FOO=bar", "SLURM_JOB_ID=99", "NOEQUALS", NULL};
	struct spec s = {0};
	s.job_id = 42;
	s.name = "train";
	s.user = "alice";
	s.node = "gpu07";
	s.partition = "debug";
	s.nodelist = "n2,n1,n3";
	s.workdir = "/tmp";
	s.submit_dir = "/home/alice";
	s.submit_host = "login1";
	s.cluster = "c1";
	s.conf_path = "/etc/drover/drover.conf";
	s.stdout_pat = "";
	s.stderr_pat = "";
	s.script = "";
	s.uid = 1000;
	s.gid = 1000;
	s.num_nodes = 3;
	s.env = env;
	s.n_env = 3;
	return s;
}

static void check_expand(const struct spec *s, const char *pat, const char *want)
{
	char *got = io_expand(pat, s);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_expand(void **state)
{
	struct spec s = sample_spec();
	check_expand(&s, "slurm-%j.out", "slurm-42.out");
	check_expand(&s, "%x-%u-%N-%J", "train-alice-gpu07-42.batch");
	check_expand(&s, "100%%-%5j", "100%-00042");
	check_expand(&s, "%A_%a.%s", "42_4294967294.batch");
	check_expand(&s, "keep-%q-%", "keep-%q-%");
	check_expand(&s, "plain", "plain");
}

static const char *env_get(char **envp, const char *name)
{
	size_t n = strlen(name);
	for (char **p = envp; *p; p++) {
		if (strncmp(*p, name, n) == 0 && (*p)[n] == '=')
			return *p + n + 1;
	}
	return NULL;
}

static void test_env(void **state)
{
	struct spec s = sample_spec();
	char **envp = env_build(&s);
	assert_non_null(envp);
	assert_string_equal(env_get(envp, "FOO"), "bar");
	assert_string_equal(env_get(envp, "SLURM_JOB_ID"), "42"); /* overridden */
	assert_string_equal(env_get(envp, "SLURM_JOBID"), "42");
	assert_string_equal(env_get(envp, "SLURM_JOB_NAME"), "train");
	assert_string_equal(env_get(envp, "SLURM_JOB_NODELIST"), "n[1-3]");
	assert_string_equal(env_get(envp, "SLURM_NODELIST"), "n[1-3]");
	assert_string_equal(env_get(envp, "SLURM_NNODES"), "3");
	assert_string_equal(env_get(envp, "SLURMD_NODENAME"), "gpu07");
	assert_string_equal(env_get(envp, "SLURM_SUBMIT_DIR"), "/home/alice");
	assert_string_equal(env_get(envp, "ENVIRONMENT"), "BATCH");
	assert_string_equal(env_get(envp, "DROVER_CONF"), "/etc/drover/drover.conf");
	assert_string_equal(env_get(envp, "SLURM_CONF"), "/etc/drover/drover.conf");
	assert_null(env_get(envp, "NOEQUALS"));
	assert_null(env_get(envp, "SLURM_RESTART_COUNT"));
	size_t count = 0;
	for (char **p = envp; *p; p++)
		count += strncmp(*p, "SLURM_JOB_ID=", 13) == 0;
	assert_int_equal(count, 1);
	env_free(envp);
}

/* A job dir with a spec for script; returns the dir in buf. */
static void make_job(char *dir, size_t size, const char *script, const char *out,
		     const char *err)
{
	snprintf(dir, size, "/tmp/test_shepherd.XXXXXX");
	assert_non_null(mkdtemp(dir));
	json_t *spec =
	    json_pack("{s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:[s]}",
		      "job_id", 5, "restart", 0, "user", "u", "name", "n", "uid",
		      (int)getuid(), "gid", (int)getgid(), "workdir", dir, "script",
		      script, "stdout", out, "stderr", err, "argv", "arg1");
	assert_non_null(spec);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/spec.json", dir);
	assert_int_equal(json_dump_file(spec, path, 0), 0);
	json_decref(spec);
}

static char *slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 4096);
	size_t n = fread(buf, 1, 4095, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void run_script(const char *script, const char *out, const char *err,
		       struct job_result *res, char *dir, size_t size)
{
	make_job(dir, size, script, out, err);
	struct spec s;
	char msg[256];
	assert_int_equal(spec_load(dir, &s, msg, sizeof(msg)), 0);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/script", dir);
	assert_int_equal(
	    drv_write_file_atomic(dir, "script", script, strlen(script), 0700), 0);
	assert_int_equal(run_job(dir, &s, path, res), 0);
	assert_int_equal(status_record(dir, &s, res), 0);
	spec_fini(&s);
}

static void cleanup_dir(const char *dir)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_run_exit_code(void **state)
{
	char dir[64];
	struct job_result res;
	run_script("#!/bin/sh\necho out $1 $SLURM_JOB_ID\necho err >&2\nexit 3\n", "", "",
		   &res, dir, sizeof(dir));
	assert_int_equal(res.exit_code, 3);
	assert_int_equal(res.sig, 0);
	char *out = slurp(dir, "slurm-5.out");
	assert_non_null(out);
	assert_string_equal(out, "out arg1 5\nerr\n");
	free(out);
	char *status = slurp(dir, "status");
	assert_non_null(status);
	assert_string_equal(status, "{\"exit_code\":3,\"signal\":0,\"restart\":0}");
	free(status);
	char *pgid = slurp(dir, "pgid");
	assert_non_null(pgid);
	assert_true(atoi(pgid) > 1);
	free(pgid);
	cleanup_dir(dir);
}

static void test_run_signal_and_stderr(void **state)
{
	char dir[64];
	struct job_result res;
	run_script("#!/bin/sh\necho o\necho e >&2\nkill -TERM $$\n", "o-%j", "e-%j", &res,
		   dir, sizeof(dir));
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(res.sig, 15);
	char *o = slurp(dir, "o-5"), *e = slurp(dir, "e-5");
	assert_non_null(o);
	assert_non_null(e);
	assert_string_equal(o, "o\n");
	assert_string_equal(e, "e\n");
	free(o);
	free(e);
	cleanup_dir(dir);
}

static void test_run_bad_output(void **state)
{
	char dir[64];
	struct job_result res;
	run_script("#!/bin/sh\nexit 0\n", "/nonexistent/dir/out", "", &res, dir,
		   sizeof(dir));
	assert_int_equal(res.exit_code, 1);
	assert_non_null(strstr(res.message, "/nonexistent/dir/out"));
	char *status = slurp(dir, "status");
	assert_non_null(strstr(status, "\"message\""));
	free(status);
	cleanup_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_run_exit_code),
	    cmocka_unit_test(test_run_signal_and_stderr),
	    cmocka_unit_test(test_run_bad_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
