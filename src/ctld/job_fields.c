/* job_fields.c — the fields of the protocol's job record (docs/protocol.md),
 * declared once: job_to_record() emits all of them, job queries that name
 * their fields get compact rows of just those (the read path of DESIGN.md). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "ctld/job.h"
#include "ctld/job_fields.h"
#include "ctld/job_req.h"
#include "ctld/job_tres.h"
#include "ctld/step.h"

enum kind {
	K_STR,	    /* char * (or const char *): "" when NULL */
	K_STR_NULL, /* char *: null when NULL */
	K_I64,
	K_U64,
	K_U32,
	K_INT,
	K_BOOL,
	K_SPECIAL, /* computed by special() */
};

enum special {
	S_STATE,
	S_HOLD,
	S_CPUS,
	S_NTASKS,
	S_CPT,
	S_NTPN,
	S_MIN_MEM,
	S_MEM_PER_CPU,
	S_GRES,
	S_GPUS,
	S_GPUS_TOTAL,
	S_EXCLUSIVE,
	S_TRES,
	S_QOS,
	S_NICE,
	S_UID,
	S_GID,
	S_CANCEL_UID,
	S_PRIORITY,
	S_REQUEUE,
	S_REASON,
	S_DEPENDENCY,
	S_START,
	S_STEPS,
	S_BATCH_USAGE,
};

struct job_field {
	const char *name;
	enum kind kind;
	size_t off;
	enum special special;
};

#define F(n, k, member)                                                                  \
	{                                                                                \
		n, k, offsetof(struct job, member), 0                                    \
	}
#define SP(n, s)                                                                         \
	{                                                                                \
		n, K_SPECIAL, 0, s                                                       \
	}

/* clang-format off */
static const struct job_field fields[] = {
	F("job_id", K_U32, id), F("name", K_STR, name), F("user", K_STR, user),
	SP("uid", S_UID), SP("gid", S_GID), F("partition", K_STR, partition),
	SP("state", S_STATE), SP("reason", S_REASON), F("num_nodes", K_U32, num_nodes),
	F("nodelist", K_STR, nodelist), F("batch_host", K_STR, batch_host),
	F("time_limit", K_I64, time_limit), F("submit_time", K_I64, submit_time),
	F("eligible_time", K_I64, eligible_time), SP("start_time", S_START),
	F("end_time", K_I64, end_time), F("exit_code", K_INT, exit_code),
	F("exit_signal", K_INT, exit_signal), F("workdir", K_STR, workdir),
	F("stdout", K_STR_NULL, stdout_pat), F("stderr", K_STR_NULL, stderr_pat),
	F("comment", K_STR_NULL, comment), SP("priority", S_PRIORITY),
	F("restart_count", K_U32, restart_count), SP("hold", S_HOLD), SP("cpus", S_CPUS),
	F("submit_host", K_STR, submit_host), F("command", K_STR, command),
	SP("cancel_uid", S_CANCEL_UID), F("account", K_STR_NULL, req.account),
	SP("qos", S_QOS), SP("nice", S_NICE), SP("ntasks", S_NTASKS),
	SP("cpus_per_task", S_CPT), SP("ntasks_per_node", S_NTPN),
	SP("min_memory", S_MIN_MEM), SP("mem_per_cpu", S_MEM_PER_CPU), SP("gres", S_GRES),
	SP("gpus", S_GPUS), SP("gpus_total", S_GPUS_TOTAL),
	F("gpu_type", K_STR_NULL, req.gpu_type), SP("exclusive", S_EXCLUSIVE),
	SP("dependency", S_DEPENDENCY), SP("tres", S_TRES),
	F("tasks_per_node", K_STR_NULL, tasks_per_node),
	F("cpus_per_node", K_STR_NULL, cpus_per_node),
	F("alloc_gpus", K_STR_NULL, alloc_gpus), F("open_mode", K_STR_NULL, req.open_mode),
	F("stdin", K_STR_NULL, req.stdin_pat), F("req_tres", K_STR, req_tres),
	F("alloc_tres", K_STR, alloc_tres), SP("requeue", S_REQUEUE),
	F("req_nodes", K_STR_NULL, req.req_nodes), F("exc_nodes", K_STR_NULL, req.exc_nodes),
	F("features", K_STR_NULL, req.features), F("min_cpus", K_U32, req.sched.min_cpus),
	F("min_tmp", K_U64, req.sched.min_tmp), F("time_min", K_I64, req.time_min),
	F("max_nodes", K_U32, req.sched.max_nodes), F("begin_time", K_I64, req.begin_time),
	F("deadline", K_I64, req.deadline),
	F("array_job_id", K_U32, array_job_id),
	F("array_task_id", K_I64, array_task_id),
	F("array_task_str", K_STR_NULL, array_task_str),
	F("array_max_tasks", K_U32, array_max_tasks),
	F("interactive", K_BOOL, interactive), SP("steps", S_STEPS),
	SP("batch_usage", S_BATCH_USAGE),
};
/* clang-format on */

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

