/* jobrec.c — reading a job record and the values derived from it that
 * both squeue and scontrol print. */
#include "cli/jobrec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"

enum key_type { T_STR, T_STR_NULL, T_INT, T_BOOL, T_MEM, T_USAGE };

struct key {
	const char *name;
	enum key_type type;
	size_t off;
};

#define K(n, t, m)                                                                       \
	{                                                                                \
		n, t, offsetof(struct cli_job, m)                                        \
	}

/* Every field of the protocol's job record that the commands read. */
static const struct key keys[] = {
    K("job_id", T_INT, job_id),
    K("name", T_STR, name),
    K("user", T_STR, user),
    K("partition", T_STR, partition),
    K("state", T_STR, state),
    K("reason", T_STR, reason),
    K("nodelist", T_STR, nodelist),
    K("batch_host", T_STR, batch_host),
    K("workdir", T_STR, workdir),
    K("submit_host", T_STR, submit_host),
    K("command", T_STR, command),
    K("stdout", T_STR_NULL, std_out),
    K("stderr", T_STR_NULL, std_err),
    K("comment", T_STR_NULL, comment),
    K("hold", T_STR_NULL, hold),
    K("uid", T_INT, uid),
    K("gid", T_INT, gid),
    K("num_nodes", T_INT, num_nodes),
    K("cpus", T_INT, cpus),
    K("priority", T_INT, priority),
    K("restart_count", T_INT, restart_count),
    K("time_limit", T_INT, time_limit),
    K("submit_time", T_INT, submit_time),
    K("eligible_time", T_INT, eligible_time),
    K("start_time", T_INT, start_time),
    K("end_time", T_INT, end_time),
    K("exit_code", T_INT, exit_code),
    K("exit_signal", T_INT, exit_signal),
    K("account", T_STR_NULL, account),
    K("qos", T_STR, qos),
    K("gres", T_STR_NULL, gres),
    K("dependency", T_STR_NULL, dependency),
    K("tres", T_STR_NULL, tres),
    K("stdin", T_STR_NULL, std_in),
    K("nice", T_INT, nice),
    K("ntasks", T_INT, ntasks),
    K("gpus", T_INT, gpus),
    K("cpus_per_task", T_INT, cpus_per_task),
    K("ntasks_per_node", T_INT, ntasks_per_node),
    K("min_memory", T_MEM, min_memory),
    K("mem_per_cpu", T_BOOL, mem_per_cpu),
    K("exclusive", T_BOOL, exclusive),
    K("array_job_id", T_INT, array_job_id),
    K("array_task_id", T_INT, array_task_id),
    K("array_task_str", T_STR_NULL, array_task_str),
    K("array_max_tasks", T_INT, array_max_tasks),
    K("req_tres", T_STR_NULL, req_tres),
    K("alloc_tres", T_STR_NULL, alloc_tres),
    K("cpus_per_node", T_STR_NULL, cpus_per_node),
    K("alloc_gpus", T_STR_NULL, alloc_gpus),
    K("cancel_uid", T_INT, cancel_uid),
    K("requeue", T_BOOL, requeue),
    K("interactive", T_BOOL, interactive),
    K("run_state", T_STR_NULL, run_state),
    K("req_nodes", T_STR_NULL, req_nodes),
    K("exc_nodes", T_STR_NULL, exc_nodes),
    K("features", T_STR_NULL, features),
    K("min_cpus", T_INT, min_cpus),
    K("min_tmp", T_INT, min_tmp),
    K("time_min", T_INT, time_min),
    K("max_nodes", T_INT, max_nodes),
    K("deadline", T_INT, deadline),
    K("batch_usage", T_USAGE, batch_usage),
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static void set_defaults(struct cli_job *j)
{
	memset(j, 0, sizeof(*j));
	j->name = j->user = j->partition = j->state = j->nodelist = "";
	j->batch_host = j->workdir = j->submit_host = j->command = "";
	j->reason = "None";
	j->qos = "normal";
	j->num_nodes = j->cpus = j->ntasks = 1;
	j->time_limit = j->cpus_per_task = j->ntasks_per_node = -1;
	j->array_task_id = -1;
	j->cancel_uid = -1;
	j->requeue = true;
}

/* Stores v (borrowed) into the field k describes; null keeps the default. */
static void set_value(struct cli_job *j, const struct key *k, const json_t *v)
{
	char *field = (char *)j + k->off;
	if (!v || json_is_null(v))
		return;
	if ((k->type == T_STR || k->type == T_STR_NULL) && json_is_string(v)) {
		const char *s = json_string_value(v);
		memcpy(field, &s, sizeof(s));
	} else if (k->type == T_INT && json_is_integer(v)) {
		*(int64_t *)(void *)field = json_integer_value(v);
	} else if (k->type == T_BOOL && json_is_boolean(v)) {
		*(bool *)(void *)field = json_is_true(v);
	} else if (k->type == T_USAGE) {
		cli_usage_from_json(v, &j->batch_usage);
	} else if (k->type == T_MEM) { /* "2G" as text, or MiB */
		if (json_is_string(v))
			j->min_memory_text = json_string_value(v);
		else if (json_is_integer(v))
			j->min_memory = json_integer_value(v);
	}
}

void cli_job_from_json(const json_t *o, struct cli_job *j)
{
	set_defaults(j);
	for (size_t k = 0; k < N_KEYS; k++)
		set_value(j, &keys[k], json_object_get(o, keys[k].name));
}

/* The key each column of a compact reply fills (-1: none we read). */
static int *column_keys(const json_t *fields)
{
	size_t n = json_array_size(fields);
	int *map = calloc(n ? n : 1, sizeof(*map));
	for (size_t i = 0; map && i < n; i++) {
		const char *name = json_string_value(json_array_get(fields, i));
		map[i] = -1;
		for (size_t k = 0; name && k < N_KEYS; k++)
			if (!strcmp(keys[k].name, name))
				map[i] = (int)k;
	}
	return map;
}

static const char *step_str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "";
}

