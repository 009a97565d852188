/* step_layout.h — how a step's tasks are spread over its nodes, the way
 * Slurm's srun/slurmctld spread them (block, cyclic, plane=N). Pure: plain
 * numbers in, plain numbers out; no config, no I/O. */
#ifndef DRV_STEP_LAYOUT_H
#define DRV_STEP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* The node-level part of -m/--distribution. DIST_UNSET means Slurm's
 * default, which is block. */
enum drv_dist { DIST_UNSET = 0, DIST_BLOCK, DIST_CYCLIC, DIST_PLANE, DIST_ARBITRARY };

struct step_layout_req {
	uint32_t n_nodes, ntasks;
	uint32_t tasks_per_node_max; /* --ntasks-per-node; 0: no cap */
	const uint32_t *cpus;	     /* n_nodes CPU counts available; NULL: no limit */
	uint32_t cpus_per_task;	     /* 0 counts as 1 */
	enum drv_dist dist;
	uint32_t plane_size; /* DIST_PLANE only, >= 1 */
};

/* The result. tids[n] lists the global task ids on node n, ascending. */
struct step_layout {
	uint32_t n_nodes, ntasks;
	uint32_t *tasks; /* [n_nodes] tasks on each node */
	uint32_t **tids; /* [n_nodes][tasks[n]] */
};

/* Computes the layout into *out (owned by the caller: step_layout_fini).
 * Block and cyclic count tasks per node as Slurm's step_layout.c does:
 * round by round, one task to each node whose CPUs (cpus[n] /
 * cpus_per_task) still hold one, so -N2 -n3 gives 2,1 and the first nodes
 * get the extra tasks; when no node has room left, the rounds go on
 * ignoring CPUs (Slurm's overcommit: whether that is allowed is the
 * caller's check). Block then numbers tasks node by node, cyclic round by
 * round; plane deals blocks of plane_size tasks to the nodes in turn. With
 * fewer tasks than nodes the last nodes get none. More tasks than
 * tasks_per_node_max allows is -ENOSPC; DIST_ARBITRARY (the caller maps
 * tasks to a host list) and zero counts are -EINVAL. Returns 0, -EINVAL,
 * -ENOSPC or -ENOMEM, with a message in err; on failure *out is untouched. */
int step_layout_compute(const struct step_layout_req *req, struct step_layout *out,
			struct drv_error *err);

void step_layout_fini(struct step_layout *l);

/* SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE form of counts[0..n):
 * runs of equal values as "V(xK)", joined by commas ("2(x2),1"). Returns
 * the length written (snprintf's convention: >= size means cut). */
int step_layout_compress(const uint32_t *counts, uint32_t n, char *buf, size_t size);

#endif
