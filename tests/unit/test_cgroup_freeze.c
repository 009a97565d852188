/* test_cgroup_freeze.c — common/cgroup_freeze.c on fake trees: the control
 * file and word of each version, the write itself, reading the state back,
 * and the refusals (no freezer, no job directory); and, as root where a
 * cgroup2 hierarchy is mounted (/sys/fs/cgroup or its unified/), a real
 * freeze of a spinning process (skipped elsewhere, saying why). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cgroup_freeze.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void mkdirs(const char *path)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
}

static void rm_tree(const char *root)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void v1_writes_frozen_and_thawed(void **state)
{
	(void)state;
	char root[] = "/tmp/drv-frz-XXXXXX", dir[PATH_MAX], path[PATH_MAX + 32], text[32];
	assert_non_null(mkdtemp(root));
	struct cg_layout l = {.version = CG_V1};
	snprintf(l.mem_root, sizeof(l.mem_root), "%s/memory", root);
	snprintf(l.freezer_root, sizeof(l.freezer_root), "%s/freezer", root);
	snprintf(dir, sizeof(dir), "%s/freezer/drover_n1_7/job_42", root);
	assert_int_equal(cg_job_freeze(&l, "n1_7", 42, true), -ENOENT); /* no job dir */
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/freezer.state", dir);
	put(path, ""); /* the kernel's files take a write whole */
	assert_false(cg_job_frozen(&l, "n1_7", 42));
	assert_int_equal(cg_job_freeze(&l, "n1_7", 42, true), 0);
	get(path, text, sizeof(text));
	assert_string_equal(text, "FROZEN");
	assert_true(cg_job_frozen(&l, "n1_7", 42));
	assert_int_equal(cg_job_freeze(&l, "n1_7", 42, false), 0);
	get(path, text, sizeof(text));
	assert_string_equal(text, "THAWED");
	assert_false(cg_job_frozen(&l, "n1_7", 42));
	rm_tree(root);
}

static void v2_writes_one_and_zero(void **state)
{
	(void)state;
	char root[] = "/tmp/drv-frz-XXXXXX", dir[PATH_MAX], path[PATH_MAX + 32], text[32];
	assert_non_null(mkdtemp(root));
	struct cg_layout l = {.version = CG_V2};
	snprintf(l.mem_root, sizeof(l.mem_root), "%s", root);
	snprintf(dir, sizeof(dir), "%s/drover_n2_9/job_5", root);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
	put(path, "");
	assert_int_equal(cg_job_freeze(&l, "n2_9", 5, true), 0);
	get(path, text, sizeof(text));
	assert_string_equal(text, "1");
	assert_true(cg_job_frozen(&l, "n2_9", 5));
	assert_int_equal(cg_job_freeze(&l, "n2_9", 5, false), 0);
	get(path, text, sizeof(text));
	assert_string_equal(text, "0");
	rm_tree(root);
}

static void no_freezer_is_not_supported(void **state)
{
	(void)state;
	char buf[PATH_MAX];
	struct cg_layout v1 = {.version = CG_V1}, none = {.version = CG_NONE};
	snprintf(v1.mem_root, sizeof(v1.mem_root), "/sys/fs/cgroup/memory");
	assert_int_equal(cg_freeze_path(buf, sizeof(buf), &v1, "n", 1), -ENOTSUP);
	assert_int_equal(cg_job_freeze(&v1, "n", 1, true), -ENOTSUP);
	assert_int_equal(cg_job_freeze(&none, "n", 1, false), -ENOTSUP);
	assert_null(cg_freeze_word(&v1, true));
	assert_false(cg_job_frozen(&none, "n", 1));
}

static void paths_and_words(void **state)
{
	(void)state;
	char buf[PATH_MAX], tiny[8];
	struct cg_layout l = {.version = CG_V1};
	snprintf(l.freezer_root, sizeof(l.freezer_root), "/cg/freezer");
	assert_int_equal(cg_freeze_path(buf, sizeof(buf), &l, "", 3), 0);
	assert_string_equal(buf, "/cg/freezer/drover_local/job_3/freezer.state");
	assert_string_equal(cg_freeze_word(&l, true), "FROZEN");
	assert_string_equal(cg_freeze_word(&l, false), "THAWED");
	assert_int_equal(cg_freeze_path(tiny, sizeof(tiny), &l, "n", 3), -ENAMETOOLONG);
	l.version = CG_V2;
	snprintf(l.mem_root, sizeof(l.mem_root), "/cg");
	assert_int_equal(cg_freeze_path(buf, sizeof(buf), &l, "n1_5", 12), 0);
	assert_string_equal(buf, "/cg/drover_n1_5/job_12/cgroup.freeze");
}

/* utime + stime of pid in ticks, -1 when unreadable. */
static long cpu_ticks(pid_t pid)
{
	char path[64], text[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	const char *p = strrchr(text, ')');
	long ut = -1, st = -1;
	/* after ") S ": ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld",
			 &ut, &st) != 2)
		return -1;
	return ut + st;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* "frozen N" of the job directory's cgroup.events, waited for up to 2 s. */
static bool events_frozen(const char *dir, int want)
{
	char path[PATH_MAX + 32], text[256], line[16];
	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	snprintf(line, sizeof(line), "frozen %d", want);
	for (int i = 0; i < 200; i++) {
		get(path, text, sizeof(text));
		if (strstr(text, line))
			return true;
		pause_ms(10);
	}
	return false;
}

static void real_cgroup2_freezes_a_process(void **state)
{
	(void)state;
	const char *root = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
			       ? "/sys/fs/cgroup"
			       : "/sys/fs/cgroup/unified";
	char probe[PATH_MAX];
	snprintf(probe, sizeof(probe), "%s/cgroup.procs", root);
	if (geteuid() != 0 || access(probe, W_OK) < 0) {
		printf("skipped: no writable cgroup2 hierarchy (needs root)\n");
		skip();
	}
	struct cg_layout l = {.version = CG_V2};
	snprintf(l.mem_root, sizeof(l.mem_root), "%s", root);
	char scope[64], dir[PATH_MAX], top[PATH_MAX + 80], procs[PATH_MAX + 32],
	    pid_text[32];
	snprintf(scope, sizeof(scope), "freezetest_%d", (int)getpid());
	assert_int_equal(cg_path(dir, sizeof(dir), root, scope, 1, NULL), 0);
	snprintf(top, sizeof(top), "%s/drover_%s", root, scope);
	mkdirs(dir);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		for (;;) /* spins until killed */
			;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(pid_text, sizeof(pid_text), "%d", (int)child);
	put(procs, pid_text);
	printf("cgroup2 under %s: freezing a spinning process\n", root);

	assert_int_equal(cg_job_freeze(&l, scope, 1, true), 0);
	assert_true(events_frozen(dir, 1));
	assert_true(cg_job_frozen(&l, scope, 1));
	long before = cpu_ticks(child);
	pause_ms(300);
	assert_true(cpu_ticks(child) - before <= 1); /* it ran no more */

	assert_int_equal(cg_job_freeze(&l, scope, 1, false), 0);
	assert_true(events_frozen(dir, 0));
	assert_false(cg_job_frozen(&l, scope, 1));
	before = cpu_ticks(child);
	pause_ms(300);
	assert_true(cpu_ticks(child) - before > 1); /* it runs again */

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(rmdir(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(v1_writes_frozen_and_thawed),
	    cmocka_unit_test(v2_writes_one_and_zero),
	    cmocka_unit_test(no_freezer_is_not_supported),
	    cmocka_unit_test(paths_and_words),
	    cmocka_unit_test(real_cgroup2_freezes_a_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
