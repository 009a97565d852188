/* rpc_job.c — client requests about jobs: submit, query, cancel, hold and
 * release. Validation happens here; state changes go through job_state.c. */
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

static char *body_str(json_t *body, const char *key)
{
	const char *s = json_string_value(json_object_get(body, key));
	return s ? strdup(s) : NULL;
}

static char *dump_or_empty(json_t *v, const char *empty)
{
	return v ? json_dumps(v, JSON_COMPACT) : strdup(empty);
}

static const struct part *find_part(const struct ctld *c, const char *name)
{
	for (size_t i = 0; i < c->n_parts; i++)
		if ((!name && c->parts[i].conf->is_default) ||
		    (name && !strcmp(c->parts[i].conf->name, name)))
			return &c->parts[i];
	return NULL;
}

/* Local mode: jobs run as ctld's user, so only that user may submit. */
static int check_submitter(const struct rpc_req *r, char *msg, size_t len)
{
	if (r->cred.uid == r->c->owner_uid)
		return 0;
	struct passwd *pw = getpwuid(r->c->owner_uid);
	snprintf(msg, len,
		 "Access/permission denied: this local-mode cluster runs as user %s "
		 "(uid %u) and accepts jobs from that user only (you are uid %u)",
		 pw ? pw->pw_name : "?", (unsigned)r->c->owner_uid,
		 (unsigned)r->cred.uid);
	return -1;
}

static void fill_job(struct job *j, const struct rpc_req *r, const struct part *p)
{
	json_t *b = r->body;
	j->name = body_str(b, "name");
	j->user = body_str(b, "user");
	j->partition = strdup(p->conf->name);
	j->workdir = body_str(b, "workdir");
	j->submit_dir = body_str(b, "submit_dir");
	j->stdout_pat = body_str(b, "stdout");
	j->stderr_pat = body_str(b, "stderr");
	j->comment = body_str(b, "comment");
	j->submit_host = body_str(b, "submit_host");
	j->command = body_str(b, "command");
	j->export_env = body_str(b, "export");
	j->uid = r->cred.uid;
	j->gid = r->cred.gid;
	json_t *n = json_object_get(b, "nodes");
	j->num_nodes = n ? (uint32_t)json_integer_value(n) : 1;
	json_t *t = json_object_get(b, "time_limit");
	if (t)
		j->time_limit = json_integer_value(t);
	else if (p->conf->default_time != DRV_NO_VAL)
		j->time_limit = p->conf->default_time;
	else
		j->time_limit = p->conf->max_time;
	j->hold = json_is_true(json_object_get(b, "hold")) ? HOLD_USER : HOLD_NONE;
}

void rpc_job_submit(struct rpc_req *r)
{
	struct ctld *c = r->c;
	char msg[256];
	if (check_submitter(r, msg, sizeof(msg)) < 0) {
		log_warn("refused job.submit from uid %u: not the cluster's user",
			 r->cred.uid);
		rpc_reply(r, DRV_RC_ACCESS_DENIED, msg, NULL);
		return;
	}
	const char *pname = json_string_value(json_object_get(r->body, "partition"));
	const struct part *p = find_part(c, pname);
	if (!p) {
		rpc_reply(r, DRV_RC_INVALID_PARTITION,
			  drv_rc_text(DRV_RC_INVALID_PARTITION), NULL);
		return;
	}
	json_t *n = json_object_get(r->body, "nodes");
	if (n && json_integer_value(n) > (json_int_t)p->n_nodes) {
		rpc_reply(r, DRV_RC_NODE_CONFIG_UNAVAIL,
			  drv_rc_text(DRV_RC_NODE_CONFIG_UNAVAIL), NULL);
		return;
	}
	struct job *j = job_new();
	if (!j) {
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
		return;
	}
	fill_job(j, r, p);
	j->id = c->jobs.next_id++;
	commit_meta(c);
	char *env = dump_or_empty(json_object_get(r->body, "env"), "[]");
	char *argv = dump_or_empty(json_object_get(r->body, "argv"), "[]");
	commit_payload(c, j->id, json_string_value(json_object_get(r->body, "script")),
		       env, argv);
	free(env);
	free(argv);
	job_accept(c, j, time(NULL));
	rpc_reply_durable(r, 0, NULL, json_pack("{s:i}", "job_id", (json_int_t)j->id));
}

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

void rpc_job_query(struct rpc_req *r)
{
	json_t *ids = json_object_get(r->body, "job_ids");
	json_t *users = json_object_get(r->body, "users");
	json_t *states = json_object_get(r->body, "states");
	json_t *jobs = json_array();
	for (struct job *j = r->c->jobs.head; j; j = j->next) {
		if (ids && !in_int_list(ids, j->id))
			continue;
		if (users && !in_str_list(users, j->user))
			continue;
		if (states && !state_wanted(states, j))
			continue;
		json_array_append_new(jobs, job_to_record(j, r->c->nodes.names));
	}
	rpc_reply(r, 0, NULL,
		  json_pack("{s:o,s:I}", "jobs", jobs, "now", (json_int_t)time(NULL)));
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
	return job_signal(r->c, j, sig, batch);
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
