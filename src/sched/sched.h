/* sched.h — the scheduler: a pure function from a snapshot to decisions.
 *
 * No I/O, no clock, no globals: ctld, the simulator and the unit tests call
 * the same code. The caller builds the snapshot (free nodes, partitions,
 * eligible pending jobs), calls sched_run() and applies the verdicts.
 *
 * Policy for now (Slurm's built-in scheduler on whole nodes): jobs are tried
 * in priority order (ties: lower job id first); a job that cannot start
 * blocks every lower-priority job of its partition, which then wait with
 * reason PRIORITY while the blocked one waits with RESOURCES. */
#ifndef DRV_SCHED_H
#define DRV_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sched_verdict {
	SCHED_WAIT_PRIORITY,	/* a higher-priority job of its partition waits */
	SCHED_WAIT_RESOURCES,	/* not enough free nodes now */
	SCHED_WAIT_PART_DOWN,	/* its partition is not UP */
	SCHED_WAIT_NODE_CONFIG, /* the partition can never hold it */
	SCHED_START,		/* start on alloc[alloc_off .. alloc_off+num_nodes) */
};

struct sched_node {
	bool free; /* up, not drained, no job on it */
};

struct sched_part {
	const uint32_t *nodes; /* indices into the node array, in config order */
	uint32_t n_nodes;
	bool up;
};

struct sched_job {
	/* in */
	uint32_t job_id;
	uint64_t priority; /* higher runs first */
	uint32_t part;	   /* index into the partition array */
	uint32_t num_nodes;
	/* out */
	enum sched_verdict verdict;
	uint32_t alloc_off; /* with SCHED_START: first node index in alloc[] */
};

struct sched_input {
	struct sched_node *nodes; /* borrowed; sched_run marks started nodes busy */
	size_t n_nodes;
	const struct sched_part *parts;
	size_t n_parts;
	struct sched_job *jobs; /* borrowed; reordered by priority, verdicts set */
	size_t n_jobs;
};

/* Decides every job of in->jobs. alloc must hold at least the sum of
 * num_nodes of all jobs (or n_nodes, whichever is smaller, suffices).
 * Returns the number of jobs to start, or -EINVAL on a malformed snapshot
 * (a partition or node index out of range), in which case nothing is decided. */
int sched_run(struct sched_input *in, uint32_t *alloc, size_t alloc_cap);

const char *sched_verdict_reason(enum sched_verdict v); /* Slurm's reason name */

#endif