static uint32_t job_nodes(const struct job *j)
{
	return j->n_alloc ? j->n_alloc : j->req.sched.min_nodes;
}

static json_t *gres_string(const struct job_req *q)
{
	char buf[128];
	if (!q->sched.gpus_per_node)
		return json_null();
	snprintf(buf, sizeof(buf), "gpu%s%s:%u", q->gpu_type ? ":" : "",
		 q->gpu_type ? q->gpu_type : "", q->sched.gpus_per_node);
	return json_string(buf);
}

static json_t *given_int(bool given, json_int_t v)
{
	return given ? json_integer(v) : json_null();
}

/* The computed fields that are plain numbers: true and *out set, or false.
 * Listings write these straight into their text (write_field). */
static bool special_int(const struct job *j, enum special s, int64_t *out)
{
	const struct job_req *q = &j->req;
	switch (s) {
	case S_CPUS:
		*out = job_cpus(j);
		return true;
	case S_NTASKS: /* --ntasks-per-node without -n: that many on each node */
		*out = q->sched.ntasks ? q->sched.ntasks
		       : q->sched.ntasks_per_node
			   ? q->sched.ntasks_per_node * job_nodes(j)
			   : job_nodes(j);
		return true;
	case S_GPUS:
		*out = job_gpus(j);
		return true;
	case S_NICE:
		*out = q->nice;
		return true;
	case S_UID:
		*out = j->uid;
		return true;
	case S_GID:
		*out = j->gid;
		return true;
	case S_CANCEL_UID: /* -1: ended by ctld itself, no user asked */
		*out = j->cancel_uid == (uid_t)-1 ? -1 : (int64_t)j->cancel_uid;
		return true;
	case S_START: /* Slurm: a pending job's expected start is its begin time */
		*out = j->state == JOB_PENDING && q->begin_time > j->start_time
			   ? q->begin_time
			   : j->start_time;
		return true;
	case S_PRIORITY: /* Slurm holds a job by its priority: 0 while held */
		*out = j->hold ? 0 : (int64_t)j->priority;
		return true;
	default:
		return false;
	}
}

/* The computed fields that are static or borrowed strings, else NULL. */
static const char *special_str(const struct job *j, enum special s)
{
	switch (s) {
	case S_STATE:
		return job_state_name(j->state);
	case S_QOS:
		return j->req.qos ? j->req.qos : "normal";
	case S_REASON: /* with its details while they still apply */
		return j->reason_desc && !strcmp(j->reason, JOB_REASON_REQ_NODE)
			   ? j->reason_desc
		       : j->reason ? j->reason
				   : "None";
	default:
		return NULL;
	}
}

