/* shepherd.h — what drover-shepherd's files share.
 *
 * The shepherd is the parent of one batch job (Slurm's slurmstepd): it reads
 * the spec noded wrote, holds the job dir's lock for its whole life, runs
 * the script in its own process group as the job's user, waits, and records
 * how the job ended. It is single-threaded and talks to nobody but noded's
 * notification socket. */
#ifndef DRV_SHEPHERD_H
#define DRV_SHEPHERD_H

#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/cgroup.h"
#include "common/fileio.h"
#include "common/kill_why.h"
#include "common/proto_gen.h"

/* The launch spec. Strings are borrowed from root (never NULL: absent ones
 * are ""); env and argv are arrays of borrowed strings. */
struct spec {
	json_t *root;
	int64_t job_id;
	int64_t restart;
	const char *name, *user, *partition, *nodelist, *workdir, *submit_dir;
	const char *stdout_pat, *stderr_pat, *script, *submit_host, *cluster;
	const char *node, *conf_path;
	uid_t uid;
	gid_t gid;
	int64_t num_nodes;
	const char **env;
	size_t n_env;
	const char **argv;
	size_t n_argv;
	/* Issue-3 fields. Absent integers are -1 (never given) unless noted;
	 * absent strings are "". */
	int64_t ntasks;			     /* -1: unknown */
	bool ntasks_given;		     /* -n given: SLURM_NTASKS is set */
	int64_t cpus_per_task;		     /* -1: -c not given */
	int64_t ntasks_per_node;	     /* -1: not given */
	const char *tasks_per_node;	     /* "2(x3),1" or "" */
	const char *job_cpus_per_node;	     /* same syntax, or "" */
	int64_t cpus_on_node;		     /* -1: unknown */
	int64_t mem_per_node, mem_per_cpu;   /* MiB, -1: not per node / per CPU */
	char *gpus;			     /* owned: "0,1" global indices, "" none */
	int64_t n_gpus;			     /* how many indices gpus lists */
	int64_t gpus_total, gpus_per_node;   /* -1: not given */
	const char *account;		     /* "" when none */
	const char *qos;		     /* "normal" by default */
	const char *dependency;		     /* --dependency as given, "" when none */
	bool open_append;		     /* --open-mode=append */
	const char *stdin_pat;		     /* "" means /dev/null */
	int64_t time_limit;		     /* seconds, <= 0 unlimited */
	int64_t kill_wait;		     /* seconds */
	int64_t warn_signal, warn_time;	     /* --signal; warn_signal 0: none */
	bool warn_batch;		     /* B: the batch shell only */
	int64_t start_time;		     /* epoch s, 0 unknown */
	int64_t array_job_id, array_task_id; /* -1: not an array job */
	int64_t array_count, array_min, array_max, array_step; /* the whole array */
	const char *task_prolog, *task_epilog; /* slurm.conf's, "" when none */
	struct drv_rec_node_spec ns;	       /* what noded added (node_spec) */
};

/* --- spec.c ------------------------------------------------------------ */
/* Reads dir/spec.json. 0 or -errno with err. spec_fini frees what it holds. */
int spec_load(const char *dir, struct spec *s, char *err, size_t errlen);
void spec_fini(struct spec *s);

/* --- env.c ------------------------------------------------------------- */
/* The job's environment: spec env plus the SLURM_* variables. Returns a
 * NULL-terminated malloc'd array of malloc'd strings (free with env_free),
 * or NULL on ENOMEM. */
char **env_build(const struct spec *s);
/* Sets name=value in a built environment (the batch shell's own pid). */
int env_set(char ***envp, const char *name, const char *value);
void env_free(char **envp);
void env_unset(char **envp, const char *name); /* no-op when absent */

/* --- task_prolog.c ------------------------------------------------------ */
/* Applies TaskProlog's output (text, len bytes): "export NAME=value" sets,
 * "unset NAME" clears, "print TEXT" writes TEXT and a newline to out_fd (-1:
 * nowhere); other lines are ignored. 0 or -ENOMEM. */
