/* test_cgroup_limits.c — what cg_step_create writes to each controller
 * (common/cgroup.c, cgroup_limits.c, cgroup_bpf.c):
 *
 * - v1 and v2 on directories laid out like cgroupfs (plain_dirs: the
 *   writes make the files the kernel would have), every limit;
 * - v2 on a real cgroup2 mount, as root where mount(2) works: create,
 *   procs and the BPF device program (a process in the step opens
 *   /dev/null and is refused /dev/zero), then removal. This host's v2
 *   controllers may all be bound to v1: memory, cpuset and pids are then
 *   only tested on the fake tree. Each test prints which ran. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_tree.h"

#include "common/cgroup.h"

/* The text of root/rel, "" when absent (static: one at a time). */
static const char *got(const char *root, const char *rel)
{
	static char text[4096];
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	text[0] = '\0';
	FILE *f = fopen(p, "r");
	if (f) {
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = '\0';
		fclose(f);
	}
	return text;
}

static struct cg_step cg; /* large */

static void test_v2_fake_tree_every_limit(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cglim.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.controllers", "cpuset cpu io memory hugetlb pids\n");
	struct cg_layout l;
	assert_int_equal(cg_detect(root, &l), 0);
	assert_int_equal(l.version, CG_V2);
	assert_int_equal(l.v2_ctls, 1u << CG_CPUSET | 1u << CG_PIDS | 1u << CG_DEVICES);
	l.plain_dirs = true;
	const char *files[] = {"/dev/zero"};
	struct cg_limits lim = {.mem_mib = 100,
				.memsw_mib = 150,
				.cpus = "1,3",
				.pids_max = 20,
				.devices = true,
				.dev_files = files,
				.n_dev_files = 1};
	char err[512] = "";
	assert_int_equal(
	    cg_step_create(&cg, &l, "n1_7001", 5, "batch", &lim, err, sizeof(err)), 0);
	assert_string_equal(got(root, "drover_n1_7001/job_5/step_batch/memory.max"),
			    "104857600");
	assert_string_equal(got(root, "drover_n1_7001/job_5/step_batch/memory.swap.max"),
			    "52428800");
	assert_string_equal(got(root, "drover_n1_7001/job_5/cpuset.cpus"), "1,3");
	assert_string_equal(got(root, "drover_n1_7001/job_5/step_batch/cpuset.cpus"),
			    "1,3");
	assert_string_equal(got(root, "drover_n1_7001/job_5/pids.max"), "20");
	/* controllers enabled on the way down (each write alone: the file
	 * keeps the last) */
	assert_string_equal(got(root, "drover_n1_7001/job_5/cgroup.subtree_control"),
			    "+pids");
	/* a plain directory takes no BPF program: said, not fatal */
	assert_int_equal(cg.missing, 1u << CG_DEVICES);
	printf("v2 on a directory laid out like cgroup2: memory, swap, cpuset, "
	       "pids ran\n");
	cg_step_destroy(&cg);
	rm_tree(root);
}

static void test_v2_fake_tree_without_controllers(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cglim.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "cgroup.controllers", "memory\n");
	struct cg_layout l;
	assert_int_equal(cg_detect(root, &l), 0);
	l.plain_dirs = true;
	struct cg_limits lim = {.mem_mib = 64, .cpus = "0", .pids_max = 9};
	char err[512] = "";
	assert_int_equal(cg_step_create(&cg, &l, "n1", 6, "0", &lim, err, sizeof(err)),
			 0);
	assert_int_equal(cg.missing, 1u << CG_CPUSET | 1u << CG_PIDS);
	assert_string_equal(got(root, "drover_n1/job_6/step_0/memory.max"), "67108864");
	/* no swap limit asked: none written */
	assert_string_equal(got(root, "drover_n1/job_6/step_0/memory.swap.max"), "");
	assert_string_equal(got(root, "drover_n1/job_6/cpuset.cpus"), "");
	cg_step_destroy(&cg);
	rm_tree(root);
}

