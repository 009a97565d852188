/* node_send.c — what ctld sends to noded: a job's launch (script and
 * environment read back from the store) and signals. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

static json_t *load_json(const char *text)
{
	json_t *v = json_loads(text ? text : "[]", 0, NULL);
	return v ? v : json_array();
}

static void set_opt_int(json_t *b, const char *key, bool given, json_int_t v)
{
	if (given)
		json_object_set_new(b, key, json_integer(v));
}

static void set_opt_str(json_t *b, const char *key, const char *v)
{
	if (v)
		json_object_set_new(b, key, json_string(v));
}

/* What the batch environment needs to say about the allocation. */
static void add_resources(json_t *b, const struct job *j)
{
	const struct job_req *q = &j->req;
	uint32_t ntasks = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		ntasks += j->alloc[i].tasks;
	json_object_set_new(b, "ntasks", json_integer(ntasks));
	/* Slurm sets SLURM_NTASKS with -n, and with --ntasks-per-node (count x nodes). */
	json_object_set_new(b, "ntasks_given",
			    json_boolean(q->ntasks_given || q->sched.ntasks_per_node));
	set_opt_int(b, "cpus_per_task", q->cpt_given, q->sched.cpus_per_task);
	set_opt_int(b, "ntasks_per_node", q->sched.ntasks_per_node,
		    q->sched.ntasks_per_node);
	set_opt_str(b, "tasks_per_node", j->tasks_per_node);
	set_opt_str(b, "job_cpus_per_node", j->cpus_per_node);
	json_object_set_new(b, "cpus_on_node", json_integer(j->alloc[0].cpus));
	set_opt_int(b, q->mem_is_per_cpu ? "mem_per_cpu" : "mem_per_node", q->mem > 0,
		    (json_int_t)q->mem);
	json_t *gpus = json_array();
	for (uint32_t g = 0; g < SCHED_MAX_GPUS; g++)
		if (j->alloc[0].gpus >> g & 1)
			json_array_append_new(gpus, json_integer(g));
	json_object_set_new(b, "gpus", gpus);
	set_opt_int(b, "gpus_total", q->sched.gpus_total, q->sched.gpus_total);
	set_opt_int(b, "gpus_per_node", q->sched.gpus_per_node, q->sched.gpus_per_node);
	set_opt_str(b, "account", q->account);
	json_object_set_new(b, "qos", json_string(q->qos ? q->qos : "normal"));
	json_object_set_new(b, "open_mode",
			    json_string(q->open_mode ? q->open_mode : "truncate"));
	set_opt_str(b, "stdin", q->stdin_pat);
	set_opt_str(b, "dependency", q->dependency);
}

/* SLURM_ARRAY_*: the task's own index and the whole array's shape. */
static void add_array(json_t *b, const struct job *j)
{
	if (!j->array_job_id || j->array_task_id < 0)
		return;
	json_object_set_new(b, "array_job_id", json_integer(j->array_job_id));
	json_object_set_new(b, "array_task_id", json_integer(j->array_task_id));
	json_object_set_new(b, "array_task_count", json_integer(j->array_count));
	json_object_set_new(b, "array_task_min", json_integer(j->array_min));
	json_object_set_new(b, "array_task_max", json_integer(j->array_max));
	json_object_set_new(b, "array_task_step", json_integer(j->array_step));
}

static json_t *launch_body(struct ctld *c, struct job *j, const char *script, json_t *env,
			   json_t *argv)
{
	json_t *b = json_object();
	json_object_set_new(b, "job_id", json_integer(j->id));
	json_object_set_new(b, "restart", json_integer(j->restart_count));
	json_object_set_new(b, "name", json_string(j->name ? j->name : ""));
	json_object_set_new(b, "user", json_string(j->user ? j->user : ""));
	json_object_set_new(b, "uid", json_integer(j->uid));
	json_object_set_new(b, "gid", json_integer(j->gid));
	json_object_set_new(b, "gids", identity_groups(j->user, j->gid));
	json_object_set_new(b, "partition", json_string(j->partition));
	json_object_set_new(b, "nodelist", json_string(j->nodelist));
	json_object_set_new(b, "num_nodes", json_integer(j->n_alloc));
	json_object_set_new(b, "workdir", json_string(j->workdir ? j->workdir : "/"));
	json_object_set_new(b, "submit_dir",
			    json_string(j->submit_dir ? j->submit_dir
					: j->workdir  ? j->workdir
						      : "/"));
	json_object_set_new(b, "stdout",
			    json_string(j->stdout_pat ? j->stdout_pat : "slurm-%j.out"));
	if (j->stderr_pat)
		json_object_set_new(b, "stderr", json_string(j->stderr_pat));
	json_object_set_new(b, "script", json_string(script));
	json_object_set_new(b, "env", env);
	json_object_set_new(b, "argv", argv);
	json_object_set_new(b, "submit_host",
			    json_string(j->submit_host ? j->submit_host : ""));
	json_object_set_new(b, "cluster", json_string(c->conf->cluster_name));
	json_object_set_new(b, "time_limit", json_integer(j->time_limit));
	json_object_set_new(b, "kill_wait", json_integer(c->conf->kill_wait));
	json_object_set_new(b, "start_time", json_integer(j->start_time));
	if (j->req.warn_signal) {
		json_object_set_new(b, "signal", json_integer(j->req.warn_signal));
		json_object_set_new(b, "signal_time", json_integer(j->req.warn_time));
		json_object_set_new(b, "signal_batch", json_boolean(j->req.warn_batch));
	}
	add_resources(b, j);
	add_array(b, j);
	return b;
}

void link_send_launch(struct ctld *c, struct job *j)
{
	struct node *n = &c->nodes.nodes[j->alloc[0].node];
	if (!n->peer) {
		log_info("job=%u launch waits for node=%s to connect", j->id,
			 n->conf->name);
		return;
	}
	char *script = NULL, *env = NULL, *argv = NULL;
	/* an array's tasks share the script its submit stored */
	uint32_t payload_id = j->array_job_id ? j->array_job_id : j->id;
	if (store_job_payload(c->store, payload_id, &script, &env, &argv) < 0) {
		log_error("job=%u has no script in the store: failing it", j->id);
		job_end(c, j, 1, 0, false, time(NULL));
		return;
	}
	json_t *body = launch_body(c, j, script, load_json(env), load_json(argv));
	free(script);
	free(env);
	free(argv);
	int64_t id = ctld_next_msg_id(c);
	json_t *req = drv_request_new("job.launch", id, body);
	peer_send(c, n->peer, req);
	json_decref(req);
	link_track_launch(c, id, j->id, j->restart_count);
	log_info("job=%u launch sent to node=%s", j->id, n->conf->name);
}

void link_send_signal(struct ctld *c, struct job *j, int sig, bool batch_only, bool kill)
{
	struct node *n = &c->nodes.nodes[j->alloc[0].node];
	if (!n->peer)
		return; /* reconciled when noded registers again */
	json_t *body = job_id_body(j->id);
	json_object_set_new(body, "signal", json_integer(sig));
	json_object_set_new(body, "batch_only", json_boolean(batch_only));
	json_object_set_new(body, "kill", json_boolean(kill));
	json_object_set_new(body, "kill_wait", json_integer(c->conf->kill_wait));
	json_t *req = drv_request_new("job.signal", ctld_next_msg_id(c), body);
	peer_send(c, n->peer, req);
	json_decref(req);
}
