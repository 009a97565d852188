/* cgroup.h — the kernel's control groups for one job step: where they are
 * mounted (v1 controllers or the v2 unified hierarchy), the directories of a
 * step, its limits (memory and swap, cpuset, pids, devices), whether the
 * kernel OOM-killed something in it, and its removal.
 *
 * The layout mirrors Slurm's (uid_U/job_J/step_S), with a scope of the
 * node in place of the uid so that several local noded on one host do not
 * collide (noded names it NODE_PORT: several local clusters may share a
 * host and their job ids):
 *
 *   MOUNT/drover_SCOPE/job_J/step_batch     (v2)
 *   MOUNT/memory/drover_SCOPE/job_J/step_0  (v1; likewise under freezer/,
 *                                            cpuset/, devices/ and pids/)
 *
 * Where each limit sits: memory (and swap) on the step; cpuset, pids and
 * devices on the job (all its steps share them) and again on the step, so
 * that a step's own cgroup never holds more than the job's.
 *
 * The pure parts (detection from a root directory given as a parameter, path
 * building, parsing memory.events and memory.oom_control) are separate so
 * that unit tests can run them on fake trees. Nothing here logs: callers get
 * 0 or -errno, and a reason in err where a person must read one. */
#ifndef DRV_COMMON_CGROUP_H
#define DRV_COMMON_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_DEFAULT_MOUNT "/sys/fs/cgroup"

enum cg_version { CG_NONE = 0, CG_V1 = 1, CG_V2 = 2 };

/* The controllers beside memory (and v1's freezer). */
enum cg_ctl { CG_CPUSET, CG_DEVICES, CG_PIDS, CG_NCTL };

struct cg_layout {
	enum cg_version version;
	char mem_root[PATH_MAX];     /* v1: ROOT/memory; v2: ROOT */
	char freezer_root[PATH_MAX]; /* v1 only, "" when absent */
	bool memsw;		     /* v1: memory.memsw.* exist (swap accounting) */
	/* v1: ROOT/cpuset, ROOT/devices, ROOT/pids, "" when absent */
	char ctl_root[CG_NCTL][PATH_MAX];
	/* v2: bit 1 << cg_ctl for each controller root/cgroup.controllers
	 * lists (devices always: a BPF program, no controller file) */
	unsigned v2_ctls;
	/* tests only: the tree is plain directories laid out like cgroupfs, so
	 * writes create the files the kernel would have made */
	bool plain_dirs;
};

/* Looks at root (normally CG_DEFAULT_MOUNT): v2 when root/cgroup.controllers
 * lists "memory"; else v1 when root/memory/memory.limit_in_bytes exists
 * (then cpuset/, devices/ and pids/ where their cgroup.procs exists).
 * 0 with *l filled, -ENOENT when no usable memory controller is there,
 * -EACCES when it is there but this process cannot write to it. */
int cg_detect(const char *root, struct cg_layout *l);

/* "BASE/drover_NODE/job_J" or, with step non-NULL, ".../step_STEP" into buf.
 * 0, or -ENAMETOOLONG (buf then holds nothing useful). node "" reads "local". */
int cg_path(char *buf, size_t len, const char *base, const char *node, int64_t job_id,
	    const char *step);

/* The "oom_kill N" line of memory.events (v2) or memory.oom_control (v1,
 * kernels >= 4.13): 0 with *n (>= 0), -ENOENT when the text has no such
 * line, -EINVAL when its value is not an unsigned decimal that fits. */
int cg_parse_oom_kill(const char *text, int64_t *n);

/* cgroup_job.c: the Drover job a process is in, from the text of its
 * /proc/PID/cgroup (any line whose path holds drover_SCOPE/job_J): 0 with
 * *job_id, -ENOENT when none names a job. cg_job_of_pid reads the file:
 * the same, or -errno when it cannot be read (the process is gone). */
int cg_job_of_text(const char *text, uint32_t *job_id);
int cg_job_of_pid(pid_t pid, uint32_t *job_id);

/* What a step is limited to (all borrowed from the caller). */
struct cg_limits {
	int64_t mem_mib;   /* memory limit, 0: none */
	int64_t memsw_mib; /* memory + swap (>= mem_mib), 0: swap not limited */
	const char *cpus;  /* cpuset.cpus ("0-1,4"), NULL: cores not constrained */
	uint32_t pids_max; /* 0: none */
	bool devices;	   /* deny every device but the usual ones and dev_files */
	const char *const *dev_files; /* device files the job holds (its GPUs) */
	size_t n_dev_files;
};

/* One step's cgroups, created by cg_step_create. */
struct cg_step {
	struct cg_layout lay;
	char mem[PATH_MAX]; /* the step's memory (v1) or unified (v2) directory */
	char frz[PATH_MAX]; /* v1 freezer directory, "" when none */
	char mem_job[PATH_MAX], frz_job[PATH_MAX];
	char mem_node[PATH_MAX], frz_node[PATH_MAX];
	/* v1: the step's, job's and node's directories of each other
	 * controller, "" when not made */
	char ctl[CG_NCTL][PATH_MAX], ctl_job[CG_NCTL][PATH_MAX],
	    ctl_node[CG_NCTL][PATH_MAX];
	int64_t limit_mib; /* 0: none set */
	/* bit 1 << cg_ctl for each limit asked but not available here (the
	 * controller is not mounted or not enabled): the caller says so */
	unsigned missing;
	bool active;
};

/* Creates the step's directories under l and sets what lim asks (NULL:
 * nothing). 0, or -errno with the reason in err and nothing left behind but
 * empty parent directories. A limit whose controller is absent is not an
 * error: its bit is set in cg->missing. */
int cg_step_create(struct cg_step *cg, const struct cg_layout *l, const char *node,
		   int64_t job_id, const char *step, const struct cg_limits *lim,
		   char *err, size_t errlen);
/* Moves pid (a child not yet released to exec) into the step. 0 or -errno. */
int cg_step_attach(const struct cg_step *cg, pid_t pid);
/* Did the kernel OOM-kill a process in the step? sigkilled says a task died
 * of SIGKILL (v1 kernels without an oom_kill counter then count on
 * memory.failcnt). False when cg is not active. */
bool cg_step_oom(const struct cg_step *cg, bool sigkilled);
/* How many OOM kills the step's counter shows (0 when cg is not active or
 * the kernel keeps no counter). */
int64_t cg_step_oom_kills(const struct cg_step *cg);
/* Kills what is left in the step, removes its directories and, when empty,
 * the job's and the node's. Safe on an inactive cg; clears active. */
void cg_step_destroy(struct cg_step *cg);
/* Removes what a killed shepherd left of job_id's cgroups under l: its empty
 * step directories, then the job's and the node's when empty. Directories
 * that still hold processes stay. */
void cg_job_forget(const struct cg_layout *l, const char *node, int64_t job_id);
/* Kills everything in the node's cgroups under l and removes them (drover
 * down, after it killed the shepherds). */
void cg_node_remove(const struct cg_layout *l, const char *node);
/* Calls fn for every job_ID cgroup of node's scope (memory hierarchy). */
void cg_each_job(const struct cg_layout *l, const char *node,
		 void (*fn)(int64_t job_id, void *arg), void *arg);

#endif