static json_t *special(const struct job *j, enum special s)
{
	const struct job_req *q = &j->req;
	char mem[32];
	int64_t n;
	const char *str = special_str(j, s);
	if (str)
		return json_string(str);
	if (special_int(j, s, &n))
		return json_integer(n);
	switch (s) {
	case S_HOLD:
		return j->hold == HOLD_USER    ? json_string("user")
		       : j->hold == HOLD_ADMIN ? json_string("admin")
					       : json_null();
	case S_CPT:
		return given_int(q->cpt_given, q->sched.cpus_per_task);
	case S_NTPN:
		return given_int(q->sched.ntasks_per_node, q->sched.ntasks_per_node);
	case S_MIN_MEM:
		job_mem_fmt(q->mem, mem, sizeof(mem));
		return json_string(mem);
	case S_MEM_PER_CPU:
		return json_boolean(q->mem_is_per_cpu);
	case S_GRES:
		return gres_string(q);
	case S_GPUS_TOTAL:
		return given_int(q->sched.gpus_total, q->sched.gpus_total);
	case S_EXCLUSIVE:
		return json_boolean(q->sched.exclusive);
	case S_TRES: {
		char buf[256];
		job_tres_scontrol(j, buf, sizeof(buf));
		return json_string(buf);
	}
	case S_DEPENDENCY: {
		char *text = dep_format(&q->deps);
		json_t *v = text ? json_string(text) : json_null();
		free(text);
		return v;
	}
	case S_REQUEUE:
		return json_boolean(q->requeue);
	case S_STEPS:
		return steps_to_json(j, false);
	case S_BATCH_USAGE:
		return usage_to_object(&j->batch_usage);
	default:
		return json_null();
	}
}

static json_t *field_value(const struct job *j, const struct job_field *f)
{
	const char *base = (const char *)j + f->off;
	const char *str;
	switch (f->kind) {
	case K_STR:
		memcpy(&str, base, sizeof(str));
		return json_string(str ? str : "");
	case K_STR_NULL:
		memcpy(&str, base, sizeof(str));
		return str ? json_string(str) : json_null();
	case K_I64:
		return json_integer(*(const int64_t *)(const void *)base);
	case K_U64:
		return json_integer((json_int_t) * (const uint64_t *)(const void *)base);
	case K_U32:
		return json_integer(*(const uint32_t *)(const void *)base);
	case K_INT:
		return json_integer(*(const int *)(const void *)base);
	case K_BOOL:
		return json_boolean(*(const bool *)(const void *)base);
	case K_SPECIAL:
		return special(j, f->special);
	}
	return json_null();
}

json_t *job_to_record(const struct job *j)
{
	json_t *r = json_object();
	for (size_t i = 0; i < N_FIELDS; i++)
		json_object_set_new(r, fields[i].name, field_value(j, &fields[i]));
	return r;
}

const struct job_field *job_field_find(const char *name)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

json_t *job_to_row(const struct job *j, const struct job_field *const *want, size_t n)
{
	json_t *row = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(row,
				      want[i] ? field_value(j, want[i]) : json_null());
	return row;
}

/* Writes one field's value as JSON text; the common kinds directly, the
 * computed ones through their JSON value. */
static void write_field(struct drv_jw *w, const struct job *j, const struct job_field *f)
{
	const char *base = (const char *)j + f->off;
	const char *str;
	switch (f->kind) {
	case K_STR:
		memcpy(&str, base, sizeof(str));
		drv_jw_str(w, str ? str : "");
		return;
	case K_STR_NULL:
		memcpy(&str, base, sizeof(str));
		drv_jw_str(w, str);
		return;
	case K_I64:
		drv_jw_int(w, *(const int64_t *)(const void *)base);
		return;
	case K_U64:
		drv_jw_int(w, (int64_t) * (const uint64_t *)(const void *)base);
		return;
	case K_U32:
		drv_jw_int(w, *(const uint32_t *)(const void *)base);
		return;
	case K_INT:
		drv_jw_int(w, *(const int *)(const void *)base);
		return;
	case K_BOOL:
		if (*(const bool *)(const void *)base)
			drv_jw_raw(w, "true", 4);
		else
			drv_jw_raw(w, "false", 5);
		return;
	case K_SPECIAL:
		break;
	}
	int64_t n;
	if ((str = special_str(j, f->special))) {
		drv_jw_str(w, str);
		return;
	}
	if (special_int(j, f->special, &n)) {
		drv_jw_int(w, n);
		return;
	}
	json_t *v = special(j, f->special);
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	drv_jw_raw(w, text ? text : "null", text ? strlen(text) : 4);
	free(text);
	json_decref(v);
}

void job_row_write(struct drv_jw *w, const struct job *j,
		   const struct job_field *const *want, size_t n)
{
	drv_jw_lit(w, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			drv_jw_lit(w, ",");
		if (want[i])
			write_field(w, j, want[i]);
		else
			drv_jw_lit(w, "null");
	}
	drv_jw_lit(w, "]");
}
