/* sacct_json.c — sacct --json in Slurm 24.11's data_parser v0.0.42 shape.
 * Numbers that Slurm may leave unset are {"set","infinite","number"};
 * states are lists; the batch step sits in the job's "steps". Values come
 * from the same rules as the columns (sacct_values.c). */
#include "cli/sacct_json.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sacct_select.h"
#include "cli/sacct_tres.h"
#include "cli/slurm_json.h"

static json_t *num(bool set, bool infinite, int64_t n)
{
	return slurm_json_nv(set, infinite, n);
}

static json_t *cpu_time(void)
{
	return json_pack("{s:i,s:i}", "seconds", 0, "microseconds", 0);
}

static json_t *cpu_split(int64_t sec, int64_t usec)
{
	return json_pack("{s:I,s:I}", "seconds", (json_int_t)sec, "microseconds",
			 (json_int_t)usec);
}

/* A step's CPU times from its usage. As Slurm 22.05 prints them, "total"
 * adds the seconds and the microseconds apart, without carrying. */
static void step_cpu(json_t *time, const struct cli_usage *u)
{
	if (!u->has)
		return;
	int64_t us = u->user_usec % 1000000, ss = u->sys_usec % 1000000;
	json_object_set_new(time, "system", cpu_split(u->sys_usec / 1000000, ss));
	json_object_set_new(time, "user", cpu_split(u->user_usec / 1000000, us));
	json_object_set_new(
	    time, "total",
	    cpu_split(u->user_usec / 1000000 + u->sys_usec / 1000000, us + ss));
}

static json_t *exit_status(int code, int sig)
{
	const char *status = sig ? "SIGNALED" : code ? "ERROR" : "SUCCESS";
	const char *name = sig ? sigabbrev_np(sig) : NULL;
	return json_pack("{s:[s],s:o,s:{s:o,s:s}}", "status", status, "return_code",
			 num(true, false, code), "signal", "id",
			 num(sig != 0, false, sig), "name", name ? name : "");
}

static json_t *exit_code(const struct cli_job *j, bool step)
{
	int code, sig;
	sacct_exit_code(j, step, &code, &sig);
	return exit_status(code, sig);
}

/* A TRES string as a list of {type, name, id, count}. */
static json_t *tres_list(const char *tres)
{
	static const struct {
		const char *key, *type, *name;
		int id;
	} known[] = {{"cpu", "cpu", "", 1},	    {"mem", "mem", "", 2},
		     {"energy", "energy", "", 3},   {"node", "node", "", 4},
		     {"billing", "billing", "", 5}, {"gres/gpu", "gres", "gpu", 1001}};
	json_t *a = json_array();
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		double v = sacct_tres_get(tres, known[k].key);
		if (v < 0)
			continue;
		json_array_append_new(a, json_pack("{s:s,s:s,s:i,s:I}", "type",
						   known[k].type, "name", known[k].name,
						   "id", known[k].id, "count",
						   (json_int_t)v));
	}
	return a;
}

static json_t *usage_lists(void)
{
	return json_pack("{s:[],s:[],s:[],s:[]}", "max", "min", "average", "total");
}

static const char *kill_user(const char *state, int64_t uid, char *buf, size_t len)
{
	struct passwd *pw;
	if (strcmp(state, "CANCELLED") || uid < 0)
		return "";
	pw = getpwuid((uid_t)uid);
	snprintf(buf, len, "%s", pw ? pw->pw_name : "");
	if (!pw)
		snprintf(buf, len, "%lld", (long long)uid);
	return buf;
}

