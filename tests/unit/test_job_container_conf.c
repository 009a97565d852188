/* test_job_container_conf.c — job_container.conf: Slurm's defaults (Dirs
 * /tmp,/dev/shm, AutoBasePath false), NodeName lines over the global ones
 * for the nodes they name only, BasePath=none, and every bad line refused
 * with "file:line: what", whichever node it is for; a Slurm key Drover would
 * not honour is refused in drover.conf's words. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/job_container_conf.h"

struct fixture {
	char dir[64];
	char path[PATH_MAX];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/test_jc.XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/job_container.conf", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static int load(struct fixture *f, const char *text, const char *node,
		struct drv_jc_conf *c, struct drv_error *err)
{
	FILE *fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return drv_jc_conf_load(f->path, node, c, err);
}

/* Expects text refused for node n1 with exactly "path:line: what" (line 0:
 * "path: what"). */
static void refused(struct fixture *f, const char *text, int line, const char *what)
{
	struct drv_jc_conf c = {0};
	struct drv_error err = {{0}};
	char want[PATH_MAX + 300];
	assert_int_equal(load(f, text, "n1", &c, &err), -EINVAL);
	assert_null(c.base_path);
	if (line)
		snprintf(want, sizeof(want), "%s:%d: %s", f->path, line, what);
	else
		snprintf(want, sizeof(want), "%s: %s", f->path, what);
	assert_string_equal(err.text, want);
}

static void test_defaults(void **state)
{
	struct fixture *f = *state;
	struct drv_jc_conf c;
	struct drv_error err = {{0}};
	assert_int_equal(
	    load(f, "# comment\n\nBasePath=/var/jc/%n  # per node\n", "n1", &c, &err), 0);
	assert_string_equal(c.base_path, "/var/jc/%n");
	assert_false(c.auto_base_path);
	assert_int_equal(c.n_dirs, 2);
	assert_string_equal(c.dirs[0], "/tmp");
	assert_string_equal(c.dirs[1], "/dev/shm");
	drv_jc_conf_fini(&c);
}

static void test_node_lines(void **state)
{
	struct fixture *f = *state;
	const char *text = "AutoBasePath=true\n"
			   "BasePath=/var/nvme/storage Dirs=/tmp,/var/tmp\n"
			   "NodeName=gpu[1-2] BasePath=/scratch/jc\n"
			   "NodeName=login1 BasePath=none\n";
	struct drv_jc_conf c;
	struct drv_error err = {{0}};
	assert_int_equal(load(f, text, "gpu2", &c, &err), 0);
	assert_string_equal(c.base_path, "/scratch/jc");
	assert_true(c.auto_base_path);
	assert_int_equal(c.n_dirs, 2);
	assert_string_equal(c.dirs[1], "/var/tmp");
	drv_jc_conf_fini(&c);
	assert_int_equal(load(f, text, "cpu1", &c, &err), 0);
	assert_string_equal(c.base_path, "/var/nvme/storage");
	drv_jc_conf_fini(&c);
	assert_int_equal(load(f, text, "login1", &c, &err), 0);
	assert_null(c.base_path); /* none: no private /tmp there */
	drv_jc_conf_fini(&c);
	/* a node no line gives a BasePath */
	refused(f, "NodeName=gpu1 BasePath=/x\n", 0,
		"no BasePath for node n1 (job_container/tmpfs needs one, or "
		"BasePath=none)");
}

static void test_dir_names(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(drv_jc_dir_name("/tmp", buf, sizeof(buf)), 0);
	assert_string_equal(buf, ".tmp");
	assert_int_equal(drv_jc_dir_name("/var/tmp", buf, sizeof(buf)), 0);
	assert_string_equal(buf, ".var_tmp");
	assert_int_equal(drv_jc_dir_name("/a/very/long/path", buf, 8), -ENAMETOOLONG);
	assert_true(drv_jc_path_under("/tmp/x", "/tmp"));
	assert_true(drv_jc_path_under("/tmp", "/tmp"));
	assert_false(drv_jc_path_under("/tmpfoo", "/tmp"));
}

static void test_bad_lines(void **state)
{
	struct fixture *f = *state;
	refused(f, "BasePath=/x\nBogus=1\n", 2,
		"Parsing error at unrecognized key: Bogus");
	refused(f, "BasePath=relative/dir\n", 1,
		"BasePath: 'relative/dir' is not an absolute path (or none)");
	refused(f, "BasePath=\n", 1, "the value of BasePath is missing");
	refused(f, "BasePath=/x AutoBasePath=maybe\n", 1,
		"AutoBasePath: 'maybe' is not a valid value (true or false)");
	refused(f, "BasePath=/x Dirs=/tmp,tmp2\n", 1,
		"Dirs: 'tmp2' is not an absolute path without . or .. parts");
	refused(f, "BasePath=/x Dirs=/tmp,/var/../tmp\n", 1,
		"Dirs: '/var/../tmp' is not an absolute path without . or .. parts");
	refused(f, "BasePath=/x Dirs=/tmp,/tmp\n", 1,
		"Dirs: '/tmp' is given twice (or clashes with '/tmp')");
	refused(f, "BasePath=/x Dirs=/ns\n", 1,
		"Dirs: '/ns' is reserved (its private "
		"name is .ns)");
	refused(f, "BasePath=/tmp/jc\n", 0,
		"BasePath=/tmp/jc lies in /tmp, which jobs get their own of (Dirs)");
	refused(f, "BasePath /x\n", 1, "'BasePath' is not key=value");
	refused(f, "BasePath=/x NodeName=n1\n", 1,
		"NodeName must come first on its line");
	/* a line for another node is checked all the same */
	refused(f, "BasePath=/x\nNodeName=n9 Dirs=/tmp,x\n", 2,
		"Dirs: 'x' is not an absolute path without . or .. parts");
	refused(f, "BasePath=/x\nNodeName=n[3-1] BasePath=/y\n", 2,
		"NodeName=n[3-1]: bad hostlist 'n[3-1]': range goes backwards");
}

static void test_slurm_keys_refused(void **state)
{
	struct fixture *f = *state;
	refused(f, "BasePath=/x Shared=true\n", 1,
		"Shared=true: Drover does not do what this asks; it takes false "
		"(docs/compat.md)");
	refused(f, "BasePath=/x\nInitScript=/etc/slurm/init.sh\n", 2,
		"InitScript=/etc/slurm/init.sh: Drover does not do what this asks; "
		"remove the line (docs/compat.md)");
	struct drv_jc_conf c;
	struct drv_error err = {{0}};
	assert_int_equal(
	    load(f, "BasePath=/x Shared=false EntireStepInNS=no\n", "n1", &c, &err), 0);
	drv_jc_conf_fini(&c);
	assert_int_equal(load(f, "/nonexistent/dir/x", "n1", &c, &err), -EINVAL);
	unlink(f->path);
	assert_int_equal(drv_jc_conf_load(f->path, "n1", &c, &err), -ENOENT);
	assert_non_null(strstr(err.text, "cannot read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_node_lines, setup, teardown),
	    cmocka_unit_test(test_dir_names),
	    cmocka_unit_test_setup_teardown(test_bad_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_keys_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
