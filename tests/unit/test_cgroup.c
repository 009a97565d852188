/* test_cgroup.c — the pure parts of common/cgroup.c: layout detection on
 * fake trees, path building, and the oom_kill counters of memory.events
 * (v2) and memory.oom_control (v1). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_tree.h"

#include "common/cgroup.h"

static void test_detect_v2(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgroup.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	struct cg_layout l;
	assert_int_equal(cg_detect(root, &l), 0);
	assert_int_equal(l.version, CG_V2);
	assert_string_equal(l.mem_root, root);
	assert_string_equal(l.freezer_root, "");
	rm_tree(root);
}

static void test_detect_v1_with_freezer(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgroup.XXXXXX";
	assert_non_null(mkdtemp(root));
	/* a hybrid host: an empty unified hierarchy beside the v1 controllers */
	put(root, "cgroup.controllers", "\n");
	sub(root, "memory");
	put(root, "memory/memory.limit_in_bytes", "9223372036854771712\n");
	put(root, "memory/memory.memsw.limit_in_bytes", "9223372036854771712\n");
	sub(root, "freezer");
	put(root, "freezer/cgroup.procs", "");
	struct cg_layout l;
	assert_int_equal(cg_detect(root, &l), 0);
	assert_int_equal(l.version, CG_V1);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/memory", root);
	assert_string_equal(l.mem_root, want);
	snprintf(want, sizeof(want), "%s/freezer", root);
	assert_string_equal(l.freezer_root, want);
	assert_true(l.memsw);
	rm_tree(root);
}

static void test_detect_v2_without_memory_is_v1_or_none(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cgroup.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.controllers", "cpu io pids\n");
	struct cg_layout l = {.version = CG_V2};
	assert_int_equal(cg_detect(root, &l), -ENOENT);
	assert_int_equal(l.version, CG_V2); /* untouched on failure */
	sub(root, "memory");
	put(root, "memory/memory.limit_in_bytes", "9223372036854771712\n");
	assert_int_equal(cg_detect(root, &l), 0);
	assert_int_equal(l.version, CG_V1);
	assert_false(l.memsw);
	assert_string_equal(l.freezer_root, "");
	rm_tree(root);
}

static void test_detect_nothing(void **state)
{
	(void)state;
	struct cg_layout l;
	assert_int_equal(cg_detect("/nonexistent/cgroup", &l), -ENOENT);
	char root[] = "/tmp/test_cgroup.XXXXXX";
	assert_non_null(mkdtemp(root));
	assert_int_equal(cg_detect(root, &l), -ENOENT); /* an empty tmpfs */
	rm_tree(root);
}

static void test_paths(void **state)
{
	(void)state;
	char p[PATH_MAX];
	assert_int_equal(
	    cg_path(p, sizeof(p), "/sys/fs/cgroup/memory", "n1_6818", 42, "batch"), 0);
	assert_string_equal(p, "/sys/fs/cgroup/memory/drover_n1_6818/job_42/step_batch");
	assert_int_equal(cg_path(p, sizeof(p), "/sys/fs/cgroup", "n2", 7, "0"), 0);
	assert_string_equal(p, "/sys/fs/cgroup/drover_n2/job_7/step_0");
	assert_int_equal(cg_path(p, sizeof(p), "/cg", "n1", 7, NULL), 0);
	assert_string_equal(p, "/cg/drover_n1/job_7");
	assert_int_equal(cg_path(p, sizeof(p), "/cg", "", 7, NULL), 0);
	assert_string_equal(p, "/cg/drover_local/job_7");
	char small[16];
	assert_int_equal(cg_path(small, sizeof(small), "/cg", "n1", 7, "batch"),
			 -ENAMETOOLONG);
}

