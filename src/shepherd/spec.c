/* spec.c — reads the launch spec noded wrote into the job dir.
 *
 * spec.json is the job.launch body (already checked against its schema by
 * noded) plus what noded adds (node_spec: node, conf_path, cgroup, task
 * scripts). This file still checks every field it
 * hands out, since a shepherd must never act on a half-read spec. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shepherd/shepherd.h"

static const char *str_member(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "";
}

static int64_t int_member(json_t *o, const char *key, int64_t dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* Borrows the strings of array key into *out (NULL-terminated). */
static int str_array(json_t *o, const char *key, const char ***out, size_t *n)
{
	json_t *a = json_object_get(o, key);
	size_t len = json_is_array(a) ? json_array_size(a) : 0;
	const char **v = calloc(len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (s)
			v[k++] = s;
	}
	*out = v;
	*n = k;
	return 0;
}

/* "0,1,3" from the int array key (the GPU indices). */
static int int_list(json_t *o, const char *key, char **out, int64_t *n)
{
	json_t *a = json_object_get(o, key);
	size_t len = json_is_array(a) ? json_array_size(a) : 0;
	char *buf = calloc(len * 21 + 1, 1);
	if (!buf)
		return -ENOMEM;
	size_t used = 0;
	int64_t k = 0;
	for (size_t i = 0; i < len; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			continue;
		used += (size_t)sprintf(buf + used, "%s%lld", k ? "," : "",
					(long long)json_integer_value(v));
		k++;
	}
	*out = buf;
	*n = k;
	return 0;
}

/* The issue-3 fields: all optional, absent ones read as "not given". */
static void load_resources(json_t *r, struct spec *s)
{
	s->ntasks = int_member(r, "ntasks", -1);
	s->ntasks_given = json_is_true(json_object_get(r, "ntasks_given"));
	s->cpus_per_task = int_member(r, "cpus_per_task", -1);
	s->ntasks_per_node = int_member(r, "ntasks_per_node", -1);
	s->tasks_per_node = str_member(r, "tasks_per_node");
	s->job_cpus_per_node = str_member(r, "job_cpus_per_node");
	s->cpus_on_node = int_member(r, "cpus_on_node", -1);
	s->mem_per_node = int_member(r, "mem_per_node", -1);
	s->mem_per_cpu = int_member(r, "mem_per_cpu", -1);
	s->gpus_total = int_member(r, "gpus_total", -1);
	s->gpus_per_node = int_member(r, "gpus_per_node", -1);
	s->account = str_member(r, "account");
	s->qos = str_member(r, "qos");
	if (!*s->qos)
		s->qos = "normal";
	s->open_append = strcmp(str_member(r, "open_mode"), "append") == 0;
	s->stdin_pat = str_member(r, "stdin");
	s->dependency = str_member(r, "dependency");
	s->time_limit = int_member(r, "time_limit", -1);
	s->kill_wait = int_member(r, "kill_wait", 30);
	if (s->kill_wait < 0)
		s->kill_wait = 0;
	s->start_time = int_member(r, "start_time", 0);
	s->warn_signal = int_member(r, "signal", 0);
	s->warn_time = int_member(r, "signal_time", 60);
	s->warn_batch = json_is_true(json_object_get(r, "signal_batch"));
	s->array_job_id = int_member(r, "array_job_id", -1);
	s->array_task_id = int_member(r, "array_task_id", -1);
	s->array_count = int_member(r, "array_task_count", 1);
	s->array_min = int_member(r, "array_task_min", 0);
	s->array_max = int_member(r, "array_task_max", 0);
	s->array_step = int_member(r, "array_task_step", 1);
}

int spec_load(const char *dir, struct spec *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/spec.json", dir);
	json_error_t jerr;
	s->root = json_load_file(path, 0, &jerr);
	if (!json_is_object(s->root)) {
		snprintf(err, errlen, "%s: %s", path, jerr.text);
		spec_fini(s);
		return -EBADMSG;
	}
	json_t *r = s->root;
	struct drv_error derr;
	if (drv_rec_node_spec_decode(r, &s->ns, &derr) < 0) {
		snprintf(err, errlen, "%s: %s", path, derr.text);
		spec_fini(s);
		return -EBADMSG;
	}
	s->node = s->ns.node ? s->ns.node : "";
	s->conf_path = s->ns.conf_path ? s->ns.conf_path : "";
	s->task_prolog = s->ns.task_prolog ? s->ns.task_prolog : "";
	s->task_epilog = s->ns.task_epilog ? s->ns.task_epilog : "";
	s->job_id = int_member(r, "job_id", 0);
	s->restart = int_member(r, "restart", 0);
	int64_t uid = int_member(r, "uid", -1), gid = int_member(r, "gid", -1);
	s->name = str_member(r, "name");
	s->user = str_member(r, "user");
	s->partition = str_member(r, "partition");
	s->nodelist = str_member(r, "nodelist");
	s->workdir = str_member(r, "workdir");
	s->submit_dir = str_member(r, "submit_dir");
	s->stdout_pat = str_member(r, "stdout");
	s->stderr_pat = str_member(r, "stderr");
	s->script = str_member(r, "script");
	s->submit_host = str_member(r, "submit_host");
	s->cluster = str_member(r, "cluster");
	s->num_nodes = int_member(r, "num_nodes", 1);
	if (s->job_id <= 0 || uid < 0 || gid < 0 || uid > UINT32_MAX - 1 ||
	    gid > UINT32_MAX - 1 || !*s->script || !*s->workdir) {
		snprintf(err, errlen, "%s: job_id, uid, gid, script or workdir missing",
			 path);
		spec_fini(s);
		return -EBADMSG;
	}
	s->uid = (uid_t)uid;
	s->gid = (gid_t)gid;
	load_resources(r, s);
	if (str_array(r, "env", &s->env, &s->n_env) < 0 ||
	    str_array(r, "argv", &s->argv, &s->n_argv) < 0 ||
	    int_list(r, "gpus", &s->gpus, &s->n_gpus) < 0) {
		snprintf(err, errlen, "out of memory");
		spec_fini(s);
		return -ENOMEM;
	}
	return 0;
}

void spec_fini(struct spec *s)
{
	free(s->env);
	free(s->argv);
	free(s->gpus);
	json_decref(s->root);
	memset(s, 0, sizeof(*s));
}
