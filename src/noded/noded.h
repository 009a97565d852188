/* noded.h — the state drover-noded's files share, and what each file offers.
 *
 * One libevent loop owns everything here; there are no threads. The spool
 * directory is the truth about jobs (a job dir per job, its lock held by the
 * live shepherd, its status file once it ended); the job table below is only
 * a cache of it that the spool scan rebuilds after a restart. */
#ifndef DRV_NODED_H
#define DRV_NODED_H

#include <event2/event.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/cgroup.h"
#include "common/conf.h"
#include "common/fileio.h"
#include "common/job_container_conf.h"
#include "common/keyring.h"
#include "common/proto_gen.h"

struct drv_conn;
struct evconnlistener;

enum noded_job_phase {
	JOB_RUNNING, /* the shepherd is alive (or starting) */
	JOB_DONE,    /* ended; job.complete is owed to ctld until it acks */
};

/* anomaly.c: what noded saw of a running job's memory (the last
 * AnomalyMemSamples samples) and whether it froze it. */
#define ANOMALY_SAMPLES 16
struct anomaly_track {
	int64_t kib[ANOMALY_SAMPLES], at[ANOMALY_SAMPLES]; /* at: mtime, ns */
	unsigned n;
	int64_t last_at;	       /* the newest sample's mtime (ns) taken */
	bool limit_known, has_limit;   /* a hard memory limit (spec.json) */
	bool frozen, reported, exempt; /* exempt: an operator resumed it */
	char why[160];
};

struct noded_job {
	int64_t job_id;
	int64_t restart;
	enum noded_job_phase phase;
	pid_t shepherd_pid; /* our unreaped child, 0 when none (e.g. after restart) */
	int64_t seen_at;    /* monotonic s when first seen, for the start-up grace */
	int exit_code;	    /* JOB_DONE: what job.complete reports */
	int sig;
	bool launch_failed;
	bool timeout;		    /* the shepherd ended it at its time limit */
	bool oom;		    /* the kernel OOM-killed its batch step */
	bool unkillable;	    /* processes outlived SIGKILL: drain the node */
	bool lost;		    /* its shepherd died without a word */
	char *message;		    /* owned; NULL when none */
	struct drv_rec_usage usage; /* the status file's, when has_usage */
	bool has_usage;
	bool has_dir;		  /* a job dir exists in the spool */
	int64_t complete_id;	  /* request id of the job.complete in flight, 0 none */
	int64_t complete_at;	  /* monotonic s when it was last sent */
	struct event *kill_timer; /* SIGKILL after KillWait; owned */
	bool pending_kill;	  /* a signal that came before the job's group */
	int pending_kill_wait;
	int pending_kill_why; /* enum drv_kill_why of that kill */
	int pending_sig;
	bool pending_batch_only;
	/* script.c: the Prolog or Epilog running for this job */
	pid_t script_pid;	    /* 0: none */
	struct event *script_timer; /* PrologEpilogTimeout; owned */
	bool script_epilog, script_timed_out;
	bool prolog_failed;		 /* no shepherd: the node is to be drained */
	bool epilog_done, epilog_failed; /* job.complete waits for the Epilog */
	struct anomaly_track anomaly;
	struct noded_job *next;
};

struct noded {
	/* set up by main.c, read-only afterwards */
	struct drv_conf *conf;
	const struct drv_node_conf *node; /* borrowed from conf */
	const char *name;
	char *conf_path; /* absolute */
	char *spool_dir;
	char *shepherd_path;	 /* drover-shepherd beside our own binary */
	struct drv_keyring keys; /* the cluster key, and a rotated-out one */
	struct event *key_watch; /* looks for a rotated key file each second */
	struct event_base *base;

	/* cgroup.c: jobs get cgroups (decided at start-up); the host CPUs
	 * this noded may use, in order: the node's CPU i is host CPU
	 * host_cpus[i % n_host_cpus] in a job's cpuset */
	bool cgroup_ok;
	struct cg_layout cgroup_layout;
	uint32_t *host_cpus, n_host_cpus;

