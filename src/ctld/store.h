/* store.h — ctld's durable state: what its callers may ask of the store,
 * whichever engine keeps it. SQLite under StateSaveLocation is the embedded
 * default; another engine (PostgreSQL) implements store_engine.h and slots
 * in behind these same calls. Nothing here is any engine's query language:
 * writes are typed operations, history reads a typed filter, and records are
 * JSON text that the tables owning them write and read (docs/store.md).
 *
 * Writes travel in batches: the loop fills a batch during one turn and hands
 * it to store_commit(); the engine applies it as one transaction, durable
 * when done_f runs back on the loop thread (group commit, DESIGN.md
 * principle 2). Recovery and a job's payload are read synchronously on the
 * loop; history queries are answered off it and never wait for a commit in
 * flight. */
#ifndef CTLD_STORE_H
#define CTLD_STORE_H

#include <event2/event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct store;
struct store_batch;

/* Opens the default engine, SQLite, on (creating) DIR/drover.db. NULL with
 * err set when it cannot. */
struct store *store_open(struct event_base *base, const char *dir, struct drv_error *err);
/* Ends every history query not answered yet with -ECANCELED and lets a
 * commit in flight finish (its done_f does not run); accepts NULL. */
void store_close(struct store *s);

/* --- recovery: synchronous, at start ---------------------------------- */
typedef void (*store_row_f)(const char *key, const char *rec_json, void *arg);
/* Calls on_job(id-as-text, rec) for every job whose end is 0 or at/after
 * min_end (in the order the ids were issued: from the stored next id up,
 * then round from the lowest), on_node(name, rec) for every node row, and sets
 * *next_job_id (1 when the store is new). 0 or -errno with err. */
int store_load(struct store *s, int64_t min_end, store_row_f on_job, store_row_f on_node,
	       void *arg, uint32_t *next_job_id, struct drv_error *err);

/* Sets *id to the smallest id in lo..hi that has no row in the jobs table
 * (the history sacct reads: a job stays there until PurgeJobAfter), or to
 * 0 when every one has. A read on the loop's connection: it sees what is
 * committed, so a job accepted this turn is the caller's to know. 0 or
 * -EIO. */
int store_first_unused_id(struct store *s, uint32_t lo, uint32_t hi, uint32_t *id);

/* What a job needs only at launch. Strings are new (caller frees); 0 or -ENOENT. */
int store_job_payload(struct store *s, uint32_t id, char **script, char **env_json,
		      char **argv_json);

/* --- history queries: asynchronous, in order ---------------------------
 *
 * Callers describe what they want with a typed filter and never write the
 * engine's query language, so that another engine can answer the same
 * filter (docs/store.md gives the rules each field follows). Every list
 * below has three states: not given (no constraint), given with values (the
 * job must match one of them), and given empty (nothing matches, as an
 * empty list in a request selects nothing). */
struct store_ids {
	bool given;
	size_t n;
	const uint32_t *v;
};

struct store_strs {
	bool given;
	size_t n;
	const char *const *v;
};

/* The fields are those of the job record (docs/protocol.md); all that are
 * given must hold. */
struct store_job_filter {
	struct store_ids job_ids; /* the id, or array_job_id (an array's tasks) */
	struct store_ids uids;
	/* name, account and partition compare in any ASCII case, as Slurm's
	 * database does; a job without an account matches "", one without a
	 * name or partition matches no name or partition */
	struct store_strs names, accounts, partitions;
	struct store_strs states; /* Slurm's upper-case names, exactly */
	/* Jobs eligible by end that had not ended before start: eligible_time
	 * in [1, end] and end_time >= start. Off when window is false. */
	bool window;
	int64_t start, end;
};

/* Which history: the jobs' current records, or the earlier runs of
 * requeued jobs (each as the record it ended with; sacct -D). */
enum store_history {
	STORE_HISTORY_JOBS,
	STORE_HISTORY_RUNS,
};

/* Runs off the loop thread for each matching record: a new malloc'd text
 * to keep, or NULL to leave the row out. */
typedef char *(*store_map_f)(int64_t id, const char *rec_json, void *map_arg);

struct store_rows {
	size_t n;
	int64_t *ids;
	char **texts;
};

/* On the loop thread once the query ran; rows belongs to the callee (take
 * what it keeps, the rest is freed after). rc 0, or -errno with rows empty
 * (-ECANCELED when the store closed first). */