static json_t *batch_step(const struct cli_job *j, const struct sacct_ctx *c)
{
	char id[64], tres[SACCT_VALUE_MAX];
	bool ended = j->end_time > 0 && strcmp(j->state, "RUNNING");
	struct sacct_row r = {j, true, NULL};
	snprintf(id, sizeof(id), "%lld.batch", (long long)j->job_id);
	sacct_v_alloc_tres(&r, c, tres);
	json_t *time =
	    json_pack("{s:I,s:o,s:o,s:i,s:o,s:o,s:o}", "elapsed",
		      (json_int_t)sacct_job_elapsed(j, c->now), "end",
		      num(ended, false, j->end_time), "start",
		      num(true, false, j->start_time), "suspended", 0, "system",
		      cpu_time(), "total", cpu_time(), "user", cpu_time());
	step_cpu(time, &j->batch_usage);
	json_t *cpu =
	    json_pack("{s:{s:o,s:o},s:s}", "requested_frequency", "min",
		      num(true, false, 0), "max", num(true, false, 0), "governor", "0");
	json_t *stats = json_pack("{s:{s:i},s:{s:o}}", "CPU", "actual_frequency", 0,
				  "energy", "consumed", num(true, false, 0));
	return json_pack(
	    "{s:o,s:o,s:{s:i,s:s,s:[s]},s:{s:i},s:s,s:o,s:s,s:[s],s:o,s:{s:s,s:s},"
	    "s:{s:s},s:{s:o,s:o,s:o}}",
	    "time", time, "exit_code", exit_code(j, true), "nodes", "count", 1, "range",
	    j->batch_host, "list", j->batch_host, "tasks", "count", 1, "pid", "", "CPU",
	    cpu, "kill_request_user", "", "state", sacct_step_state(j), "statistics",
	    stats, "step", "id", id, "name", "batch", "task", "distribution", "Unknown",
	    "tres", "requested", usage_lists(), "consumed", usage_lists(), "allocated",
	    tres_list(tres));
}

/* An srun step, in the batch step's shape. */
static json_t *srun_step(const struct cli_job *j, const struct cli_step *s,
			 const struct sacct_ctx *c)
{
	char id[64], tres[SACCT_VALUE_MAX], killer[256];
	bool ended = s->end_time > 0;
	if (s->step_id == SACCT_STEP_EXTERN)
		snprintf(id, sizeof(id), "%lld.extern", (long long)j->job_id);
	else
		snprintf(id, sizeof(id), "%lld.%lld", (long long)j->job_id,
			 (long long)s->step_id);
	sacct_tres_normalize(s->alloc_tres, tres, sizeof(tres));
	json_t *time =
	    json_pack("{s:I,s:o,s:o,s:i,s:o,s:o,s:o}", "elapsed",
		      (json_int_t)sacct_srun_elapsed(s, c->now), "end",
		      num(ended, false, s->end_time), "start",
		      num(true, false, s->start_time), "suspended", 0, "system",
		      cpu_time(), "total", cpu_time(), "user", cpu_time());
	step_cpu(time, &s->usage);
	json_t *cpu =
	    json_pack("{s:{s:o,s:o},s:s}", "requested_frequency", "min",
		      num(false, false, 0), "max", num(false, false, 0), "governor", "");
	json_t *stats = json_pack("{s:{s:i},s:{s:o}}", "CPU", "actual_frequency", 0,
				  "energy", "consumed", num(true, false, 0));
	return json_pack(
	    "{s:o,s:o,s:{s:I,s:s,s:[s]},s:{s:I},s:s,s:o,s:s,s:[s],s:o,s:{s:s,s:s},"
	    "s:{s:s},s:{s:o,s:o,s:o}}",
	    "time", time, "exit_code",
	    exit_status((int)s->exit_code, (int)s->exit_signal), "nodes", "count",
	    (json_int_t)s->num_nodes, "range", s->nodelist, "list", s->nodelist, "tasks",
	    "count", (json_int_t)s->ntasks, "pid", "", "CPU", cpu, "kill_request_user",
	    kill_user(s->state, s->cancel_uid, killer, sizeof(killer)), "state", s->state,
	    "statistics", stats, "step", "id", id, "name", s->name, "task",
	    "distribution", *s->distribution ? s->distribution : "Unknown", "tres",
	    "requested", usage_lists(), "consumed", usage_lists(), "allocated",
	    tres_list(tres));
}

static json_t *job_time(const struct cli_job *j, const struct sacct_ctx *c)
{
	int64_t lim = j->time_limit;
	json_t *t = json_pack(
	    "{s:I,s:I,s:I,s:o}", "elapsed", (json_int_t)sacct_job_elapsed(j, c->now),
	    "eligible", (json_int_t)j->eligible_time, "end", (json_int_t)j->end_time,
	    "planned", num(true, false, sacct_job_reserved(j, c->now)));
	json_object_set_new(t, "start", json_integer(j->start_time));
	json_object_set_new(t, "submission", json_integer(j->submit_time));
	json_object_set_new(t, "suspended", json_integer(0));
	json_object_set_new(t, "system", cpu_time());
	json_object_set_new(t, "limit",
			    num(lim >= 0, lim < 0, lim >= 0 ? (lim + 59) / 60 : 0));
	json_object_set_new(t, "total", cpu_time());
	json_object_set_new(t, "user", cpu_time());
	return t;
}

