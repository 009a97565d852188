/* store_sqlite_open.c — the SQLite engine's table: opening the store under
 * StateSaveLocation, recovery reads on the loop's own connection, and
 * closing. The write path lives in store_sqlite.c, history queries in
 * store_sqlite_read.c. */
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
#include "ctld/store_sqlite.h"

static int open_db(const char *path, sqlite3 **db, struct drv_error *err)
{
	if (sqlite3_open_v2(path, db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		drv_error_set(err, EIO, "cannot open store %s: %s", path,
			      *db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		*db = NULL;
		return -EIO;
	}
	sqlite3_busy_timeout(*db, 10000);
	return 0;
}

static int init_schema(struct store_sqlite *s, const char *path, struct drv_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(s->wdb, store_sqlite_schema_sql, NULL, NULL, &msg) !=
		SQLITE_OK ||
	    sqlite3_exec(s->wdb, "PRAGMA synchronous=FULL", NULL, NULL, &msg) !=
		SQLITE_OK) {
		drv_error_set(err, EIO, "store %s: %s", path,
			      msg ? msg : "schema failed");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

static int start_thread(struct store_sqlite *s, struct event_base *base,
			struct drv_error *err)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return drv_error_set(err, errno, "store: pipe: %s", strerror(errno));
	s->pipe_rd = fds[0];
	s->pipe_wr = fds[1];
	s->done_ev =
	    event_new(base, s->pipe_rd, EV_READ | EV_PERSIST, store_sqlite_on_done, s);
	if (!s->done_ev || event_add(s->done_ev, NULL) < 0)
		return drv_error_set(err, ENOMEM, "store: cannot watch the writer");
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, store_sqlite_writer_main, s) != 0)
		return drv_error_set(err, EAGAIN,
				     "store: cannot start the writer thread");
	s->thread_started = true;
	return 0;
}

static void sqlite_close(struct store *st);

static struct store *sqlite_open(struct event_base *base, const char *dir,
				 struct drv_error *err)
{
	struct store_sqlite *s = calloc(1, sizeof(*s));
	char path[4096];
	if (!s)
		return NULL;
	s->base.engine = &store_sqlite_engine;
	s->pipe_rd = s->pipe_wr = -1;
	if (drv_mkdir_p(dir, 0700) < 0) {
		drv_error_set(err, errno, "cannot create StateSaveLocation %s: %s", dir,
			      strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/drover.db", dir);
	if (open_db(path, &s->wdb, err) < 0 || init_schema(s, path, err) < 0 ||
	    open_db(path, &s->rdb, err) < 0 || start_thread(s, base, err) < 0)
		goto fail;
	if (store_sqlite_reader_start(s, path, base) < 0) {
		drv_error_set(err, EIO, "store %s: cannot start the history reader",
			      path);
		goto fail;
	}
	return &s->base;
fail:
	sqlite_close(&s->base);
	return NULL;
}

static void sqlite_close(struct store *st)
{
	struct store_sqlite *s = store_sqlite_of(st);
	store_sqlite_reader_stop(s);
	if (s->thread_started) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
	}
	for (size_t i = 0; i < sizeof(s->stmts) / sizeof(s->stmts[0]); i++)
		sqlite3_finalize(s->stmts[i]);
	if (s->done_ev)
		event_free(s->done_ev);
	if (s->pipe_rd >= 0)
		close(s->pipe_rd);
	if (s->pipe_wr >= 0)
		close(s->pipe_wr);
	sqlite3_close(s->rdb);
	sqlite3_close(s->wdb);
	free(s);
}

static int load_rows(sqlite3 *db, const char *sql, int64_t arg, int64_t arg2,
		     store_row_f fn, void *fn_arg)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, arg);
	sqlite3_bind_int64(st, 2, arg2);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(st, 0),
		   (const char *)sqlite3_column_text(st, 1), fn_arg);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static int sqlite_load(struct store *store, int64_t min_end, store_row_f on_job,
		       store_row_f on_node, void *arg, uint32_t *next_job_id,
		       struct drv_error *err)
{
	struct store_sqlite *s = store_sqlite_of(store);
	sqlite3_stmt *st;
	uint32_t next = 1;
	if (sqlite3_prepare_v2(s->rdb, "SELECT value FROM meta WHERE key='next_job_id'",
			       -1, &st, NULL) != SQLITE_OK)
		return drv_error_set(err, EIO, "store: %s", sqlite3_errmsg(s->rdb));
	if (sqlite3_step(st) == SQLITE_ROW)
		next = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	/* In the order the ids were issued: ids run round from FirstJobId to
	 * MaxJobId and an id in use is skipped, never reissued, so the jobs
	 * still held were issued in id order starting just at next_job_id
	 * and going round (the table's order, which arrays rely on). */
	if (load_rows(s->rdb,
		      "SELECT CAST(id AS TEXT), rec FROM jobs WHERE end_time = 0 "
		      "OR end_time >= ?1 ORDER BY (id - ?2 + 4294967296) % 4294967296",
		      min_end, next, on_job, arg) < 0 ||
	    load_rows(s->rdb, "SELECT name, rec FROM nodes", 0, 0, on_node, arg) < 0)
		return drv_error_set(err, EIO, "store: %s", sqlite3_errmsg(s->rdb));
	*next_job_id = next;
	return 0;
}

