/* job_codec.c — a job as JSON: the protocol's job record for clients and the
 * store record recovery reads back. Field names are those of
 * docs/protocol.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "ctld/ctld.h"
#include "ctld/job.h"
#include "ctld/step.h"
#include "ctld/job_fields.h"
#include "ctld/job_req.h"
#include "ctld/job_tres.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *job_to_store(const struct job *j, char *const *node_names)
{
	json_t *r = job_to_record(j);
	json_object_set_new(r, "submit_dir",
			    json_string(j->submit_dir ? j->submit_dir
					: j->workdir  ? j->workdir
						      : ""));
	json_object_set_new(r, "export", str_or_null(j->export_env));
	json_object_set_new(r, "launch_acked", json_boolean(j->launch_acked));
	json_object_set_new(r, "completing", json_boolean(j->completing));
	json_object_set_new(r, "prolog_pending", json_boolean(j->prolog_pending));
	json_t *alloc = json_array();
	for (uint32_t i = 0; i < j->n_alloc && node_names; i++) {
		const struct job_alloc *a = &j->alloc[i];
		json_array_append_new(
		    alloc,
		    json_pack("{s:s,s:I,s:I,s:I,s:I}", "node", node_names[a->node],
			      "cpus", (json_int_t)a->cpus, "tasks", (json_int_t)a->tasks,
			      "mem", (json_int_t)a->mem, "gpus", (json_int_t)a->gpus));
	}
	json_object_set_new(r, "alloc", alloc);
	json_object_set_new(r, "alloc_cpus_total", json_integer(j->alloc_cpus_total));
	/* the record shows 0 while held; recovery needs the real one */
	json_object_set_new(r, "base_priority", json_integer((json_int_t)j->priority));
	json_object_set_new(r, "req", job_req_to_json(&j->req));
	job_array_to_store(j, r);
	json_object_set_new(r, "interactive", json_boolean(j->interactive));
	json_object_set_new(r, "next_step_id", json_integer(j->next_step_id));
	json_object_set_new(r, "steps", steps_to_json(j, true));
	return r;
}

static char *get_str(json_t *rec, const char *key)
{
	const char *s = json_string_value(json_object_get(rec, key));
	return s ? strdup(s) : NULL;
}

static int64_t get_int(json_t *rec, const char *key)
{
	return json_integer_value(json_object_get(rec, key));
}

static void decode_strings(struct job *j, json_t *rec)
{
	j->name = get_str(rec, "name");
	j->user = get_str(rec, "user");
	j->partition = get_str(rec, "partition");
	j->workdir = get_str(rec, "workdir");
	j->submit_dir = get_str(rec, "submit_dir");
	j->stdout_pat = get_str(rec, "stdout");
	j->stderr_pat = get_str(rec, "stderr");
	j->comment = get_str(rec, "comment");
	j->submit_host = get_str(rec, "submit_host");
	j->command = get_str(rec, "command");
	j->export_env = get_str(rec, "export");
	j->nodelist = get_str(rec, "nodelist");
	j->batch_host = get_str(rec, "batch_host");
	j->tasks_per_node = get_str(rec, "tasks_per_node");
	j->cpus_per_node = get_str(rec, "cpus_per_node");
	j->alloc_gpus = get_str(rec, "alloc_gpus");
	j->req_tres = get_str(rec, "req_tres");
	j->alloc_tres = get_str(rec, "alloc_tres");
}

json_t *job_id_body(uint32_t id)
{
	return json_pack("{s:I}", "job_id", (json_int_t)id);
}

struct job *job_from_store(json_t *rec, json_t **alloc_names)
{
	int state =
	    job_state_parse(json_string_value(json_object_get(rec, "state")) ?: "");
	if (!json_is_object(rec) || state < 0 || get_int(rec, "job_id") <= 0)
		return NULL;
	struct job *j = job_new();
	if (!j)
		return NULL;
	j->id = (uint32_t)get_int(rec, "job_id");
	j->state = (enum job_state)state;
	decode_strings(j, rec);
	j->uid = (uid_t)get_int(rec, "uid");
	j->gid = (gid_t)get_int(rec, "gid");
	j->num_nodes = (uint32_t)get_int(rec, "num_nodes");
	j->time_limit = get_int(rec, "time_limit");
	j->submit_time = get_int(rec, "submit_time");
	j->eligible_time = get_int(rec, "eligible_time");
	/* a pending job's record shows its begin time as start_time */
	j->start_time = state == JOB_PENDING ? 0 : get_int(rec, "start_time");
	j->end_time = get_int(rec, "end_time");
	j->exit_code = (int)get_int(rec, "exit_code");
	j->exit_signal = (int)get_int(rec, "exit_signal");
	j->priority = (uint64_t)get_int(
	    rec, json_object_get(rec, "base_priority") ? "base_priority" : "priority");
	j->restart_count = (uint32_t)get_int(rec, "restart_count");
	j->cancel_uid = (uid_t)get_int(rec, "cancel_uid");
	const char *hold = json_string_value(json_object_get(rec, "hold"));
	j->hold = !hold ? HOLD_NONE : !strcmp(hold, "admin") ? HOLD_ADMIN : HOLD_USER;
	j->launch_acked = json_is_true(json_object_get(rec, "launch_acked"));
	j->completing = json_is_true(json_object_get(rec, "completing"));
	j->prolog_pending = json_is_true(json_object_get(rec, "prolog_pending"));
	j->alloc_cpus_total = (uint32_t)get_int(rec, "alloc_cpus_total");
	if (job_req_from_json(&j->req, json_object_get(rec, "req")) < 0 ||
	    job_array_from_store(j, rec) < 0) {
		job_free(j);
		return NULL;
	}
	j->interactive = json_is_true(json_object_get(rec, "interactive"));
	j->next_step_id = (uint32_t)get_int(rec, "next_step_id");
	steps_from_json(j, json_object_get(rec, "steps"));
	usage_from_json(&j->batch_usage, json_object_get(rec, "batch_usage"));
	if (!j->req_tres) /* a record from before ReqTRES was kept */
		j->req_tres = job_tres_requested(j);
	*alloc_names = json_object_get(rec, "alloc");
	return j;
}