static int64_t step_int(const json_t *o, const char *key, int64_t dflt)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

void cli_usage_from_json(const json_t *o, struct cli_usage *u)
{
	const char *node = json_string_value(json_object_get(o, "max_rss_node"));
	*u = (struct cli_usage){
	    .has = json_is_integer(json_object_get(o, "user_usec")),
	    .user_usec = step_int(o, "user_usec", 0),
	    .sys_usec = step_int(o, "sys_usec", 0),
	    .max_rss_kib = step_int(o, "max_rss_kib", 0),
	    .ave_rss_kib = step_int(o, "ave_rss_kib", 0),
	    .max_rss_task = step_int(o, "max_rss_task", 0),
	    .max_rss_node = node ? node : "",
	};
}

size_t cli_steps_from_json(const json_t *steps, struct cli_step *out, size_t max)
{
	size_t n = json_array_size(steps);
	for (size_t i = 0; i < n && i < max; i++) {
		const json_t *o = json_array_get(steps, i);
		out[i] = (struct cli_step){
		    .step_id = step_int(o, "step_id", (int64_t)i),
		    .name = step_str(o, "name"),
		    .state = step_str(o, "state"),
		    .nodelist = step_str(o, "nodelist"),
		    .alloc_tres = step_str(o, "alloc_tres"),
		    .tasks_per_node = step_str(o, "tasks_per_node"),
		    .distribution = step_str(o, "distribution"),
		    .exit_code = step_int(o, "exit_code", 0),
		    .exit_signal = step_int(o, "exit_signal", 0),
		    .start_time = step_int(o, "start_time", 0),
		    .end_time = step_int(o, "end_time", 0),
		    .num_nodes = step_int(o, "num_nodes", 1),
		    .ntasks = step_int(o, "ntasks", 1),
		    .cpus = step_int(o, "cpus", 1),
		    .cancel_uid = step_int(o, "cancel_uid", -1),
		};
		cli_usage_from_json(o, &out[i].usage);
	}
	return n;
}

/* The column of a compact reply that holds "steps", or -1. */
static int steps_column(const json_t *fields)
{
	for (size_t i = 0; i < json_array_size(fields); i++) {
		const char *name = json_string_value(json_array_get(fields, i));
		if (name && !strcmp(name, "steps"))
			return (int)i;
	}
	return -1;
}

static const json_t *row_steps(const json_t *row, bool compact, int col)
{
	if (!compact)
		return json_object_get(row, "steps");
	return col >= 0 ? json_array_get(row, (size_t)col) : NULL;
}

/* Where the steps start in the block of n jobs cli_jobs_from_reply
 * returns: after the jobs (and a spare one), aligned. */
static size_t steps_offset(size_t n)
{
	size_t head = (n + 1) * sizeof(struct cli_job), a = _Alignof(struct cli_step);
	return (head + a - 1) / a * a;
}

/* One block for the jobs and, after them, all their steps, so the caller
 * frees both at once. */
static struct cli_job *jobs_alloc(const json_t *list, bool compact, int col)
{
	size_t n = json_array_size(list), i, steps = 0;
	const json_t *v;
	json_array_foreach(list, i, v)
	{
		steps += json_array_size(row_steps(v, compact, col));
	}
	return calloc(1, steps_offset(n) + steps * sizeof(struct cli_step));
}

