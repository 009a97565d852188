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
#include "ctld/step.h"

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
	/* an array's id names all its tasks, as in Slurm */
	return (!ids || in_int_list(ids, j->id) ||
		(j->array_job_id && in_int_list(ids, j->array_job_id))) &&
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

static int cancel_record(struct rpc_req *r, struct job *j, int64_t now)
{
	int sig = (int)json_integer_value(json_object_get(r->body, "signal"));
	if (job_state_final(j->state))
		return DRV_RC_ALREADY_DONE;
	if (sig == 0)
		return job_cancel(r->c, j, r->cred.uid, now);
	bool batch = json_is_true(json_object_get(r->body, "batch_only"));
	bool full = json_is_true(json_object_get(r->body, "full"));
	/* Without -b or -f Slurm signals the job's steps but not the batch
	 * step. */
	if (!batch && !full && sig != SIGKILL && j->state == JOB_RUNNING) {
		steps_signal(r->c, j, sig);
		return 0;
	}
	return job_signal(r->c, j, sig, batch && !full);
}

/* An array's id cancels (or signals) the whole array: its pending rest and
 * every task; the answer is the array record's, or 0 when that one is over
 * but some task was still there to act on. With records_only (scancel's
 * filters chose the records) only the record itself. */
static int cancel_one(struct rpc_req *r, struct job *j, int64_t now)
{
	int rc = cancel_record(r, j, now);
	if (j->array_job_id != j->id ||
	    json_is_true(json_object_get(r->body, "records_only")))
		return rc;
	for (struct job *t = j->next; t; t = t->next)
		if (t->array_job_id == j->id && cancel_record(r, t, now) == 0 && rc)
			rc = 0;
	return rc;
}

/* "123_7" or "123_[1-5]": the array's id and its index set; 0 or -EINVAL. */
static int parse_task_arg(const char *arg, uint32_t *array_id, struct drv_array *set)
{
	char *end = NULL;
	unsigned long id = strtoul(arg, &end, 10);
	if (end == arg || *end != '_' || id == 0 || id > UINT32_MAX)
		return -EINVAL;
	char spec[64];
	snprintf(spec, sizeof(spec), "%s", end + 1);
	size_t len = strlen(spec);
	const char *p = spec;
	if (spec[0] == '[' && len > 1 && spec[len - 1] == ']') {
		spec[len - 1] = '\0';
		p = spec + 1;
	}
	if (strchr(p, '%'))
		return -EINVAL;
	*array_id = (uint32_t)id;
	return drv_array_parse(p, 0, set) < 0 ? -EINVAL : 0;
}

/* Cancels (or signals) the tasks of one "N_T"/"N_[spec]" argument: running
 * ones are their own records, pending ones are dropped from the array's
 * record, which is cancelled itself when its last pending task goes. */
static bool may_touch(const struct rpc_req *r, const struct job *j)
{
	return j->uid == r->cred.uid || rpc_is_admin(r);
}

/* The tasks of array array_id still held, from first on: the array's record
 * may be gone already (it ran as the last task to start and ended more than
 * MinJobAge ago) while earlier tasks run on; they still answer to its id. */
static int cancel_members(struct rpc_req *r, struct job *first, uint32_t array_id,
			  const struct drv_array *set, int rc, int64_t now)
{
	for (struct job *t = first; t; t = t->next) {
		if (t->array_job_id != array_id ||
		    (set && !job_array_has_task(t, array_id, set)))
			continue;
		int one =
		    may_touch(r, t) ? cancel_record(r, t, now) : DRV_RC_ACCESS_DENIED;
		rc = rc == 0 ? 0 : one;
	}
	return rc;
}

/* Cancels (or signals) the tasks of one "N_T"/"N_[spec]" argument: running
 * ones are their own records, pending ones are dropped from the array's
 * record, which is cancelled itself when its last pending task goes. */
