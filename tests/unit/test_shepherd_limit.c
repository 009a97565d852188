/* test_shepherd_limit.c — the shepherd's time limit on real children:
 * SIGTERM to the group at the limit (a script's trap sees it first),
 * SIGKILL KillWait seconds later when the job ignores it, the limit counted
 * from ctld's start_time, no limit at all for -1 and 0, and a wait that
 * other signals' handlers do not disturb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

struct run {
	char dir[64];
	struct job_result res;
	double elapsed; /* seconds run_job took */
	char out[512];
};

/* Runs script as job 9 with the given limit fields; fills r. */
static void run_limited(struct run *r, const char *script, json_t *fields)
{
	snprintf(r->dir, sizeof(r->dir), "/tmp/test_limit.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	json_t *spec = json_pack("{s:i, s:s, s:i, s:i, s:s, s:s, s:s}", "job_id", 9,
				 "user", "u", "uid", (int)getuid(), "gid", (int)getgid(),
				 "workdir", r->dir, "script", script, "stdout", "out");
	assert_non_null(spec);
	json_object_update(spec, fields);
	json_decref(fields);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/spec.json", r->dir);
	assert_int_equal(json_dump_file(spec, path, 0), 0);
	json_decref(spec);
	struct spec s;
	char msg[256];
	assert_int_equal(spec_load(r->dir, &s, msg, sizeof(msg)), 0);
	assert_int_equal(
	    drv_write_file_atomic(r->dir, "script", script, strlen(script), 0700), 0);
	snprintf(path, sizeof(path), "%s/script", r->dir);
	int64_t t0 = limit_now();
	assert_int_equal(run_job(r->dir, &s, path, &r->res), 0);
	r->elapsed = (double)(limit_now() - t0) / 1e9;
	assert_int_equal(status_record(r->dir, &s, &r->res), 0);
	spec_fini(&s);
	snprintf(path, sizeof(path), "%s/out", r->dir);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(r->out, 1, sizeof(r->out) - 1, f) : 0;
	if (f)
		fclose(f);
	r->out[n] = '\0';
}

static void done(struct run *r)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
	assert_int_equal(system(cmd), 0);
}

static bool status_says_timeout(struct run *r)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/status", r->dir);
	json_error_t jerr;
	json_t *st = json_load_file(path, 0, &jerr);
	bool t = json_is_true(json_object_get(st, "timeout"));
	json_decref(st);
	return t;
}

/* The trap runs: SIGTERM came first, and the job ends by itself. */
static void test_term_at_limit(void **state)
{
	struct run r;
	run_limited(
	    &r,
	    "#!/bin/sh\ntrap 'echo got TERM; exit 7' TERM\necho started\n"
	    "while :; do sleep 0.1; done\n",
	    json_pack("{s:i, s:i, s:s}", "time_limit", 1, "kill_wait", 5, "node", "n7"));
	assert_true(r.res.timeout);
	assert_int_equal(r.res.exit_code, 7);
	assert_int_equal(r.res.sig, 0);
	/* (sh may also report its sleep "Terminated".) */
	assert_non_null(strstr(r.out, "started\n"));
	assert_non_null(strstr(r.out, "got TERM\n"));
	/* Slurm's line, in the job's stderr (here its stdout's file), before
	 * the job saw SIGTERM */
	const char *line =
	    strstr(r.out, "slurmstepd: error: *** JOB 9 ON n7 CANCELLED AT ");
	assert_non_null(line);
	assert_true(line < strstr(r.out, "got TERM\n"));
	assert_non_null(strstr(line, " DUE TO TIME LIMIT ***\n"));
	assert_int_equal(strlen("slurmstepd: error: *** JOB 9 ON n7 CANCELLED AT "
				"2026-12-02T05:01:02 DUE TO TIME LIMIT ***\n"),
			 strcspn(line, "\n") + 1);
	assert_true(r.elapsed >= 0.95 && r.elapsed < 1.8);
	assert_true(status_says_timeout(&r));
	done(&r);
}

/* noded's cancel (DRV_SHEPHERD_KILL_SIG with a reason): Slurm's line in
 * the job's stderr, then SIGTERM; not a timeout. */
