/* cgroup_procs.h — the processes a cgroup tracks: list them, signal them
 * all, kill them all, wait until none is left (Slurm's proctrack/cgroup).
 *
 * A cgroup holds every descendant of what was put in it, whatever session
 * or process group it moved to, and a process cannot leave it without
 * root; so a signal sent to its list reaches a `setsid` child or a
 * daemonized grandchild that a kill() of the process group misses.
 *
 * Every function takes a cgroup directory (v1: one hierarchy's, normally
 * the memory controller's; v2: the unified one) and covers that directory
 * and every directory below it, so a job's directory reaches all its steps.
 * Nothing here logs or allocates anything the caller keeps but cgp_list's
 * array; a missing directory reads as an empty cgroup. The caller's own
 * pid is never signalled. */
#ifndef DRV_COMMON_CGROUP_PROCS_H
#define DRV_COMMON_CGROUP_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The pids listed in dir/cgroup.procs and in every subdirectory's, into a
 * new array *pids (the caller frees it; NULL when *n is 0). 0, -ENOENT
 * when dir does not exist (*n 0), or another -errno (outputs untouched). */
int cgp_list(const char *dir, pid_t **pids, size_t *n);

/* sig to every process of dir. How many were signalled (>= 0; a process
 * that exited in between is not counted), -ENOENT when dir does not
 * exist, or another -errno when it cannot be read. */
int cgp_signal(const char *dir, int sig);

/* One pass of SIGKILL to everything in dir. v2 writes cgroup.kill when the
 * kernel has it; otherwise, when freezer names the same cgroup's v1
 * freezer directory ("" or NULL: none), its processes are frozen while
 * they are listed and killed, so that none forks a new one in between, and
 * thawed again so that they die. How many were signalled (>= 0) or -errno
 * as cgp_signal. */
int cgp_kill(const char *dir, const char *freezer);

/* How many processes dir (and below) holds: >= 0 (0 when dir is gone), or
 * -errno when it cannot be read. */
int cgp_count(const char *dir);

/* Kills everything in dir (cgp_kill, again every poll) until it is empty
 * or timeout_ms have passed. 0 when empty (or gone), -ETIMEDOUT when
 * processes are still there: they are unkillable (Slurm's "Kill task
 * failed"). timeout_ms <= 0 makes one pass and one check. */
int cgp_end(const char *dir, const char *freezer, int64_t timeout_ms);

#endif
