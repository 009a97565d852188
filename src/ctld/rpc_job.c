/* rpc_job.c — client requests about existing jobs: query, cancel, hold,
 * release, requeue and update. State changes go through job_state.c. */
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/jsonw.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job_fields.h"
#include "ctld/rpc_handlers.h"

static bool in_int_list(json_t *list, json_int_t v)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x) if (json_integer_value(x) == v) return true;
	return false;
}

static bool in_str_list(json_t *list, const char *v)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x)
	{
		const char *s = json_string_value(x);
		if (s && v && (!strcmp(s, v) || job_state_parse(s) == job_state_parse(v)))
			return true;
	}
	return false;
}

static bool state_wanted(json_t *states, const struct job *j)
{
	size_t i;
	json_t *x;
	json_array_foreach(states, i, x)
	{
		const char *s = json_string_value(x);
		if (s && job_state_parse(s) == (int)j->state)
			return true;
	}
	return false;
}

static bool job_wanted(const struct rpc_req *r, const struct job *j)
{
	json_t *ids = json_object_get(r->body, "job_ids");
	json_t *users = json_object_get(r->body, "users");
	json_t *states = json_object_get(r->body, "states");
	if (json_is_true(json_object_get(r->body, "active")) &&
	    job_state_final(j->state) && !j->completing)
		return false; /* squeue's default listing: ended jobs stay here */
	return (!ids || in_int_list(ids, j->id)) &&
	       (!users || in_str_list(users, j->user)) &&
	       (!states || state_wanted(states, j));
}

/* Whole records, for scontrol show job. */
static void query_records(struct rpc_req *r)
{
	json_t *out = json_array();
	for (struct job *j = r->c->jobs.head; j; j = j->next)
		if (job_wanted(r, j))
			json_array_append_new(out, job_to_record(j));
	rpc_reply(r, 0, NULL,
		  json_pack("{s:o,s:I}", "jobs", out, "now", (json_int_t)time(NULL)));
}

/* Compact rows of just the fields asked for (what squeue and scancel poll),
 * written as text: {"fields":[...],"now":N,"rows":[[...],...]}. */
static void query_rows(struct rpc_req *r, json_t *names)
{
	size_t n = json_array_size(names);
	const struct job_field **want = calloc(n ? n : 1, sizeof(*want));
	char *names_text = json_dumps(names, JSON_COMPACT);
	struct drv_jw w;
	drv_jw_init(&w);
	if (!want || !names_text) {
		free(want);
		free(names_text);
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
		return;
	}
	for (size_t i = 0; i < n; i++)
		want[i] =
		    job_field_find(json_string_value(json_array_get(names, i)) ?: "");
	drv_jw_lit(&w, "{\"fields\":");
	drv_jw_raw(&w, names_text, strlen(names_text));
	drv_jw_lit(&w, ",\"now\":");
	drv_jw_int(&w, (int64_t)time(NULL));
	drv_jw_lit(&w, ",\"rows\":[");
	bool first = true;
	for (struct job *j = r->c->jobs.head; j; j = j->next) {
		if (!job_wanted(r, j))
			continue;
		if (!first)
			drv_jw_lit(&w, ",");
		first = false;
		job_row_write(&w, j, want, n);
	}
	drv_jw_lit(&w, "]}");
	if (w.oom)
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
	else
		rpc_reply_text(r, w.buf, w.len);
	drv_jw_fini(&w);
	free(want);
	free(names_text);
}

void rpc_job_query(struct rpc_req *r)
{
	json_t *names = json_object_get(r->body, "fields");
	if (names)
		query_rows(r, names);
	else
		query_records(r);
}

typedef int (*job_op_f)(struct rpc_req *r, struct job *j, int64_t now);

