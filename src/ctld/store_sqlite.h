/* store_sqlite.h — the SQLite engine's own handle and the calls its files
 * share: store_sqlite.c (schema, the writer thread), store_sqlite_open.c
 * (open, close, recovery reads, the engine table), store_sqlite_read.c (the
 * history reader thread) and store_sqlite_where.c (a filter as SQL). Only
 * those files include it. */
#ifndef CTLD_STORE_SQLITE_H
#define CTLD_STORE_SQLITE_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>

#include "ctld/store_engine.h"

struct store_sqlite {
	struct store base; /* first: store.c finds the engine table through it */
	sqlite3 *wdb;	   /* the writer thread's connection */
	sqlite3 *rdb;	   /* the loop thread's connection, reads only */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct store_batch *todo; /* handed to the writer */
	bool busy, stop;
	int result;
	store_done_f done;
	void *done_arg;
	int pipe_rd, pipe_wr; /* the writer wakes the loop through this pipe */
	struct event *done_ev;
	sqlite3_stmt *stmts[16];     /* the writer's statements, prepared once */
	struct store_reader *reader; /* history queries (store_sqlite_read.c) */
};

/* The handle behind s, which this engine opened. */
static inline struct store_sqlite *store_sqlite_of(struct store *s)
{
	return (struct store_sqlite *)s;
}

extern const char *store_sqlite_schema_sql;
void *store_sqlite_writer_main(void *arg);
void store_sqlite_on_done(evutil_socket_t fd, short what, void *arg);
int store_sqlite_commit(struct store *s, struct store_batch *b, store_done_f done,
			void *arg);

/* The history reader (store_sqlite_read.c), for open and close. */
int store_sqlite_reader_start(struct store_sqlite *s, const char *path,
			      struct event_base *base);
void store_sqlite_reader_stop(struct store_sqlite *s);
int store_sqlite_query_history(struct store *s, enum store_history from,
			       const struct store_job_filter *f, store_map_f map,
			       void *map_arg, store_rows_f done, void *arg);

/* The statement that answers f over `from` (store_sqlite_where.c): selects
 * id and rec in the history's order. Its texts are bound from f without a
 * copy, so f must outlive *out (the caller finalizes it). 0, -EINVAL
 * (SQLite refused it; logged) or -ENOMEM. */
int store_sqlite_where_prepare(sqlite3 *db, enum store_history from,
			       const struct store_job_filter *f, sqlite3_stmt **out);

#endif
