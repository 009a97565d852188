/* sched.h — the scheduler: a pure function from a snapshot to decisions.
 *
 * No I/O, no clock, no globals: ctld, the trace-replay simulator and the
 * unit tests call the same code. Time is an input (snapshot.now); the only
 * way out to the caller during a pass is params.stop, asked now and then
 * whether the pass has used up its time (bf_max_time), which the caller
 * answers from its own clock (ctld) or from virtual time (the simulator).
 *
 * The caller builds a snapshot (docs/scheduler.md, "Snapshot"):
 *   - nodes with their specific CPUs (ids 0..n_cpus-1), memory and GPUs as
 *     per-device unit counts (a whole GPU is one unit of a device of
 *     capacity 1; shards, MPS and MIG later are more units or more devices);
 *   - partitions, several of which may share nodes;
 *   - cluster-wide licenses;
 *   - running jobs with what they hold and when they are expected to end
 *     (what everything in use now is derived from);
 *   - pending jobs that may start as far as ctld's own rules go (holds,
 *     dependencies, begin times are ctld's), with their priority, user,
 *     association, QOS, candidate partitions, time limit and --time-min;
 *   - the policy: QOS and the association tree with their limits;
 *   - the plans of the last backfill pass (used by a quick pass).
 * sched_run() returns a decision per pending job: start now (with the
 * specific CPUs and GPU units), or wait with a precise reason and, where the
 * backfill pass planned it, the time and nodes it is expected to start on.
 *
 * Policy (Slurm's sched/backfill with select/cons_tres): jobs are tried in
 * order of partition PriorityTier, then priority, then job id. A pass of
 * kind SCHED_PASS_QUICK is Slurm's main scheduler: it tries the first
 * default_queue_depth jobs, starts those that fit now without touching any
 * plan of a job above them, and never plans; a job there that waits for
 * Resources without a plan keeps the jobs after it in its partitions from
 * starting (Priority), as Slurm's main scheduler does (one with a plan needs
 * no more than its plan). A pass of kind SCHED_PASS_BACKFILL considers up to
 * bf_max_job_test jobs: each starts now if it fits over its whole time
 * limit without delaying any job planned before it, else it is planned at
 * the earliest time it fits within bf_window (now, or an end rounded up to
 * the bf_resolution grid) and its plan is kept in the resource-time profile
 * for the jobs after it. A job started by backfill therefore never delays
 * the planned start of a job it planned for (tests/unit/test_sched_prop.c
 * checks it over thousands of random workloads).
 *
 * Placement: nodes of the lowest Weight first, then in the partition's
 * order; on a node, the lowest free CPU ids and the lowest free devices of
 * the type. --exclusive (or OverSubscribe=EXCLUSIVE) takes whole nodes, all
 * their CPUs and devices (where MaxCPUsPerNode is below a node's CPUs, not
 * that node). --time-min: a job that fits now only with a shorter limit
 * starts on the nodes it fits with time_min, with the longest limit in
 * [time_min, time_limit) they allow (ctld may round it down to minutes). */
#ifndef DRV_SCHED_H
#define DRV_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_NEVER INT64_MAX	   /* a time that never comes: no end, no limit */
#define SCHED_NONE UINT32_MAX	   /* no index (no QOS, no parent, ...) */
#define SCHED_UNLIMITED UINT64_MAX /* a limit that is not set */
#define SCHED_MEM_WHOLE UINT64_MAX /* --mem=0: all of each node's memory */
#define SCHED_WORDS(bits) (((bits) + 63) / 64) /* uint64_t words of a bitmap */

/* Trackable resources, as Slurm's TRES names them ("cpu", "mem", "node",
 * "gres/gpu", "billing"): the unit of every limit and of fair-share usage. */
enum sched_tres {
	SCHED_TRES_CPU,
	SCHED_TRES_MEM, /* MiB */
	SCHED_TRES_NODE,
	SCHED_TRES_GPU,
	SCHED_TRES_BILLING,
	SCHED_TRES_COUNT,
};

struct sched_tres_vec {
	uint64_t v[SCHED_TRES_COUNT]; /* SCHED_UNLIMITED: no limit (in limits) */
};