static int cancel_tasks(struct rpc_req *r, const char *arg, int64_t now)
{
	uint32_t array_id;
	struct drv_array set = {0};
	if (parse_task_arg(arg, &array_id, &set) < 0)
		return DRV_RC_INVALID_JOB_ID;
	struct job *meta = job_table_find(&r->c->jobs, array_id);
	int rc = DRV_RC_INVALID_JOB_ID;
	bool sig = json_integer_value(json_object_get(r->body, "signal")) != 0;
	if (meta && !may_touch(r, meta))
		rc = DRV_RC_ACCESS_DENIED;
	else if (!meta || meta->array_job_id == array_id) {
		if (meta && !sig && job_array_drop_pending(r->c, meta, &set) > 0)
			rc = 0;
		rc = cancel_members(r, meta ? meta : r->c->jobs.head, array_id, &set, rc,
				    now);
	}
	drv_array_fini(&set);
	return rc;
}

static int cancel_id(struct rpc_req *r, json_int_t id, int64_t now)
{
	struct job *j =
	    id > 0 && id <= UINT32_MAX ? job_table_find(&r->c->jobs, (uint32_t)id) : NULL;
	if (j)
		return may_touch(r, j) ? cancel_one(r, j, now) : DRV_RC_ACCESS_DENIED;
	if (id <= 0 || id > UINT32_MAX ||
	    json_is_true(json_object_get(r->body, "records_only")))
		return DRV_RC_INVALID_JOB_ID;
	return cancel_members(r, r->c->jobs.head, (uint32_t)id, NULL,
			      DRV_RC_INVALID_JOB_ID, now);
}

/* "N.S": cancels (or signals) step S of job N. */
static int cancel_step(struct rpc_req *r, const char *arg)
{
	char *end = NULL;
	unsigned long id = strtoul(arg, &end, 10);
	if (end == arg || *end != '.' || id == 0 || id > UINT32_MAX)
		return DRV_RC_INVALID_JOB_ID;
	char *send = NULL;
	unsigned long sid = strtoul(end + 1, &send, 10);
	if (send == end + 1 || *send || sid > INT32_MAX)
		return DRV_RC_INVALID_JOB_ID;
	struct job *j = job_table_find(&r->c->jobs, (uint32_t)id);
	if (!j)
		return DRV_RC_INVALID_JOB_ID;
	if (!may_touch(r, j))
		return DRV_RC_ACCESS_DENIED;
	if (job_state_final(j->state))
		return DRV_RC_ALREADY_DONE;
	int sig = (int)json_integer_value(json_object_get(r->body, "signal"));
	return step_cancel(r->c, j, (uint32_t)sid, sig, r->cred.uid);
}

/* Job ids first, then the task arguments, then the steps (each answered
 * with its text). */
void rpc_job_cancel(struct rpc_req *r)
{
	json_t *results = json_array();
	int64_t now = time(NULL);
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(r->body, "job_ids"), i, x)
	{
		json_int_t id = json_integer_value(x);
		int rc = cancel_id(r, id, now);
		json_array_append_new(results,
				      json_pack("{s:I,s:i,s:s}", "job_id", id, "rc", rc,
						"error", rc ? drv_rc_text(rc) : ""));
	}
	json_array_foreach(json_object_get(r->body, "array_tasks"), i, x)
	{
		const char *arg = json_string_value(x);
		int rc = cancel_tasks(r, arg, now);
		json_array_append_new(
		    results, json_pack("{s:I,s:s,s:i,s:s}", "job_id",
				       (json_int_t)strtoul(arg, NULL, 10), "id", arg,
				       "rc", rc, "error", rc ? drv_rc_text(rc) : ""));
	}
	json_array_foreach(json_object_get(r->body, "steps"), i, x)
	{
		const char *arg = json_string_value(x);
		int rc = cancel_step(r, arg);
		json_array_append_new(
		    results, json_pack("{s:I,s:s,s:i,s:s}", "job_id",
				       (json_int_t)strtoul(arg, NULL, 10), "id", arg,
				       "rc", rc, "error", rc ? drv_rc_text(rc) : ""));
	}
	rpc_reply_durable(r, 0, NULL, json_pack("{s:o}", "results", results));
}

/* Slurm 22.05: holding or releasing a running job is accepted and changes
 * nothing; a finished one is refused. An admin hold is an admin's to lift. */
