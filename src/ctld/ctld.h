/* ctld.h — the controller's context, owned by the event loop.
 * One struct holds everything; modules receive it, none keeps a global. */
#ifndef CTLD_CTLD_H
#define CTLD_CTLD_H

#include <event2/event.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/keyring.h"
#include "common/net.h"
#include "ctld/anomaly.h"
#include "ctld/job.h"
#include "ctld/node.h"
#include "ctld/part.h"
#include "ctld/stats.h"
#include "ctld/store.h"
#include "sched/sched.h"

/* Event priorities: I/O first, then the scheduler, then the commit of
 * everything the turn changed. */
enum { PRIO_IO = 0, PRIO_SCHED = 1, PRIO_FLUSH = 2, PRIO_COUNT = 3 };

/* A connection: a client for one request, or a noded for its lifetime. */
struct peer {
	uint64_t id;
	struct drv_conn *conn;
	struct ctld *ctld;
	struct node *node; /* set once a noded registered on it */
	bool daemon;	   /* has sent a valid MACed frame: a noded */
	bool authed;	   /* has sent one authenticated request (or a MACed frame) */
	uid_t uid;	   /* a client's: its first credential's uid */
	struct event *auth_timer; /* closes it unless it authenticates in time */
	struct peer *next;
};

struct deferred;
struct bcast_wait;
struct stat_wait;
struct pending_launch;
struct hook;
struct sched_plans;
struct sched_policy_cache;
struct snap;
struct job_submit_lua;
struct timer_heap;
struct acct_db;
struct prio;
struct rate_limit;

struct ctld {
	struct event_base *base;
	struct drv_conf *conf;
	struct drv_keyring keys; /* the cluster key, and a rotated-out one */
	struct event *key_watch; /* looks for a rotated key file each second */
	struct drv_nonce_cache *nonces;
	struct store *store;
	struct job_table jobs;
	struct node_table nodes;
	struct part *parts; /* part.c: ctld's own, changed live */
	size_t n_parts;
	uint32_t parts_gen; /* bumped when a deletion renumbers them */
	struct peer *peers; /* newest first */
	size_t n_peers;
	uint64_t next_peer_id;
	int64_t next_msg_id;
	uid_t owner_uid; /* local mode: the only user who may submit */
	gid_t owner_gid;
	bool multi_user; /* SlurmdUser is root: every local user may submit */
	uid_t slurm_uid; /* SlurmUser's (perm.c: as privileged as root) */
	char host[256];
	int64_t start_time;
	struct evconnlistener *listener;
	struct event *sched_ev, *flush_ev;
	struct timer_heap *timers; /* timed.c: every time-driven duty */
	/* group commit (commit.c) */
	struct job *dirty_jobs;
	bool meta_dirty;
	struct store_batch *extra; /* payloads queued this turn */
	struct deferred *effects, **effects_tail;
	bool commit_in_flight;
	struct deferred *inflight_effects;
	struct pending_launch *pending_launches; /* node_link.c */
	/* schedule.c: a quick pass over every pending job after anything that
	 * frees resources; after a submit, only the new jobs are tried. A
	 * backfill pass every bf_interval while bf_dirty, whose plans the
	 * quick passes honour. */
	bool sched_full;
	uint32_t *sched_new;
	size_t n_sched_new, cap_sched_new;
	struct event *bf_ev;
	bool bf_dirty;
	struct sched_plans *plans;
	struct sched_resume bf_resume; /* bf_continue: where the last pass stopped */
	/* sched_policy.c: the policy's tables as the scheduler reads them,
	 * built again when acct_gen (bumped by every change) moved */
	struct sched_policy_cache *policy;
	uint64_t acct_gen;
	bool stopping;
	/* the policy's tables: accounts, users, associations, QOS (acct.h) */
	struct acct_db *acct;
	/* hook.c: PrologSlurmctld / EpilogSlurmctld children */
	struct hook *hooks;
	struct event *sigchld_ev;
	/* JobSubmitPlugins=lua (job_submit_lua.c); NULL without it */
	struct job_submit_lua *job_submit;
	/* PriorityType=priority/multifactor (prio.h); NULL with basic */
	struct prio *prio;
	/* rpc_bcast.c: sbcast blocks waiting for their nodes' answers */
	struct bcast_wait *bcasts;
	/* rpc_sstat.c: sstat's questions waiting for their nodes' samples */
	struct stat_wait *stats_waits;
	/* stats.c: sdiag's counters */
	struct ctld_stats stats;
	/* rate_limit.c: SlurmctldParameters=rl_enable's buckets per uid */
	struct rate_limit *rl;
	/* anomaly.c: refusals per job, and the freezes so far */
	struct anomaly_state anomaly;
};

