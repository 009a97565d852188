/* store.h — ctld's durable state in SQLite under StateSaveLocation.
 *
 * Writes travel in batches: the loop fills a batch during one turn and hands
 * it to store_commit(); a writer thread runs it as one transaction (WAL,
 * synchronous=FULL, so COMMIT returns after fsync) and then calls done_f back
 * on the loop thread. Reads (recovery, a job's script at launch) use a second
 * connection on the loop thread and never wait for a commit in flight. */
#ifndef CTLD_STORE_H
#define CTLD_STORE_H

#include <event2/event.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

struct store;
struct store_batch;

/* Opens (creating) DIR/drover.db and starts the writer thread. */
struct store *store_open(struct event_base *base, const char *dir, struct drv_error *err);
void store_close(struct store *s); /* waits for a commit in flight; accepts NULL */

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
/* Deletes up to max_jobs jobs (with their payloads) that ended before
 * ended_before: accounting history past its retention. */
void store_batch_put_purge(struct store_batch *b, int64_t ended_before,
			   uint32_t max_jobs);

typedef void (*store_done_f)(int rc, void *arg);
/* Hands b (consumed) to the writer; done(rc, arg) runs on the loop thread once
 * it is committed (rc 0) or failed (-errno). One batch at a time: returns
 * -EBUSY (b not consumed) while another is in flight. */
int store_commit(struct store *s, struct store_batch *b, store_done_f done, void *arg);

#endif