/* --- the machine --------------------------------------------------------- */

/* One GPU device of a node. */
struct sched_gpu {
	const char *type;  /* "a100", or NULL when untyped */
	uint32_t capacity; /* units it holds: 1 for a whole GPU */
};

struct sched_node {
	bool up;	 /* registered, responding, not drained: takes new work */
	uint32_t weight; /* Weight=: lower weights are filled first */
	uint32_t n_cpus; /* CPU ids 0..n_cpus-1 */
	uint64_t mem;	 /* MiB; 0: memory is not tracked */
	uint32_t n_gpus;
	const struct sched_gpu *gpus; /* n_gpus devices, or NULL when none */
	uint64_t tmp_disk;	      /* MB, TmpDisk= */
	const char *features;	      /* Features= "a,b", or NULL */
};

/* OverSubscribe= of a partition. */
enum sched_oversubscribe {
	SCHED_OS_NO,	    /* jobs share nodes by CPUs, never a CPU (the default) */
	SCHED_OS_EXCLUSIVE, /* every job gets whole nodes */
	SCHED_OS_YES,	    /* up to oversubscribe_max jobs on each CPU, among the
			     * jobs that asked for it (-s/--oversubscribe) */
	SCHED_OS_FORCE,	    /* up to oversubscribe_max jobs on each CPU, always */
};

struct sched_part {
	const uint32_t *nodes; /* indices into the node array, in config order */
	uint32_t n_nodes;
	bool up;		    /* State=UP or DRAIN: its pending jobs may start */
	uint32_t priority_tier;	    /* PriorityTier: higher tiers go first */
	int64_t max_time;	    /* MaxTime, seconds; SCHED_NEVER: none */
	uint32_t max_nodes;	    /* MaxNodes; 0: none */
	uint32_t min_nodes;	    /* MinNodes; 0: none */
	uint32_t max_cpus_per_node; /* MaxCPUsPerNode; 0: none */
	uint64_t max_mem_per_node;  /* MaxMemPerNode, MiB; 0: none */
	enum sched_oversubscribe oversubscribe;
	uint32_t oversubscribe_max; /* YES:N's or FORCE:N's N (>= 1) */
	uint32_t qos;		    /* the partition's QOS=, or SCHED_NONE */
};

/* A cluster-wide consumable count (Licenses=name:N). */
struct sched_license {
	const char *name;
	uint32_t total;
};

/* --- requests and allocations --------------------------------------------- */

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
	bool oversubscribe;	   /* -s: may share CPUs in an OverSubscribe=YES part */
	uint32_t min_cpus;	   /* --mincpus: CPUs each node must have */
	uint64_t min_tmp;	   /* --tmp: MB of TmpDisk each node must have */
	const uint32_t *req_nodes; /* -w: node indices the job must use */
	uint32_t n_req_nodes;
	const uint32_t *exc_nodes; /* -x: node indices it must not use */
	uint32_t n_exc_nodes;
	const struct sched_constraint *constraint; /* -C, or NULL */
};

/* -L name:count, by index into the snapshot's licenses. */
struct sched_lic_req {
	uint32_t lic;
	uint32_t count;
};

/* What a job holds (or is given, or is planned to get) on one node. */
struct sched_alloc {
	uint32_t node, cpus, tasks; /* cpus: the number of bits set in cpu_ids */
	uint64_t mem;		    /* MiB */
	const uint64_t *cpu_ids;    /* SCHED_WORDS(node's n_cpus) words: bit i is CPU i */
	const uint32_t *gpu_units;  /* units per device of the node (n_gpus), or NULL */
};

/* --- the policy ------------------------------------------------------------ */

enum sched_qos_flag {
	SCHED_QOS_DENY_ON_LIMIT = 1 << 0, /* refused at submit, not held (ctld's) */
};

struct sched_qos {
	const char *name;
	uint32_t priority;	    /* Priority= (the QOS factor's raw value) */
	double usage_factor;	    /* UsageFactor=, 1.0 by default */
	int64_t max_wall;	    /* MaxWall, seconds; SCHED_NEVER: none */
	uint32_t max_jobs_per_user; /* MaxJobsPerUser; SCHED_NONE: none */
	uint32_t grp_jobs;	    /* GrpJobs; SCHED_NONE: none */
	struct sched_tres_vec max_tres_per_user, max_tres_per_job, grp_tres;
	uint32_t flags; /* enum sched_qos_flag */
};

