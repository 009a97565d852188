/* store_internal.h — shared between store.c (writes) and store_open.c. */
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

#endif
