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
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
	/* Nothing of issue 3 given: what an older ctld sends. */
	s.ntasks = 1;
	s.cpus_per_task = s.ntasks_per_node = s.cpus_on_node = -1;
	s.mem_per_node = s.mem_per_cpu = s.gpus_total = s.gpus_per_node = -1;
	s.tasks_per_node = s.job_cpus_per_node = s.account = s.stdin_pat = "";
	s.qos = "normal";
	s.gpus = "";
	s.time_limit = -1;
	s.array_job_id = s.array_task_id = -1;
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
	check_expand(&s, "%A-%a-%3a", "42-4294967294-4294967294");
	s.array_job_id = 40;
	s.array_task_id = 2;
	check_expand(&s, "%A_%a-%3a-%j-%J", "40_2-002-42-42.batch");
	s.array_task_id = 0;
	check_expand(&s, "%a", "0");
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

/* Without any issue-3 field only the unconditional variables appear. */
static void test_env_conditions_absent(void **state)
{
	struct spec s = sample_spec();
	char **envp = env_build(&s);
	assert_non_null(envp);
	static const char *absent[] = {
	    "SLURM_NTASKS",	   "SLURM_NPROCS",	   "SLURM_NTASKS_PER_NODE",
	    "SLURM_CPUS_PER_TASK", "SLURM_MEM_PER_NODE",   "SLURM_MEM_PER_CPU",
	    "SLURM_JOB_ACCOUNT",   "SLURM_GPUS_ON_NODE",   "SLURM_JOB_GPUS",
	    "GPU_DEVICE_ORDINAL",  "CUDA_VISIBLE_DEVICES", "SLURM_GPUS",
	    "SLURM_GPUS_PER_NODE", "SLURM_RESTART_COUNT",  NULL};
	for (const char **v = absent; *v; v++) {
		if (env_get(envp, *v))
			fail_msg("%s set without its option", *v);
	}
	assert_string_equal(env_get(envp, "SLURM_JOB_QOS"), "normal");
	assert_string_equal(env_get(envp, "SLURM_JOB_USER"), "alice");
	assert_string_equal(env_get(envp, "SLURM_JOB_UID"), "1000");
	assert_string_equal(env_get(envp, "SLURM_JOB_GID"), "1000");
	assert_string_equal(env_get(envp, "SLURM_PROCID"), "0");
	assert_string_equal(env_get(envp, "SLURM_LOCALID"), "0");
	assert_string_equal(env_get(envp, "SLURM_NODEID"), "0");
	assert_string_equal(env_get(envp, "SLURM_GTIDS"), "0");
	assert_string_equal(env_get(envp, "SLURM_PRIO_PROCESS"), "0");
	assert_string_equal(env_get(envp, "SLURM_TOPOLOGY_ADDR"), "gpu07");
	assert_string_equal(env_get(envp, "SLURM_TOPOLOGY_ADDR_PATTERN"), "node");
	assert_non_null(env_get(envp, "SLURM_UMASK"));
	assert_int_equal(strlen(env_get(envp, "SLURM_UMASK")), 4);
	env_free(envp);
}