/* An association: the cluster's root, an account, or a user in an account.
 * Limits are the effective ones: ctld resolves Slurm's inheritance of Max*
 * limits from parents before it builds the snapshot; a Grp* limit applies
 * to the sum over the association's whole subtree. */
struct sched_assoc {
	uint32_t parent; /* index, or SCHED_NONE for the root */
	uint32_t uid;	 /* a user association's uid; SCHED_NONE for accounts */
	uint32_t shares; /* Fairshare= (raw shares); 1 by default; SCHED_FS_PARENT */
	double usage;	 /* its own decayed, billed usage (billing-seconds); the
			  * subtree's sum is sched_fairshare's to make */
	uint32_t grp_jobs, max_jobs; /* SCHED_NONE: none */
	struct sched_tres_vec grp_tres, max_tres_per_job;
	int64_t max_wall; /* seconds; SCHED_NEVER: none */
};

struct sched_policy {
	const struct sched_qos *qos;
	uint32_t n_qos;
	const struct sched_assoc *assocs; /* parents before children */
	uint32_t n_assocs;
	bool enforce_limits; /* AccountingStorageEnforce=limits */
	bool enforce_qos;    /* AccountingStorageEnforce=qos */
};

/* --- jobs ------------------------------------------------------------------- */

struct sched_running {
	uint32_t job_id;
	int64_t end;	   /* expected end (start + limit); SCHED_NEVER: unlimited */
	uint64_t priority; /* for the preemption work */
	uint32_t part, qos, assoc, uid; /* SCHED_NONE where none */
	bool oversubscribe;		/* it asked -s (shares CPUs in a YES partition) */
	bool exclusive;			/* it asked --exclusive (holds its nodes whole) */
	const struct sched_alloc *alloc;
	uint32_t n_alloc;
	const struct sched_lic_req *lics;
	uint32_t n_lics;
};

/* A job the last backfill pass planned: kept out of lower jobs' way by a
 * quick pass (and by a backfill pass resuming after it, bf_continue). Its
 * job must be among the pending ones to be honoured. */
struct sched_plan {
	uint32_t job_id;
	uint32_t part; /* the partition it was planned in (decision.part) */
	int64_t start, end;
	const struct sched_alloc *alloc; /* the nodes (and amounts) it was planned on */
	uint32_t n_alloc;
	const struct sched_lic_req *lics;
	uint32_t n_lics;
};

struct sched_pending {
	uint32_t job_id;
	uint64_t priority;	  /* higher goes first (within a PriorityTier) */
	uint32_t uid, assoc, qos; /* SCHED_NONE where none */
	const uint32_t *parts;	  /* candidate partitions, in the order given */
	uint32_t n_parts;
	int64_t time_limit; /* seconds; SCHED_NEVER: unlimited */
	int64_t time_min;   /* --time-min, seconds; 0: not given */
	const struct sched_req *req;
	const struct sched_lic_req *lics;
	uint32_t n_lics;
	uint32_t count; /* array tasks that may start now; 1 for a plain job */
};

/* --- running a pass ---------------------------------------------------------- */

enum sched_pass_kind {
	SCHED_PASS_QUICK,    /* Slurm's main scheduler: start only, honour plans */
	SCHED_PASS_BACKFILL, /* start what fits, plan the rest */
};

struct sched_params {
	enum sched_pass_kind kind;
	uint32_t default_queue_depth; /* QUICK: jobs tried (Slurm: 100); 0: all */
	uint32_t bf_max_job_test;     /* BACKFILL: jobs tried (Slurm: 500); 0: all */
	uint32_t bf_max_job_user;     /* BACKFILL: per user; 0: no limit */
	int64_t bf_window;	      /* seconds planned ahead (Slurm: 1 day) */
	int64_t bf_resolution;	      /* seconds between planned times (60); 0: 1 */
	/* bf_continue: start after this (tier, priority, job id) position of
	 * the order, as left by the previous pass (result.resume); zero: from
	 * the top */
	struct sched_resume {
		bool valid;
		uint32_t tier;
		uint64_t priority;
		uint32_t job_id;
	} resume;
	/* Asked every few jobs; true ends the pass there (bf_max_time). NULL:
	 * never stops early. */
	bool (*stop)(void *arg);
	void *stop_arg;
};