/* A v1 host: memory, cpuset (0-3, mems 0), devices and pids. */
static void v1_tree(char *root)
{
	put(root, "cgroup.controllers", "\n");
	sub(root, "memory");
	put(root, "memory/memory.limit_in_bytes", "9223372036854771712\n");
	put(root, "memory/memory.memsw.limit_in_bytes", "9223372036854771712\n");
	sub(root, "cpuset");
	put(root, "cpuset/cgroup.procs", "");
	put(root, "cpuset/cpuset.cpus", "0-3\n");
	put(root, "cpuset/cpuset.mems", "0\n");
	sub(root, "devices");
	put(root, "devices/cgroup.procs", "");
	sub(root, "pids");
	put(root, "pids/cgroup.procs", "");
}

static void test_v1_fake_tree_every_limit(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cglim.XXXXXX";
	assert_non_null(mkdtemp(root));
	v1_tree(root);
	struct cg_layout l;
	assert_int_equal(cg_detect(root, &l), 0);
	assert_int_equal(l.version, CG_V1);
	for (int i = 0; i < CG_NCTL; i++)
		assert_true(l.ctl_root[i][0]);
	l.plain_dirs = true;
	const char *files[] = {"/dev/zero", "/etc/hostname" /* not a device */};
	struct cg_limits lim = {.mem_mib = 100,
				.memsw_mib = 100,
				.cpus = "2-3",
				.pids_max = 10,
				.devices = true,
				.dev_files = files,
				.n_dev_files = 2};
	char err[512] = "";
	assert_int_equal(
	    cg_step_create(&cg, &l, "n1", 8, "batch", &lim, err, sizeof(err)), 0);
	assert_int_equal(cg.missing, 0);
	const char *mem = "memory/drover_n1/job_8/step_batch/";
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%smemory.limit_in_bytes", mem);
	assert_string_equal(got(root, p), "104857600");
	snprintf(p, sizeof(p), "%smemory.memsw.limit_in_bytes", mem);
	assert_string_equal(got(root, p), "104857600");
	/* a cpuset takes its parent's mems, the node's level its cpus too */
	assert_string_equal(got(root, "cpuset/drover_n1/cpuset.cpus"), "0-3\n");
	assert_string_equal(got(root, "cpuset/drover_n1/job_8/cpuset.cpus"), "2-3");
	assert_string_equal(got(root, "cpuset/drover_n1/job_8/cpuset.mems"), "0\n");
	assert_string_equal(got(root, "cpuset/drover_n1/job_8/step_batch/cpuset.cpus"),
			    "2-3");
	assert_string_equal(got(root, "pids/drover_n1/job_8/pids.max"), "10");
	/* every device denied, then the usual ones and the job's allowed */
	assert_string_equal(got(root, "devices/drover_n1/job_8/devices.deny"), "a");
	const char *allow = got(root, "devices/drover_n1/job_8/devices.allow");
	assert_non_null(strstr(allow, "c 1:3 rwm\n"));
	assert_non_null(strstr(allow, "c 136:* rwm\n"));
	assert_non_null(strstr(allow, "c 5:2 rwm\n"));
	assert_non_null(strstr(allow, "c 1:5 rwm\n")); /* /dev/zero, the job's */
	printf("v1 on a directory laid out like cgroup v1: memory, memsw, cpuset, "
	       "pids, devices ran\n");
	cg_step_destroy(&cg);
	rm_tree(root);
}

