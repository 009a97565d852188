/* rpc_acct.c — acct.query, the accounting read path behind sacct.
 *
 * Jobs ctld still holds (pending, running, and ended within MinJobAge) are
 * answered from memory, so sacct, squeue and scontrol agree at every moment;
 * older jobs come from the store's history on the reader thread
 * (store_read.h), so a long scan never holds up scheduling or commits. The
 * two halves meet on the loop when the history arrives: rows for jobs that
 * are in memory by then are dropped, and memory is read at that instant.
 * With "duplicates" (sacct -D) the earlier runs of requeued jobs come from
 * the store's job_runs too, each written just before its job's record. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/jsonw.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job_fields.h"
#include "ctld/rpc_handlers.h"
#include "ctld/store_read.h"

struct acct_query {
	struct ctld *c;
	uint64_t peer_id;
	int64_t msg_id;
	json_t *body; /* the request's filters (a reference) */
	int64_t start, end;
	bool window;
	int pending;		      /* store queries not answered yet */
	int rc;			      /* the first failure of one */
	struct store_rows hist, runs; /* their rows */
};

static bool has_int(json_t *list, json_int_t v)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x) if (json_integer_value(x) == v) return true;
	return false;
}

/* Names, accounts and partitions match in any (ASCII) case, as Slurm's
 * database compares them; states are Slurm's upper-case names. */
static bool has_str(json_t *list, const char *v)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i,
			   x) if (!strcasecmp(json_string_value(x), v)) return true;
	return false;
}

/* The same tests as the SQL of history_query(), on a job in memory. */
static bool job_matches(const struct acct_query *q, const struct job *j)
{
	json_t *b = q->body, *l;
	if ((l = json_object_get(b, "job_ids")) && !has_int(l, j->id) &&
	    !(j->array_job_id && has_int(l, j->array_job_id)))
		return false; /* an array's id names all its tasks */
	if ((l = json_object_get(b, "uids")) && !has_int(l, j->uid))
		return false;
	if ((l = json_object_get(b, "names")) && !has_str(l, j->name ? j->name : ""))
		return false;
	if ((l = json_object_get(b, "partitions")) &&
	    !has_str(l, j->partition ? j->partition : ""))
		return false;
	if ((l = json_object_get(b, "accounts")) &&
	    !has_str(l, j->req.account ? j->req.account : ""))
		return false;
	if ((l = json_object_get(b, "states")) && !has_str(l, job_state_name(j->state)))
		return false;
	if (!q->window)
		return true;
	bool ended = job_state_final(j->state) && !j->completing;
	return j->eligible_time > 0 && j->eligible_time <= q->end &&
	       (!ended || j->end_time >= q->start);
}

/* " AND <expr> IN (?,?,...)" for a list, binding its values. */
static void add_in(struct drv_jw *w, struct store_query *sq, const char *expr,
		   json_t *list)
{
	if (!list)
		return;
	drv_jw_raw(w, " AND ", 5);
	drv_jw_raw(w, expr, strlen(expr));
	drv_jw_lit(w, " IN (");
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x)
	{
		drv_jw_raw(w, i ? ",?" : "?", i ? 2 : 1);
		if (json_is_string(x))
			store_query_bind_text(sq, json_string_value(x));
		else
			store_query_bind_int(sq, json_integer_value(x));
	}
	drv_jw_lit(w, ")");
}

/* Only ended jobs: every job that has not ended is in memory. The uid and
 * name expressions are those of the store's indexes. */
