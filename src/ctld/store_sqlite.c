/* store_sqlite.c — the SQLite engine's schema and its writer thread, which
 * applies one batch (one loop turn's typed writes) per transaction. It owns
 * the writer's connection; it knows nothing of job semantics: records
 * arrive as JSON text from the tables that own them, and only the history
 * filter (store_sqlite_where.c) looks inside them. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "ctld/store_sqlite.h"

const char *store_sqlite_schema_sql =
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
    "CREATE INDEX IF NOT EXISTS job_runs_end ON job_runs(end_time);"
    "CREATE TABLE IF NOT EXISTS nonces(nonce TEXT PRIMARY KEY, uid INTEGER NOT NULL,"
    " expires INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS nonces_expires ON nonces(expires);"
    "CREATE TABLE IF NOT EXISTS objects(kind INTEGER NOT NULL, name TEXT NOT NULL,"
    " rec TEXT NOT NULL, PRIMARY KEY(kind, name));";

/* --- the writer thread --------------------------------------------------- */

/* One statement per typed op, except a purge, which takes three (below).
 * Every statement binds the same numbered parameters, from struct store_op:
 * ?1 id, ?2 time, ?3 rec, ?4 name or script, ?5 env, ?6 argv, ?7 n. */
enum stmt {
	ST_JOB,
	ST_PAYLOAD,
	ST_RUN,
	ST_NODE,
	ST_NEXT_ID,
	ST_PURGE_PAYLOAD,
	ST_PURGE_RUNS,
	ST_PURGE_JOB,
	ST_NONCE,
	ST_NONCE_PRUNE,
	ST_OBJECT,
	ST_OBJECT_DEL,
	ST_COUNT,
};

static const char *stmt_sql[ST_COUNT] = {
    [ST_JOB] = "INSERT OR REPLACE INTO jobs(id,end_time,rec) VALUES(?1,?2,?3)",
    [ST_PAYLOAD] = "INSERT OR REPLACE INTO job_payload(id,script,env,argv) "
		   "VALUES(?1,?4,?5,?6)",
    [ST_RUN] = "INSERT OR REPLACE INTO job_runs(id,restart,end_time,rec)"
	       " VALUES(?1,?7,?2,?3)",
    [ST_NODE] = "INSERT OR REPLACE INTO nodes(name,rec) VALUES(?4,?3)",
    [ST_NEXT_ID] = "INSERT OR REPLACE INTO meta(key,value) VALUES('next_job_id',?7)",
    [ST_NONCE] = "INSERT OR REPLACE INTO nonces(nonce,uid,expires) VALUES(?4,?1,?2)",
    [ST_NONCE_PRUNE] = "DELETE FROM nonces WHERE expires <= ?2",
    [ST_OBJECT] = "INSERT OR REPLACE INTO objects(kind,name,rec) VALUES(?7,?4,?3)",
    [ST_OBJECT_DEL] = "DELETE FROM objects WHERE kind = ?7 AND name = ?4",
    /* ?7 is the most rows one purge deletes, so that it never holds the
     * writer long; the payloads and runs go first, while their jobs still
     * say which */
    [ST_PURGE_PAYLOAD] =
	"DELETE FROM job_payload WHERE id IN (SELECT id FROM jobs"
	" WHERE end_time > 0 AND end_time < ?2 ORDER BY end_time LIMIT ?7)",
    [ST_PURGE_RUNS] = "DELETE FROM job_runs WHERE id IN (SELECT id FROM jobs"
		      " WHERE end_time > 0 AND end_time < ?2 ORDER BY end_time LIMIT ?7)",
    [ST_PURGE_JOB] = "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs"
		     " WHERE end_time > 0 AND end_time < ?2 ORDER BY end_time LIMIT ?7)",
};

_Static_assert(ST_COUNT <=
		   sizeof(((struct store_sqlite *)0)->stmts) / sizeof(sqlite3_stmt *),
	       "store_sqlite.stmts holds every statement");

static int run_stmt(struct store_sqlite *s, enum stmt which, const struct store_op *op)
{
	sqlite3_stmt **slot = &s->stmts[which];
	if (!*slot &&
	    sqlite3_prepare_v3(s->wdb, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
			       slot, NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	sqlite3_stmt *st = *slot;
	/* a statement without a parameter ignores its binding (SQLITE_RANGE) */
	sqlite3_bind_int64(st, 1, op->id);
	sqlite3_bind_int64(st, 2, op->time);
	sqlite3_bind_text(st, 3, op->rec, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, op->name ? op->name : op->script, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, op->env, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, op->argv, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, op->n);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int run_op(struct store_sqlite *s, const struct store_op *op)
{
	static const enum stmt one[] = {
	    [STORE_OP_JOB] = ST_JOB,
	    [STORE_OP_PAYLOAD] = ST_PAYLOAD,
	    [STORE_OP_RUN] = ST_RUN,
	    [STORE_OP_NODE] = ST_NODE,
	    [STORE_OP_NEXT_ID] = ST_NEXT_ID,
	    [STORE_OP_NONCE] = ST_NONCE,
	    [STORE_OP_NONCE_PRUNE] = ST_NONCE_PRUNE,
	};
	if (op->kind == STORE_OP_OBJECT)
		return run_stmt(s, op->rec ? ST_OBJECT : ST_OBJECT_DEL, op);
	if (op->kind != STORE_OP_PURGE)
		return run_stmt(s, one[op->kind], op);
	int rc = run_stmt(s, ST_PURGE_PAYLOAD, op);
	if (rc == SQLITE_OK)
		rc = run_stmt(s, ST_PURGE_RUNS, op);
	if (rc == SQLITE_OK)
		rc = run_stmt(s, ST_PURGE_JOB, op);
	return rc;
}

static int run_batch(struct store_sqlite *s, const struct store_batch *b)
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

void *store_sqlite_writer_main(void *arg)
{
	struct store_sqlite *s = arg;
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
void store_sqlite_on_done(evutil_socket_t fd, short what, void *arg)
{
	struct store_sqlite *s = arg;
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

int store_sqlite_commit(struct store *st, struct store_batch *b, store_done_f done,
			void *arg)
{
	struct store_sqlite *s = store_sqlite_of(st);
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
