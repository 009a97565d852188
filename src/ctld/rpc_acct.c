/* rpc_acct.c — acct.query, the accounting read path behind sacct.
 *
 * Jobs ctld still holds (pending, running, and ended within MinJobAge) are
 * answered from memory, so sacct, squeue and scontrol agree at every moment;
 * older jobs come from the store's history (store_query_history), answered
 * off the loop, so a long scan never holds up scheduling or commits. Both
 * halves are asked the same typed filter, built once from the request; no
 * query language is written here, so any store engine can answer it
 * (docs/store.md). The two halves meet on the loop when the history
 * arrives: rows for jobs that are in memory by then are dropped, and memory
 * is read at that instant. With "duplicates" (sacct -D) the earlier runs of
 * requeued jobs come from the store's history of runs too, each written just
 * before its job's record. */
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
#include "ctld/perm.h"
#include "ctld/rpc_handlers.h"

struct acct_query {
	struct ctld *c;
	uint64_t peer_id;
	int64_t msg_id;
	json_t *body;		   /* the request (a reference): the filter's strings */
	struct store_job_filter f; /* its lists are owned, their strings not */
	int pending;		   /* store queries not answered yet */
	int rc;			   /* the first failure of one */
	struct store_rows hist, runs; /* their rows */
	struct perm_scope see;	      /* PrivateData=jobs: whose jobs (perm.h) */
};

/* A copy of one of the request's id lists, if it has one (the decoded
 * request goes with the handler; the query outlives it). */
static void ids_from(const uint32_t *ids, size_t n, bool given, struct store_ids *out)
{
	if (!given)
		return;
	uint32_t *v = calloc(n + 1, sizeof(*v));
	if (!v)
		abort(); /* out of memory in the daemon: nothing sane to do */
	memcpy(v, ids, n * sizeof(*v));
	*out = (struct store_ids){.given = true, .n = n, .v = v};
}

/* The same for a list of strings, borrowed from the body q holds. */
static void strs_from(const char *const *strs, size_t n, bool given,
		      struct store_strs *out)
{
	if (!given)
		return;
	const char **v = calloc(n + 1, sizeof(*v));
	if (!v)
		abort();
	memcpy(v, strs, n * sizeof(*v));
	*out = (struct store_strs){.given = true, .n = n, .v = v};
}

/* The request's filters, typed: what both memory and the store are asked. */
static void filter_from(const struct drv_acct_query *m, struct store_job_filter *f)
{
	ids_from(m->job_ids, m->n_job_ids, m->has_job_ids, &f->job_ids);
	ids_from(m->uids, m->n_uids, m->has_uids, &f->uids);
	strs_from(m->names, m->n_names, m->has_names, &f->names);
	strs_from(m->accounts, m->n_accounts, m->has_accounts, &f->accounts);
	strs_from(m->partitions, m->n_partitions, m->has_partitions, &f->partitions);
	strs_from(m->states, m->n_states, m->has_states, &f->states);
	f->start = m->start;
	f->end = m->end;
	f->window = f->start > 0 || f->end > 0;
	if (f->window && f->end == 0)
		f->end = time(NULL);
}

/* The lists filter_from() allocated (the strings are the body's). */
static void filter_fini(struct store_job_filter *f)
{
	free((void *)f->job_ids.v);
	free((void *)f->uids.v);
	free((void *)f->names.v);
	free((void *)f->accounts.v);
	free((void *)f->partitions.v);
	free((void *)f->states.v);
}

/* A list not given holds every value. */
static bool has_id(const struct store_ids *l, uint32_t v)
{
	if (!l->given)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

/* Names, accounts and partitions match in any (ASCII) case, as Slurm's
 * database compares them. States compare so here too, while the store
 * compares them exactly: sacct sends Slurm's upper-case names, so both
 * agree on what it asks. */
static bool has_str(const struct store_strs *l, const char *v)
{
	if (!l->given)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->v[i], v))
			return true;
	return false;
}

/* The filter's rules (store.h) on a job in memory. */
static bool job_matches(const struct store_job_filter *f, const struct job *j)
{
	if (!has_id(&f->job_ids, j->id) &&
	    !(j->array_job_id && has_id(&f->job_ids, j->array_job_id)))
		return false; /* an array's id names all its tasks */
	if (!has_id(&f->uids, j->uid) || !has_str(&f->names, j->name ? j->name : "") ||
	    !has_str(&f->partitions, j->partition ? j->partition : "") ||
	    !has_str(&f->accounts, j->req.account ? j->req.account : "") ||
	    !has_str(&f->states, job_record_state(j)))
		return false;
	if (!f->window)
		return true;
	bool ended = job_state_final(j->state) && !j->completing;
	return j->eligible_time > 0 && j->eligible_time <= f->end &&
	       (!ended || j->end_time >= f->start);
}

/* Reader thread: a stored record as the protocol's job record, in canonical
 * form (what the reply's digest covers), without what only recovery reads. */
static char *history_record(int64_t id, const char *rec, void *arg)
{
	const struct perm_scope *see = arg;
	json_t *o = json_loads(rec, 0, NULL);
	if (!json_is_object(o)) {
		log_error("store: job %lld: unreadable record", (long long)id);
		json_decref(o);
		return NULL;
	}
	if (!see->all) { /* the scope is a copy: safe on this thread */
		const struct drv_field *f = drv_shape_rec_job.fields;
		json_t *uid = json_object_get(o, f[DRV_REC_JOB__UID].name);
		json_t *acct = json_object_get(o, f[DRV_REC_JOB__ACCOUNT].name);
		if (!perm_scope_has(see, (uid_t)json_integer_value(uid),
				    json_string_value(acct))) {
			json_decref(o);
			return NULL;
		}
	}
	drv_shape_strip(&drv_shape_rec_job, o, DRV_FL_PRIVATE);
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
		if (job_matches(&q->f, j) &&
		    perm_scope_has(&q->see, j->uid, j->req.account))
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
	const struct drv_field *keys = drv_shape_acct_query_reply.fields;
	rpc_jw_key(&w, "{", &keys[DRV_ACCT_QUERY_REPLY__JOBS]);
	drv_jw_lit(&w, "[");
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
	drv_jw_lit(&w, "]");
	rpc_jw_key(&w, ",", &keys[DRV_ACCT_QUERY_REPLY__NOW]);
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
	filter_fini(&q->f);
	json_decref(q->body);
	store_rows_free(&q->hist);
	store_rows_free(&q->runs);
	perm_scope_fini(&q->see);
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
	const struct store_ids *ids = &q->f.job_ids;
	if (!ids->given)
		return false;
	for (size_t i = 0; i < ids->n; i++)
		if (!job_table_find(&q->c->jobs, ids->v[i]))
			return false;
	return true;
}

/* One store query, counted in q->pending while it runs. */
static void ask_store(struct acct_query *q, enum store_history from, store_rows_f done)
{
	if (store_query_history(q->c->store, from, &q->f, history_record, &q->see, done,
				q) < 0) {
		if (q->rc == 0)
			q->rc = -ENOMEM;
		return;
	}
	q->pending++;
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
	const struct drv_acct_query *m = r->msg;
	struct perm p;
	perm_of_req(r, &p);
	if (perm_job_scope(&p, &q->see) < 0)
		abort(); /* out of memory in the daemon, as above */
	filter_from(m, &q->f);
	q->pending = 1; /* until both queries are queued */
	if (m->duplicates)
		ask_store(q, STORE_HISTORY_RUNS, runs_done);
	if (!all_in_memory(q))
		ask_store(q, STORE_HISTORY_JOBS, history_done);
	q->pending--;
	finish(q);
}