/* -n 2 -c 2 --ntasks-per-node=2 --mem-per-cpu=50 -A acct --qos=q, GPUs 1,3. */
static void test_env_conditions_given(void **state)
{
	static const char *env[] = {"SLURM_UMASK=0077", "SLURM_PRIO_PROCESS=5", NULL};
	struct spec s = sample_spec();
	s.env = env;
	s.n_env = 2;
	s.ntasks = 2;
	s.ntasks_given = true;
	s.cpus_per_task = 2;
	s.ntasks_per_node = 2;
	s.tasks_per_node = "2(x3),1";
	s.job_cpus_per_node = "4(x3),2";
	s.cpus_on_node = 4;
	s.mem_per_node = 100;
	s.mem_per_cpu = 50;
	s.account = "acct";
	s.qos = "q";
	s.gpus = "1,3";
	s.n_gpus = 2;
	s.gpus_total = 2;
	s.gpus_per_node = 2;
	s.restart = 2;
	char **envp = env_build(&s);
	assert_non_null(envp);
	static const char *want[][2] = {{"SLURM_NTASKS", "2"},
					{"SLURM_NPROCS", "2"},
					{"SLURM_CPUS_PER_TASK", "2"},
					{"SLURM_NTASKS_PER_NODE", "2"},
					{"SLURM_TASKS_PER_NODE", "2(x3),1"},
					{"SLURM_JOB_CPUS_PER_NODE", "4(x3),2"},
					{"SLURM_CPUS_ON_NODE", "4"},
					{"SLURM_MEM_PER_CPU", "50"},
					{"SLURM_JOB_ACCOUNT", "acct"},
					{"SLURM_JOB_QOS", "q"},
					{"SLURM_GPUS_ON_NODE", "2"},
					{"SLURM_JOB_GPUS", "1,3"},
					{"GPU_DEVICE_ORDINAL", "1,3"},
					{"CUDA_VISIBLE_DEVICES", "1,3"},
					{"SLURM_GPUS", "2"},
					{"SLURM_GPUS_PER_NODE", "2"},
					{"SLURM_RESTART_COUNT", "2"},
					{"SLURM_UMASK", "0077"},
					{"SLURM_PRIO_PROCESS", "5"},
					{NULL, NULL}};
	for (size_t i = 0; want[i][0]; i++) {
		const char *got = env_get(envp, want[i][0]);
		if (!got || strcmp(got, want[i][1]) != 0)
			fail_msg("%s=%s, want %s", want[i][0], got ? got : "<unset>",
				 want[i][1]);
	}
	/* Memory is per CPU or per node, never both. */
	assert_null(env_get(envp, "SLURM_MEM_PER_NODE"));
	env_free(envp);
	s.env = NULL;
	s.n_env = 0;
	s.mem_per_cpu = -1;
	s.ntasks_given = false;
	envp = env_build(&s);
	assert_string_equal(env_get(envp, "SLURM_MEM_PER_NODE"), "100");
	assert_null(env_get(envp, "SLURM_NTASKS"));
	env_free(envp);
}

