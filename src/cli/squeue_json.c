/* squeue_json.c — one job record as Slurm 24.11's data_parser v0.0.42
 * job_info object. Fields Drover has come from the record; the others carry
 * the values Slurm gives a job that does not use them. Times are epoch
 * seconds; time limits are minutes, as in Slurm. */
#include "cli/squeue_json.h"

#include <grp.h>
#include <stdlib.h>
#include <string.h>

#include "cli/slurm_json.h"
#include "cli/squeue_fields.h"
#include "cli/state.h"

static const char *s(const char *v)
{
	return v ? v : "";
}

static json_t *unset(void)
{
	return slurm_json_nv(false, false, 0);
}

static json_t *exit_code(int64_t rc, int64_t sig, bool ended)
{
	json_t *status = json_array();
	char name[32] = "";

	if (!ended)
		json_array_append_new(status, json_string("PENDING"));
	else if (sig > 0)
		json_array_append_new(status, json_string("SIGNALED"));
	else
		json_array_append_new(status, json_string(rc ? "ERROR" : "SUCCESS"));
	if (sig > 0 && sigabbrev_np((int)sig))
		snprintf(name, sizeof(name), "SIG%s", sigabbrev_np((int)sig));
	return json_pack("{s:o,s:o,s:{s:o,s:s}}", "status", status, "return_code",
			 ended ? slurm_json_num(rc) : unset(), "signal", "id",
			 sig > 0 ? slurm_json_num(sig) : unset(), "name", name);
}

/* "2G" (ctld's text) or MiB as a number of MiB. */
static int64_t memory_mib(const struct cli_job *j)
{
	char *end = NULL;
	int64_t v;

	if (!j->min_memory_text)
		return j->min_memory;
	v = strtoll(j->min_memory_text, &end, 10);
	switch (end ? *end : 0) {
	case 'T':
		return v * 1024 * 1024;
	case 'G':
		return v * 1024;
	default:
		return v;
	}
}

static json_t *time_limit(const struct cli_job *j)
{
	if (j->time_limit == -1)
		return slurm_json_nv(false, true, 0);
	if (j->time_limit < 0)
		return unset();
	return slurm_json_num((j->time_limit + 59) / 60);
}

static json_t *stdio(const struct cli_job *j, const char *pattern)
{
	char *p = cli_job_stdio_path(j, pattern);
	json_t *v = json_string(p ? p : "");

	free(p);
	return v;
}

static json_t *job_resources(const struct cli_job *j)
{
	if (!*j->nodelist)
		return json_object();
	return json_pack("{s:[],s:{s:I,s:[],s:s,s:b,s:[]},s:I,s:o}", "select_type",
			 "nodes", "count", (json_int_t)j->num_nodes, "select_type",
			 "list", j->nodelist, "whole", j->exclusive, "allocation", "cpus",
			 (json_int_t)j->cpus, "threads_per_core", slurm_json_num(1));
}

static const char *group_name(int64_t gid)
{
	const struct group *g = getgrgid((gid_t)gid);
	return g ? g->gr_name : "";
}

static void add(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v);
}