static void test_cancel_from_noded(void **state)
{
	sigset_t kill_sig, old;
	sigemptyset(&kill_sig);
	sigaddset(&kill_sig, DRV_SHEPHERD_KILL_SIG);
	sigprocmask(SIG_BLOCK, &kill_sig, &old);
	pid_t self = getpid(), helper = fork();
	if (helper == 0) {
		usleep(400 * 1000);
		sigqueue(self, DRV_SHEPHERD_KILL_SIG,
			 (union sigval){.sival_int = DRV_KILL_WHY_CANCEL});
		_exit(0);
	}
	struct run r;
	run_limited(
	    &r,
	    "#!/bin/sh\ntrap 'echo got TERM; exit 3' TERM\necho started\n"
	    "while :; do sleep 0.1; done\n",
	    json_pack("{s:i, s:s, s:s}", "kill_wait", 5, "node", "n7", "stderr", "err"));
	waitpid(helper, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	assert_false(r.res.timeout);
	assert_int_equal(r.res.exit_code, 3);
	char path[PATH_MAX], err[256] = "";
	snprintf(path, sizeof(path), "%s/err", r.dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(err, 1, sizeof(err) - 1, f);
	fclose(f);
	err[n] = '\0';
	assert_int_equal(
	    strncmp(err, "slurmstepd: error: *** JOB 9 ON n7 CANCELLED AT ", 48), 0);
	/* (sh may add its sleep's "Terminated" after it) */
	assert_int_equal(strlen("slurmstepd: error: *** JOB 9 ON n7 CANCELLED AT "
				"2026-12-02T05:01:02 ***\n"),
			 strcspn(err, "\n") + 1);
	assert_null(strstr(err, "TIME LIMIT"));
	done(&r);
}

/* A job that shrugs off SIGTERM is killed KillWait seconds later. */
static void test_kill_after_kill_wait(void **state)
{
	struct run r;
	run_limited(&r,
		    "#!/bin/sh\ntrap 'echo got TERM' TERM\n"
		    "while :; do sleep 0.1; done\n",
		    json_pack("{s:i, s:i}", "time_limit", 1, "kill_wait", 1));
	assert_true(r.res.timeout);
	assert_int_equal(r.res.sig, 9);
	assert_non_null(strstr(r.out, "got TERM\n"));
	assert_true(r.elapsed >= 1.95 && r.elapsed < 2.8);
	done(&r);
}

/* The limit counts from ctld's start, not from the shepherd's. */
static void test_limit_from_start_time(void **state)
{
	struct run r;
	json_int_t now = (json_int_t)time(NULL);
	run_limited(&r, "#!/bin/sh\nsleep 30\n",
		    json_pack("{s:i, s:I, s:i}", "time_limit", 11, "start_time", now - 10,
			      "kill_wait", 1));
	assert_true(r.res.timeout);
	assert_int_equal(r.res.sig, 15); /* sh dies of the TERM */
	assert_true(r.elapsed < 2.0);
	done(&r);
}

/* -1 is unlimited and so is 0 (sbatch -t 0). */
static void test_no_limit(void **state)
{
	static const int limits[] = {-1, 0};
	for (size_t i = 0; i < 2; i++) {
		struct run r;
		run_limited(&r, "#!/bin/sh\nsleep 0.3\nexit 4\n",
			    json_pack("{s:i}", "time_limit", limits[i]));
		assert_false(r.res.timeout);
		assert_int_equal(r.res.exit_code, 4);
		assert_false(status_says_timeout(&r));
		done(&r);
	}
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
	alarms++;
}

/* Signals handled by the shepherd's process (without SA_RESTART) interrupt
 * its wait many times; neither the end nor the limit is missed. */
static void test_wait_survives_eintr(void **state)
{
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	sigaction(SIGALRM, &sa, &old);
	struct itimerval it = {{0, 50000}, {0, 50000}}, off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &it, NULL);
	struct run r;
	run_limited(&r, "#!/bin/sh\nsleep 0.5\necho ended\n",
		    json_pack("{s:i}", "time_limit", 60));
	assert_false(r.res.timeout);
	assert_string_equal(r.out, "ended\n");
	done(&r);
	run_limited(&r, "#!/bin/sh\nsleep 30\n",
		    json_pack("{s:i, s:i}", "time_limit", 1, "kill_wait", 1));
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_true(r.res.timeout);
	assert_true(r.elapsed < 1.8);
	assert_true(alarms > 10);
	done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_term_at_limit),
	    cmocka_unit_test(test_kill_after_kill_wait),
	    cmocka_unit_test(test_cancel_from_noded),
	    cmocka_unit_test(test_limit_from_start_time),
	    cmocka_unit_test(test_no_limit),
	    cmocka_unit_test(test_wait_survives_eintr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