	/* container.c: job_container/tmpfs (JobContainerType) */
	bool jc_wanted;	       /* JobContainerType=job_container/tmpfs */
	struct drv_jc_conf jc; /* job_container.conf, as it is for this node */
	char *jc_base;	       /* its BasePath, real; NULL: jobs share /tmp */

	/* resources.c */
	int cpus;
	uint64_t real_memory;
	int64_t boot_time;
	int64_t start_time; /* when this noded started (SlurmdStartTime) */

	/* link.c */
	struct drv_conn *conn;
	bool registered;
	int64_t register_id;
	int64_t ping_id; /* the node.ping awaiting its reply, 0 none */
	int backoff_ms;
	int64_t next_id;
	struct event *reconnect_ev;
	struct event *ping_ev;
	struct event *register_timeout_ev;

	/* jobs.c / spool.c */
	struct noded_job *jobs;
	struct noded_step *steps; /* steps.c */
	struct event *scan_ev;

	/* health.c: HealthCheckProgram, and the node's state as ctld last told
	 * it (node.register's and node.ping's replies) */
	char node_state[16]; /* "IDLE", "MIXED", ...; "" until told */
	bool node_drain;
	bool health_first_done; /* the run after the first registration */
	pid_t health_pid;	/* the running program's, 0 when none */
	int health_fd;		/* its output, -1 when none */
	bool health_timed_out;	/* killed at HealthCheckTimeout */
	bool health_line_done;	/* its first line is complete */
	char health_line[200];	/* that line, printable */
	size_t health_len;
	struct event *health_tick, *health_kill, *health_out; /* owned */

	/* anomaly.c: looks at the running jobs' samples each second */
	struct event *anomaly_tick;

	/* notify.c, launch.c, main.c */
	int notify_fd;
	char *notify_path;
	struct event *notify_ev;
	struct event *sigchld_ev;
	struct evconnlistener *listener;
};

/* --- cgroup.c ------------------------------------------------------- */
/* Decides cgroup_ok from the config and the host, with one log line. */
void noded_cgroup_init(struct noded *nd);
/* What noded_cgroup_spec's object points into. */
struct cgroup_spec_buf {
	char scope[300];
	char cpus[4096];
	const char *devs[64]; /* borrowed from files */
	char **files;	      /* GpuDeviceFiles expanded */
	size_t n_files;
};
/* Fills the cgroup shepherds are to make for the job.launch or step.launch
 * body (its CPU ids and GPUs), pointing into buf (the caller frees it with
 * noded_cgroup_spec_free); false when jobs run without cgroups. */
bool noded_cgroup_spec(const struct noded *nd, json_t *body, struct drv_rec_cgroup *cg,
		       struct cgroup_spec_buf *buf);
void noded_cgroup_spec_free(struct cgroup_spec_buf *buf);
/* The node's cgroup scope (the directory under each controller) into
 * scope[len]; false when jobs run without cgroups. */
bool noded_cgroup_scope(const struct noded *nd, char *scope, size_t len);
/* The host CPU ids ("0-1") of the node's cpu_ids, mapped as host_cpus
 * says, into out[len]. 0, or -EINVAL (malformed or beyond the node's CPUs),
 * -ENAMETOOLONG. */
int noded_cgroup_map_cpus(const struct noded *nd, const char *cpu_ids, char *out,
			  size_t len);
/* After the first spool scan: forgets the cgroups of jobs the node no longer
 * holds (their shepherds were killed while noded was down). */
void noded_cgroup_sweep(struct noded *nd);
/* The job is over here: removes what its shepherds could not (killed). */
void noded_cgroup_forget(const struct noded *nd, int64_t job_id);
/* Freezes (or thaws) the job's cgroup here (cgroup_freeze.h): 0, -ENOTSUP
 * when the node has no cgroups or no freezer, -ENOENT when the job has no
 * cgroup here, or the write's -errno. */