/* --- commit.c: group commit and effects released after it ------------- */
void commit_init(struct ctld *c);
void commit_job(struct ctld *c, struct job *j);
void commit_node(struct ctld *c, struct node *n);
void commit_meta(struct ctld *c);
/* Keeps j's run as it is now, ended now in state (REQUEUED, NODE_FAIL), as
 * a row of its history (sacct -D), in this turn's transaction. */
void commit_run(struct ctld *c, const struct job *j, const char *state, int64_t now);
/* A state-changing request's credential nonce, stored until it expires;
 * the removal of those expired by now. */
void commit_nonce(struct ctld *c, const char *nonce, uid_t uid, int64_t expires);
void commit_nonce_prune(struct ctld *c, int64_t now);
/* Object kind/name (store.h) as rec_json (copied), or its deletion (NULL),
 * in this turn's transaction. */
void commit_object(struct ctld *c, enum store_obj_kind kind, const char *name,
		   const char *rec_json);
void commit_payload(struct ctld *c, uint32_t id, const char *script, const char *env_json,
		    const char *argv_json);
typedef void (*effect_f)(struct ctld *c, void *arg);
/* Runs fn(c, arg) once everything changed so far is durable. fn owns arg. */
void commit_defer(struct ctld *c, effect_f fn, void *arg);
/* Deletes up to max_jobs jobs that ended before ended_before from the store. */
void commit_purge(struct ctld *c, int64_t ended_before, uint32_t max_jobs);
void commit_drain(struct ctld *c); /* at shutdown: waits for the last commit */
/* sdiag: effects (launches, signals, replies) waiting for a commit, and
 * job records changed but not yet handed to a commit. */
size_t commit_queued_effects(const struct ctld *c);
size_t commit_dirty_jobs(const struct ctld *c);

/* --- identity.c: who a job runs as (from the credential, never the body) - */
char *identity_user_name(uid_t uid); /* the name, or the number; caller frees */
/* The user's groups with gid first, *n of them ([gid] when unknown); caller
 * frees. */
uint32_t *identity_groups(const char *user, gid_t gid, size_t *n);

/* --- peer.c: connections ------------------------------------------------- */
void peer_accept(int fd, const char *addr, void *arg);
struct peer *peer_find(struct ctld *c, uint64_t id);
int peer_send(struct ctld *c, struct peer *p, json_t *env); /* env borrowed */
/* p has just sent a request that authenticated (a client's credential for
 * uid, or a daemon's MAC): stops its authentication deadline and applies the
 * idle timeout. -EDQUOT when uid already holds MaxConnectionsPerUser other
 * client connections (the caller refuses and hangs up). */
int peer_authenticated(struct ctld *c, struct peer *p, bool daemon, uid_t uid);
void peer_free_all(struct ctld *c); /* at shutdown, no close callbacks */
int64_t ctld_next_msg_id(struct ctld *c);