int task_prolog_apply(char ***envp, const char *text, size_t len, int out_fd);
/* In the job's child, as the user with its streams set up: runs path and
 * applies its output to *envp (stdout: the job's). 0 or -ENOMEM. */
int task_prolog_run(const char *path, char ***envp);
/* Runs path with envp and waits for it (the caller is the user already). */
void task_epilog_run(const char *path, char **envp);

/* --- io.c -------------------------------------------------------------- */
/* Expands %j %J %x %u %N %A %a %n %t %s %% (with optional zero-pad width)
 * in pattern. Returns a malloc'd string or NULL. */
char *io_expand(const char *pattern, const struct spec *s);
/* The job's three streams, expanded; paths borrowed. in is "" for /dev/null,
 * err "" to share out's file. */
struct io_paths {
	const char *in, *out, *err;
	bool append; /* O_APPEND, no truncation */
};
/* In the job's child, after chdir: stdout and stderr to their files, then
 * stdin (so that a missing input file can be reported on the job's
 * stderr). Returns 0, or -errno with the reason in err. */
int io_setup(const struct io_paths *p, char *err, size_t errlen);

/* --- usage.c ----------------------------------------------------------- */
/* What a step's tasks used, summed; zero it to start. A task's peaks are
 * the higher of its samples' (its processes summed) and wait4's. */
struct usage {
	int64_t user_usec, sys_usec;
	int64_t max_rss_kib, rss_sum_kib;
	int64_t max_vsize_kib, vsize_sum_kib;
	int64_t min_cpu_usec, max_cpu_usec;
	uint32_t max_rss_task, max_vsize_task, min_cpu_task, max_cpu_task, ntasks;
};
/* One task as the sampler saw it (sample.c): peaks and CPU time so far. */
struct task_sample {
	uint32_t id;
	pid_t pid;
	int64_t rss_kib, vsize_kib, user_usec, sys_usec;
};
struct rusage;
/* Adds one reaped task (its id in the step; 0 for the batch script) with
 * its samples (NULL: none). */
void usage_add(struct usage *u, uint32_t task, const struct rusage *ru,
	       const struct task_sample *ts);
/* Adds a task still running, from its samples alone (DIR/usage). */
void usage_add_sample(struct usage *u, const struct task_sample *ts);
/* The "usage" object of DIR/status (new reference, NULL on ENOMEM). */
json_t *usage_to_json(const struct usage *u);

/* --- sample.c: usage while the step runs ------------------------------- */
struct sampler {
	int64_t period_ns, next_at; /* CLOCK_MONOTONIC ns; period 0: off */
	pid_t root;		    /* this shepherd: without a cgroup, the step
				     * is what runs under it */
	char procs[PATH_MAX];	    /* the step cgroup's cgroup.procs, "" none */
	const char *dir;	    /* DIR/usage goes there (borrowed) */
	struct task_sample *t;	    /* one per task (owned) */
	uint32_t n;
	uint32_t *pids; /* the last sample's processes (owned) */
	size_t n_pids;
	bool taken; /* a sample was taken */
};
/* A sampler of ntasks tasks every period_s seconds (0: never) writing into
 * dir (borrowed). 0 or -ENOMEM; sampler_fini frees it either way. */
int sampler_init(struct sampler *sm, const char *dir, int64_t period_s, uint32_t ntasks);
/* Task k is task id of the step, running as pid. */
void sampler_set_task(struct sampler *sm, uint32_t k, uint32_t id, pid_t pid);
/* The step's processes are cg's when it is active (borrowed for the call). */
void sampler_set_cgroup(struct sampler *sm, const struct cg_step *cg);
/* When the next sample is due (limit_now() ns), 0 when sampling is off. */
int64_t sampler_next(const struct sampler *sm);
/* Samples and rewrites DIR/usage when one is due at now. */
void sampler_tick(struct sampler *sm, int64_t now);
/* The samples of the task running as pid (borrowed), NULL when none. */
const struct task_sample *sampler_task(const struct sampler *sm, pid_t pid);
void sampler_fini(struct sampler *sm);