static json_t *str_or_num(const char *name, int64_t id)
{
	char buf[32];
	if (name)
		return json_string(name);
	snprintf(buf, sizeof(buf), "%lld", (long long)id);
	return json_string(buf);
}

static json_t *group_name(int64_t gid)
{
	struct group *gr = getgrgid((gid_t)gid);
	return str_or_num(gr ? gr->gr_name : NULL, gid);
}

/* stdout/stderr/stdin as given (joined to the work dir) and expanded. */
static void job_stdio(json_t *o, const struct cli_job *j)
{
	static const char *const keys[] = {"stdin", "stdout", "stderr"};
	const char *pats[] = {j->std_in ? j->std_in : "/dev/null", j->std_out,
			      j->std_err};
	for (int k = 0; k < 3; k++) {
		char key[32],
		    *path = cli_job_stdio_path(j, pats[k] ? pats[k] : j->std_out);
		snprintf(key, sizeof(key), "%s_expanded", keys[k]);
		json_object_set_new(o, key, json_string(path ? path : ""));
		free(path);
	}
	for (int k = 0; k < 3; k++) {
		const char *p = pats[k]	     ? pats[k]
				: j->std_out ? j->std_out
					     : "slurm-%j.out";
		char *full = NULL;
		if (p[0] != '/' && asprintf(&full, "%s/%s", j->workdir, p) < 0)
			full = NULL;
		json_object_set_new(o, keys[k], json_string(full ? full : p));
		free(full);
	}
}

/* account ... flags, in v0.0.42's order. */
static json_t *job_head(const struct cli_job *j, const struct sacct_ctx *c)
{
	json_t *js =
	    json_pack("{s:s,s:{s:s,s:s,s:s},s:I}", "account",
		      j->account ? j->account : "", "comment", "administrator", "", "job",
		      j->comment ? j->comment : "", "system", "", "allocation_nodes",
		      (json_int_t)(sacct_job_started(j) ? j->num_nodes : 0));
	bool task = j->array_job_id > 0 && j->array_task_id >= 0 && !j->array_task_str;
	json_object_set_new(
	    js, "array",
	    json_pack("{s:I,s:{s:{s:{s:i}}},s:o,s:s}", "job_id",
		      (json_int_t)(j->array_job_id > 0 ? j->array_job_id : 0), "limits",
		      "max", "running", "tasks", (int)j->array_max_tasks, "task_id",
		      num(task, false, task ? j->array_task_id : 0), "task",
		      j->array_task_str ? j->array_task_str : ""));
	json_object_set_new(js, "association",
			    json_pack("{s:s,s:s,s:s,s:s,s:i}", "account",
				      j->account ? j->account : "", "cluster", c->cluster,
				      "partition", "", "user", j->user, "id", 0));
	json_object_set_new(js, "block", json_string(""));
	json_object_set_new(js, "cluster", json_string(c->cluster));
	json_object_set_new(js, "constraints",
			    json_string(j->features ? j->features : ""));
	json_object_set_new(js, "container", json_string(""));
	int dcode, dsig;
	sacct_derived_exit(j, &dcode, &dsig);
	json_object_set_new(js, "derived_exit_code", exit_status(dcode, dsig));
	json_object_set_new(js, "time", job_time(j, c));
	json_object_set_new(js, "exit_code", exit_code(j, false));
	json_object_set_new(js, "extra", json_string(""));
	json_object_set_new(js, "failed_node", json_string(""));
	json_object_set_new(
	    js, "flags",
	    sacct_job_started(j)
		? json_pack("[s,s]", "STARTED_ON_SCHEDULE", "START_RECEIVED")
		: json_pack("[s]", "START_RECEIVED"));
	return js;
}