/* --- rpc.c: requests ----------------------------------------------------- */
struct rpc_req {
	struct ctld *c;
	uint64_t peer_id;
	int64_t id;
	const char *type;
	json_t *body; /* borrowed for the handler's duration */
	/* body decoded into its declared struct (common/proto_gen.h): cast it
	 * to the struct of type, e.g. const struct drv_job_cancel *; valid
	 * for the handler's duration, defaults filled in */
	const void *msg;
	struct drv_cred_info cred;
	bool daemon; /* MACed frame from a noded */
};
void rpc_dispatch(struct ctld *c, struct peer *p, json_t *env, bool mac_ok);
/* Replies now (reads) or once the turn's changes are durable (writes).
 * body is stolen (may be NULL). */
void rpc_reply(const struct rpc_req *r, int rc, const char *error, json_t *body);
void rpc_reply_durable(const struct rpc_req *r, int rc, const char *error, json_t *body);
/* perm.c, the one place who-may-act is decided (perm.h has the roles):
 * an administrator (root, SlurmUser, AdminLevel=Administrator: Slurm's
 * super user); an operator (also AdminLevel=Operator); whether the caller
 * may act on j (cancel, signal, requeue, update, attach): its owner, an
 * operator or a coordinator of its account. */
bool rpc_is_admin(const struct rpc_req *r);
bool rpc_is_operator(const struct rpc_req *r);
bool rpc_may_act_on(const struct rpc_req *r, const struct job *j);
/* Whether the caller may run or write something as j's user (a step, an
 * attach to one, sbcast, the end of its allocation): only its owner, root
 * and SlurmUser (a daemon), never an operator or a coordinator. */
bool rpc_may_run_as(const struct rpc_req *r, const struct job *j);
/* A success reply to a client whose body is JSON text (from a drv_jw). */
void rpc_reply_text(const struct rpc_req *r, const char *body, size_t len);

/* --- depend.c: dependencies of pending jobs ------------------------------ */
enum depend_verdict { DEPEND_MET, DEPEND_WAIT, DEPEND_NEVER };
/* Drops the entries of j's list that are met, marks those that never can
 * be; commits j when the list changed. */
enum depend_verdict depend_check(struct ctld *c, struct job *j, int64_t now);
/* Whether j is cancelled once its dependency can never be met:
 * --kill-on-invalid-dep, else SchedulerParameters=kill_invalid_depend. */
bool depend_kill_invalid(const struct ctld *c, const struct job *j);
/* Whether l, given to job self, would close a cycle through the jobs its
 * entries wait for (Slurm's "Circular job dependency"). */
bool depend_circular(const struct ctld *c, uint32_t self, const struct dep_list *l);
/* j (or a task of the array j belongs to) started: when a pending job's
 * after: entry waits for that, a scheduler pass is asked for. */
void depend_started(struct ctld *c, struct job *j);

/* --- timed.c: time-driven duties on the timer heap (timer.h) ------------- */
/* The heap, before recovery; the housekeeping timers (PurgeJobAfter,
 * nonces, the log's rate limits) and every node's SlurmdTimeout. */
int timed_init(struct ctld *c, struct drv_error *err);
void timed_fini(struct ctld *c);
/* Arms or cancels j's timers as its record now says: its BeginTime and
 * --deadline while pending, an srun/salloc allocation's time limit while
 * running, its ended steps' give-up, its MinJobAge purge once final.
 * commit_job calls it on every change; recovery once per job. */
void timed_job(struct ctld *c, const struct job *j);
void timed_job_gone(struct ctld *c, uint32_t id); /* j left memory */
/* n's SlurmdTimeout from its last_seen (while it is not DOWN). Pings move
 * last_seen only; the timer looks at it when it fires. */
void timed_node(struct ctld *c, const struct node *n);
/* For the scheduler glue: a pass at epoch second when (a planned start, a
 * partition coming back, an after:+min entry). The earliest asked wins;
 * it fires into sched_request(). */
void timed_sched_wake(struct ctld *c, int64_t when);
/* priority/multifactor's next period at epoch second when (prio.c): it
 * fires into prio_period(). */
