/* store_sqlite_read.c — the SQLite engine's reader thread: history queries in order, each
 * on its own SQLite connection (WAL: readers and the writer do not block each other) and
 * each result handed back to the loop through a pipe. The statement comes from
 * store_sqlite_where.c; this file only runs it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "ctld/store_sqlite.h"

struct store_query {
	enum store_history from;
	struct store_job_filter *filter; /* owned: a copy of the caller's */
	store_map_f map;
	void *map_arg;
	store_rows_f done;
	void *done_arg;
	int rc;
	struct store_rows rows;
	struct store_query *next;
};

struct store_reader {
	sqlite3 *db;
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct store_query *todo, *todo_tail; /* queued for the thread */
	struct store_query *ready;	      /* answered, for the loop */
	int pipe_rd, pipe_wr;
	struct event *ev;
};

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q)
		abort(); /* out of memory in the daemon: nothing sane to do */
	return q;
}

static void query_free(struct store_query *q)
{
	store_filter_free(q->filter);
	store_rows_free(&q->rows);
	free(q);
}

/* --- the thread ------------------------------------------------------------ */

static void keep_row(struct store_rows *rows, int64_t id, char *text)
{
	if ((rows->n & (rows->n - 1)) == 0) { /* grow at powers of two */
		size_t cap = rows->n ? rows->n * 2 : 1;
		rows->ids = xrealloc(rows->ids, cap * sizeof(*rows->ids));
		rows->texts = xrealloc(rows->texts, cap * sizeof(*rows->texts));
	}
	rows->ids[rows->n] = id;
	rows->texts[rows->n++] = text;
}

static int run_query(sqlite3 *db, struct store_query *q)
{
	sqlite3_stmt *st;
	int rc = store_sqlite_where_prepare(db, q->from, q->filter, &st);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *rec = (const char *)sqlite3_column_text(st, 1);
		char *text = q->map(id, rec ? rec : "", q->map_arg);
		if (text)
			keep_row(&q->rows, id, text);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		log_error("store: history query: %s", sqlite3_errmsg(db));
		store_rows_free(&q->rows);
		return -EIO;
	}
	return 0;
}

static void *reader_main(void *arg)
{
	struct store_reader *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->todo && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop)
			break;
		struct store_query *q = r->todo;
		r->todo = q->next;
		if (!r->todo)
			r->todo_tail = NULL;
		pthread_mutex_unlock(&r->mu);
		q->rc = run_query(r->db, q);
		pthread_mutex_lock(&r->mu);
		q->next = r->ready;
		r->ready = q;
		char byte = 1;
		if (write(r->pipe_wr, &byte, 1) != 1 && errno != EAGAIN)
			log_error("store: cannot wake the loop");
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* On the loop: answers every query the thread finished, oldest first. */
static void on_ready(evutil_socket_t fd, short what, void *arg)
{
	struct store_reader *r = arg;
	char buf[64];
	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&r->mu);
	struct store_query *list = r->ready, *in_order = NULL;
	r->ready = NULL;
	pthread_mutex_unlock(&r->mu);
	while (list) { /* the thread pushed newest first */
		struct store_query *next = list->next;
		list->next = in_order;
		in_order = list;
		list = next;
	}
	while (in_order) {
		struct store_query *q = in_order;
		in_order = q->next;
		struct store_rows rows = q->rows;
		memset(&q->rows, 0, sizeof(q->rows));
		q->done(q->rc, &rows, q->done_arg);
		store_rows_free(&rows);
		query_free(q);
	}
}

int store_sqlite_query_history(struct store *s, enum store_history from,
			       const struct store_job_filter *f, store_map_f map,
			       void *map_arg, store_rows_f done, void *arg)
{
	struct store_reader *r = store_sqlite_of(s)->reader;
	struct store_query *q = calloc(1, sizeof(*q));
	if (!q || !(q->filter = store_filter_dup(f))) {
		free(q);
		return -ENOMEM;
	}
	q->from = from;
	q->map = map;
	q->map_arg = map_arg;
	q->done = done;
	q->done_arg = arg;
	pthread_mutex_lock(&r->mu);
	if (r->todo_tail)
		r->todo_tail->next = q;
	else
		r->todo = q;
	r->todo_tail = q;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

int store_sqlite_reader_start(struct store_sqlite *s, const char *path,
			      struct event_base *base)
{
	struct store_reader *r = calloc(1, sizeof(*r));
	int fds[2];
	if (!r)
		return -ENOMEM;
	s->reader = r;
	r->pipe_rd = r->pipe_wr = -1;
	if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_busy_timeout(r->db, 10000);
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	r->pipe_rd = fds[0];
	r->pipe_wr = fds[1];
	r->ev = event_new(base, r->pipe_rd, EV_READ | EV_PERSIST, on_ready, r);
	if (!r->ev || event_add(r->ev, NULL) < 0)
		return -ENOMEM;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pthread_create(&r->thread, NULL, reader_main, r) != 0)
		return -EAGAIN;
	r->started = true;
	return 0;
}

static void cancel_list(struct store_query *q)
{
	while (q) {
		struct store_query *next = q->next;
		store_rows_free(&q->rows);
		q->done(-ECANCELED, &q->rows, q->done_arg);
		query_free(q);
		q = next;
	}
}

/* Queries not answered yet end with -ECANCELED, so their callers free what
 * they hold: ctld stops, and their clients see the connection close. */
void store_sqlite_reader_stop(struct store_sqlite *s)
{
	struct store_reader *r = s->reader;
	if (!r)
		return;
	if (r->started) {
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
	}
	cancel_list(r->todo);
	cancel_list(r->ready);
	if (r->ev)
		event_free(r->ev);
	if (r->pipe_rd >= 0)
		close(r->pipe_rd);
	if (r->pipe_wr >= 0)
		close(r->pipe_wr);
	sqlite3_close(r->db);
	free(r);
	s->reader = NULL;
}
