/* test_conf_cgroup.c — cgroup.conf (common/conf_cgroup.c): read from the
 * directory of drover.conf, its defaults, its values, its errors (file:line,
 * did you mean), drover.conf's old cgroup keys (still read, with a warning,
 * cgroup.conf winning) and a reload taking the whole file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "conf_fixture.h"

#define CTLD "SlurmctldHost=head\n"

static char cg_path[PATH_MAX];

static void write_cgroup(struct fixture *f, const char *text)
{
	snprintf(cg_path, sizeof(cg_path), "%s/cgroup.conf", f->dir);
	FILE *fp = fopen(cg_path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int teardown_cg(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/cgroup.conf", f->dir);
	unlink(p);
	return teardown(state);
}

static void test_defaults_without_a_file(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD);
	const struct drv_cgroup_conf *g = &c->cgroup;
	assert_null(g->path);
	assert_string_equal(g->plugin, "autodetect");
	assert_string_equal(g->mountpoint, "/sys/fs/cgroup");
	assert_true(g->constrain_ram);
	assert_false(g->constrain_cores);
	assert_false(g->constrain_swap);
	assert_false(g->constrain_devices);
	assert_true(g->allowed_ram == 100 && g->max_ram_percent == 100);
	assert_true(g->allowed_swap == 0);
	assert_int_equal(g->pids_limit, 0);
	assert_null(g->gpu_device_files);
	drv_conf_free(c);
}

static void test_every_key(void **state)
{
	struct fixture *f = *state;
	write_cgroup(f, "# Slurm's, and Drover's own\n"
			"CgroupPlugin=cgroup/v1\nCgroupMountpoint=cg\n"
			"ConstrainCores=yes ConstrainRAMSpace=no\n"
			"AllowedRAMSpace=95.5\nMaxRAMPercent=90\n"
			"ConstrainSwapSpace=yes AllowedSwapSpace=10\n"
			"ConstrainDevices=yes\nPidsLimit=4096\n"
			"GpuDeviceFiles=/dev/nvidia[0-3]\n"
			"CgroupAutomount=yes MinRAMSpace=30 IgnoreSystemd=yes\n");
	struct drv_conf *c = load_ok(f, CTLD);
	const struct drv_cgroup_conf *g = &c->cgroup;
	assert_string_equal(g->path, cg_path);
	assert_string_equal(g->plugin, "cgroup/v1");
	char mnt[PATH_MAX];
	snprintf(mnt, sizeof(mnt), "%s/cg", f->dir); /* relative: beside the file */
	assert_string_equal(g->mountpoint, mnt);
	assert_true(g->constrain_cores && !g->constrain_ram && g->constrain_swap &&
		    g->constrain_devices);
	assert_true(g->allowed_ram == 95.5 && g->max_ram_percent == 90 &&
		    g->allowed_swap == 10);
	assert_int_equal(g->pids_limit, 4096);
	assert_string_equal(g->gpu_device_files, "/dev/nvidia[0-3]");
	/* cgroup.conf's keys are not drover.conf's: scontrol show config
	 * does not list them as written there */
	for (size_t i = 0; i < c->n_written; i++)
		assert_string_not_equal(c->written[i].key, "ConstrainCores");
	drv_conf_free(c);
}

/* Refused as drover.conf refuses: one line naming cgroup.conf and the line. */
static void bad(struct fixture *f, const char *text, int line, const char *fragment)
{
	write_cgroup(f, text);
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	assert_int_equal(load(f, CTLD, &c, &err), -EINVAL);
	assert_null(c);
	char want[PATH_MAX + 32];
	snprintf(want, sizeof(want), "%s:%d: ", cg_path, line);
	if (strncmp(err.text, want, strlen(want)) || !strstr(err.text, fragment))
		fail_msg("error '%s' is not '%s...%s'", err.text, want, fragment);
	assert_null(strchr(err.text, '\n'));
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	bad(f, "ConstrainCores=yes\nConstrainCore=yes\n", 2,
	    "Parsing error at unrecognized key: ConstrainCore (did you mean "
	    "ConstrainCores?)");
	bad(f, "MaxRAMPercent=101\n", 1, "MaxRAMPercent: '101' is not a percentage");
	bad(f, "AllowedSwapSpace=-1\n", 1, "AllowedSwapSpace: '-1' is not a percentage");
	bad(f, "AllowedRAMSpace=1x\n", 1, "AllowedRAMSpace: '1x' is not a percentage");
	bad(f, "\n\nConstrainDevices=maybe\n", 3,
	    "ConstrainDevices: 'maybe' is not YES or NO");
	bad(f, "PidsLimit=\n", 1, "the value of PidsLimit is missing");
	bad(f, "CgroupPlugin=cgroup/v3\n", 1,
	    "CgroupPlugin: 'cgroup/v3' is not a valid value");
	/* drover.conf's keys are not cgroup.conf's */
	bad(f, "SlurmdTimeout=5\n", 1,
	    "Parsing error at unrecognized key: SlurmdTimeout");
}

static void note_warning(const char *msg, void *arg)
{
	char *buf = arg;
	size_t n = strlen(buf);
	snprintf(buf + n, 1024 - n, "%s\n", msg);
}

static void test_drover_conf_keys_warn_and_lose_to_cgroup_conf(void **state)
{
	struct fixture *f = *state;
	char warnings[1024] = "";
	FILE *fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs(CTLD "ConstrainRAMSpace=no\nCgroupPlugin=disabled\n", fp);
	fclose(fp);
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	assert_int_equal(drv_conf_load(f->path, note_warning, warnings, &c, &err), 0);
	assert_false(c->cgroup.constrain_ram);
	assert_string_equal(c->cgroup.plugin, "disabled");
	char want[PATH_MAX + 128];
	snprintf(want, sizeof(want),
		 "%s:2: ConstrainRAMSpace belongs in cgroup.conf (in the directory of "
		 "drover.conf); drover.conf's is read, cgroup.conf's wins\n",
		 f->path);
	assert_non_null(strstr(warnings, want));
	assert_non_null(strstr(warnings, ":3: CgroupPlugin belongs in cgroup.conf"));
	drv_conf_free(c);
	write_cgroup(f, "CgroupPlugin=cgroup/v2\n");
	assert_int_equal(drv_conf_load(f->path, NULL, NULL, &c, &err), 0);
	assert_string_equal(c->cgroup.plugin, "cgroup/v2");
	assert_false(c->cgroup.constrain_ram); /* drover.conf's, unopposed */
	drv_conf_free(c);
}

static void test_reload_takes_the_whole_file(void **state)
{
	struct fixture *f = *state;
	write_cgroup(f, "PidsLimit=10\nGpuDeviceFiles=/dev/a[0-1]\n");
	struct drv_conf *c = load_ok(f, CTLD);
	write_cgroup(f, "ConstrainCores=yes\n");
	struct drv_conf *fresh = load_ok(f, CTLD);
	char applied[256];
	struct drv_error err = {{0}};
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err), 0);
	assert_true(c->cgroup.constrain_cores);
	assert_int_equal(c->cgroup.pids_limit, 0);
	assert_null(c->cgroup.gpu_device_files);
	drv_conf_free(fresh);
	drv_conf_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_defaults_without_a_file, setup,
					    teardown_cg),
	    cmocka_unit_test_setup_teardown(test_every_key, setup, teardown_cg),
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown_cg),
	    cmocka_unit_test_setup_teardown(
		test_drover_conf_keys_warn_and_lose_to_cgroup_conf, setup, teardown_cg),
	    cmocka_unit_test_setup_teardown(test_reload_takes_the_whole_file, setup,
					    teardown_cg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
