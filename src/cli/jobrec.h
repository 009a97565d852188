/* jobrec.h — a job record from ctld (docs/protocol.md, "job record") as a
 * plain struct, so the formatters are pure functions of C data. */
#ifndef DRV_CLI_JOBREC_H
#define DRV_CLI_JOBREC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/proto_gen.h"

/* What a step's tasks used (docs/protocol.md, "usage"); has is false when
 * no node reported any (the other fields are then 0 and ""). */
struct cli_usage {
	bool has;
	int64_t user_usec, sys_usec;
	int64_t max_rss_kib, ave_rss_kib, max_rss_task;
	const char *max_rss_node; /* borrowed */
	/* from samples (JobAcctGatherFrequency); all 0 and "" without */
	int64_t ntasks;
	int64_t max_vsize_kib, ave_vsize_kib, max_vsize_task;
	int64_t min_cpu_usec, min_cpu_task, max_cpu_usec, max_cpu_task;
	const char *max_vsize_node, *min_cpu_node, *max_cpu_node; /* borrowed */
};

/* Fills u from a usage_total (has: whether there is one); strings
 * borrowed from t. */
void cli_usage_from_total(const struct drv_rec_usage_total *t, bool has,
			  struct cli_usage *u);

/* One srun step of a job record's "steps" (the batch step is not among
 * them). Strings are borrowed like the job's; absent strings are "". */
struct cli_step {
	int64_t step_id;
	const char *name, *state, *nodelist, *alloc_tres;
	const char *tasks_per_node, *distribution; /* "" when not sent */
	int64_t exit_code;			   /* the highest task exit code */
	int64_t exit_signal;	      /* the signal that killed a task, 0 none */
	int64_t start_time, end_time; /* end 0 while running */
	int64_t num_nodes, ntasks, cpus;
	int64_t cancel_uid; /* who cancelled it; -1 unknown */
	struct cli_usage usage;
};

/* Strings are borrowed from the JSON object the record was read from (or
 * from whatever the caller points them at); absent strings are "" except
 * where noted. Times are epoch seconds, 0 when unknown. */
