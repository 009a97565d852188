/* job_codec.c — a job as JSON: the protocol's job record for clients and the
 * store record recovery reads back. Field names are those of
 * docs/protocol.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "ctld/job.h"
#include "ctld/job_req.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static const char *hold_name(enum job_hold h)
{
	return h == HOLD_USER ? "user" : h == HOLD_ADMIN ? "admin" : NULL;
}

/* Slurm's memory in TRES strings: 1000M, 2G, 1T. */
static void fmt_mem(uint64_t mib, char *buf, size_t len)
{
	if (mib && mib % (1024 * 1024) == 0)
		snprintf(buf, len, "%lluT", (unsigned long long)(mib / (1024 * 1024)));
	else if (mib && mib % 1024 == 0)
		snprintf(buf, len, "%lluG", (unsigned long long)(mib / 1024));
	else
		snprintf(buf, len, "%lluM", (unsigned long long)mib);
}

static uint64_t job_mem_total(const struct job *j, uint32_t cpus, uint32_t nodes)
{
	uint64_t mem = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		mem += j->alloc[i].mem;
	if (mem || j->n_alloc)
		return mem;
	return j->req.mem_is_per_cpu ? j->req.mem * cpus : j->req.mem * nodes;
}

static uint32_t job_gpus(const struct job *j, uint32_t nodes)
{
	const struct sched_req *r = &j->req.sched;
	uint32_t g = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		g += (uint32_t)__builtin_popcountll(j->alloc[i].gpus);
	if (g || j->n_alloc)
		return g;
	return r->gpus_total ? r->gpus_total : r->gpus_per_node * nodes;
}

/* TRES=cpu=4,mem=2G,node=1,billing=4,gres/gpu=2 as scontrol prints it. */
static json_t *tres_string(const struct job *j)
{
	uint32_t cpus = job_cpus(j);
	uint32_t nodes = j->n_alloc ? j->n_alloc : j->req.sched.min_nodes;
	char mem[32], buf[256];
	fmt_mem(job_mem_total(j, cpus, nodes), mem, sizeof(mem));
	int n = snprintf(buf, sizeof(buf), "cpu=%u,mem=%s,node=%u,billing=%u", cpus, mem,
			 nodes, cpus);
	uint32_t gpus = job_gpus(j, nodes);
	if (gpus && n > 0)
		snprintf(buf + n, sizeof(buf) - (size_t)n, ",gres/gpu=%u", gpus);
	return json_string(buf);
}

static json_t *gres_string(const struct job_req *q)
{
	char buf[128];
	uint32_t n = q->sched.gpus_per_node;
	if (!n)
		return json_null();
	snprintf(buf, sizeof(buf), "gpu%s%s:%u", q->gpu_type ? ":" : "",
		 q->gpu_type ? q->gpu_type : "", n);
	return json_string(buf);
}

static json_t *int_or_null(bool given, json_int_t v)
{
	return given ? json_integer(v) : json_null();
}

static void add_request_fields(json_t *r, const struct job *j)
{
	const struct job_req *q = &j->req;
	char mem[32];
	fmt_mem(q->mem, mem, sizeof(mem));
	json_object_set_new(r, "account", str_or_null(q->account));
	json_object_set_new(r, "qos", json_string(q->qos ? q->qos : "normal"));
	json_object_set_new(r, "nice", json_integer(q->nice));
	json_object_set_new(r, "ntasks",
			    json_integer(q->sched.ntasks ? q->sched.ntasks
					 : j->n_alloc	 ? j->n_alloc
							 : q->sched.min_nodes));
	json_object_set_new(r, "cpus_per_task",
			    int_or_null(q->cpt_given, q->sched.cpus_per_task));
	json_object_set_new(
	    r, "ntasks_per_node",
	    int_or_null(q->sched.ntasks_per_node, q->sched.ntasks_per_node));
	json_object_set_new(r, "min_memory", json_string(mem));
	json_object_set_new(r, "mem_per_cpu", json_boolean(q->mem_is_per_cpu));
	json_object_set_new(r, "gres", gres_string(q));
	json_object_set_new(
	    r, "gpus",
	    json_integer(job_gpus(j, j->n_alloc ? j->n_alloc : q->sched.min_nodes)));
	json_object_set_new(r, "gpus_total",
			    int_or_null(q->sched.gpus_total, q->sched.gpus_total));
	json_object_set_new(r, "gpu_type", str_or_null(q->gpu_type));
	json_object_set_new(r, "exclusive", json_boolean(q->sched.exclusive));
	json_object_set_new(r, "dependency", str_or_null(q->dependency));
	json_object_set_new(r, "tres", tres_string(j));
	json_object_set_new(r, "tasks_per_node", str_or_null(j->tasks_per_node));
	json_object_set_new(r, "cpus_per_node", str_or_null(j->cpus_per_node));
	json_object_set_new(r, "alloc_gpus", str_or_null(j->alloc_gpus));
	json_object_set_new(r, "open_mode", str_or_null(q->open_mode));
	json_object_set_new(r, "stdin", str_or_null(q->stdin_pat));
}

