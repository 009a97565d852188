/* job.h — the job record and the job table (by id, and in the order ids were issued).
 * State transitions live in job_state.c only; this file declares the data. */
#ifndef CTLD_JOB_H
#define CTLD_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/array_spec.h"
#include "ctld/dep_parse.h"
#include "ctld/usage.h"
#include "sched/sched.h"

enum job_state {
	JOB_PENDING,
	JOB_RUNNING,
	JOB_COMPLETED,
	JOB_FAILED,
	JOB_CANCELLED,
	JOB_TIMEOUT,
	JOB_NODE_FAIL,
	JOB_DEADLINE,
	JOB_REQUEUED,	   /* only an earlier run's row in the history has it */
	JOB_OUT_OF_MEMORY, /* the kernel OOM-killed the batch step (or a step) */
	JOB_STATE_COUNT,
};

/* The signal number Slurm records for an OOM-killed step or job (its
 * ExitCode reads 0:125). */
#define DRV_SIG_OOM 125

enum job_hold { HOLD_NONE, HOLD_USER, HOLD_ADMIN };

/* What a running job holds on one node; alloc[0] is the batch host. */
struct job_alloc {
	uint32_t node, cpus, tasks;
	uint64_t mem;	   /* MiB */
	uint64_t gpus;	   /* bit mask of GPU indices */
	uint64_t *cpu_ids; /* owned; the node's CPU ids it holds (cpus bits set) */
	uint32_t cpu_bits; /* the bits cpu_ids covers: the node's CPUs */
};

struct job_step;

/* -L name:count, by index into the config's licenses (laid out as the
 * scheduler's struct sched_lic_req). */
struct job_lic {
	uint32_t lic;
	uint32_t count;
};

/* The request as the user gave it, with the "given" flags Slurm's
 * environment depends on (SLURM_NTASKS only with -n, ...). */
struct job_req {
	struct sched_req sched; /* what the scheduler places (defaults applied) */
	bool ntasks_given, cpt_given, mem_given, mem_is_per_cpu;
	uint64_t mem;	/* MiB as shown (per node or per CPU); 0 = none */
	char *gpu_type; /* owned; sched.gpu_type points here */
	char *account, *qos;
	char *dependency;     /* as last given (SLURM_JOB_DEPENDENCY) */
	struct dep_list deps; /* what is still to be met (depend.c) */
	int kill_invalid_dep; /* --kill-on-invalid-dep: -1 not given, 0 no, 1 yes */
	int64_t begin_time;   /* --begin / StartTime=, epoch s; 0 none */
	int64_t deadline;     /* --deadline, epoch s; 0 none */
	int32_t nice;
	char *open_mode, *stdin_pat;
	bool requeue; /* --requeue / --no-requeue, default JobRequeue */
	/* placement (-w, -x, -C): names as given, compressed; indices resolved
	 * against the node table on first use (sched.req_nodes/exc_nodes) */
	char *req_nodes, *exc_nodes, *features;
	struct sched_constraint *constraint; /* owned; sched.constraint */
	uint32_t *req_idx, *exc_idx;	     /* owned; NULL until resolved */
	bool nodes_resolved;
	/* --signal=[{R|B}:]SIG[@secs]: warn_signal 0 when not given */
	int32_t warn_signal, warn_time;
	bool warn_batch; /* B: the batch shell only */
	/* --time-min in seconds; 0 not given; Slurm's one minute for an
	 * UNLIMITED job with a --deadline */
	int64_t time_min;
	/* -p as given when it named several partitions ("a,b": the job's
	 * partition shows it until the job starts in one); NULL: just the
	 * job's partition. part_idx: the candidates' indices into ctld's
	 * partitions, resolved by part_job_candidates (part.h) while
	 * part_gen matches ctld's; owned. */
	char *partitions;
	uint32_t *part_idx;
	uint32_t n_part_idx, part_gen;
	/* -L as given (NULL: none) and its licenses by index, resolved by
	 * lic_job_resolve (lic.h); owned */
	char *licenses;
	struct job_lic *lics;
	uint32_t n_lics;
	bool lics_resolved;
};