static struct store_query *history_query(const struct acct_query *q)
{
	struct drv_jw w;
	drv_jw_init(&w);
	drv_jw_lit(&w, "end_time > 0");
	struct store_query *sq = store_query_new();
	json_t *b = q->body;
	json_t *ids = json_object_get(b, "job_ids");
	if (ids) { /* a job by its id, or an array's tasks by the array's */
		drv_jw_lit(&w, " AND (1");
		add_in(&w, sq, "id", ids);
		drv_jw_lit(&w, " OR 1");
		add_in(&w, sq, "json_extract(rec,'$.array_job_id')", ids);
		drv_jw_lit(&w, ")");
	}
	add_in(&w, sq, "json_extract(rec,'$.uid')", json_object_get(b, "uids"));
	add_in(&w, sq, "json_extract(rec,'$.name') COLLATE NOCASE",
	       json_object_get(b, "names"));
	add_in(&w, sq, "json_extract(rec,'$.partition') COLLATE NOCASE",
	       json_object_get(b, "partitions"));
	add_in(&w, sq, "ifnull(json_extract(rec,'$.account'),'') COLLATE NOCASE",
	       json_object_get(b, "accounts"));
	add_in(&w, sq, "json_extract(rec,'$.state')", json_object_get(b, "states"));
	if (q->window) {
		drv_jw_lit(&w,
			   " AND end_time >= ? AND json_extract(rec,'$.eligible_time')"
			   " BETWEEN 1 AND ?");
		store_query_bind_int(sq, q->start);
		store_query_bind_int(sq, q->end);
	}
	drv_jw_raw(&w, "", 1); /* the terminating NUL */
	if (w.oom)
		abort();
	store_query_where(sq, w.buf);
	drv_jw_fini(&w);
	return sq;
}

/* Reader thread: a stored record as the protocol's job record, in canonical
 * form (what the reply's digest covers), without what only recovery reads. */
static char *history_record(int64_t id, const char *rec, void *arg)
{
	static const char *const store_only[] = {
	    "submit_dir",     "export", "launch_acked",	    "completing",
	    "prolog_pending", "alloc",	"alloc_cpus_total", "req",
	    "base_priority"};
	(void)arg;
	json_t *o = json_loads(rec, 0, NULL);
	if (!json_is_object(o)) {
		log_error("store: job %lld: unreadable record", (long long)id);
		json_decref(o);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(store_only) / sizeof(store_only[0]); i++)
		json_object_del(o, store_only[i]);
	char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return text;
}

static void write_memory_job(struct drv_jw *w, const struct job *j, bool first)
{
	json_t *rec = job_to_record(j);
	char *text = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(rec);
	if (!text)
		abort();
	if (!first)
		drv_jw_lit(w, ",");
	drv_jw_raw(w, text, strlen(text));
	free(text);
}

static void write_history_row(struct drv_jw *w, const char *text, bool first)
{
	if (!first)
		drv_jw_lit(w, ",");
	drv_jw_raw(w, text, strlen(text));
}

