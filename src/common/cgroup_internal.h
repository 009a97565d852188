/* cgroup_internal.h — what cgroup.c (directories, detection, removal),
 * cgroup_limits.c (what each controller is told) and cgroup_bpf.c (v2's
 * device program) share. Nothing outside these files includes it. */
#ifndef DRV_COMMON_CGROUP_INTERNAL_H
#define DRV_COMMON_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cgroup.h"

/* Reads path into buf (NUL-terminated, truncated to len - 1). 0 or -errno. */
int cg_read_text(const char *path, char *buf, size_t len);
/* Writes text to dir/name in one write(2); create: make the file (plain
 * directories of tests). 0 or -errno. */
int cg_write_in(const char *dir, const char *name, const char *text, bool create);
/* "dir/name" into buf; 0 or -ENAMETOOLONG. */
int cg_join(char *buf, size_t len, const char *dir, const char *name);

/* One device rule: type 'c' or 'b', major and minor (-1: any). */
struct cg_dev {
	char type;
	long major, minor;
};

/* The devices every job may use (null, zero, full, random, urandom, tty,
 * ptmx, pts) followed by the files of lim, stat'ed (a file that is not a
 * device is skipped): at most max rules into out; how many. */
size_t cg_dev_rules(const struct cg_limits *lim, struct cg_dev *out, size_t max);

/* cgroup_limits.c: sets lim on the directories of c. job_new: bit i when
 * v1 controller i's job directory was made by this step, bit CG_NCTL when
 * the memory (v1) or unified (v2) one was; device rules are set only then
 * (rewriting them would take devices from running steps). A limit the host
 * cannot hold sets its bit in c->missing. 0 or -errno with the reason in
 * err. */
int cg_limits_apply(struct cg_step *c, const struct cg_limits *lim, unsigned job_new,
		    char *err, size_t errlen);

/* v1: the device rules of lim on a job's devices directory that has no
 * child yet: "a" denied, then each of cg_dev_rules allowed. 0 or -errno. */
int cg_v1_devices(const char *dir, const struct cg_limits *lim, bool plain);

/* cgroup_bpf.c: attaches to the v2 cgroup dir a BPF_PROG_TYPE_CGROUP_DEVICE
 * program that allows rules[0..n) and denies every other device. 0 or
 * -errno. */
int cg_bpf_devices(const char *dir, const struct cg_dev *rules, size_t n);

#endif