void timed_prio(struct ctld *c, int64_t when);

/* --- schedule.c ------------------------------------------------------------ */
void sched_request(struct ctld *c); /* a quick pass at the end of this turn */
void sched_request_new(struct ctld *c, const struct job *j); /* try j alone */
void sched_fini(struct ctld *c);
void sched_init(struct ctld *c);
int ctld_part_index(const struct ctld *c, const char *name); /* -1 if unknown */

/* --- sched_snap.c, sched_eligible.c: what the scheduler is asked -------- */
/* The scheduler's view of the nodes (an array of c->nodes.n entries). */
void ctld_sched_nodes(const struct ctld *c, struct sched_node *out);
/* Resolves -w/-x names of q to node indices (once; sets q->sched's lists).
 * 0, DRV_RC_INVALID_NODE_NAME for a name no node has or one in both lists,
 * DRV_RC_ERROR on ENOMEM. */
int ctld_resolve_nodes(const struct ctld *c, struct job_req *q);
/* Adds to s the pending jobs ctld's own rules let start (all, or only the
 * turn's new ones), giving the others their reasons. 0. */
int sched_collect(struct ctld *c, struct snap *s, bool only_new, int64_t now);

/* --- job_state.c: every job transition ----------------------------------- */
void job_accept(struct ctld *c, struct job *j, int64_t now);
uint64_t job_submit_priority(const struct job *j); /* a new job's priority */
/* Starts j on what the scheduler gave it: n allocations (CPU sets copied),
 * to run for time_limit seconds (its own, or less down to its --time-min). */
void job_start(struct ctld *c, struct job *j, const struct sched_alloc *a, uint32_t n,
	       int64_t time_limit, int64_t now);
void job_hold_nodes(struct ctld *c, struct job *j); /* at start and at recovery */
/* As job_end, for a batch step the kernel OOM-killed in: OUT_OF_MEMORY with
 * ExitCode 0:125 (DRV_SIG_OOM), as Slurm records it, unless it timed out. */
void job_end_oom(struct ctld *c, struct job *j, int exit_code, int sig, bool timed_out,
		 int64_t now);
void job_end(struct ctld *c, struct job *j, int exit_code, int sig, bool timed_out,
	     int64_t now);
int job_cancel(struct ctld *c, struct job *j, uid_t by, int64_t now);
/* j ran past its time limit: TIMEOUT, completing while its node ends it. */
void job_time_limit(struct ctld *c, struct job *j, int64_t now);
/* A step of j reached its final state: a completing srun/salloc allocation
 * (cancelled, timed out) whose steps all ended is done now. */
void job_steps_ended(struct ctld *c, struct job *j);
int job_signal(struct ctld *c, struct job *j, int sig, bool batch_only);
void job_node_fail(struct ctld *c, struct job *j, int64_t now);
/* scontrol requeue[hold]: 0, DRV_RC_DISABLED (--no-requeue) or
 * DRV_RC_JOB_PENDING. A running job is killed, a finished one comes back. */
int job_requeue(struct ctld *c, struct job *j, bool hold, int64_t now);
/* Its Prolog failed on the batch host: requeued held (Slurm's default, as
 * without nohold_on_prolog_fail), or FAILED when it may not be requeued. */
void job_prolog_failed(struct ctld *c, struct job *j, int64_t now);
/* Its PrologSlurmctld (run for restart) ended: launch, or requeue (cancel
 * when it may not be requeued) as Slurm does. */
void job_prolog_slurmctld_done(struct ctld *c, struct job *j, uint32_t restart, bool ok);
/* The restart count the nodes know the job's current run by. */
uint32_t job_run_restart(const struct job *j);
extern const char job_reason_requeue_held[]; /* "job requeued in held state" */
int job_set_hold(struct ctld *c, struct job *j, enum job_hold hold);
void job_set_reason(struct job *j, const char *reason);
/* A pending job whose deadline can no longer be met ends DEADLINE. */
void job_deadline(struct ctld *c, struct job *j, int64_t now);
/* A pending job whose dependency can never be met, cancelled
 * (kill_invalid_depend); it keeps reason DependencyNeverSatisfied. */