int noded_cgroup_freeze(const struct noded *nd, int64_t job_id, bool freeze);

/* --- container.c: job_container/tmpfs ---------------------------------- */
/* With JobContainerType=job_container/tmpfs: reads job_container.conf (beside
 * the config) for this node. 0, or -errno with "file:line: what" in err. */
int noded_container_load(struct noded *nd, struct drv_error *err);
/* At start-up, as the daemon it will be: readies BasePath (AutoBasePath),
 * or says once in the log why jobs run without their own /tmp. 0, or
 * -errno with err when noded must not start. */
int noded_container_init(struct noded *nd, struct drv_error *err);
/* Fills the job_container a shepherd's spec carries (borrowing from nd);
 * false when jobs share the node's /tmp. */
bool noded_container_spec(const struct noded *nd, struct drv_rec_job_container *jc);
/* The job is over on this node: removes BASE/JOB and all in it. */
void noded_container_forget(const struct noded *nd, int64_t job_id);
/* After the first spool scan: removes what jobs no longer held left. */
void noded_container_sweep(struct noded *nd);
void noded_container_fini(struct noded *nd);

/* --- resources.c ------------------------------------------------------- */
/* Fills cpus, real_memory and boot_time (configured or discovered). */
void resources_init(struct noded *nd);
/* Fills name, cpus, real_memory, gres, features, port, version, boot_time
 * (strings borrowed from nd). */
void resources_describe(const struct noded *nd, struct drv_node_register *m);

/* --- jobs.c: the in-memory job table ------------------------------------ */
struct noded_job *jobs_find(struct noded *nd, int64_t job_id);
/* Adds a RUNNING job (the table owns it). Returns NULL on ENOMEM. */
struct noded_job *jobs_add(struct noded *nd, int64_t job_id, int64_t restart);
void jobs_remove(struct noded *nd, struct noded_job *job);
void jobs_free_all(struct noded *nd);
/* Marks job ended with exit_code/sig; message is copied (may be NULL). */
void jobs_set_done(struct noded_job *job, int exit_code, int sig, bool launch_failed,
		   const char *message);
/* The job_ref of every job the node still holds: *refs (caller frees) and
 * *n. 0 or -ENOMEM. */
int jobs_list(const struct noded *nd, struct drv_rec_job_ref **refs, size_t *n);
int64_t jobs_now(void); /* monotonic seconds */

/* --- spool.c: job dirs ------------------------------------------------- */
/* "SPOOL/job.<id>" into buf. 0 or -ENAMETOOLONG. */
int spool_job_dir(const struct noded *nd, int64_t job_id, char *buf, size_t size);
/* Is the shepherd's flock on dir/lock held? */
bool spool_lock_held(const char *dir);
/* Reads dir/file's JSON object and decodes it as s into out, which borrows
 * from *json (decref it after drv_shape_free). 0, -ENOENT, -EBADMSG etc. */
int spool_read_shape(const char *dir, const char *file, const struct drv_shape *s,
		     void *out, json_t **json);
/* Writes dir/status (atomically). 0 or -errno. */
int spool_write_status(const char *dir, const struct drv_rec_spool_status *st);
int spool_read_pgid(const char *dir, pid_t *pgid);
/* dir/file's pid ("shepherd.pid", "pgid"): 0, or -errno / -EBADMSG. */
int spool_read_pid(const char *dir, const char *file, pid_t *pid);
int spool_remove_dir(const char *dir);
/* Brings the job table in step with the spool; queues completions for ended
 * jobs. Called at start and every second. */
void spool_scan(struct noded *nd);
int spool_start(struct noded *nd); /* first scan and the periodic timer */
void spool_stop(struct noded *nd);

/* --- notify.c: shepherds tell us a job ended ---------------------------- */
int notify_start(struct noded *nd);
void notify_stop(struct noded *nd);

/* --- launch.c ---------------------------------------------------------- */
/* Handles job.launch (m decoded from body, which goes into the spec);
 * returns the rc for the reply and fills err. */
