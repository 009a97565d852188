/* test_cgroup_freeze.c — common/cgroup_freeze.c on fake trees: the control
 * file and word of each version, the write itself, reading the state back,
 * and the refusals (no freezer, no job directory). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(v1_writes_frozen_and_thawed),
	    cmocka_unit_test(v2_writes_one_and_zero),
	    cmocka_unit_test(no_freezer_is_not_supported),
	    cmocka_unit_test(paths_and_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