struct job {
	uint32_t id;
	enum job_state state;
	const char *reason; /* Slurm's reason name, static string */
	char *reason_desc;  /* with reason JOB_REASON_REQ_NODE: its full text */
	char *name, *user, *partition, *workdir, *submit_dir, *stdout_pat, *stderr_pat;
	char *comment, *submit_host, *command, *export_env;
	uid_t uid;
	gid_t gid;
	uint32_t num_nodes;
	int64_t time_limit; /* seconds or DRV_INFINITE */
	int64_t submit_time, eligible_time, start_time, end_time;
	int exit_code, exit_signal;
	enum job_hold hold;
	uint32_t restart_count;
	uint64_t priority;
	/* an administrator's scontrol update Priority=: priority/multifactor
	 * leaves it alone (Slurm's direct_set_prio) */
	bool priority_set;
	struct job_req req;
	struct job_alloc *alloc;   /* while nodes are held; alloc[0] is the batch host */
	uint32_t n_alloc;	   /* 0 when no nodes are held */
	uint32_t alloc_cpus_total; /* CPUs it had, kept after the end */
	char *tasks_per_node, *cpus_per_node; /* "2(x3),1", kept after the end */
	char *alloc_gpus;		      /* GPU indices on the batch node, "0,1" */
	char *req_tres, *alloc_tres; /* as sacct prints them; alloc "" before the start */
	char *nodelist;	     /* compressed names of the nodes it ran on, "" before */
	char *batch_host;    /* the node that ran the batch script, NULL before */
	bool launch_acked;   /* noded confirmed the shepherd runs */
	bool prolog_pending; /* its PrologSlurmctld runs: no launch yet */
	bool completing; /* ended (or requeued) in ctld's eyes, nodes still cleaning up */
	/* scontrol suspend (job_suspend.c): a RUNNING job that holds its nodes
	 * but is frozen, shown SUSPENDED. As Slurm's: suspend_time is the last
	 * suspend or resume (0 never), pre_sus_time the seconds it ran before
	 * the last suspend, suspended_secs the time suspended in all. */
	bool suspended;
	int64_t suspend_time, pre_sus_time, suspended_secs;
	/* anomaly.c: an operator resumed it from an anomaly freeze (its
	 * nodes' policy leaves it alone from then on) */
	bool anomaly_cleared;
	uint32_t missing_pings; /* pings from the batch host that did not list it */
	uid_t cancel_uid;
	/* schedule.c: while pending, the last backfill pass's plan (when and
	 * where it is expected to start: squeue --start), 0/NULL when none,
	 * and what it lacked when it waited for Resources (1 << SCHED_TRES_*) */
	int64_t plan_start;
	char *plan_nodes;
	uint32_t lacks;
	/* job arrays (job_array.c); array_job_id is 0 outside arrays. The meta
	 * record (id == array_job_id) holds the tasks not yet started in
	 * array; a task gets its own record (and id) when it starts, and the
	 * meta record becomes the last task. */
	uint32_t array_job_id;
	int64_t array_task_id;	  /* -1: none, or several still pending */
	char *array_task_str;	  /* pending remainder as shown, "5-9%4"; else NULL */
	struct drv_array *array;  /* meta record: the pending tasks; else NULL */
	uint32_t array_max_tasks; /* the %N throttle, 0: none */
	uint32_t array_count, array_min, array_max, array_step; /* the whole array */
	/* srun and salloc: an allocation with no batch script, released by its
	 * client (alloc.complete) or at its time limit */
	bool interactive;
	/* a pending job's after: entry waits for this one to start: its start
	 * asks for a scheduler pass (depend.c) */
	bool start_awaited;
	struct job_step *steps; /* step.c: srun steps in id order, kept after they end */
	uint32_t n_steps, next_step_id;
	struct step_usage batch_usage; /* the batch script's, from job.complete */
	/* table links */
	struct job *hnext, *prev, *next;
	bool dirty;
	struct job *dirty_next;
};

#define JOB_REASON_REQ_NODE "ReqNodeNotAvail"

struct job_table {
	struct job **buckets;
	size_t n_buckets, count;
	/* the jobs as Slurm counts them against MaxJobCount: a record is one,
	 * a pending array's record one for each task it holds (job_weight) */
	uint64_t tasks;
	struct job *head, *tail; /* the order ids were issued */
	uint32_t next_id;
};

const char *job_state_name(enum job_state s);
/* The state squeue and scontrol show: COMPLETING (Slurm's CG) for a job
 * (ended, or requeued) whose node has not reported its processes gone, else
 * its own. */
const char *job_shown_state(const struct job *j);
/* The state its record carries (squeue, sacct, the store): SUSPENDED for a
 * suspended RUNNING job, else its own. */
const char *job_record_state(const struct job *j);
bool job_state_final(enum job_state s);
int job_state_parse(const char *name); /* long or compact, -1 if unknown */

struct job *job_new(void); /* zeroed, reason "None"; NULL on ENOMEM */
/* Frees j's allocation entries (and their CPU sets); j holds no nodes after. */
void job_alloc_clear(struct job *j);
void job_free(struct job *j);

int job_table_init(struct job_table *t);
void job_table_fini(struct job_table *t); /* frees every job */
struct job *job_table_find(const struct job_table *t, uint32_t id);
/* Appends j: the table's order is the order ids were issued (ascending
 * until ids go round past MaxJobId), and an array's tasks follow it. */
void job_table_add(struct job_table *t, struct job *j);
void job_table_remove(struct job_table *t, struct job *j); /* does not free */
/* What j counts for in t->tasks: the tasks a pending array's record holds,
 * else 1. Whoever changes the pending set of a record in the table moves
 * t->tasks by the difference (job_array.c). */
uint32_t job_weight(const struct job *j);

/* JSON encodings (new references). The store record is the protocol's job
 * record (job_fields.h) plus what recovery needs. */
json_t *job_to_store(const struct job *j, char *const *node_names);
/* Rebuilds a job from its decoded store record; its allocation (by node
 * name, r->alloc) is the caller's to resolve. NULL if malformed. */
struct job *job_from_store(const struct drv_rec_job *r);

#endif