static int release_one(struct rpc_req *r, struct job *j, int64_t now)
{
	if (job_state_final(j->state))
		return DRV_RC_JOB_FINISHED;
	if (j->state != JOB_PENDING)
		return 0;
	if (j->hold == HOLD_ADMIN && !rpc_is_admin(r))
		return DRV_RC_ACCESS_DENIED;
	return job_set_hold(r->c, j, HOLD_NONE);
}

void rpc_job_release(struct rpc_req *r)
{
	for_each_job(r, release_one);
}

static int hold_one(struct rpc_req *r, struct job *j, int64_t now)
{
	if (job_state_final(j->state))
		return DRV_RC_JOB_FINISHED;
	if (j->state != JOB_PENDING)
		return 0;
	/* a user may not turn an admin hold into one of their own to lift */
	if (j->hold == HOLD_ADMIN && !rpc_is_admin(r))
		return DRV_RC_ACCESS_DENIED;
	bool user = json_is_true(json_object_get(r->body, "user")) || !rpc_is_admin(r);
	return job_set_hold(r->c, j, user ? HOLD_USER : HOLD_ADMIN);
}

void rpc_job_hold(struct rpc_req *r)
{
	for_each_job(r, hold_one);
}

/* Dependency=: a new list replaces the old one, "" clears it. A list that
 * names the job itself is refused, one that closes a cycle too, as Slurm
 * does. */
static int update_dependency(struct ctld *c, struct job *j, const char *text, int64_t now)
{
	struct dep_list l = {0};
	if (*text && dep_parse(text, &l) < 0)
		return DRV_RC_DEPENDENCY;
	for (uint32_t i = 0; i < l.n; i++) /* itself, or a job ctld does not hold */
		if (l.items[i].job_id == j->id ||
		    (l.items[i].job_id && !job_table_find(&c->jobs, l.items[i].job_id))) {
			dep_list_free(&l);
			return DRV_RC_DEPENDENCY;
		}
	if (depend_circular(c, j->id, &l)) {
		dep_list_free(&l);
		return DRV_RC_CIRCULAR_DEPENDENCY;
	}
	char *copy = *text ? strdup(text) : NULL;
	if (*text && !copy) {
		dep_list_free(&l);
		return DRV_RC_ERROR;
	}
	dep_list_free(&j->req.deps);
	j->req.deps = l;
	free(j->req.dependency);
	j->req.dependency = copy;
	if (l.n)
		j->eligible_time = 0;
	else if (!j->eligible_time && j->hold == HOLD_NONE)
		j->eligible_time = now > j->req.begin_time ? now : j->req.begin_time;
	if (j->hold == HOLD_NONE)
		j->reason = l.n ? "Dependency" : "None";
	return 0;
}

/* StartTime=: the begin time; Slurm shows it as EligibleTime at once. */
static void update_begin(struct job *j, int64_t begin, int64_t now)
{
	j->req.begin_time = begin > now ? begin : 0;
	if (!j->req.deps.n)
		j->eligible_time = begin > now ? begin : now;
	if (j->hold == HOLD_NONE)
		j->reason = begin > now ? "BeginTime" : "None";
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
	json_t *dep = json_object_get(r->body, "dependency");
	json_t *begin = json_object_get(r->body, "begin");
	json_t *limit = json_object_get(r->body, "time_limit");
	json_t *part = json_object_get(r->body, "partition");
	json_t *nice = json_object_get(r->body, "nice");
	if (job_state_final(j->state))
		return DRV_RC_JOB_FINISHED;
	if (j->state != JOB_PENDING)
		return DRV_RC_JOB_NOT_PENDING;
	if (nice && json_integer_value(nice) < 0 && !rpc_is_admin(r))
		return DRV_RC_ACCESS_DENIED;
	if (part && ctld_part_index(r->c, json_string_value(part)) < 0)
		return DRV_RC_INVALID_PARTITION;
	if (dep) {
		int rc = update_dependency(r->c, j, json_string_value(dep), now);
		if (rc)
			return rc;
	}
	if (begin)
		update_begin(j, json_integer_value(begin), now);
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