struct cli_job {
	int64_t job_id;
	const char *name, *user, *partition, *state, *reason;
	const char *nodelist, *batch_host, *workdir, *submit_host, *command;
	const char *std_out, *std_err; /* patterns as submitted; NULL if unset */
	const char *comment;	       /* NULL if unset */
	const char *hold;	       /* "user", "admin" or NULL */
	int64_t uid, gid, num_nodes, cpus, priority, restart_count;
	int64_t time_limit; /* seconds; -1 unlimited */
	int64_t submit_time, eligible_time, start_time, end_time;
	int64_t deadline; /* --deadline, 0 none */
	int64_t exit_code, exit_signal;
	/* issue 3 fields; defaults when ctld does not send them yet */
	const char *account;	/* NULL if unset */
	const char *qos;	/* "normal" by default */
	const char *gres;	/* "gpu:2", "gpu:a100:1" or NULL */
	const char *dependency; /* NULL if none */
	const char *tres;	/* NULL: derived from cpus and nodes */
	const char *std_in;	/* pattern or NULL (/dev/null) */
	int64_t nice, ntasks, gpus;
	int64_t cpus_per_task;	     /* -1 when not given */
	int64_t ntasks_per_node;     /* -1 when not given */
	int64_t min_memory;	     /* MiB per node, or per CPU with mem_per_cpu */
	const char *min_memory_text; /* as ctld formatted it ("2G"), or NULL */
	bool mem_per_cpu, exclusive, oversubscribe;
	/* job arrays (the array work): a task has array_job_id and its own
	 * array_task_id; a pending array record names its tasks in
	 * array_task_str ("5-9"). 0 / -1 / NULL when not an array. */
	int64_t array_job_id, array_task_id;
	const char *array_task_str;
	int64_t array_max_tasks; /* the %N throttle, 0: none */
	/* accounting (issue 4); NULL when ctld does not send them */
	const char *req_tres;	   /* "billing=1,cpu=1,mem=100M,node=1" */
	const char *alloc_tres;	   /* same form, "" before the start */
	const char *cpus_per_node; /* "2(x3),1" */
	const char *alloc_gpus;	   /* the batch node's GPU indices, "0,1" */
	int64_t cancel_uid;	   /* who cancelled it; -1 unknown */
	/* requeue */
	bool requeue;	       /* may be requeued (Requeue=1); true by default */
	bool interactive;      /* an srun or salloc allocation: no batch script */
	const char *run_state; /* an earlier run's row (sacct -D): the state it
				* had when it was requeued, else NULL */
	/* placement (-w, -x, -C, --mincpus, --tmp) and --time-min */
	const char *req_nodes, *exc_nodes, *features; /* NULL if not given */
	const char *sched_nodes; /* pending: the planned nodes, NULL if none */
	const char *lacks;	 /* pending on Resources: "cpu,gres/gpu", or NULL */
	const char *licenses;	 /* -L as given, or NULL */
	int64_t min_cpus, min_tmp, time_min; /* 0 if not given */
	int64_t max_nodes;		     /* -N ..MAX (MIN when -N N); 0 without -N */
	/* srun steps in step id order; borrowed (cli_jobs_from_reply puts
	 * them in the block it returns). NULL/0: none, or not read. */
	const struct cli_step *steps;
	size_t n_steps;
	struct cli_usage batch_usage; /* the batch script's ("batch_usage") */
	/* scontrol suspend, as Slurm keeps it: the last suspend or resume (0
	 * never), the seconds run before the last suspend, and the time
	 * suspended in all */
	int64_t suspend_time, pre_sus_time, suspended_secs;
	/* scontrol show job -d: each held node's CPU ids, memory, GPUs
	 * (cli_jobs_from_reply copies them into its block, as the steps;
	 * cli_job_from_rec borrows the record's). 0: none sent */
	const struct drv_rec_job_alloc *node_detail;
	size_t n_node_detail;
};

/* Fills *job from a decoded record r (its strings are borrowed), leaving
 * the steps empty (cli_jobs_from_reply fills them). */
void cli_job_from_rec(const struct drv_rec_job *r, struct cli_job *job);

/* The jobs of a job.query or acct.query reply, whole records ("jobs") or
 * compact rows ("fields" + "rows"), with their steps: *out is a new array
 * (one free() releases it and the steps it points to) of the returned
 * count; strings are borrowed from reply. *now (unless NULL) is the reply's
 * clock, or ours when it sent none. *out is NULL when out of memory or
 * when the reply does not decode. */
size_t cli_jobs_from_reply(json_t *reply, struct cli_job **out, int64_t *now);

/* The fields a listing (squeue, scancel) asks ctld for, plus extra (a comma
 * list, or NULL), as a new array. */
json_t *cli_job_fields(const char *extra);

/* Run time as squeue %M and scontrol RunTime count it (Slurm's): 0 while
 * pending, now - start while running, end - start once ended, with the
 * time it was suspended left out (SecsPreSuspend while it is). */
int64_t cli_job_elapsed(const struct cli_job *job, int64_t now);
/* When a started job's time limit is (or was) due: start + limit, moved on
 * by the time it was suspended; 0 when it has not started, -1 UNLIMITED. */
int64_t cli_job_limit_end(const struct cli_job *job);

/* Expands %j %A %x %u %% in a stdout/stderr pattern as Slurm's scontrol
 * shows it, relative to workdir; other "%X" (like %N, which only the node
 * knows) stay as written. NULL pattern = slurm-%j.out. Returns a
 * new malloc'd string or NULL. */
char *cli_job_stdio_path(const struct cli_job *job, const char *pattern);

/* Memory as Slurm prints it in squeue %m and scontrol: "0", "1000M", "2G",
 * "1T" (exact multiples only). */
void cli_mem_fmt(int64_t mib, char *buf, size_t len);

#endif