/* --- run.c ------------------------------------------------------------- */
struct job_result {
	int exit_code;
	int sig;
	bool timeout;	    /* the time limit ended it (SIGTERM was sent) */
	bool oom;	    /* the kernel OOM-killed a process of the batch step */
	bool unkillable;    /* processes outlived SIGKILL (procs_end) */
	char message[256];  /* why the job could not start, or "" */
	struct usage usage; /* the script's, once it was reaped */
};
/* Runs the job (script at script_path) and waits for it; pgid file and
 * message written into dir. Returns 0 with *res filled, or -errno when the
 * job could not even be forked. */
int run_job(const char *dir, const struct spec *s, const char *script_path,
	    struct job_result *res);

/* --- user.c / run.c: the child's side ---------------------------------- */
/* In a forked child: the job's user for good (nothing to do unless root
 * runs a job for someone else), with the supplementary groups of spec's
 * "gids" (borrowed). 0, or -1 with the reason in err. */
int shepherd_become_user(json_t *spec, uid_t uid, gid_t gid, char *err, size_t len);
/* The submitter's umask from SLURM_UMASK (octal) in envp, when there. */
void apply_umask(char **envp);

/* --- gpu_bind.c ---------------------------------------------------------- */
/* The GPUs (of the node's step GPUs, a JSON array of indices) task `local`
 * sees under --gpu-bind bind (NULL: none) and --gpus-per-task per_task (0:
 * none). A new array. */
json_t *gpu_bind_pick(json_t *gpus, const char *bind, int64_t per_task, uint32_t local);

/* --- pty.c: srun --pty ------------------------------------------------- */
/* A new pseudo-terminal pair, both ends O_CLOEXEC and O_NOCTTY; when root
 * runs it for uid, the slave becomes uid's (mode 0620). 0 with *master and
 * *slave the caller's to close, or -errno with the reason in err. */
int pty_open(int *master, int *slave, uid_t uid, gid_t gid, char *err, size_t errlen);
/* Sets the terminal's size (the kernel then sends SIGWINCH to its
 * foreground group); 0 rows or cols leaves it as it is. 0 or -errno. */
int pty_set_size(int master, uint16_t rows, uint16_t cols);
/* In the task, after setsid(): fd's terminal becomes its controlling one.
 * 0 or -errno. */
int pty_make_controlling(int fd);

/* --- step.c: --step-dir ----------------------------------------------- */
/* Runs this node's tasks of an srun step (spec in dir) and reports. The
 * process's exit status. */
int step_main(const char *dir);

/* --- pmix.c (pmix_stub.c without libpmix): srun --mpi=pmix ------------- */
/* This node's PMIx server for the step of spec (its "tasks", "node_id" and
 * "mpi_layout"), its clients registered as uid/gid. NULL with the reason in
 * err when it cannot start (always without libpmix). One per process; free
 * with pmixsrv_free (NULL is fine). */
struct pmixsrv;
struct pmixsrv *pmixsrv_new(json_t *spec, const char *node, int64_t job_id,
			    int64_t step_id, uid_t uid, gid_t gid, char *err,
			    size_t errlen);
/* The PMIX_* variables of task id: a NULL-terminated malloc'd array the
 * caller frees with env_free, or NULL. */
char **pmixsrv_task_env(struct pmixsrv *p, uint32_t id);
/* The tasks' process group, which MPI_Abort kills. */
void pmixsrv_set_pgid(struct pmixsrv *p, pid_t pgid);
/* An fd to poll for POLLIN (-1 for NULL); when readable, pmixsrv_ready sends
 * a fence's part to srun on sock. 0, 1 when a task called MPI_Abort (the
 * step is to end), or -errno of the send. */
int pmixsrv_fd(const struct pmixsrv *p);
int pmixsrv_ready(struct pmixsrv *p, int sock);
/* srun's FENCE_DOWN payload (borrowed): completes the fence. 0 or -errno. */
int pmixsrv_fence_down(struct pmixsrv *p, int sock, const void *data, uint32_t len);
void pmixsrv_free(struct pmixsrv *p);

