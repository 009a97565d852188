/* store_sqlite_where.c — a typed history filter as one SQLite statement. This is
 * the only place that knows how a filter's fields map to SQLite's SQL: the
 * JSON paths into the stored record, COLLATE NOCASE for the names that
 * compare in any case, ifnull for a record without an account. Where
 * the schema (store_sqlite.c) indexes an expression, this file writes the
 * same one, so that SQLite uses the index; change both together. */
#include <errno.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/log.h"
#include "ctld/store_sqlite.h"

/* A value to bind, in the order of the statement's ? marks. Texts are
 * borrowed from the filter. */
struct bind {
	const char *text; /* NULL: num */
	int64_t num;
};

struct sql {
	struct drv_jw w;
	struct bind *binds;
	size_t n, cap;
	bool oom;
};

static void add_bind(struct sql *q, const char *text, int64_t num)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		struct bind *b = realloc(q->binds, cap * sizeof(*b));
		if (!b) {
			q->oom = true;
			return;
		}
		q->binds = b;
		q->cap = cap;
	}
	q->binds[q->n++] = (struct bind){.text = text, .num = num};
}

/* "<expr> IN (?,...)"; an empty list is SQLite's empty set, which nothing
 * is in (the filter's "given empty"). */
static void in_ids(struct sql *q, const char *expr, const struct store_ids *l)
{
	drv_jw_raw(&q->w, expr, strlen(expr));
	drv_jw_lit(&q->w, " IN (");
	for (size_t i = 0; i < l->n; i++) {
		drv_jw_raw(&q->w, i ? ",?" : "?", i ? 2 : 1);
		add_bind(q, NULL, l->v[i]);
	}
	drv_jw_lit(&q->w, ")");
}

static void and_in_strs(struct sql *q, const char *expr, const struct store_strs *l)
{
	if (!l->given)
		return;
	drv_jw_lit(&q->w, " AND ");
	drv_jw_raw(&q->w, expr, strlen(expr));
	drv_jw_lit(&q->w, " IN (");
	for (size_t i = 0; i < l->n; i++) {
		drv_jw_raw(&q->w, i ? ",?" : "?", i ? 2 : 1);
		add_bind(q, l->v[i], 0);
	}
	drv_jw_lit(&q->w, ")");
}

/* The string lists, each with the expression it compares. A missing name
 * or partition is NULL, which no value equals; a missing account is "",
 * as the job in memory has it. */
static const struct {
	const char *expr;
	size_t off;
} str_lists[] = {
    {"json_extract(rec,'$.name') COLLATE NOCASE",
     offsetof(struct store_job_filter, names)},
    {"json_extract(rec,'$.partition') COLLATE NOCASE",
     offsetof(struct store_job_filter, partitions)},
    {"ifnull(json_extract(rec,'$.account'),'') COLLATE NOCASE",
     offsetof(struct store_job_filter, accounts)},
    {"json_extract(rec,'$.state')", offsetof(struct store_job_filter, states)},
};

static void build(struct sql *q, enum store_history from,
		  const struct store_job_filter *f)
{
	if (from == STORE_HISTORY_RUNS)
		drv_jw_lit(&q->w, "SELECT id, rec FROM job_runs WHERE end_time > 0");
	else
		drv_jw_lit(&q->w, "SELECT id, rec FROM jobs WHERE end_time > 0");
	if (f->job_ids.given) { /* a job by its id, or an array's tasks by the array's */
		drv_jw_lit(&q->w, " AND (");
		in_ids(q, "id", &f->job_ids);
		drv_jw_lit(&q->w, " OR ");
		in_ids(q, "json_extract(rec,'$.array_job_id')", &f->job_ids);
		drv_jw_lit(&q->w, ")");
	}
	if (f->uids.given) {
		drv_jw_lit(&q->w, " AND ");
		in_ids(q, "json_extract(rec,'$.uid')", &f->uids);
	}
	for (size_t i = 0; i < sizeof(str_lists) / sizeof(str_lists[0]); i++)
		and_in_strs(
		    q, str_lists[i].expr,
		    (const struct store_strs *)((const char *)f + str_lists[i].off));
	if (f->window) {
		drv_jw_lit(&q->w,
			   " AND end_time >= ? AND json_extract(rec,'$.eligible_time')"
			   " BETWEEN 1 AND ?");
		add_bind(q, NULL, f->start);
		add_bind(q, NULL, f->end);
	}
	if (from == STORE_HISTORY_RUNS)
		drv_jw_lit(&q->w, " ORDER BY id, restart");
	else
		drv_jw_lit(&q->w, " ORDER BY id");
	drv_jw_raw(&q->w, "", 1); /* the terminating NUL */
}

int store_sqlite_where_prepare(sqlite3 *db, enum store_history from,
			       const struct store_job_filter *f, sqlite3_stmt **out)
{
	struct sql q = {.oom = false};
	drv_jw_init(&q.w);
	build(&q, from, f);
	int rc = 0;
	sqlite3_stmt *st = NULL;
	if (q.oom || q.w.oom)
		rc = -ENOMEM;
	else if (sqlite3_prepare_v2(db, q.w.buf, -1, &st, NULL) != SQLITE_OK) {
		log_error("store: history query: %s", sqlite3_errmsg(db));
		rc = -EINVAL;
	}
	for (size_t i = 0; rc == 0 && i < q.n; i++)
		if (q.binds[i].text)
			sqlite3_bind_text(st, (int)i + 1, q.binds[i].text, -1,
					  SQLITE_STATIC);
		else
			sqlite3_bind_int64(st, (int)i + 1, q.binds[i].num);
	drv_jw_fini(&q.w);
	free(q.binds);
	if (rc == 0)
		*out = st;
	return rc;
}