/* The earlier runs of jobs up to id (all when id is -1). */
static void write_runs(struct drv_jw *w, const struct store_rows *runs, size_t *r,
		       int64_t id, bool *first)
{
	for (; *r < runs->n && (id < 0 || runs->ids[*r] <= id); (*r)++) {
		write_history_row(w, runs->texts[*r], *first);
		*first = false;
	}
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = (*(struct job *const *)a)->id, y = (*(struct job *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* Memory's jobs that match q, in id order (the table is in the order ids
 * were issued, which differs once they went round): a new array, NULL
 * with *n 0 when none match or memory ran out (w.oom then). */
static struct job **matching_jobs(struct acct_query *q, size_t *n)
{
	struct job **v = malloc((q->c->jobs.count ? q->c->jobs.count : 1) * sizeof(*v));
	*n = 0;
	for (struct job *j = q->c->jobs.head; v && j; j = j->next)
		if (job_matches(q, j))
			v[(*n)++] = j;
	if (*n)
		qsort(v, *n, sizeof(*v), by_id);
	return v;
}

/* The reply: memory's jobs and history's rows merged in id order, each
 * job's earlier runs (when asked for) before it. */
static void reply(struct acct_query *q)
{
	struct ctld *c = q->c;
	const struct store_rows *rows = &q->hist, *runs = &q->runs;
	struct drv_jw w;
	drv_jw_init(&w);
	drv_jw_lit(&w, "{\"jobs\":[");
	bool first = true;
	size_t h = 0, r = 0, n_mem;
	struct job **mem = matching_jobs(q, &n_mem);
	if (!mem)
		w.oom = true;
	for (size_t m = 0; m < n_mem; m++) {
		struct job *j = mem[m];
		for (; h < rows->n && rows->ids[h] < j->id; h++)
			if (!job_table_find(&c->jobs, (uint32_t)rows->ids[h])) {
				write_runs(&w, runs, &r, rows->ids[h], &first);
				write_history_row(&w, rows->texts[h], first);
				first = false;
			}
		write_runs(&w, runs, &r, j->id, &first);
		write_memory_job(&w, j, first);
		first = false;
	}
	for (; h < rows->n; h++)
		if (!job_table_find(&c->jobs, (uint32_t)rows->ids[h])) {
			write_runs(&w, runs, &r, rows->ids[h], &first);
			write_history_row(&w, rows->texts[h], first);
			first = false;
		}
	write_runs(&w, runs, &r, -1, &first);
	free(mem);
	drv_jw_lit(&w, "],\"now\":");
	drv_jw_int(&w, (int64_t)time(NULL));
	drv_jw_lit(&w, "}");
	struct rpc_req req = {.c = c, .peer_id = q->peer_id, .id = q->msg_id};
	if (w.oom)
		rpc_reply(&req, DRV_RC_ERROR, "out of memory", NULL);
	else
		rpc_reply_text(&req, w.buf, w.len);
	drv_jw_fini(&w);
}

static void query_free(struct acct_query *q)
{
	json_decref(q->body);
	store_rows_free(&q->hist);
	store_rows_free(&q->runs);
	free(q);
}

/* Replies once the last store query is in. */
static void finish(struct acct_query *q)
{
	if (q->pending > 0)
		return;
	if (q->rc == -ECANCELED) { /* ctld is stopping */
	} else if (q->rc < 0) {
		struct rpc_req r = {.c = q->c, .peer_id = q->peer_id, .id = q->msg_id};
		rpc_reply(&r, DRV_RC_ERROR, "cannot read the job history", NULL);
	} else {
		reply(q);
	}
	query_free(q);
}

static void take_rows(struct acct_query *q, int rc, struct store_rows *rows,
		      struct store_rows *into)
{
	q->pending--;
	if (rc < 0 && q->rc == 0)
		q->rc = rc;
	*into = *rows;
	memset(rows, 0, sizeof(*rows)); /* now ours */
	finish(q);
}

static void history_done(int rc, struct store_rows *rows, void *arg)
{
	struct acct_query *q = arg;
	take_rows(q, rc, rows, &q->hist);
}

static void runs_done(int rc, struct store_rows *rows, void *arg)
{
	struct acct_query *q = arg;
	take_rows(q, rc, rows, &q->runs);
}

/* True when the request names jobs and ctld holds every one of them: then
 * the history has nothing to add (the polling case). */
static bool all_in_memory(const struct acct_query *q)
{
	json_t *ids = json_object_get(q->body, "job_ids");
	size_t i;
	json_t *x;
	if (!ids)
		return false;
	json_array_foreach(
	    ids, i, x) if (!job_table_find(&q->c->jobs,
					   (uint32_t)json_integer_value(x))) return false;
	return true;
}

void rpc_acct_query(struct rpc_req *r)
{
	struct acct_query *q = calloc(1, sizeof(*q));
	if (!q)
		abort();
	q->c = r->c;
	q->peer_id = r->peer_id;
	q->msg_id = r->id;
	q->body = json_incref(r->body);
	q->start = json_integer_value(json_object_get(r->body, "start"));
	q->end = json_integer_value(json_object_get(r->body, "end"));
	q->window = q->start > 0 || q->end > 0;
	if (q->window && q->end == 0)
		q->end = time(NULL);
	q->pending = 1; /* until both queries are queued */
	if (json_is_true(json_object_get(r->body, "duplicates"))) {
		struct store_query *sq = history_query(q);
		store_query_runs(sq);
		q->pending++;
		store_query_submit(r->c->store, sq, history_record, NULL, runs_done, q);
	}
	if (!all_in_memory(q)) {
		q->pending++;
		store_query_submit(r->c->store, history_query(q), history_record, NULL,
				   history_done, q);
	}
	q->pending--;
	finish(q);
}