struct sched_snapshot {
	int64_t now;
	const struct sched_node *nodes;
	uint32_t n_nodes;
	const struct sched_part *parts;
	uint32_t n_parts;
	const struct sched_license *lics;
	uint32_t n_lics;
	const struct sched_running *running;
	uint32_t n_running;
	const struct sched_pending *pending;
	uint32_t n_pending;
	/* QUICK: honoured for the jobs above each job tried; BACKFILL resuming
	 * (params.resume): honoured for the jobs before the resume point, the
	 * others are planned again; else ignored */
	const struct sched_plan *plans;
	uint32_t n_plans;
	const struct sched_policy *policy; /* NULL: no limits */
};

enum sched_verdict {
	SCHED_WAIT,  /* not now: see reason, and start when planned */
	SCHED_START, /* start now on alloc[alloc_off .. alloc_off+alloc_n) */
};

/* Why a job waits: Slurm's reason names (sched_reason_name). */
enum sched_reason {
	SCHED_R_NONE,
	SCHED_R_PRIORITY,	    /* a job before it waits for what it needs */
	SCHED_R_RESOURCES,	    /* not enough free resources now */
	SCHED_R_PART_DOWN,	    /* no candidate partition is up */
	SCHED_R_PART_NODE_LIMIT,    /* no candidate partition can ever hold it */
	SCHED_R_PART_TIME_LIMIT,    /* its limit is over every partition's MaxTime */
	SCHED_R_REQ_NODE_NOT_AVAIL, /* a -w node is not up (does not block others) */
	SCHED_R_LICENSES,	    /* not enough licenses now */
	SCHED_R_QOS_MAX_JOBS_PER_USER,
	SCHED_R_QOS_GRP_JOBS,
	SCHED_R_QOS_GRP_CPU,
	SCHED_R_QOS_GRP_MEM,
	SCHED_R_QOS_GRP_GRES,
	SCHED_R_QOS_GRP_NODE,
	SCHED_R_QOS_MAX_CPU_PER_USER,
	SCHED_R_QOS_MAX_GRES_PER_USER,
	SCHED_R_QOS_MAX_NODE_PER_USER,
	SCHED_R_QOS_MAX_CPU_PER_JOB,
	SCHED_R_QOS_MAX_GRES_PER_JOB,
	SCHED_R_QOS_MAX_WALL,
	SCHED_R_ASSOC_GRP_JOBS,
	SCHED_R_ASSOC_GRP_CPU,
	SCHED_R_ASSOC_GRP_MEM,
	SCHED_R_ASSOC_GRP_GRES,
	SCHED_R_ASSOC_GRP_NODE,
	SCHED_R_ASSOC_MAX_JOBS,
	SCHED_R_ASSOC_MAX_CPU_PER_JOB,
	SCHED_R_ASSOC_MAX_GRES_PER_JOB,
	SCHED_R_ASSOC_MAX_WALL,
	/* the other TRES of the same limits, by Slurm's names */
	SCHED_R_QOS_GRP_BILLING,
	SCHED_R_QOS_MAX_MEM_PER_USER,
	SCHED_R_QOS_MAX_BILLING_PER_USER,
	SCHED_R_QOS_MAX_MEM_PER_JOB,
	SCHED_R_QOS_MAX_NODE_PER_JOB,
	SCHED_R_QOS_MAX_BILLING_PER_JOB,
	SCHED_R_ASSOC_GRP_BILLING,
	SCHED_R_ASSOC_MAX_MEM_PER_JOB,
	SCHED_R_ASSOC_MAX_NODE_PER_JOB,
	SCHED_R_ASSOC_MAX_BILLING_PER_JOB,
	/* room for the reservation and preemption work */
	SCHED_R_RESERVATION,
	SCHED_R_COUNT,
};