json_t *job_to_record(const struct job *j, char *const *node_names)
{
	json_t *r = json_object();
	json_object_set_new(r, "job_id", json_integer(j->id));
	json_object_set_new(r, "name", json_string(j->name ? j->name : ""));
	json_object_set_new(r, "user", json_string(j->user ? j->user : ""));
	json_object_set_new(r, "uid", json_integer(j->uid));
	json_object_set_new(r, "gid", json_integer(j->gid));
	json_object_set_new(r, "partition",
			    json_string(j->partition ? j->partition : ""));
	json_object_set_new(r, "state", json_string(job_state_name(j->state)));
	json_object_set_new(r, "reason", json_string(j->reason));
	json_object_set_new(r, "num_nodes", json_integer(j->num_nodes));
	json_object_set_new(r, "nodelist", json_string(j->nodelist ? j->nodelist : ""));
	json_object_set_new(r, "batch_host",
			    json_string(j->batch_host ? j->batch_host : ""));
	json_object_set_new(r, "time_limit", json_integer(j->time_limit));
	json_object_set_new(r, "submit_time", json_integer(j->submit_time));
	json_object_set_new(r, "eligible_time", json_integer(j->eligible_time));
	json_object_set_new(r, "start_time", json_integer(j->start_time));
	json_object_set_new(r, "end_time", json_integer(j->end_time));
	json_object_set_new(r, "exit_code", json_integer(j->exit_code));
	json_object_set_new(r, "exit_signal", json_integer(j->exit_signal));
	json_object_set_new(r, "workdir", json_string(j->workdir ? j->workdir : ""));
	json_object_set_new(r, "stdout", str_or_null(j->stdout_pat));
	json_object_set_new(r, "stderr", str_or_null(j->stderr_pat));
	json_object_set_new(r, "comment", str_or_null(j->comment));
	json_object_set_new(r, "priority", json_integer((json_int_t)j->priority));
	json_object_set_new(r, "restart_count", json_integer(j->restart_count));
	json_object_set_new(r, "hold", str_or_null(hold_name(j->hold)));
	json_object_set_new(r, "cpus", json_integer(job_cpus(j)));
	json_object_set_new(r, "submit_host",
			    json_string(j->submit_host ? j->submit_host : ""));
	json_object_set_new(r, "command", json_string(j->command ? j->command : ""));
	json_object_set_new(r, "cancel_uid", json_integer(j->cancel_uid));
	add_request_fields(r, j);
	return r;
}

json_t *job_to_store(const struct job *j, char *const *node_names)
{
	json_t *r = job_to_record(j, node_names);
	json_object_set_new(r, "submit_dir",
			    json_string(j->submit_dir ? j->submit_dir : ""));
	json_object_set_new(r, "export", str_or_null(j->export_env));
	json_object_set_new(r, "launch_acked", json_boolean(j->launch_acked));
	json_object_set_new(r, "completing", json_boolean(j->completing));
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
	json_object_set_new(r, "req", job_req_to_json(&j->req));
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
	j->start_time = get_int(rec, "start_time");
	j->end_time = get_int(rec, "end_time");
	j->exit_code = (int)get_int(rec, "exit_code");
	j->exit_signal = (int)get_int(rec, "exit_signal");
	j->priority = (uint64_t)get_int(rec, "priority");
	j->restart_count = (uint32_t)get_int(rec, "restart_count");
	j->cancel_uid = (uid_t)get_int(rec, "cancel_uid");
	const char *hold = json_string_value(json_object_get(rec, "hold"));
	j->hold = !hold ? HOLD_NONE : !strcmp(hold, "admin") ? HOLD_ADMIN : HOLD_USER;
	j->launch_acked = json_is_true(json_object_get(rec, "launch_acked"));
	j->completing = json_is_true(json_object_get(rec, "completing"));
	j->alloc_cpus_total = (uint32_t)get_int(rec, "alloc_cpus_total");
	if (job_req_from_json(&j->req, json_object_get(rec, "req")) < 0) {
		job_free(j);
		return NULL;
	}
	*alloc_names = json_object_get(rec, "alloc");
	return j;
}