void job_cancel_invalid_dep(struct ctld *c, struct job *j, int64_t now);
void job_launch(struct ctld *c, struct job *j); /* (re)send the launch after commit */
/* j's MinJobAge is over (its timer): out of memory, freed: 0; -EAGAIN when
 * it must stay a little (its last change is being committed, its steps'
 * nodes may still report); -EBUSY when it is not finished or not that old. */
int job_purge(struct ctld *c, struct job *j, int64_t now);

/* --- job_suspend.c: scontrol suspend / resume ---------------------------- */
/* Suspends (resume false) or resumes j: 0, or Slurm's refusal
 * (DRV_RC_JOB_PENDING, _ALREADY_DONE, _JOB_NOT_RUNNING, _JOB_NOT_SUSPENDED)
 * with j unchanged. Suspending a suspended job is 0 and changes nothing.
 * Commits j; its nodes get job.freeze after the commit. */
int job_suspend(struct ctld *c, struct job *j, bool resume, int64_t now);
/* The epoch second j's time limit is due (INT64_MAX: UNLIMITED), the time
 * it was suspended not counted; for a suspended job, as if resumed now. */
int64_t job_limit_end(const struct job *j, int64_t now);
/* j ends (cancel, requeue, node failure) while it may be suspended: it is
 * no longer, its suspended time is counted, and *end (when non-NULL) gets
 * Slurm's end for it, the time it was suspended. No-op when not suspended. */
void job_suspend_end(struct job *j, int64_t now, int64_t *end);

/* --- job_array.c: job arrays --------------------------------------------- */
/* Parses spec (sbatch --array) into j's pending set; 0, -EINVAL (Slurm's
 * "Invalid job array specification") or -ENOMEM, j unchanged on failure.
 * The caller sets array_job_id once the id is known. */
int job_array_init(struct job *j, const char *spec, uint32_t max_size);
void job_array_refresh(struct job *j); /* array_task_str/id from the set */
/* Tasks of meta's array now running (or still completing). */
uint32_t job_array_running(const struct ctld *c, const struct job *meta);
/* How many of meta's pending tasks may start now under its %N throttle. */
uint32_t job_array_room(const struct ctld *c, const struct job *meta);
/* The record the scheduler starts for meta's lowest pending task: a new one
 * (new id, in the table, committed) or, for the last task, meta itself.
 * NULL when no job id is free (ctld_job_id_new): the task stays pending. */
struct job *job_array_split(struct ctld *c, struct job *meta);
/* Is j the task of array array_id whose index is in set? */
bool job_array_has_task(const struct job *j, uint32_t array_id,
			const struct drv_array *set);
/* Moves the indices of set still pending in meta (*taken: how many) into
 * a record of their own, new id, for the caller to cancel, so that they
 * stay in accounting (Slurm 22.05 drops them); meta itself when they are
 * all of its pending tasks. NULL when none is pending, or when no job id is
 * free: then they are only taken out of meta. */
struct job *job_array_split_set(struct ctld *c, struct job *meta,
				const struct drv_array *set, uint32_t *taken);
/* The state of array array_id as a whole, from the records ctld holds
 * (finished tasks older than MinJobAge are only in the store): for
 * dependencies on arrays. found is false when no such array is held. */
struct job_array_summary {
	bool found;
	uint32_t pending, running, completed, failed; /* failed: any other end */
};
void job_array_summary(const struct ctld *c, uint32_t array_id,
		       struct job_array_summary *out);
/* The array's fields of the store record; returns the text r borrows for
 * array_pending (the caller frees it), NULL when none. */