int launch_job(struct noded *nd, const struct drv_job_launch *m, json_t *body,
	       struct drv_error *err);
int launch_start(struct noded *nd); /* SIGCHLD reaping */
/* DIR/spec.json: body with what only this node knows (its name, config
 * path, cgroup; with task_scripts its TaskProlog/TaskEpilog). 0 or -errno. */
int launch_write_spec(struct noded *nd, json_t *body, const char *dir, bool task_scripts);
/* Forks and execs drover-shepherd FLAG DIR (--job-dir or --step-dir);
 * *pid gets its pid. 0 once exec succeeded. */
int launch_shepherd(struct noded *nd, const char *flag, const char *dir, pid_t *pid,
		    struct drv_error *err);
void launch_stop(struct noded *nd);

/* The Prolog ended (ok: exit 0 in time): start the shepherd, or record the
 * failure. The Epilog ended: the job's end may be reported now. */
void launch_prolog_done(struct noded *nd, struct noded_job *job, bool ok,
			const char *why);
void launch_epilog_done(struct noded *nd, struct noded_job *job, bool ok);
/* For an ended job: true while its Epilog has still to run (started here)
 * or runs, so its end must not be reported yet. */
bool launch_epilog_pending(struct noded *nd, struct noded_job *job);

/* --- script.c: Prolog and Epilog --------------------------------------- */
/* Slurm's environment for a Prolog/Epilog of the job launched with m;
 * done: the ended job, for the Epilog's exit codes.
 * A new array of "NAME=value" strings. */
json_t *script_env(const struct noded *nd, const struct drv_job_launch *m,
		   const char *context, const struct noded_job *done);
/* Forks path with env (borrowed) for job, watched until reaped. 0 or -errno. */
int script_start(struct noded *nd, struct noded_job *job, const char *path, json_t *env,
		 bool epilog);
/* From the SIGCHLD handler: true when pid was a job's script (then handled). */
bool script_reaped(struct noded *nd, pid_t pid, int status);
void script_cancel_timer(struct noded_job *job);

/* --- health.c: HealthCheckProgram ------------------------------------- */
int health_start(struct noded *nd); /* its timers; 0 or -ENOMEM */
void health_stop(struct noded *nd); /* kills a running check */
/* ctld told the node's base state (borrowed; NULL: not told) and whether it
 * is drained; registered: from node.register's reply (the first one runs
 * the first check). */
void health_node_state(struct noded *nd, const char *state, bool drain, bool registered);
/* From the SIGCHLD handler: true when pid was the check (then handled: a
 * failure asks ctld to drain the node). */
bool health_reaped(struct noded *nd, pid_t pid, int status);
void health_reconfigured(struct noded *nd); /* the interval may have changed */

/* --- signal.c ---------------------------------------------------------- */
int signal_job(struct noded *nd, const struct drv_job_signal *m, struct drv_error *err);
void signal_cancel_timer(struct noded_job *job);
/* Delivers signals that arrived while a job's shepherd was starting. */
void signal_retry_pending(struct noded *nd);
/* sig to every process of job_id's step ("batch", "0", ...) as its cgroup
 * tracks them; to process group pgid (> 0) when the step has no cgroup
 * (local mode, not root; or its shepherd could not make one). 0, or
 * -errno of the kill() of the group. */
int signal_step_procs(const struct noded *nd, int64_t job_id, const char *step,
		      pid_t pgid, int sig);

/* --- suspend.c: scontrol suspend / resume ------------------------------ */
/* job.freeze: freezes or thaws the job here (its cgroup, else SIGSTOP or
 * SIGCONT to its groups) and tells its batch shepherd. 0, or
 * DRV_RC_INVALID_JOB_ID (with err) when the node holds nothing of it. */
int suspend_job(struct noded *nd, const struct drv_job_freeze *m, struct drv_error *err);
/* Before a kill: thaws the job (cgroup, else SIGCONT to its groups). */
void suspend_thaw_for_kill(struct noded *nd, int64_t job_id);