static void fill_steps(struct cli_job *jobs, size_t n, const json_t *list, bool compact,
		       int col)
{
	struct cli_step *next =
	    (struct cli_step *)(void *)((char *)jobs + steps_offset(n));
	for (size_t i = 0; i < n; i++) {
		const json_t *steps = row_steps(json_array_get(list, i), compact, col);
		size_t k = json_array_size(steps);
		if (!k)
			continue;
		cli_steps_from_json(steps, next, k);
		jobs[i].steps = next;
		jobs[i].n_steps = k;
		next += k;
	}
}

size_t cli_jobs_from_reply(const json_t *reply, struct cli_job **out)
{
	const json_t *rows = json_object_get(reply, "rows");
	const json_t *list = rows ? rows : json_object_get(reply, "jobs");
	const json_t *fields = json_object_get(reply, "fields");
	size_t n = json_array_size(list), i;
	const json_t *v;
	int *map = rows ? column_keys(fields) : NULL;
	int col = rows ? steps_column(fields) : -1;
	*out = jobs_alloc(list, rows != NULL, col);
	if (!*out || (rows && !map)) {
		free(map);
		return 0;
	}
	json_array_foreach(list, i, v)
	{
		if (!rows) {
			cli_job_from_json(v, &(*out)[i]);
			continue;
		}
		set_defaults(&(*out)[i]);
		for (size_t c = 0; c < json_array_size(v); c++)
			if (map[c] >= 0)
				set_value(&(*out)[i], &keys[map[c]],
					  json_array_get(v, c));
	}
	fill_steps(*out, n, list, rows != NULL, col);
	free(map);
	return n;
}

json_t *cli_job_fields(const char *extra)
{
	static const char *const list[] = {
	    "job_id",	  "name",	 "user",       "partition",	"state",
	    "reason",	  "nodelist",	 "num_nodes",  "cpus",		"priority",
	    "time_limit", "submit_time", "start_time", "end_time",	"account",
	    "qos",	  "gres",	 "dependency", "nice",		"ntasks",
	    "min_memory", "mem_per_cpu", "exclusive",  "cpus_per_task", "hold",
	    "exit_code",  "exit_signal"};
	json_t *a = json_array();
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		json_array_append_new(a, json_string(list[i]));
	for (const char *p = extra; p && *p;) {
		size_t len = strcspn(p, ",");
		json_array_append_new(a, json_stringn(p, len));
		p += len + (p[len] == ',');
	}
	return a;
}

void cli_mem_fmt(int64_t mib, char *buf, size_t len)
{
	if (mib > 0 && mib % (1024 * 1024) == 0)
		snprintf(buf, len, "%lldT", (long long)(mib / (1024 * 1024)));
	else if (mib > 0 && mib % 1024 == 0)
		snprintf(buf, len, "%lldG", (long long)(mib / 1024));
	else if (mib > 0)
		snprintf(buf, len, "%lldM", (long long)mib);
	else
		snprintf(buf, len, "0");
}

int64_t cli_job_elapsed(const struct cli_job *job, int64_t now)
{
	int64_t end;

	if (!strcmp(job->state, "PENDING") || job->start_time <= 0)
		return 0;
	end = (job->end_time > 0 && strcmp(job->state, "RUNNING")) ? job->end_time : now;
	return end > job->start_time ? end - job->start_time : 0;
}

/* Appends the expansion of one "%c" to f. */
static void expand_one(FILE *f, const struct cli_job *job, char c)
{
	switch (c) {
	case 'j':
		fprintf(f, "%lld", (long long)job->job_id);
		break;
	case 'A': /* the array's id; a job's own outside arrays */
		fprintf(
		    f, "%lld",
		    (long long)(job->array_job_id > 0 ? job->array_job_id : job->job_id));
		break;
	case 'a': /* Slurm prints NO_VAL - 1 outside arrays and for a pending rest */
		fprintf(f, "%lld",
			(long long)(job->array_task_id >= 0 ? job->array_task_id
							    : 4294967294LL));
		break;
	case 'x':
		fputs(job->name, f);
		break;
	case 'u':
		fputs(job->user, f);
		break;
	case '%':
		fputc('%', f);
		break;
	default:
		fputc('%', f);
		fputc(c, f);
	}
}

char *cli_job_stdio_path(const struct cli_job *job, const char *pattern)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	if (!pattern)
		pattern = "slurm-%j.out";
	if (pattern[0] != '/')
		fprintf(f, "%s/", job->workdir);
	for (const char *p = pattern; *p; p++) {
		if (*p == '%' && p[1]) {
			expand_one(f, job, *++p);
		} else {
			fputc(*p, f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