/* --- isolate.c: the step's cgroup ------------------------------------ */
/* Creates cg for step ("batch", "0", ...) of job_id as the spec's cgroup
 * (noded's node_spec) asks, with limit_mib (0: none); leaves cg inactive
 * (one log line) when it cannot, or silently when the spec asks for none. */
void isolate_begin(struct cg_step *cg, const struct drv_rec_node_spec *ns, int64_t job_id,
		   const char *step, int64_t limit_mib);
/* Moves pid into cg; on failure logs, and the step runs unconstrained. */
void isolate_attach(struct cg_step *cg, pid_t pid, int64_t job_id);
/* The limits of a step whose job holds job_mib MiB (0: asked for none) on
 * this node, as c asks: AllowedRAMSpace, MaxRAMPercent, swap, cores, pids,
 * devices (lim borrows c's strings). */
void isolate_limits(const struct drv_rec_cgroup *c, int64_t job_mib,
		    struct cg_limits *lim);
/* The batch step's limit: mem_per_node, or mem_per_cpu x cpus_on_node; 0. */
int64_t isolate_batch_mib(const struct spec *s);

/* --- extern.c: PrologFlags=Contain's step_extern -------------------- */
/* Makes the job's step_extern (its limits as the batch step's) when the
 * spec asks, and DIR/extern for pam_drover_adopt; leaves cg inactive (one
 * log line) when it cannot, silently when not asked. */
void extern_begin(struct cg_step *cg, const char *dir, const struct spec *s);
/* The job's end: removes DIR/extern, kills what is in the step and removes
 * it. True when processes outlived SIGKILL (unkillable). */
bool extern_end(struct cg_step *cg, const char *dir, const struct spec *s);

/* --- procs.c: whom the shepherd's signals reach ---------------------- */
/* sig to every process of cg when it is active (its cgroup tracks them
 * whatever their session), else to process group pgid (> 0; 0: none). */
void procs_signal(const struct cg_step *cg, pid_t pgid, int sig);
/* Does cg (active) still hold a process? False without a cgroup. */
bool procs_left(const struct cg_step *cg);
/* After a SIGTERM: waits until cg is empty or until_ns (limit_now()'s
 * clock) has come, whichever is first; at once without a cgroup. */
void procs_linger(const struct cg_step *cg, int64_t until_ns);
/* The step's end: SIGKILL to group pgid (> 0) and to everything in cg (may
 * be NULL or inactive), then waits up to timeout_s (<= 0: Slurm's 60) for
 * cg to empty. True, with one log line naming who ("job=5"), when
 * processes are still there: unkillable. cg is borrowed. */
bool procs_end(const struct cg_step *cg, pid_t pgid, int64_t timeout_s, const char *who);
/* The spec's UnkillableStepTimeout (noded's node_spec), 0 when absent. */
#define PROCS_UNKILLABLE_S(ns)                                                           \
	((ns)->has_unkillable_timeout ? (ns)->unkillable_timeout : 0)

/* --- container.c: job_container/tmpfs ------------------------------- */
/* In a forked task, as root, before it becomes the user: enters job_id's
 * mount namespace on this node (made on first use, /tmp and the rest of
 * Dirs owned by uid:gid), where the spec's job_container (noded's) asks for
 * one; the task's cwd is then the namespace's root. 0 (also when the spec
 * asks for none), or -errno with the reason in err. */
int container_join(const struct drv_rec_node_spec *ns, int64_t job_id, uid_t uid,
		   gid_t gid, char *err, size_t len);

/* --- lines.c: Slurm's slurmstepd lines ------------------------------- */
/* "slurmstepd: error: *** ENTITY ON NODE CANCELLED AT now ***\n" (entity:
 * "JOB 5" or "STEP 5.0"; " DUE TO TIME LIMIT" for DRV_KILL_WHY_TIME_LIMIT,
 * " DUE TO JOB REQUEUE" for DRV_KILL_WHY_REQUEUE) into buf. The length, or
 * -ENAMETOOLONG. */
