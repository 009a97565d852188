/* job_fields.c — how each field of the protocol's job record (records.schema,
 * whose names it uses) is read from a job: job_to_record() emits all of
 * them, job queries that name their fields get compact rows of just those,
 * written straight as text (the read path of DESIGN.md). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/proto_gen.h"
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
	S_LACKS,
};

/* A field of the job record (records.schema); its name is the
 * declaration's, drv_shape_rec_job.fields[idx].name. */
struct job_field {
	unsigned idx;
	enum kind kind;
	size_t off;
	enum special special;
};

#define F(n, k, member)                                                                  \
	{                                                                                \
		DRV_REC_JOB__##n, k, offsetof(struct job, member), 0                     \
	}
#define SP(n, s)                                                                         \
	{                                                                                \
		DRV_REC_JOB__##n, K_SPECIAL, 0, s                                        \
	}

/* clang-format off */
static const struct job_field fields[] = {
	F(JOB_ID, K_U32, id), F(NAME, K_STR, name), F(USER, K_STR, user),
	SP(UID, S_UID), SP(GID, S_GID), F(PARTITION, K_STR, partition),
	SP(STATE, S_STATE), SP(REASON, S_REASON), F(NUM_NODES, K_U32, num_nodes),
	F(NODELIST, K_STR, nodelist), F(BATCH_HOST, K_STR, batch_host),
	F(TIME_LIMIT, K_I64, time_limit), F(SUBMIT_TIME, K_I64, submit_time),
	F(ELIGIBLE_TIME, K_I64, eligible_time), SP(START_TIME, S_START),
	F(END_TIME, K_I64, end_time), F(EXIT_CODE, K_INT, exit_code),
	F(EXIT_SIGNAL, K_INT, exit_signal), F(WORKDIR, K_STR, workdir),
	F(STDOUT, K_STR_NULL, stdout_pat), F(STDERR, K_STR_NULL, stderr_pat),
	F(COMMENT, K_STR_NULL, comment), SP(PRIORITY, S_PRIORITY),
	F(RESTART_COUNT, K_U32, restart_count), SP(HOLD, S_HOLD), SP(CPUS, S_CPUS),
	F(SUBMIT_HOST, K_STR, submit_host), F(COMMAND, K_STR, command),
	SP(CANCEL_UID, S_CANCEL_UID), F(ACCOUNT, K_STR_NULL, req.account),
	SP(QOS, S_QOS), SP(NICE, S_NICE), SP(NTASKS, S_NTASKS),
	SP(CPUS_PER_TASK, S_CPT), SP(NTASKS_PER_NODE, S_NTPN),
	SP(MIN_MEMORY, S_MIN_MEM), SP(MEM_PER_CPU, S_MEM_PER_CPU), SP(GRES, S_GRES),
	SP(GPUS, S_GPUS), SP(GPUS_TOTAL, S_GPUS_TOTAL),
	F(GPU_TYPE, K_STR_NULL, req.gpu_type), SP(EXCLUSIVE, S_EXCLUSIVE),
	F(OVERSUBSCRIBE, K_BOOL, req.sched.oversubscribe),
	SP(DEPENDENCY, S_DEPENDENCY), SP(TRES, S_TRES),
	F(TASKS_PER_NODE, K_STR_NULL, tasks_per_node),
	F(CPUS_PER_NODE, K_STR_NULL, cpus_per_node),
	F(ALLOC_GPUS, K_STR_NULL, alloc_gpus), F(OPEN_MODE, K_STR_NULL, req.open_mode),
	F(STDIN, K_STR_NULL, req.stdin_pat), F(REQ_TRES, K_STR, req_tres),
	F(ALLOC_TRES, K_STR, alloc_tres), SP(REQUEUE, S_REQUEUE),
	F(REQ_NODES, K_STR_NULL, req.req_nodes), F(EXC_NODES, K_STR_NULL, req.exc_nodes),
	F(FEATURES, K_STR_NULL, req.features), F(MIN_CPUS, K_U32, req.sched.min_cpus),
	F(MIN_TMP, K_U64, req.sched.min_tmp), F(TIME_MIN, K_I64, req.time_min),
	F(MAX_NODES, K_U32, req.sched.max_nodes), F(BEGIN_TIME, K_I64, req.begin_time),
	F(DEADLINE, K_I64, req.deadline),
	F(ARRAY_JOB_ID, K_U32, array_job_id),
	F(ARRAY_TASK_ID, K_I64, array_task_id),
	F(ARRAY_TASK_STR, K_STR_NULL, array_task_str),
	F(ARRAY_MAX_TASKS, K_U32, array_max_tasks),
	F(INTERACTIVE, K_BOOL, interactive), F(LICENSES, K_STR_NULL, req.licenses),
	SP(STEPS, S_STEPS), F(SCHED_NODES, K_STR_NULL, plan_nodes), SP(LACKS, S_LACKS),
	SP(BATCH_USAGE, S_BATCH_USAGE),
	F(SUSPEND_TIME, K_I64, suspend_time), F(PRE_SUS_TIME, K_I64, pre_sus_time),
	F(SUSPENDED_SECS, K_I64, suspended_secs),
};
/* clang-format on */

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

static const char *field_name(const struct job_field *f)
{
	return drv_shape_rec_job.fields[f->idx].name;
}

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
	case S_START: /* a pending job's: its planned start, else its begin time */
		if (j->state != JOB_PENDING)
			*out = j->start_time;
		else
			*out =
			    j->plan_start > q->begin_time ? j->plan_start : q->begin_time;
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
		return job_record_state(j);
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

/* The TRES a job waiting for Resources lacked, by Slurm's TRES names. */
static json_t *lacks_string(uint32_t lacks)
{
	static const char *const names[SCHED_TRES_COUNT] = {
	    [SCHED_TRES_CPU] = "cpu",	      [SCHED_TRES_MEM] = "mem",
	    [SCHED_TRES_NODE] = "node",	      [SCHED_TRES_GPU] = "gres/gpu",
	    [SCHED_TRES_BILLING] = "billing",
	};
	char buf[64] = "";
	size_t len = 0;
	for (int t = 0; t < SCHED_TRES_COUNT; t++)
		if (lacks >> t & 1)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
						len ? "," : "", names[t]);
	return len ? json_string(buf) : json_null();
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
	case S_LACKS:
		return lacks_string(j->state == JOB_PENDING ? j->lacks : 0);
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
		json_object_set_new(r, field_name(&fields[i]),
				    field_value(j, &fields[i]));
	return r;
}

const struct job_field *job_field_find(const char *name)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (!strcmp(field_name(&fields[i]), name))
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
	if (f->special == S_STATE) { /* what squeue shows: COMPLETING too */
		drv_jw_str(w, job_shown_state(j));
		return;
	}
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