struct sched_decision {
	uint32_t index; /* into snapshot.pending */
	uint32_t job_id;
	enum sched_verdict verdict;
	enum sched_reason reason; /* SCHED_R_NONE with SCHED_START */
	uint32_t part;		  /* the partition started or planned in */
	/* START: now; WAIT: the planned start, or 0 when none was planned
	 * (not tested, beyond bf_window, or held by a limit) */
	int64_t start;
	/* START: the limit it runs with (its own, or less down to its
	 * --time-min when that let it start); WAIT: its own */
	int64_t time_limit;
	uint32_t alloc_off, alloc_n; /* START: what it gets; planned: where */
	uint32_t lacks;		     /* RESOURCES: bit 1 << SCHED_TRES_* it lacks */
	/* room for the preemption work: jobs to preempt for it to start */
	uint32_t preempt_off, n_preempt;
};

struct sched_stats {
	uint32_t tested, started, planned;
	bool stopped; /* params.stop ended the pass, or bf_max_job_test did */
};

/* What a pass returns; every array is the result's own. Decisions come in
 * the order the jobs were tried, one per job the pass reached: a job it did
 * not reach (past default_queue_depth or bf_max_job_test, over
 * bf_max_job_user, before params.resume, after params.stop) gets none, and
 * its previous verdict stands. An array job (count > 1) gets one decision
 * per task it starts (all with the same index), then at most one for the
 * tasks left waiting. */
struct sched_result {
	struct sched_decision *decisions;
	uint32_t n_decisions;
	struct sched_alloc *allocs; /* their cpu_ids/gpu_units point into the result */
	uint32_t n_allocs;
	uint32_t *preempt; /* job ids, for the preemption work */
	/* where bf_continue goes on from: valid when params.stop ended the
	 * pass (the last job tried) */
	struct sched_resume resume;
	struct sched_stats stats;
	void *pool; /* the cpu_ids and gpu_units the allocations point to */
	size_t cap_decisions, cap_allocs; /* room in the arrays (the pass's) */
};

/* Decides the pending jobs of snap. 0 and *out filled (freed with
 * sched_result_free), -EINVAL when the snapshot is malformed (an index out of
 * range, more in use than a node has), -ENOMEM; *out untouched on failure.
 * What the pass reads is checked: the frame, every running job and what
 * ordering reads of every pending job at once; the rest of a pending job
 * when the pass reaches it and a plan when it is honoured (a quick pass
 * never reads the request of a job past default_queue_depth). snap is only
 * read. */
int sched_run(const struct sched_snapshot *snap, const struct sched_params *params,
	      struct sched_result *out);
void sched_result_free(struct sched_result *r); /* accepts NULL and zeroed */

/* A digest of everything r decided over nodes (the snapshot's): equal
 * digests mean the same decisions, to the CPU id and GPU unit. For checking
 * that a change to the search decides as before (bench, tests, a replay). */
#define SCHED_FNV1A_BASIS 1469598103934665603ULL
uint64_t sched_fnv1a(uint64_t h, const void *p, size_t n);
uint64_t sched_result_digest(const struct sched_node *nodes,
			     const struct sched_result *r);

/* Could req ever run in part, were all its nodes up and idle? 0 or -ENOSPC. */
int sched_fits_config(const struct sched_node *nodes, uint32_t n_nodes,
		      const struct sched_part *part, const struct sched_req *req);

const char *sched_reason_name(enum sched_reason r); /* Slurm's reason name */

/* --- priority (priority.c) and fair share (fairshare.c) --------------------- */

/* PriorityWeight* and the settings of priority/multifactor. */
struct sched_prio_weights {
	uint32_t age, assoc, fairshare, job_size, partition, qos;
	double tres[SCHED_TRES_COUNT];	      /* PriorityWeightTRES (Slurm's are reals) */
	int64_t max_age;		      /* PriorityMaxAge, seconds */
	bool favor_small;		      /* PriorityFavorSmall */
	bool small_relative_to_time;	      /* PriorityFlags=SMALL_RELATIVE_TO_TIME */
	uint32_t cluster_cpus, cluster_nodes; /* what job size is relative to */
	/* the TRES factors' denominators where the job's partition gives none */
	struct sched_tres_vec cluster_tres;
	uint32_t max_part_job_factor; /* the highest PriorityJobFactor */
	uint32_t max_qos_priority;    /* the highest QOS Priority */
	uint32_t max_assoc_priority;  /* the highest association Priority */
};