/* group ... kill_request_user. */
static void job_middle(json_t *js, const struct cli_job *j, const struct sacct_ctx *c)
{
	char killer[256];
	struct sacct_row r = {j, false, NULL};
	char req[SACCT_VALUE_MAX];
	sacct_v_req_tres(&r, c, req);
	double mem = sacct_tres_get(req, "mem");
	json_object_set_new(js, "group", group_name(j->gid));
	json_object_set_new(
	    js, "het",
	    json_pack("{s:i,s:o}", "job_id", 0, "job_offset", num(false, false, 0)));
	json_object_set_new(js, "job_id", json_integer(j->job_id));
	json_object_set_new(js, "name", json_string(j->name));
	json_object_set_new(js, "licenses", json_string(""));
	json_object_set_new(js, "mcs", json_pack("{s:s}", "label", ""));
	json_object_set_new(
	    js, "nodes",
	    json_string(sacct_job_started(j) ? j->nodelist : "None assigned"));
	json_object_set_new(js, "partition", json_string(j->partition));
	json_object_set_new(js, "hold", json_boolean(j->hold != NULL));
	json_object_set_new(js, "priority", num(true, false, sacct_job_priority(j)));
	json_object_set_new(js, "qos", json_string(j->qos));
	json_object_set_new(js, "qosreq", json_string(j->qos));
	json_object_set_new(js, "required",
			    json_pack("{s:I,s:o,s:o}", "CPUs", (json_int_t)j->cpus,
				      "memory_per_cpu", num(j->mem_per_cpu, false, 0),
				      "memory_per_node",
				      num(mem >= 0, false, mem >= 0 ? (int64_t)mem : 0)));
	json_object_set_new(
	    js, "kill_request_user",
	    json_string(kill_user(j->state, j->cancel_uid, killer, sizeof(killer))));
}

static json_t *job_json(const struct sacct_opts *o, const struct cli_job *j,
			const struct sacct_ctx *c)
{
	char req[SACCT_VALUE_MAX], alloc[SACCT_VALUE_MAX];
	struct sacct_row r = {j, false, NULL};
	bool job_row, batch_row;
	json_t *steps = json_array(), *js = job_head(j, c);
	sacct_job_rows(o, j, &job_row, &batch_row);
	if (batch_row)
		json_array_append_new(steps, batch_step(j, c));
	struct cli_step ext;
	char tres[SACCT_VALUE_MAX];
	if (sacct_extern_step(c, j, &ext, tres) && sacct_step_row(o, j, &ext))
		json_array_append_new(steps, srun_step(j, &ext, c));
	for (size_t k = 0; k < j->n_steps; k++)
		if (sacct_step_row(o, j, &j->steps[k]))
			json_array_append_new(steps, srun_step(j, &j->steps[k], c));
	sacct_v_req_tres(&r, c, req);
	sacct_v_alloc_tres(&r, c, alloc);
	job_middle(js, j, c);
	json_object_set_new(js, "restart_cnt", json_integer(j->restart_count));
	json_object_set_new(js, "reservation",
			    json_pack("{s:i,s:s}", "id", 0, "name", ""));
	json_object_set_new(js, "script", json_string(""));
	job_stdio(js, j);
	json_object_set_new(
	    js, "state",
	    json_pack("{s:[s],s:s}", "current", j->state, "reason", sacct_job_reason(j)));
	json_object_set_new(js, "steps", steps);
	json_object_set_new(js, "submit_line", json_string(""));
	json_object_set_new(js, "tres",
			    json_pack("{s:o,s:o}", "allocated", tres_list(alloc),
				      "requested", tres_list(req)));
	json_object_set_new(js, "used_gres", json_string(""));
	json_object_set_new(js, "user", json_string(j->user));
	json_object_set_new(js, "wckey", json_pack("{s:s,s:[]}", "wckey", "", "flags"));
	json_object_set_new(js, "working_directory", json_string(j->workdir));
	return js;
}

void sacct_json_print(const struct sacct_opts *o, const struct sacct_ctx *c,
		      const struct cli_job *jobs, const bool *keep, size_t n, int argc,
		      char **argv, FILE *out)
{
	json_t *list = json_array();
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			json_array_append_new(list, job_json(o, &jobs[i], c));
	json_t *doc = json_pack("{s:o}", "jobs", list);
	slurm_json_print(doc, argc, argv, c->cluster, out);
	json_decref(doc);
}
