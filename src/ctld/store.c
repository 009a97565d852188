/* store.c — SQLite store: schema, recovery reads, and the writer thread that
 * commits one batch (one loop turn's changes) per transaction.
 * It owns the two SQLite connections; it knows nothing of job semantics:
 * records arrive as JSON text from the tables that own them. */
#include "ctld/store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "ctld/store_internal.h"

enum op_kind {
	OP_JOB,
	OP_PAYLOAD,
	OP_NODE,
	OP_NEXT_ID,
	OP_PURGE_PAYLOAD,
	OP_PURGE_RUNS,
	OP_PURGE_JOB,
	OP_RUN,
};

struct op {
	enum op_kind kind;
	int64_t id, num;
	char *s1, *s2, *s3;
};

struct store_batch {
	struct op *ops;
	size_t n, cap;
};

const char *store_schema_sql =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY,"
    " end_time INTEGER NOT NULL DEFAULT 0, rec TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS jobs_end ON jobs(end_time);"
    /* what sacct filters by most, besides ids and the time window */
    "CREATE INDEX IF NOT EXISTS jobs_uid ON jobs(json_extract(rec,'$.uid'), end_time);"
    "DROP INDEX IF EXISTS jobs_name;" /* matched exactly until names folded case */
    "CREATE INDEX IF NOT EXISTS jobs_name_nocase ON jobs("
    "json_extract(rec,'$.name') COLLATE NOCASE);"
    /* sacct -j ARRAY: every task of the array */
    "CREATE INDEX IF NOT EXISTS jobs_array ON jobs(json_extract(rec,'$.array_job_id'));"
    "CREATE TABLE IF NOT EXISTS job_payload(id INTEGER PRIMARY KEY,"
    " script TEXT NOT NULL, env TEXT NOT NULL, argv TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS nodes(name TEXT PRIMARY KEY, rec TEXT NOT NULL);"
    /* earlier runs of requeued jobs, each as the job record it ended with */
    "CREATE TABLE IF NOT EXISTS job_runs(id INTEGER NOT NULL, restart INTEGER NOT NULL,"
    " end_time INTEGER NOT NULL, rec TEXT NOT NULL, PRIMARY KEY(id, restart));"
    "CREATE INDEX IF NOT EXISTS job_runs_end ON job_runs(end_time);";

/* --- batches ------------------------------------------------------------ */

struct store_batch *store_batch_new(void)
{
	return calloc(1, sizeof(struct store_batch));
}

void store_batch_free(struct store_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->ops[i].s1);
		free(b->ops[i].s2);
		free(b->ops[i].s3);
	}
	free(b->ops);
	free(b);
}

bool store_batch_empty(const struct store_batch *b)
{
	return !b || b->n == 0;
}

static struct op *batch_add(struct store_batch *b, enum op_kind kind)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct op *ops = realloc(b->ops, cap * sizeof(*ops));
		if (!ops)
			abort(); /* out of memory in the daemon: nothing sane to do */
		b->ops = ops;
		b->cap = cap;
	}
	struct op *op = &b->ops[b->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	return op;
}

static char *dup_or_die(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		abort();
	return d;
}

void store_batch_put_job(struct store_batch *b, uint32_t id, int64_t end_time,
			 const char *rec_json)
{
	struct op *op = batch_add(b, OP_JOB);
	op->id = id;
	op->num = end_time;
	op->s1 = dup_or_die(rec_json);
}

void store_batch_put_payload(struct store_batch *b, uint32_t id, const char *script,
			     const char *env_json, const char *argv_json)
{
	struct op *op = batch_add(b, OP_PAYLOAD);
	op->id = id;
	op->s1 = dup_or_die(script);
	op->s2 = dup_or_die(env_json);
	op->s3 = dup_or_die(argv_json);
}

void store_batch_put_run(struct store_batch *b, uint32_t id, uint32_t restart,
			 int64_t end_time, const char *rec_json)
{
	struct op *op = batch_add(b, OP_RUN);
	op->id = id;
	op->num = end_time;
	op->s1 = dup_or_die(rec_json);
	if (asprintf(&op->s2, "%u", restart) < 0)
		abort();
}

void store_batch_put_node(struct store_batch *b, const char *name, const char *rec_json)
{
	struct op *op = batch_add(b, OP_NODE);
	op->s1 = dup_or_die(name);
	op->s2 = dup_or_die(rec_json);
}

void store_batch_put_next_id(struct store_batch *b, uint32_t next_job_id)
{
	struct op *op = batch_add(b, OP_NEXT_ID);
	op->num = next_job_id;
}