static void test_v1_missing_controllers_are_said(void **state)
{
	(void)state;
	char root[] = "/tmp/test_cglim.XXXXXX";
	assert_non_null(mkdtemp(root));
	sub(root, "memory");
	put(root, "memory/memory.limit_in_bytes", "9223372036854771712\n");
	struct cg_layout l;
	assert_int_equal(cg_detect(root, &l), 0);
	l.plain_dirs = true;
	struct cg_limits lim = {.cpus = "0", .pids_max = 5, .devices = true};
	char err[512] = "";
	assert_int_equal(cg_step_create(&cg, &l, "n1", 9, "0", &lim, err, sizeof(err)),
			 0);
	assert_int_equal(cg.missing, 1u << CG_CPUSET | 1u << CG_DEVICES | 1u << CG_PIDS);
	assert_true(cg.active);
	cg_step_destroy(&cg);
	rm_tree(root);
}

/* In a child: opens path, exits 0 when it opened, 1 on EPERM, 2 else. */
static int open_in_child(const struct cg_step *c, const char *path)
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(3);
		int fd = open(path, O_RDONLY);
		_exit(fd >= 0 ? 0 : errno == EPERM ? 1 : 2);
	}
	close(go[0]);
	assert_int_equal(cg_step_attach(c, pid), 0);
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_v2_real_mount_procs_and_bpf_devices(void **state)
{
	(void)state;
	char mnt[] = "/tmp/test_cg2.XXXXXX";
	assert_non_null(mkdtemp(mnt));
	if (geteuid() != 0 || mount("cgroup2", mnt, "cgroup2", 0, NULL) < 0) {
		printf("v2 on a real cgroup2 mount: skipped (%s)\n",
		       geteuid() ? "not root" : strerror(errno));
		rmdir(mnt);
		skip();
	}
	/* what cg_detect would give on a host whose memory is v2's; this
	 * mount's controllers may all be bound to v1, so only directories,
	 * cgroup.procs and the device program are real here */
	struct cg_layout l = {.version = CG_V2, .v2_ctls = 1u << CG_DEVICES};
	snprintf(l.mem_root, sizeof(l.mem_root), "%s", mnt);
	const char *files[] = {"/dev/full"};
	struct cg_limits lim = {.devices = true, .dev_files = files, .n_dev_files = 1};
	char err[512] = "";
	int rc = cg_step_create(&cg, &l, "n1", 11, "batch", &lim, err, sizeof(err));
	assert_int_equal(rc, 0);
	bool bpf = !(cg.missing & 1u << CG_DEVICES);
	assert_int_equal(open_in_child(&cg, "/dev/null"), 0);
	assert_int_equal(open_in_child(&cg, "/dev/full"), 0); /* the job's */
	/* a stand-in device the job does not hold: refused (EPERM), where
	 * outside the cgroup it reaches the absent driver (ENXIO) */
	char dev[] = "/tmp/test_cgdev.XXXXXX";
	assert_non_null(mkdtemp(dev));
	char node[PATH_MAX];
	snprintf(node, sizeof(node), "%s/gpu9", dev);
	assert_int_equal(mknod(node, S_IFCHR | 0666, makedev(240, 9)), 0);
	if (bpf)
		assert_int_equal(open_in_child(&cg, node), 1);
	char job[PATH_MAX];
	snprintf(job, sizeof(job), "%s/drover_n1/job_11", mnt);
	cg_step_destroy(&cg);
	assert_int_equal(access(job, F_OK), -1); /* removed with its step */
	assert_int_equal(open(node, O_RDONLY), -1);
	assert_int_equal(errno, ENXIO);
	unlink(node);
	rmdir(dev);
	printf("v2 on a real cgroup2 mount: create, procs, removal ran; BPF device "
	       "program %s\n",
	       bpf ? "ran (a device not held refused)" : "not available on this kernel");
	umount(mnt);
	rmdir(mnt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v2_fake_tree_every_limit),
	    cmocka_unit_test(test_v2_fake_tree_without_controllers),
	    cmocka_unit_test(test_v1_fake_tree_every_limit),
	    cmocka_unit_test(test_v1_missing_controllers_are_said),
	    cmocka_unit_test(test_v2_real_mount_procs_and_bpf_devices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
