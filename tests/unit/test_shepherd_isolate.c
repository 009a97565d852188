/* test_shepherd_isolate.c — isolate_limits (shepherd/isolate.c): the limits
 * a step gets from noded's cgroup object, as Slurm's cgroup.conf means
 * them: AllowedRAMSpace of the job's memory, at most MaxRAMPercent of the
 * node (which also limits a job that asked for no memory), swap on top
 * with ConstrainSwapSpace, cores, pids and devices only when asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "shepherd/shepherd.h"

static struct drv_rec_cgroup base(void)
{
	return (struct drv_rec_cgroup){.mountpoint = "/sys/fs/cgroup",
				       .scope = "n1_7001",
				       .constrain_ram = true,
				       .ram_pct = 10000};
}

static void test_memory(void **state)
{
	(void)state;
	struct drv_rec_cgroup c = base();
	struct cg_limits lim;
	isolate_limits(&c, 200, &lim);
	assert_int_equal(lim.mem_mib, 200);
	assert_int_equal(lim.memsw_mib, 0); /* swap not constrained */
	c.ram_pct = 5050;		    /* AllowedRAMSpace=50.5 */
	isolate_limits(&c, 200, &lim);
	assert_int_equal(lim.mem_mib, 101);
	c.has_max_ram = true; /* MaxRAMPercent of the node: 80 MiB */
	c.max_ram = 80;
	isolate_limits(&c, 200, &lim);
	assert_int_equal(lim.mem_mib, 80);
	isolate_limits(&c, 0, &lim); /* a job that asked for none */
	assert_int_equal(lim.mem_mib, 80);
	c.has_max_ram = false;
	isolate_limits(&c, 0, &lim);
	assert_int_equal(lim.mem_mib, 0);
	c.constrain_ram = false;
	isolate_limits(&c, 200, &lim);
	assert_int_equal(lim.mem_mib, 0);
}

static void test_swap(void **state)
{
	(void)state;
	struct drv_rec_cgroup c = base();
	struct cg_limits lim;
	c.constrain_swap = true;
	isolate_limits(&c, 200, &lim);
	assert_int_equal(lim.memsw_mib, 200); /* AllowedSwapSpace=0: none */
	c.swap_pct = 1000;		      /* 10 % of the job's memory */
	isolate_limits(&c, 200, &lim);
	assert_int_equal(lim.memsw_mib, 220);
}

static void test_cores_pids_devices(void **state)
{
	(void)state;
	struct drv_rec_cgroup c = base();
	const char *devs[] = {"/dev/nvidia1"};
	struct cg_limits lim;
	c.cpus = "2-3";
	c.devices = devs;
	c.n_devices = 1;
	isolate_limits(&c, 0, &lim);
	assert_null(lim.cpus); /* ConstrainCores=no */
	assert_int_equal(lim.pids_max, 0);
	assert_false(lim.devices);
	c.constrain_cores = c.constrain_devices = c.has_pids_max = true;
	c.pids_max = 64;
	isolate_limits(&c, 0, &lim);
	assert_string_equal(lim.cpus, "2-3");
	assert_int_equal(lim.pids_max, 64);
	assert_true(lim.devices);
	assert_int_equal(lim.n_dev_files, 1);
	assert_string_equal(lim.dev_files[0], "/dev/nvidia1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_memory),
	    cmocka_unit_test(test_swap),
	    cmocka_unit_test(test_cores_pids_devices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