/* Applies op to every id of the request; one result per id. */
static void for_each_job(struct rpc_req *r, job_op_f op)
{
	json_t *ids = json_object_get(r->body, "job_ids");
	json_t *results = json_array();
	int64_t now = time(NULL);
	size_t i;
	json_t *x;
	json_array_foreach(ids, i, x)
	{
		json_int_t id = json_integer_value(x);
		struct job *j = id > 0 && id <= UINT32_MAX
				    ? job_table_find(&r->c->jobs, (uint32_t)id)
				    : NULL;
		int rc = !j ? DRV_RC_INVALID_JOB_ID
			 : (j->uid != r->cred.uid && !rpc_is_admin(r))
			     ? DRV_RC_ACCESS_DENIED
			     : op(r, j, now);
		json_array_append_new(results,
				      json_pack("{s:I,s:i,s:s}", "job_id", id, "rc", rc,
						"error", rc ? drv_rc_text(rc) : ""));
	}
	rpc_reply_durable(r, 0, NULL, json_pack("{s:o}", "results", results));
}

static int cancel_one(struct rpc_req *r, struct job *j, int64_t now)
{
	int sig = (int)json_integer_value(json_object_get(r->body, "signal"));
	if (job_state_final(j->state))
		return DRV_RC_ALREADY_DONE;
	if (sig == 0)
		return job_cancel(r->c, j, r->cred.uid, now);
	bool batch = json_is_true(json_object_get(r->body, "batch_only"));
	bool full = json_is_true(json_object_get(r->body, "full"));
	/* Without -b or -f Slurm signals the job's steps but not the batch
	 * step; a Drover job has no other step, so no process gets it. */
	if (!batch && !full && sig != SIGKILL && j->state == JOB_RUNNING)
		return 0;
	return job_signal(r->c, j, sig, batch && !full);
}

void rpc_job_cancel(struct rpc_req *r)
{
	for_each_job(r, cancel_one);
}

static int release_one(struct rpc_req *r, struct job *j, int64_t now)
{
	if (j->hold == HOLD_ADMIN && !rpc_is_admin(r))
		return DRV_RC_ACCESS_DENIED;
	if (j->state != JOB_PENDING)
		return DRV_RC_ALREADY_DONE;
	return job_set_hold(r->c, j, HOLD_NONE);
}

void rpc_job_release(struct rpc_req *r)
{
	for_each_job(r, release_one);
}

static int hold_one(struct rpc_req *r, struct job *j, int64_t now)
{
	if (j->state != JOB_PENDING)
		return DRV_RC_ALREADY_DONE;
	bool user = json_is_true(json_object_get(r->body, "user")) || !rpc_is_admin(r);
	return job_set_hold(r->c, j, user ? HOLD_USER : HOLD_ADMIN);
}

void rpc_job_hold(struct rpc_req *r)
{
	for_each_job(r, hold_one);
}

static int requeue_one(struct rpc_req *r, struct job *j, int64_t now)
{
	bool hold = json_is_true(json_object_get(r->body, "hold"));
	return job_requeue(r->c, j, hold, now);
}

void rpc_job_requeue(struct rpc_req *r)
{
	for_each_job(r, requeue_one);
}

static int update_one(struct rpc_req *r, struct job *j, int64_t now)
{
	json_t *limit = json_object_get(r->body, "time_limit");
	json_t *part = json_object_get(r->body, "partition");
	json_t *nice = json_object_get(r->body, "nice");
	if (j->state != JOB_PENDING)
		return DRV_RC_JOB_NOT_PENDING;
	if (nice && json_integer_value(nice) < 0 && !rpc_is_admin(r))
		return DRV_RC_ACCESS_DENIED;
	if (part && ctld_part_index(r->c, json_string_value(part)) < 0)
		return DRV_RC_INVALID_PARTITION;
	if (limit)
		j->time_limit =
		    json_integer_value(limit) ? json_integer_value(limit) : DRV_INFINITE;
	if (part) {
		free(j->partition);
		j->partition = strdup(json_string_value(part));
	}
	if (nice) {
		j->priority += (uint64_t)j->req.nice;
		j->req.nice = (int32_t)json_integer_value(nice);
		j->priority -= (uint64_t)j->req.nice;
	}
	commit_job(r->c, j);
	sched_request(r->c);
	log_info("job=%u updated by uid=%u", j->id, (unsigned)r->cred.uid);
	return 0;
}

void rpc_job_update(struct rpc_req *r)
{
	for_each_job(r, update_one);
}