/* The fields up to "job_id", in v0.0.42's order. */
static void part_one(json_t *o, const struct cli_job *j, const char *cluster)
{
	bool started = sq_job_start(j) > 0 && strcmp(j->state, "PENDING");

	add(o, "account", json_string(s(j->account)));
	add(o, "accrue_time", slurm_json_num(j->eligible_time));
	add(o, "admin_comment", json_string(""));
	add(o, "allocating_node", json_string(s(j->submit_host)));
	add(o, "array_job_id", slurm_json_num(j->array_job_id > 0 ? j->array_job_id : 0));
	add(o, "array_task_id",
	    j->array_task_id >= 0 ? slurm_json_num(j->array_task_id) : unset());
	add(o, "array_max_tasks", slurm_json_num(j->array_max_tasks));
	add(o, "array_task_string", json_string(s(j->array_task_str)));
	add(o, "association_id", json_integer(0));
	add(o, "batch_features", json_string(""));
	add(o, "batch_flag", json_boolean(!j->interactive));
	add(o, "batch_host", json_string(s(j->batch_host)));
	add(o, "flags", json_array());
	add(o, "burst_buffer", json_string(""));
	add(o, "burst_buffer_state", json_string(""));
	add(o, "cluster", json_string(s(cluster)));
	add(o, "cluster_features", json_string(""));
	add(o, "command", json_string(s(j->command)));
	add(o, "comment", json_string(s(j->comment)));
	add(o, "container", json_string(""));
	add(o, "container_id", json_string(""));
	add(o, "contiguous", json_false());
	add(o, "core_spec", json_integer(0));
	add(o, "thread_spec", json_integer(0));
	add(o, "cores_per_socket", unset());
	add(o, "billable_tres",
	    started ? json_pack("{s:b,s:b,s:f}", "set", 1, "infinite", 0, "number",
				(double)j->cpus)
		    : json_pack("{s:b,s:b,s:f}", "set", 0, "infinite", 0, "number", 0.0));
	add(o, "cpus_per_task",
	    slurm_json_num(j->cpus_per_task > 0 ? j->cpus_per_task : 1));
	add(o, "cpu_frequency_minimum", unset());
	add(o, "cpu_frequency_maximum", unset());
	add(o, "cpu_frequency_governor", unset());
	add(o, "cpus_per_tres", json_string(""));
	add(o, "cron", json_string(""));
	add(o, "deadline", slurm_json_num(j->deadline));
	add(o, "delay_boot", slurm_json_num(0));
	add(o, "dependency", json_string(s(j->dependency)));
	add(o, "derived_exit_code", exit_code(0, 0, !cli_state_is_active(j->state)));
	add(o, "eligible_time", slurm_json_num(j->eligible_time));
	add(o, "end_time", slurm_json_num(sq_job_end(j) > 0 ? sq_job_end(j) : 0));
	add(o, "excluded_nodes", json_string(s(j->exc_nodes)));
	add(o, "exit_code",
	    exit_code(j->exit_code, j->exit_signal, !cli_state_is_active(j->state)));
	add(o, "extra", json_string(""));
	add(o, "failed_node", json_string(""));
	add(o, "features", json_string(s(j->features)));
	add(o, "federation_origin", json_string(""));
	add(o, "federation_siblings_active", json_string(""));
	add(o, "federation_siblings_viable", json_string(""));
	add(o, "gres_detail", json_array());
	add(o, "group_id", json_integer(j->gid));
	add(o, "group_name", json_string(group_name(j->gid)));
	add(o, "het_job_id", slurm_json_num(0));
	add(o, "het_job_id_set", json_string(""));
	add(o, "het_job_offset", slurm_json_num(0));
	add(o, "job_id", json_integer(j->job_id));
}

/* From "job_resources" to "profile". */
static void part_two(json_t *o, const struct cli_job *j)
{
	int64_t mem = memory_mib(j);

	add(o, "job_resources", job_resources(j));
	add(o, "job_size_str", json_array());
	add(o, "job_state", json_pack("[s]", j->state));
	add(o, "last_sched_evaluation",
	    slurm_json_num(sq_job_start(j) > 0 ? sq_job_start(j) : j->submit_time));
	add(o, "licenses", json_string(j->licenses ? j->licenses : ""));
	add(o, "mail_type", json_array());
	add(o, "mail_user", json_string(""));
	add(o, "max_cpus", slurm_json_num(0));
	add(o, "max_nodes", slurm_json_num(0));
	add(o, "mcs_label", json_string(""));
	add(o, "memory_per_tres", json_string(""));
	add(o, "name", json_string(s(j->name)));
	add(o, "network", json_string(""));
	add(o, "nodes", json_string(s(j->nodelist)));
	add(o, "nice", json_integer(j->nice));
	add(o, "tasks_per_core", unset());
	add(o, "tasks_per_tres", unset());
	add(o, "tasks_per_node",
	    slurm_json_num(j->ntasks_per_node > 0 ? j->ntasks_per_node : 0));
	add(o, "tasks_per_socket", unset());
	add(o, "tasks_per_board", unset());
	add(o, "cpus", slurm_json_num(j->cpus));
	add(o, "node_count", slurm_json_num(j->num_nodes));
	add(o, "tasks", slurm_json_num(j->ntasks > 0 ? j->ntasks : 1));
	add(o, "partition", json_string(s(j->partition)));
	add(o, "prefer", json_string(""));
	add(o, "memory_per_cpu", j->mem_per_cpu ? slurm_json_num(mem) : unset());
	add(o, "memory_per_node", j->mem_per_cpu ? unset() : slurm_json_num(mem));
	int64_t cpt = j->cpus_per_task > 0 ? j->cpus_per_task : 1;
	add(o, "minimum_cpus_per_node",
	    slurm_json_num(j->min_cpus > cpt ? j->min_cpus : cpt));
	add(o, "minimum_tmp_disk_per_node", slurm_json_num(j->min_tmp));
	add(o, "power", json_pack("{s:[]}", "flags"));
	add(o, "preempt_time", slurm_json_num(0));
	add(o, "preemptable_time", slurm_json_num(0));
	add(o, "pre_sus_time", slurm_json_num(0));
	add(o, "hold", json_boolean(j->hold != NULL));
	add(o, "priority", slurm_json_num(j->priority));
	add(o, "priority_by_partition", json_array());
	add(o, "profile", json_pack("[s]", "NOT_SET"));
}