/* A job dir with a spec for script; returns the dir in buf. */
static void make_job(char *dir, size_t size, const char *script, const char *out,
		     const char *err, json_t *extra)
{
	snprintf(dir, size, "/tmp/test_shepherd.XXXXXX");
	assert_non_null(mkdtemp(dir));
	json_t *spec =
	    json_pack("{s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:[s]}",
		      "job_id", 5, "restart", 0, "user", "u", "name", "n", "uid",
		      (int)getuid(), "gid", (int)getgid(), "workdir", dir, "script",
		      script, "stdout", out, "stderr", err, "argv", "arg1");
	assert_non_null(spec);
	if (extra)
		json_object_update(spec, extra);
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

/* Runs script from a fresh job dir; extra (consumed, may be NULL) adds
 * spec fields. */
static void run_with(const char *script, const char *out, const char *err, json_t *extra,
		     struct job_result *res, char *dir, size_t size)
{
	make_job(dir, size, script, out, err, extra);
	json_decref(extra);
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

static void run_script(const char *script, const char *out, const char *err,
		       struct job_result *res, char *dir, size_t size)
{
	run_with(script, out, err, NULL, res, dir, size);
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
	/* what the script used (wait4's rusage) rides along as "usage" */
	json_t *st = json_loads(status, 0, NULL);
	assert_non_null(st);
	json_t *usage = json_incref(json_object_get(st, "usage"));
	assert_true(json_is_object(usage));
	json_object_del(st, "usage");
	char *rest = json_dumps(st, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(rest, "{\"exit_code\":3,\"signal\":0,\"restart\":0}");
	free(rest);
	assert_int_equal(json_integer_value(json_object_get(usage, "ntasks")), 1);
	assert_int_equal(json_integer_value(json_object_get(usage, "max_rss_task")), 0);
	assert_true(json_integer_value(json_object_get(usage, "max_rss_kib")) > 0);
	assert_int_equal(json_integer_value(json_object_get(usage, "ave_rss_kib")),
			 json_integer_value(json_object_get(usage, "max_rss_kib")));
	assert_true(json_is_integer(json_object_get(usage, "user_usec")));
	assert_true(json_is_integer(json_object_get(usage, "sys_usec")));
	json_decref(usage);
	json_decref(st);
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

static void read_into(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
}

/* Two jobs append to one file (an absolute name, outside both job dirs);
 * what was there stays. The default, truncate, starts it over. */
static void test_run_open_mode_append(void **state)
{
	char dir[64], out[64], buf[64];
	struct job_result res;
	snprintf(out, sizeof(out), "/tmp/test_shepherd_append.%d", (int)getpid());
	FILE *f = fopen(out, "w");
	assert_non_null(f);
	fputs("before\n", f);
	fclose(f);
	json_t *extra = json_pack("{s:s}", "open_mode", "append");
	run_with("#!/bin/sh\necho one\n", out, "", json_incref(extra), &res, dir,
		 sizeof(dir));
	cleanup_dir(dir);
	run_with("#!/bin/sh\necho two >&2\n", out, out, extra, &res, dir, sizeof(dir));
	cleanup_dir(dir);
	read_into(out, buf, sizeof(buf));
	assert_string_equal(buf, "before\none\ntwo\n");
	run_script("#!/bin/sh\necho three\n", out, "", &res, dir, sizeof(dir));
	cleanup_dir(dir);
	read_into(out, buf, sizeof(buf));
	assert_string_equal(buf, "three\n");
	unlink(out);
}

static void test_run_stdin(void **state)
{
	char dir[64];
	struct job_result res;
	char in[PATH_MAX];
	snprintf(in, sizeof(in), "/tmp/test_shepherd_in.%d", (int)getpid());
	FILE *f = fopen(in, "w");
	assert_non_null(f);
	fputs("line from input\n", f);
	fclose(f);
	run_with("#!/bin/sh\ncat\n", "out", "", json_pack("{s:s}", "stdin", in), &res,
		 dir, sizeof(dir));
	assert_int_equal(res.exit_code, 0);
	char *out = slurp(dir, "out");
	assert_string_equal(out, "line from input\n");
	free(out);
	cleanup_dir(dir);
	unlink(in);
	/* Without -i: /dev/null, so cat ends at once. */
	run_script("#!/bin/sh\ncat\necho done\n", "out", "", &res, dir, sizeof(dir));
	out = slurp(dir, "out");
	assert_string_equal(out, "done\n");
	free(out);
	cleanup_dir(dir);
	/* A missing input file fails the job, and its stderr says why. */
	run_with("#!/bin/sh\necho ran\n", "out", "err",
		 json_pack("{s:s}", "stdin", "missing-%j.in"), &res, dir, sizeof(dir));
	assert_int_equal(res.exit_code, 1);
	assert_non_null(strstr(res.message, "missing-5.in"));
	char *err = slurp(dir, "err");
	assert_non_null(err);
	assert_non_null(strstr(err, "slurmstepd: error: Could not open stdin file "
				    "missing-5.in: No such file or directory"));
	free(err);
	out = slurp(dir, "out");
	assert_string_equal(out, "");
	free(out);
	cleanup_dir(dir);
}

/* The child takes exactly the groups of the spec's "gids" (what ctld
 * resolved), then the uid and gid; without a list, the primary group alone.
 * Needs root to switch users; skipped elsewhere. */
static int groups_after_become(const char *spec_json, gid_t *got, int max)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		json_t *spec = json_loads(spec_json, 0, NULL);
		char err[160];
		gid_t g[64];
		int n = -1;
		if (shepherd_become_user(spec, 65534, 65534, err, sizeof(err)) == 0 &&
		    getuid() == 65534 && getgid() == 65534)
			n = getgroups(64, g);
		ssize_t w = write(fds[1], &n, sizeof(n));
		if (n > 0)
			w += write(fds[1], g, (size_t)n * sizeof(gid_t));
		_exit(w > 0 ? 0 : 1);
	}
	close(fds[1]);
	int n = -1;
	assert_int_equal(read(fds[0], &n, sizeof(n)), sizeof(n));
	if (n > 0 && n <= max)
		assert_int_equal(read(fds[0], got, (size_t)n * sizeof(gid_t)),
				 (ssize_t)((size_t)n * sizeof(gid_t)));
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return n;
}

static void test_become_user_sets_the_given_groups(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	gid_t g[64];
	/* the kernel keeps the list sorted */
	assert_int_equal(groups_after_become("{\"gids\":[65534,4,27]}", g, 64), 3);
	assert_true(g[0] == 4 && g[1] == 27 && g[2] == 65534);
	assert_int_equal(groups_after_become("{}", g, 64), 1);
	assert_true(g[0] == 65534);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_env_conditions_absent),
	    cmocka_unit_test(test_env_conditions_given),
	    cmocka_unit_test(test_run_exit_code),
	    cmocka_unit_test(test_run_signal_and_stderr),
	    cmocka_unit_test(test_run_bad_output),
	    cmocka_unit_test(test_run_open_mode_append),
	    cmocka_unit_test(test_run_stdin),
	    cmocka_unit_test(test_become_user_sets_the_given_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