typedef void (*store_rows_f)(int rc, struct store_rows *rows, void *arg);
void store_rows_free(struct store_rows *rows); /* accepts NULL */

/* Queues a query for the ended jobs (end time set: ctld holds every other
 * job in memory) of `from` that match f, in id order (runs: id, then
 * restart). f is copied; map_arg must stay valid until done runs. Queries
 * are answered one after another, in the order queued. 0, and done runs
 * exactly once; or -ENOMEM, and it never runs. */
int store_query_history(struct store *s, enum store_history from,
			const struct store_job_filter *f, store_map_f map, void *map_arg,
			store_rows_f done, void *arg);

/* --- objects: the policy's tables ------------------------------------------
 *
 * Accounts, users, associations, QOS, partitions made live, usage: each a
 * record (JSON text, declared in store.schema) under a kind and a name that
 * is unique within the kind. The numbers are stored: never renumber one. */
enum store_obj_kind {
	STORE_OBJ_CLUSTER = 1,
	STORE_OBJ_ACCOUNT = 2,
	STORE_OBJ_USER = 3,
	STORE_OBJ_ASSOC = 4,
	STORE_OBJ_QOS = 5,
	STORE_OBJ_PARTITION = 6,
	STORE_OBJ_USAGE = 7,
	STORE_OBJ_LICENSE = 8,
	STORE_OBJ_RESERVATION = 9,
	STORE_OBJ_TIMER = 10,
};

/* Calls on_object for every stored object, ordered by kind, then name, on
 * the loop thread before it returns. 0 or -errno with err. */
typedef void (*store_object_f)(enum store_obj_kind kind, const char *name,
			       const char *rec_json, void *arg);
int store_load_objects(struct store *s, store_object_f on_object, void *arg,
		       struct drv_error *err);

/* --- writes ------------------------------------------------------------ */
struct store_batch *store_batch_new(void);
void store_batch_free(struct store_batch *b); /* accepts NULL */
bool store_batch_empty(const struct store_batch *b);
/* Each put copies its strings. */
void store_batch_put_job(struct store_batch *b, uint32_t id, int64_t end_time,
			 const char *rec_json);
void store_batch_put_payload(struct store_batch *b, uint32_t id, const char *script,
			     const char *env_json, const char *argv_json);
/* One earlier run of a job (restart), ended at end_time: sacct -D's rows. */
void store_batch_put_run(struct store_batch *b, uint32_t id, uint32_t restart,
			 int64_t end_time, const char *rec_json);
void store_batch_put_node(struct store_batch *b, const char *name, const char *rec_json);
void store_batch_put_next_id(struct store_batch *b, uint32_t next_job_id);
/* Writes object kind/name (replacing it), or deletes it when rec_json is
 * NULL. */
void store_batch_put_object(struct store_batch *b, enum store_obj_kind kind,
			    const char *name, const char *rec_json);
/* Deletes up to max_jobs jobs, the earliest ended first, that ended before
 * ended_before, with their payloads and earlier runs: accounting history
 * past its retention. */
void store_batch_put_purge(struct store_batch *b, int64_t ended_before,
			   uint32_t max_jobs);
/* The nonce of a state-changing request's credential, kept until it
 * expires, so that a replay is refused also after a restart; and the
 * removal of those that expire by `before`. */
void store_batch_put_nonce(struct store_batch *b, const char *nonce, uint32_t uid,
			   int64_t expires);
void store_batch_put_nonce_prune(struct store_batch *b, int64_t before);

/* Calls on_nonce for every stored nonce that has not expired by now, on the
 * loop thread, before it returns. 0 or -EIO. */
typedef void (*store_nonce_f)(const char *nonce, uint32_t uid, int64_t expires,
			      void *arg);
int store_load_nonces(struct store *s, int64_t now, store_nonce_f on_nonce, void *arg);

typedef void (*store_done_f)(int rc, void *arg);
/* Hands b (consumed) to the engine, which applies all of it or none of it;
 * done(rc, arg) runs on the loop thread once it is durable (rc 0) or failed
 * (-errno, nothing applied). One batch at a time: returns -EBUSY (b not
 * consumed) while another is in flight. */
int store_commit(struct store *s, struct store_batch *b, store_done_f done, void *arg);

#endif