static int sqlite_load_nonces(struct store *store, int64_t now, store_nonce_f on_nonce,
			      void *arg)
{
	struct store_sqlite *s = store_sqlite_of(store);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
		s->rdb, "SELECT nonce, uid, expires FROM nonces WHERE expires > ?1", -1,
		&st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, now);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		on_nonce((const char *)sqlite3_column_text(st, 0),
			 (uint32_t)sqlite3_column_int64(st, 1),
			 sqlite3_column_int64(st, 2), arg);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static int sqlite_load_objects(struct store *store, store_object_f on_object, void *arg,
			       struct drv_error *err)
{
	struct store_sqlite *s = store_sqlite_of(store);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->rdb,
			       "SELECT kind, name, rec FROM objects ORDER BY kind, name",
			       -1, &st, NULL) != SQLITE_OK)
		return drv_error_set(err, EIO, "store: %s", sqlite3_errmsg(s->rdb));
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		on_object((enum store_obj_kind)sqlite3_column_int(st, 0),
			  (const char *)sqlite3_column_text(st, 1),
			  (const char *)sqlite3_column_text(st, 2), arg);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return drv_error_set(err, EIO, "store: %s", sqlite3_errmsg(s->rdb));
	return 0;
}

static int sqlite_first_unused_id(struct store *store, uint32_t lo, uint32_t hi,
				  uint32_t *id)
{
	struct store_sqlite *s = store_sqlite_of(store);
	/* lo itself, or the first row below hi whose successor has no row: the
	 * scan walks the primary key from lo and stops at the first gap */
	static const char sql[] =
	    "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM jobs WHERE id = ?1) THEN ?1 "
	    "ELSE (SELECT j.id + 1 FROM jobs j WHERE j.id >= ?1 AND j.id < ?2 AND "
	    "NOT EXISTS (SELECT 1 FROM jobs k WHERE k.id = j.id + 1) "
	    "ORDER BY j.id LIMIT 1) END";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->rdb, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_type(st, 0) == SQLITE_NULL
			  ? 0
			  : (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

static int sqlite_job_payload(struct store *store, uint32_t id, char **script,
			      char **env_json, char **argv_json)
{
	struct store_sqlite *s = store_sqlite_of(store);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->rdb,
			       "SELECT script, env, argv FROM job_payload WHERE id=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	int rc = -ENOENT;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*script = column_dup(st, 0);
		*env_json = column_dup(st, 1);
		*argv_json = column_dup(st, 2);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

const struct store_engine store_sqlite_engine = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .load = sqlite_load,
    .job_payload = sqlite_job_payload,
    .first_unused_id = sqlite_first_unused_id,
    .load_nonces = sqlite_load_nonces,
    .load_objects = sqlite_load_objects,
    .commit = store_sqlite_commit,
    .query_history = store_sqlite_query_history,
};