char *job_array_to_store(const struct job *j, struct drv_rec_job *r);
int job_array_from_store(struct job *j, const struct drv_rec_job *r); /* 0 or -EINVAL */

/* --- node_state.c: every node transition ---------------------------------- */
struct drv_node_register;
int node_register(struct ctld *c, struct node *n, struct peer *p,
		  const struct drv_node_register *m, int64_t now);
void node_lost_conn(struct ctld *c, struct node *n);
/* DRAIN with a reason set by Drover itself ("Prolog error", ...). */
#define NODE_REASON_KILL_FAILED "Kill task failed" /* Slurm's, UnkillableStepTimeout */
void node_drain(struct ctld *c, struct node *n, const char *reason, int64_t now);
/* n's HealthCheckProgram failed with reason: DRAIN, unless n is drained
 * already (its reason stays). */
void node_health_failed(struct ctld *c, struct node *n, const char *reason, int64_t now);
/* n's SlurmdTimeout timer fired: DOWN ("Not responding") unless heard
 * from since, when the timer moves to SlurmdTimeout after that. */
void node_check_timeout(struct ctld *c, struct node *n, int64_t now);
int node_admin_update(struct ctld *c, struct node *n, const char *state,
		      const char *reason, uid_t uid, int64_t now);
void node_release_job(struct ctld *c, struct job *j);

/* --- hook.c: PrologSlurmctld and EpilogSlurmctld ------------------------ */
void hook_init(struct ctld *c); /* the SIGCHLD handler that reaps them */
void hook_fini(struct ctld *c); /* kills those still running */
/* Starts the job's PrologSlurmctld (epilog false) or EpilogSlurmctld; 0 or
 * -errno. The prolog's end comes back as job_prolog_slurmctld_done. */
int hook_start(struct ctld *c, const struct job *j, bool epilog);
/* Starts the PrologSlurmctld of every recovered job still waiting for one. */
void job_resume_prologs(struct ctld *c);

/* --- rpc_submit.c: new jobs ---------------------------------------------- */
/* A new job's id (job_id.h's round over FirstJobId..MaxJobId-1), one that
 * has no record in memory or in the store's history, so that no id is
 * issued twice while anything can still report on it. Advances the next
 * id; the caller commits it (commit_meta) with the job. -ENOSPC when every
 * id is in use, -EIO when the store cannot be read; nothing changes then. */
int ctld_job_id_new(struct ctld *c, uint32_t *id);

/* --- rpc_assoc.c: the policy's tables ------------------------------------ */
/* Loads them from the store and makes the defaults (root, ClusterName,
 * normal), committed with the first turn; after commit_init. 0 or -errno
 * with err. */
int acct_start(struct ctld *c, struct drv_error *err);
void acct_stop(struct ctld *c); /* frees them */

/* --- acct_enforce.c: AccountingStorageEnforce at submit ---------------- */
/* Fills j's account (the user's DefaultAccount) and QOS (DefaultQOS, else
 * normal) when not given, and refuses it as Slurm does: 0, or
 * DRV_RC_INVALID_ACCOUNT, DRV_RC_INVALID_QOS, DRV_RC_ACCOUNTING_POLICY
 * (a submit limit, or DenyOnLimit: why, len bytes, gets Slurm's reason,
 * "AssocMaxSubmitJobLimit"), DRV_RC_ERROR (memory). Needs j's user,
 * partition, request and time limit; without time_given (no -t) a MaxWall
 * becomes the job's time limit, as in Slurm. */
int acct_submit_check(struct ctld *c, struct job *j, bool time_given, char *why,
		      size_t len);

/* --- recover.c ------------------------------------------------------------ */
int ctld_recover(struct ctld *c, struct drv_error *err);

/* --- records.c: names for the wire ------------------------------------ */
char *ctld_alloc_hostlist(const struct ctld *c, const uint32_t *idx, uint32_t n);

#endif