void store_batch_put_purge(struct store_batch *b, int64_t ended_before, uint32_t max_jobs)
{
	struct op *op = batch_add(b, OP_PURGE_PAYLOAD);
	op->id = max_jobs;
	op->num = ended_before;
	op = batch_add(b, OP_PURGE_RUNS);
	op->id = max_jobs;
	op->num = ended_before;
	op = batch_add(b, OP_PURGE_JOB);
	op->id = max_jobs;
	op->num = ended_before;
}

/* --- the writer thread --------------------------------------------------- */

static const char *op_sql[] = {
    [OP_JOB] = "INSERT OR REPLACE INTO jobs(id,end_time,rec) VALUES(?1,?2,?3)",
    [OP_PAYLOAD] = "INSERT OR REPLACE INTO job_payload(id,script,env,argv) "
		   "VALUES(?1,?4,?5,?6)",
    [OP_NODE] = "INSERT OR REPLACE INTO nodes(name,rec) VALUES(?4,?5)",
    [OP_NEXT_ID] = "INSERT OR REPLACE INTO meta(key,value) VALUES('next_job_id',?2)",
    /* ?1 is the most rows one purge deletes, so that it never holds the
     * writer long; the payloads go first, while their jobs still say which */
    [OP_PURGE_PAYLOAD] =
	"DELETE FROM job_payload WHERE id IN (SELECT id FROM jobs"
	" WHERE end_time > 0 AND end_time < ?2 ORDER BY end_time LIMIT ?1)",
    [OP_PURGE_RUNS] = "DELETE FROM job_runs WHERE id IN (SELECT id FROM jobs"
		      " WHERE end_time > 0 AND end_time < ?2 ORDER BY end_time LIMIT ?1)",
    [OP_RUN] = "INSERT OR REPLACE INTO job_runs(id,restart,end_time,rec)"
	       " VALUES(?1,?5,?2,?3)",
    [OP_PURGE_JOB] = "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs"
		     " WHERE end_time > 0 AND end_time < ?2 ORDER BY end_time LIMIT ?1)",
};

static int run_op(struct store *s, const struct op *op)
{
	sqlite3_stmt **slot = &s->stmts[op->kind];
	if (!*slot &&
	    sqlite3_prepare_v3(s->wdb, op_sql[op->kind], -1, SQLITE_PREPARE_PERSISTENT,
			       slot, NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	sqlite3_stmt *st = *slot;
	sqlite3_bind_int64(st, 1, op->id);
	sqlite3_bind_int64(st, 2, op->num);
	if (op->kind == OP_JOB)
		sqlite3_bind_text(st, 3, op->s1, -1, SQLITE_STATIC);
	else if (op->kind == OP_RUN) {
		sqlite3_bind_text(st, 3, op->s1, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, strtoll(op->s2, NULL, 10));
	} else if (op->kind == OP_PAYLOAD || op->kind == OP_NODE) {
		sqlite3_bind_text(st, 4, op->s1, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, op->s2, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, op->s3, -1, SQLITE_STATIC);
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int run_batch(struct store *s, const struct store_batch *b)
{
	sqlite3 *db = s->wdb;
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < b->n; i++)
		rc = run_op(s, &b->ops[i]);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		log_error("store: commit failed: %s", sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -EIO;
	}
	return 0;
}

void *store_writer_main(void *arg)
{
	struct store *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->todo && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->todo)
			break;
		struct store_batch *b = s->todo;
		pthread_mutex_unlock(&s->mu);
		int rc = run_batch(s, b);
		store_batch_free(b);
		pthread_mutex_lock(&s->mu);
		s->todo = NULL;
		s->result = rc;
		char byte = 1;
		if (write(s->pipe_wr, &byte, 1) != 1)
			log_error("store: cannot wake the loop");
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Runs on the loop thread when the writer finished a batch. */
void store_on_done(evutil_socket_t fd, short what, void *arg)
{
	struct store *s = arg;
	char buf[16];
	if (read(fd, buf, sizeof(buf)) <= 0)
		return;
	pthread_mutex_lock(&s->mu);
	int rc = s->result;
	store_done_f done = s->done;
	void *done_arg = s->done_arg;
	s->busy = false;
	pthread_mutex_unlock(&s->mu);
	if (done)
		done(rc, done_arg);
}

int store_commit(struct store *s, struct store_batch *b, store_done_f done, void *arg)
{
	pthread_mutex_lock(&s->mu);
	if (s->busy) {
		pthread_mutex_unlock(&s->mu);
		return -EBUSY;
	}
	s->busy = true;
	s->todo = b;
	s->done = done;
	s->done_arg = arg;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}
