/* store_internal.h — shared between store.c (writes), store_open.c and
 * store_read.c (history queries). */
#ifndef CTLD_STORE_INTERNAL_H
#define CTLD_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>

#include "ctld/store.h"

struct store {
	sqlite3 *wdb; /* the writer thread's connection */
	sqlite3 *rdb; /* the loop thread's connection, reads only */
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
	sqlite3_stmt *stmts[8];	     /* the writer's statements, prepared once */
	struct store_reader *reader; /* history queries (store_read.c) */
};

extern const char *store_schema_sql;
void *store_writer_main(void *arg);
void store_on_done(evutil_socket_t fd, short what, void *arg);

/* The history reader (store_read.c), for store_open/store_close. */
int store_reader_start(struct store *s, const char *path, struct event_base *base);
void store_reader_stop(struct store *s);

/* A deep copy of f in one allocation (free with store_filter_free), or NULL
 * with errno set. */
struct store_job_filter *store_filter_dup(const struct store_job_filter *f);
void store_filter_free(struct store_job_filter *f); /* accepts NULL */

/* The statement that answers f over `from` (store_where.c): selects id and
 * rec in the history's order. Its texts are bound from f without a copy, so
 * f must outlive *out (the caller finalizes it). 0, -EINVAL (SQLite refused
 * it; logged) or -ENOMEM. */
int store_where_prepare(sqlite3 *db, enum store_history from,
			const struct store_job_filter *f, sqlite3_stmt **out);

#endif
