/* cgroup_freeze.h — freezing and thawing a whole job's cgroup (scontrol
 * suspend and resume): v1 writes FROZEN or THAWED to the job directory's
 * freezer.state in the freezer hierarchy, v2 writes 1 or 0 to the job
 * directory's cgroup.freeze. Freezing the job's directory freezes every step
 * under it (the batch step and srun steps alike), and processes that fork
 * meanwhile land frozen in the same tree.
 *
 * Nothing here logs or signals: callers get 0 or -errno and fall back to
 * SIGSTOP/SIGCONT themselves where there is no freezer. */
#ifndef DRV_COMMON_CGROUP_FREEZE_H
#define DRV_COMMON_CGROUP_FREEZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cgroup.h"

/* The control file that freezes job_id of node's scope under l, into buf:
 * ".../freezer/drover_SCOPE/job_J/freezer.state" (v1) or
 * ".../drover_SCOPE/job_J/cgroup.freeze" (v2). 0, -ENOTSUP when l has no
 * freezer (v1 without a freezer hierarchy, or no cgroups), -ENAMETOOLONG. */
int cg_freeze_path(char *buf, size_t len, const struct cg_layout *l, const char *node,
		   int64_t job_id);

/* The word to write to that file: "FROZEN"/"THAWED" (v1), "1"/"0" (v2).
 * Static string; NULL when l has no freezer. */
const char *cg_freeze_word(const struct cg_layout *l, bool freeze);

/* Freezes (freeze true) or thaws job_id's cgroup of node's scope under l.
 * 0; -ENOENT when the job has no cgroup there (it has not started, or runs
 * unconstrained), -ENOTSUP when l has no freezer, else the write's -errno.
 * It does not wait for a v1 FREEZING to become FROZEN. */
int cg_job_freeze(const struct cg_layout *l, const char *node, int64_t job_id,
		  bool freeze);

/* Is the job's cgroup frozen (or freezing) now? False when it cannot tell. */
bool cg_job_frozen(const struct cg_layout *l, const char *node, int64_t job_id);

#endif