/* One job, as far as its priority goes. */
struct sched_prio_job {
	int64_t eligible_time;	    /* when it became eligible (age counts from it);
				     * 0: not yet, no age */
	uint32_t cpus, nodes;	    /* CPUs (0: not known yet) and minimum nodes */
	int64_t time_limit;	    /* seconds; SCHED_NEVER unlimited */
	uint32_t part_job_factor;   /* PriorityJobFactor of the partition it is
				     * computed for (one call per partition) */
	uint32_t qos_priority;	    /* its QOS's Priority */
	uint32_t assoc_priority;    /* its association's Priority */
	double fairshare;	    /* its association's factor (sched_fairshare) */
	struct sched_tres_vec tres; /* what it asks for (or holds) */
	/* that partition's TRES totals, the TRES factors' denominators (Slurm
	 * divides by the partition's); a zero entry: cluster_tres's */
	struct sched_tres_vec part_tres;
	int32_t nice;	     /* --nice, scontrol update Nice= */
	int64_t site_factor; /* scontrol update SiteFactor= (0 by default) */
};

/* One job's factors, each 0..1 before its weight, as sprio -n shows them; a
 * factor whose weight is 0 is left 0, as Slurm leaves it. */
struct sched_prio_factors {
	double age, assoc, fairshare, job_size, partition, qos; /* 0..1 */
	double tres[SCHED_TRES_COUNT];
	/* the sum of weight x factor + site_factor - nice, truncated, at least 1
	 * (0 is a held job's) and at most UINT32_MAX, as Slurm's */
	uint64_t priority;
};

/* Slurm's priority/multifactor formula (see priority.c). Pure; reads w and
 * j, fills *out. */
void sched_priority(const struct sched_prio_weights *w, const struct sched_prio_job *j,
		    int64_t now, struct sched_prio_factors *out);

enum sched_fs_algo {
	SCHED_FS_FAIR_TREE, /* Slurm's default since 19.05 */
	SCHED_FS_CLASSIC,   /* PriorityFlags=NO_FAIR_TREE */
};

/* What sshare -l shows of one association. */
struct sched_fs {
	/* Fair Tree: its shares over its siblings' (a Fairshare=parent one:
	 * those of the ancestor it defers to); classic: that times its
	 * parent's, down from the root */
	double norm_shares;
	double raw_usage;  /* its subtree's usage (its own plus its children's) */
	double norm_usage; /* raw_usage over the whole tree's, at most 1 */
	/* Fair Tree: raw_usage over its parent's; classic: its normalized usage
	 * with the parent's effective usage folded in (classic_fair_share) */
	double eff_usage;
	/* Fair Tree: norm_shares / eff_usage, infinity without usage, 0 without
	 * shares; without meaning for the root and for Fairshare=parent (sshare
	 * prints it empty), given as 0 there and under classic */
	double level_fs;
	/* the fair-share factor, 0..1; under Fair Tree only users have one
	 * (accounts get 0; sshare prints theirs empty) */
	double factor;
};

/* Fairshare=parent: an association that takes its parent's place in the
 * fair-share tree (sched_assoc.shares). */
#define SCHED_FS_PARENT UINT32_MAX

/* Fair-share figures of every association of the tree (a[0] the root, the
 * only one without a parent, parents before children; an association with
 * a uid is a user and has no children), from shares and decayed usage; out
 * has n entries, written only on success. 0, -EINVAL when the tree is
 * malformed, -ENOMEM. Reads a only. */
int sched_fairshare(const struct sched_assoc *a, uint32_t n, enum sched_fs_algo algo,
		    struct sched_fs *out);

/* Usage decays with half-life half_life: what u is worth dt seconds on,
 * u * 2^(-dt/half_life); half_life 0 (PriorityDecayHalfLife=0) or dt <= 0:
 * u unchanged. */
double sched_decay(double u, int64_t dt, int64_t half_life);

#endif