int lines_cancelled(char *buf, size_t len, const char *entity, const char *node, int why);
/* Slurm's "Detected N oom_kill event(s) in StepId=ID. Some of the step tasks
 * have been OOM Killed." line, as current Slurm words it (step_id: "5.batch",
 * "5.0"). The length, or -ENAMETOOLONG. */
int lines_oom(char *buf, size_t len, const char *step_id, int64_t kills);
/* Writes n bytes of line to fd (-1: nowhere), retrying EINTR; errors dropped. */
void lines_write(int fd, const char *line, int n);

/* --- limit.c ----------------------------------------------------------- */
/* The time limit of one job: SIGTERM to its processes at the deadline,
 * SIGKILL kill_wait seconds later; its processes are those of cg when it is
 * active (procs.c), else its process group. All times are CLOCK_MONOTONIC
 * nanoseconds. */
struct limit {
	int64_t term_at; /* 0: no limit */
	int64_t kill_at; /* 0: SIGTERM not sent yet */
	int64_t kill_wait_ns;
	bool timed_out;
	bool ended;	   /* SIGTERM sent (time limit or cancel) */
	int64_t warn_at;   /* 0: no --signal, or sent already */
	int64_t paused_at; /* scontrol suspend: when; 0 while not suspended */
	int warn_signal;
	bool warn_batch;
	int err_fd;	  /* the job's stderr for Slurm's lines; -1 none (borrowed) */
	const char *node; /* this node's name (borrowed) */
	const struct cg_step *cg; /* the job's cgroup (borrowed), NULL: none */
	struct sampler *sampler;  /* usage samples taken while waiting; NULL none */
};
int64_t limit_now(void); /* CLOCK_MONOTONIC in ns */
/* The deadline of s, counted from its start_time when known, else from
 * started (a limit_now() taken when the shepherd began). */
void limit_init(struct limit *l, const struct spec *s, int64_t started);
/* Waits until pid (the group leader, our child, SIGCHLD and
 * DRV_SHEPHERD_KILL_SIG blocked by the caller) has exited, enforcing the
 * limit on group pid meanwhile, and ending the job when noded asks
 * (DRV_SHEPHERD_KILL_SIG, its value a drv_kill_why): Slurm's line first,
 * then SIGCONT, SIGTERM, SIGKILL after KillWait. Leaves pid unreaped.
 * EINTR-safe. */
void limit_wait(struct limit *l, pid_t pid, int64_t job_id);

/* --- status.c ---------------------------------------------------------- */
int status_record(const char *dir, const struct spec *s, const struct job_result *res);
/* Tells noded (SPOOL/noded.sock, SPOOL = dir's parent); failure is fine. */
void status_notify(const char *dir, int64_t job_id);

/* --- step_env.c -------------------------------------------------------- */

/* A step's environment on this node, before the per-task variables (NULL
 * when out of memory; env_free it). */
char **step_env_node(json_t *spec, const char *node, const char *conf_path);
/* Task local's GPUs into *env: the step's on this node, or --gpus-per-task's
 * slice. 0 or -ENOMEM. */
int step_env_gpus(char ***env, json_t *spec, uint32_t local);

/* --- cpu_bind.c -------------------------------------------------------- */

/* The CPUs task `local` of a node gets under srun's --cpu-bind `bind`
 * (cpt: its -c), within allowed: 0 with *out, 1 when nothing binds (none,
 * or empty allowed), -EINVAL (unparsable), -EPERM or -ERANGE (a map or
 * mask outside allowed). *verbose: whether it asked for Slurm's line. */
int cpu_bind_mask(const cpu_set_t *allowed, const char *bind, uint32_t local,
		  uint32_t cpt, cpu_set_t *out, bool *verbose);
/* In a task's child before exec: binds the calling process as bind says,
 * within its current affinity, printing Slurm's verbose line on stderr.
 * 0, or -1 with why (the task must not run). */
int cpu_bind_apply(const char *bind, uint32_t cpt, const char *node, uint32_t task_id,
		   uint32_t local, char *why, size_t len);

#endif
