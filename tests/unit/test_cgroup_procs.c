/* test_cgroup_procs.c — common/cgroup_procs.c on fake trees: listing a
 * cgroup and its children, signalling what is listed (a real child of the
 * test, never the caller), cgroup.kill on v2, and the unkillable timeout:
 * a cgroup that never empties (it lists a pid above the kernel's largest,
 * which no process can have) ends in -ETIMEDOUT once the timeout passed,
 * not before. The real kernel's side runs in
 * tests/integ/test_signals_cgroup.py (root). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_tree.h"

#include "common/cgroup_procs.h"

/* PID_MAX_LIMIT is 4194304 (2^22): no process ever has a larger pid */
#define NO_SUCH_PID 4194305

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

static void test_list_covers_children(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgp.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.procs", "10\n11\n");
	sub(root, "step_batch");
	put(root, "step_batch/cgroup.procs", "20\n");
	sub(root, "step_0");
	put(root, "step_0/cgroup.procs", "");
	sub(root, "step_0/task_0");
	put(root, "step_0/task_0/cgroup.procs", "30\n31\n32\n");
	pid_t *pids;
	size_t n;
	assert_int_equal(cgp_list(root, &pids, &n), 0);
	assert_int_equal(n, 6);
	qsort(pids, n, sizeof(*pids), cmp_pid);
	const pid_t want[] = {10, 11, 20, 30, 31, 32};
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pids[i], want[i]);
	free(pids);
	assert_int_equal(cgp_count(root), 6);
	rm_tree(root);
	/* gone: empty, and -ENOENT says so */
	assert_int_equal(cgp_list(root, &pids, &n), -ENOENT);
	assert_int_equal(n, 0);
	assert_null(pids);
	assert_int_equal(cgp_count(root), 0);
	assert_int_equal(cgp_signal(root, 0), -ENOENT);
}

static pid_t sleeper(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void test_signal_reaches_listed_never_self(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgp.XXXXXX", text[96];
	assert_non_null(mkdtemp(root));
	pid_t child = sleeper();
	sub(root, "step_0");
	snprintf(text, sizeof(text), "%d\n%d\n", (int)getpid(), NO_SUCH_PID);
	put(root, "cgroup.procs", text);
	snprintf(text, sizeof(text), "%d\n", (int)child);
	put(root, "step_0/cgroup.procs", text);
	/* the caller is skipped, the pid that cannot exist is not counted */
	assert_int_equal(cgp_signal(root, SIGTERM), 1);
	int st;
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	rm_tree(root);
}

static void test_kill_uses_cgroup_kill_on_v2(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgp.XXXXXX", path[PATH_MAX], buf[8] = "";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.procs", "");
	put(root, "cgroup.kill", "");
	assert_int_equal(cgp_kill(root, NULL), 0);
	snprintf(path, sizeof(path), "%s/cgroup.kill", root);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "1");
	rm_tree(root);
}

static void test_kill_v1_kills_listed(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgp.XXXXXX", text[32];
	assert_non_null(mkdtemp(root));
	pid_t child = sleeper();
	snprintf(text, sizeof(text), "%d\n", (int)child);
	put(root, "cgroup.procs", text);
	/* a freezer that is no freezer (no freezer.state): killed unfrozen */
	assert_int_equal(cgp_kill(root, "/nonexistent"), 1);
	int st;
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	rm_tree(root);
}

static int64_t ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void test_end_empty_is_at_once(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgp.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.procs", "");
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(cgp_end(root, NULL, 10000), 0);
	assert_true(ms_since(&t0) < 1000);
	rm_tree(root);
	assert_int_equal(cgp_end(root, NULL, 10000), 0); /* gone: empty */
}

/* UnkillableStepTimeout's logic: still there after the timeout. */
static void test_end_unkillable_times_out(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgp.XXXXXX", text[32];
	assert_non_null(mkdtemp(root));
	snprintf(text, sizeof(text), "%d\n", NO_SUCH_PID);
	put(root, "cgroup.procs", text);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(cgp_end(root, NULL, 300), -ETIMEDOUT);
	int64_t took = ms_since(&t0);
	assert_true(took >= 300);
	assert_true(took < 3000);
	/* no timeout: one pass, one look */
	assert_int_equal(cgp_end(root, NULL, 0), -ETIMEDOUT);
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_covers_children),
	    cmocka_unit_test(test_signal_reaches_listed_never_self),
	    cmocka_unit_test(test_kill_uses_cgroup_kill_on_v2),
	    cmocka_unit_test(test_kill_v1_kills_listed),
	    cmocka_unit_test(test_end_empty_is_at_once),
	    cmocka_unit_test(test_end_unkillable_times_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