/* From "qos" to the end. */
static void part_three(json_t *o, const struct cli_job *j)
{
	bool started = sq_job_start(j) > 0 && strcmp(j->state, "PENDING");
	char tres_node[64] = "";

	if (j->gres && *j->gres)
		snprintf(tres_node, sizeof(tres_node), "gres/%s", j->gres);
	add(o, "qos", json_string(s(j->qos)));
	add(o, "reboot", json_false());
	add(o, "required_nodes", json_string(s(j->req_nodes)));
	add(o, "required_switches", json_integer(0));
	add(o, "requeue", json_boolean(j->requeue));
	add(o, "resize_time", slurm_json_num(0));
	add(o, "restart_cnt", json_integer(j->restart_count));
	add(o, "resv_name", json_string(""));
	add(o, "scheduled_nodes", json_string(""));
	add(o, "selinux_context", json_string(""));
	add(o, "shared", j->exclusive ? json_pack("[s]", "none") : json_array());
	add(o, "sockets_per_board", json_integer(0));
	add(o, "sockets_per_node", unset());
	add(o, "start_time", slurm_json_num(sq_job_start(j)));
	add(o, "state_description", json_string(""));
	add(o, "state_reason", json_string(s(j->reason)));
	add(o, "standard_error", stdio(j, j->std_err ? j->std_err : j->std_out));
	add(o, "standard_input",
	    j->std_in ? stdio(j, j->std_in) : json_string("/dev/null"));
	add(o, "standard_output", stdio(j, j->std_out));
	add(o, "submit_time", slurm_json_num(j->submit_time));
	add(o, "suspend_time", slurm_json_num(0));
	add(o, "system_comment", json_string(""));
	add(o, "time_limit", time_limit(j));
	add(o, "time_minimum", slurm_json_num(j->time_min / 60));
	add(o, "threads_per_core", unset());
	add(o, "tres_bind", json_string(""));
	add(o, "tres_freq", json_string(""));
	add(o, "tres_per_job", json_string(""));
	add(o, "tres_per_node", json_string(tres_node));
	add(o, "tres_per_socket", json_string(""));
	add(o, "tres_per_task", json_string(""));
	add(o, "tres_req_str", json_string(s(j->tres)));
	add(o, "tres_alloc_str", json_string(started ? s(j->tres) : ""));
	add(o, "user_id", json_integer(j->uid));
	add(o, "user_name", json_string(s(j->user)));
	add(o, "maximum_switch_wait_time", json_integer(0));
	add(o, "wckey", json_string(""));
	add(o, "current_working_directory", json_string(s(j->workdir)));
}

json_t *sq_json_job(const struct cli_job *j, int64_t now, const char *cluster)
{
	json_t *o = json_object();

	(void)now;
	part_one(o, j, cluster);
	part_two(o, j);
	part_three(o, j);
	return o;
}

int sq_json_print(const struct cli_job *jobs, size_t n, int64_t now, int argc,
		  char **argv, const char *cluster, FILE *out)
{
	json_t *resp = json_object(), *list = json_array();
	int rc;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, sq_json_job(&jobs[i], now, cluster));
	json_object_set_new(resp, "jobs", list);
	json_object_set_new(resp, "last_backfill", slurm_json_nv(false, false, 0));
	json_object_set_new(resp, "last_update", slurm_json_num(now));
	rc = slurm_json_print(resp, argc, argv, cluster, out);
	json_decref(resp);
	return rc;
}
