/* store_read.h — history queries over the jobs table, run on a reader
 * thread with its own SQLite connection, so that a long scan never holds up
 * the loop or the writer (WAL: readers and the writer do not block each
 * other). The store knows no job semantics: the caller gives the WHERE
 * clause, its values, and a function that turns each row into the text it
 * wants (run on the reader thread too). */
#ifndef CTLD_STORE_READ_H
#define CTLD_STORE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ctld/store.h"

struct store_query;

/* Rows of "SELECT id, rec FROM jobs WHERE <where> ORDER BY id"; where
 * (copied) uses ? for the values, bound in the same order. */
struct store_query *store_query_new(void);
void store_query_where(struct store_query *q, const char *where);
/* Reads the earlier runs of requeued jobs (job_runs: the same id, end_time
 * and rec columns) instead of the jobs, ordered by id and restart. */
void store_query_runs(struct store_query *q);
void store_query_bind_int(struct store_query *q, int64_t v);
void store_query_bind_text(struct store_query *q, const char *v); /* copied */

/* Runs on the reader thread for each row: a new malloc'd text to keep, or
 * NULL to leave the row out. */
typedef char *(*store_map_f)(int64_t id, const char *rec, void *map_arg);

struct store_rows {
	size_t n;
	int64_t *ids;
	char **texts;
};

/* On the loop thread once the query ran; rows belongs to the callee (free
 * with store_rows_free). rc 0 or -errno (then rows is empty). */
typedef void (*store_rows_f)(int rc, struct store_rows *rows, void *arg);
void store_rows_free(struct store_rows *rows); /* accepts NULL */

/* Queues q (consumed). Queries run one after another, in order. map_arg
 * must stay valid until done runs. */
void store_query_submit(struct store *s, struct store_query *q, store_map_f map,
			void *map_arg, store_rows_f done, void *arg);

/* For store_open/store_close. */
int store_reader_start(struct store *s, const char *path, struct event_base *base);
void store_reader_stop(struct store *s);

#endif