static void test_parse_oom_kill(void **state)
{
	(void)state;
	int64_t n = -1;
	/* v2 memory.events */
	assert_int_equal(
	    cg_parse_oom_kill(
		"low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n", &n),
	    0);
	assert_int_equal(n, 1);
	/* v1 memory.oom_control (kernels >= 4.13) */
	assert_int_equal(
	    cg_parse_oom_kill("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(
	    cg_parse_oom_kill("oom_kill_disable 0\nunder_oom 0\noom_kill 0", &n), 0);
	assert_int_equal(n, 0);
	/* older v1: no counter; "oom_kill_disable" is not it */
	n = -1;
	assert_int_equal(cg_parse_oom_kill("oom_kill_disable 0\nunder_oom 0\n", &n),
			 -ENOENT);
	assert_int_equal(n, -1);
	assert_int_equal(cg_parse_oom_kill("", &n), -ENOENT);
	assert_int_equal(cg_parse_oom_kill("oom_kill x\n", &n), -EINVAL);
	/* what fuzz_cgroup found strtoll letting through: a sign, a leading
	 * blank, a count past INT64_MAX (clamped); n untouched */
	n = 42;
	assert_int_equal(cg_parse_oom_kill("oom_kill -3\n", &n), -EINVAL);
	assert_int_equal(cg_parse_oom_kill("oom_kill +3\n", &n), -EINVAL);
	assert_int_equal(cg_parse_oom_kill("oom_kill  3\n", &n), -EINVAL);
	assert_int_equal(cg_parse_oom_kill("oom_kill 99999999999999999999\n", &n),
			 -EINVAL);
	assert_int_equal(n, 42);
	assert_int_equal(cg_parse_oom_kill("oom_kill 9223372036854775807", &n), 0);
	assert_int_equal(n, INT64_MAX);
}

/* /proc/PID/cgroup: the job of the first line under drover_SCOPE/job_J,
 * v1 (one line per hierarchy) and v2 ("0::"); nothing else names one. */
static void test_job_of_text(void **state)
{
	uint32_t id = 0;
	assert_int_equal(cg_job_of_text("12:pids:/user.slice\n"
					"11:memory:/drover_n1_7001/job_42/step_batch\n"
					"1:name=systemd:/user.slice/session-1.scope\n",
					&id),
			 0);
	assert_int_equal(id, 42);
	assert_int_equal(cg_job_of_text("0::/drover_local/job_7/step_0\n", &id), 0);
	assert_int_equal(id, 7);
	/* the job's own cgroup (a process not yet in a step), a path with ':' */
	assert_int_equal(cg_job_of_text("3:freezer:/a:b/drover_x/job_9", &id), 0);
	assert_int_equal(id, 9);
	id = 5;
	const char *none[] = {
	    "",
	    "0::/user.slice/user-0.slice\n",
	    "0::/job_42/step_0\n",		  /* no drover_ scope above it */
	    "0::/drover_n1/jobs_42\n",		  /* not job_ */
	    "0::/drover_n1/job_\n",		  /* no digits */
	    "0::/drover_n1/job_0\n",		  /* not a job id */
	    "0::/drover_n1/job_12x/step_0\n",	  /* not only digits */
	    "0::/drover_n1/job_4294967295\n",	  /* NO_VAL */
	    "0::/drover_n1/job_99999999999999\n", /* past uint32 */
	    "0::/drover_n1/other/job_3\n",	  /* not right under the scope */
	    "garbage without colons /drover_n1/job_3\n",
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_int_equal(cg_job_of_text(none[i], &id), -ENOENT);
	assert_int_equal(id, 5); /* untouched */
	/* this test runs in no Drover job */
	assert_int_equal(cg_job_of_pid(getpid(), &id), -ENOENT);
	assert_true(cg_job_of_pid(-1, &id) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detect_v2),
	    cmocka_unit_test(test_detect_v1_with_freezer),
	    cmocka_unit_test(test_detect_v2_without_memory_is_v1_or_none),
	    cmocka_unit_test(test_detect_nothing),
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_parse_oom_kill),
	    cmocka_unit_test(test_job_of_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