/* --- anomaly.c: AnomalyMemRate, AnomalyMemFraction ---------------------- */
int anomaly_start(struct noded *nd); /* its timer; 0 or -ENOMEM */
void anomaly_stop(struct noded *nd);
/* The job was resumed here (scontrol resume); cleared: from an anomaly
 * freeze (on any of its nodes), and the policy leaves it alone from now on. */
void anomaly_thawed(struct noded *nd, int64_t job_id, bool cleared);

/* --- steps.c: srun's steps on this node --------------------------------- */
/* step.launch: a step dir with the spec, and its shepherd. rc for the reply. */
int steps_launch(struct noded *nd, const struct drv_step_launch *m, json_t *body,
		 struct drv_error *err);
/* step.signal: sig to the step's tasks, or (kill) its shepherd ends them. */
int steps_signal(struct noded *nd, const struct drv_step_signal *m,
		 struct drv_error *err);
/* job.signal with kill: every step of the job here ends too, for why (a
 * drv_kill_why: their shepherds print Slurm's lines). */
void steps_kill_job(struct noded *nd, int64_t job_id, int why);
/* sig straight to the group of each running step of job_id here; returns
 * how many groups it reached. */
int steps_signal_job(struct noded *nd, int64_t job_id, int sig);
/* The ids of job_id's steps still running here, at most max of them into
 * ids; how many. */
size_t steps_running_of_job(const struct noded *nd, int64_t job_id, int64_t *ids,
			    size_t max);
/* Does the node hold a step of job_id (running or not yet reported)? */
bool steps_of_job(const struct noded *nd, int64_t job_id);
/* From the SIGCHLD handler: true when pid was a step's shepherd. */
bool steps_reaped(struct noded *nd, pid_t pid);
/* Finds ended steps (also those of an earlier noded) and reports them;
 * resends unanswered reports. From the spool scan. */
void steps_scan(struct noded *nd);
/* A reply from ctld: true when it answered a step.complete. */
bool steps_reply(struct noded *nd, int64_t id, int rc);
void steps_link_lost(struct noded *nd);
void steps_free_all(struct noded *nd);

/* --- bcast.c ------------------------------------------------------------ */
/* bcast.write (sbcast): one block of a file, as the job's user. 0, or the
 * errno that failed it (the reply's rc), with its text in err. */
int bcast_write(struct noded *nd, const struct drv_bcast_write *m, struct drv_error *err);

/* --- sample.c ----------------------------------------------------------- */
/* step.sample (sstat): *reply (new, the reply's body) holds the latest
 * sample of each of m's steps still running here. 0, or ENOMEM (the
 * reply's rc) with err. */
int sample_steps(struct noded *nd, const struct drv_step_sample *m, json_t **reply,
		 struct drv_error *err);

/* --- usermsg.c --------------------------------------------------------- */
/* job.notify: "slurmstepd: error: MSG" appended to the batch job's stderr
 * (as its user). 0, or a Slurm rc with the reason in err. */
int usermsg_deliver(struct noded *nd, const struct drv_job_notify *m,
		    struct drv_error *err);

/* --- link.c: the connection to ctld ------------------------------------ */
/* Sends a request (body stolen); *id gets its id. 0 or -errno. */
int link_send_request(struct noded *nd, const char *type, json_t *body, int64_t *id);

/* reconfig.c: node.reconfigure. Reads nd->conf_path again and takes the
 * keys that may change live: 0, or DRV_RC_ERROR with err (logged) and the
 * config unchanged. */
int noded_reconfigure(struct noded *nd, struct drv_error *err);
int link_start(struct noded *nd);
void link_stop(struct noded *nd);
/* Sends job.complete for every ended job that ctld has not acknowledged:
 * at once for a new end, again every 2 s while unanswered. No-op while not
 * registered (registration sends them all). */
void link_send_completions(struct noded *nd);

#endif
