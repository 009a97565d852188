/* sched.h — the scheduler: a pure function from a snapshot to decisions.
 *
 * No I/O, no clock, no globals: ctld, the simulator and the unit tests call
 * the same code. The caller builds the snapshot (nodes with what is in use,
 * partitions, eligible pending jobs with their requests), calls sched_run()
 * and applies the verdicts.
 *
 * Policy (Slurm's built-in scheduler with select/cons_tres): jobs are tried
 * in priority order (ties: lower job id first) and share nodes by CPUs,
 * memory and GPUs; a job that cannot start blocks every lower-priority job of
 * its partition, which then wait with reason PRIORITY while the blocked one
 * waits with RESOURCES. */
#ifndef DRV_SCHED_H
#define DRV_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_MEM_WHOLE UINT64_MAX /* --mem=0: all of each node's memory */
#define SCHED_MAX_GPUS 64	   /* per node: allocations are bit masks */

enum sched_verdict {
	SCHED_WAIT_PRIORITY,	/* a higher-priority job of its partition waits */
	SCHED_WAIT_RESOURCES,	/* not enough free resources now */
	SCHED_WAIT_PART_DOWN,	/* its partition is not UP */
	SCHED_WAIT_NODE_CONFIG, /* the partition can never hold it */
	SCHED_WAIT_REQ_NODE,	/* a -w node is not up (does not block others) */
	SCHED_START,		/* start on alloc[alloc_off .. alloc_off+alloc_n) */
};

struct sched_node {
	bool up; /* registered, responding, not drained */
	uint32_t cpus_total, cpus_used;
	uint64_t mem_total, mem_used; /* MiB; mem_total 0: memory not tracked */
	uint32_t n_gpus;	      /* <= SCHED_MAX_GPUS */
	uint64_t gpus_used;	      /* bit i: GPU i is allocated */
	const char *const *gpu_type;  /* n_gpus entries (NULL: untyped), or NULL */
	uint64_t tmp_disk;	      /* MB, TmpDisk= */
	const char *features;	      /* Features= "a,b", or NULL */
};

struct sched_part {
	const uint32_t *nodes; /* indices into the node array, in config order */
	uint32_t n_nodes;
	bool up;
};

#define SCHED_MAX_TERMS 16

/* One feature of a -C expression: "name" or "name*count". */
struct sched_term {
	char name[64];
	uint32_t count; /* 0: every node; N: at least N of the job's nodes */
	bool and_prev;	/* joined to the terms before by '&' (else '|') */
};

/* A parsed -C expression (constraint.c). */
struct sched_constraint {
	struct sched_term terms[SCHED_MAX_TERMS];
	uint32_t n_terms;
	bool match_or; /* "[a|b]": all nodes share one alternative */
};

/* Parses Slurm's -C syntax (see constraint.c). 0, or -EINVAL / -E2BIG and
 * *out unchanged. */
int sched_constraint_parse(const char *text, struct sched_constraint *out);

/* Is name one of the comma-separated features? (features may be NULL) */
bool sched_node_has_feature(const char *features, const char *name);

/* Does a node with these features satisfy c? With match_or, alt names the
 * alternative being tried (its index in terms). */
bool sched_constraint_match(const struct sched_constraint *c, const char *features,
			    int alt);

/* What one job asks for, as Slurm's sbatch options say it. */
struct sched_req {
	uint32_t min_nodes;	   /* -N MIN, >= 1 */
	uint32_t max_nodes;	   /* -N ..MAX; 0: as many as the tasks need */
	uint32_t ntasks;	   /* -n; 0: one task per node */
	uint32_t cpus_per_task;	   /* -c, >= 1 */
	uint32_t ntasks_per_node;  /* 0: not given */
	uint64_t mem_per_node;	   /* MiB, SCHED_MEM_WHOLE, or 0 */
	uint64_t mem_per_cpu;	   /* MiB, or 0 */
	uint32_t gpus_per_node;	   /* --gres=gpu:N, --gpus-per-node */
	uint32_t gpus_total;	   /* --gpus: spread over the job's nodes */
	const char *gpu_type;	   /* NULL: any type */
	bool exclusive;		   /* whole nodes, all their CPUs and GPUs */
	uint32_t min_cpus;	   /* --mincpus: CPUs each node must have */
	uint64_t min_tmp;	   /* --tmp: MB of TmpDisk each node must have */
	const uint32_t *req_nodes; /* -w: node indices the job must use */
	uint32_t n_req_nodes;
	const uint32_t *exc_nodes; /* -x: node indices it must not use */
	uint32_t n_exc_nodes;
	const struct sched_constraint *constraint; /* -C, or NULL */
};

/* What a started job holds on one node. */
struct sched_alloc {
	uint32_t node, cpus, tasks;
	uint64_t mem;  /* MiB */
	uint64_t gpus; /* bit mask of GPU indices */
};

struct sched_job {
	/* in */
	uint32_t job_id;
	uint64_t priority; /* higher runs first */
	uint32_t part;	   /* index into the partition array */
	const struct sched_req *req;
	/* out */
	enum sched_verdict verdict;
	uint32_t alloc_off, alloc_n; /* with SCHED_START */
};

struct sched_input {
	struct sched_node *nodes; /* borrowed; sched_run adds what it starts */
	size_t n_nodes;
	const struct sched_part *parts;
	size_t n_parts;
	struct sched_job *jobs; /* borrowed; reordered by priority, verdicts set */
	size_t n_jobs;
};

/* Decides every job. alloc needs room for one entry per node each started
 * job gets (n_nodes * n_jobs is always enough; the function stops starting
 * jobs when alloc is full). Returns the number of jobs to start, or -EINVAL
 * on a malformed snapshot (nothing decided). */
int sched_run(struct sched_input *in, struct sched_alloc *alloc, size_t alloc_cap);

/* Places one request on part's nodes as they are now; on success marks the
 * resources used, fills out[0..*n_out) and returns 0; else -ENOSPC and
 * changes nothing. */
int sched_place(struct sched_node *nodes, const struct sched_part *part,
		const struct sched_req *req, struct sched_alloc *out, size_t cap,
		uint32_t *n_out);

/* Could req ever run in part, were all its nodes up and idle? 0 or -ENOSPC.
 * nodes is borrowed and left unchanged. */
int sched_fits_config(const struct sched_node *nodes, size_t n_nodes,
		      const struct sched_part *part, const struct sched_req *req);

const char *sched_verdict_reason(enum sched_verdict v); /* Slurm's reason name */

#endif
