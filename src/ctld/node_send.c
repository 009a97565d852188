/* node_send.c — what ctld sends to noded: a job's launch (script and
 * environment read back from the store) and signals. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cpuset.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

/* The strings of a stored JSON array (borrowed from it; the array itself
 * is the caller's to free). */
static const char **load_strs(json_t *a, size_t *n)
{
	const char **v = calloc(json_array_size(a) + 1, sizeof(*v));
	if (!v)
		abort();
	*n = 0;
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) if (json_is_string(x)) v[(*n)++] =
	    json_string_value(x);
	return v;
}

/* What the batch environment needs to say about the allocation; gpus is
 * room for DRV_MAX_NODE_GPUS indices. */
static void add_resources(struct drv_job_launch *b, const struct job *j, uint32_t *gpus)
{
	const struct job_req *q = &j->req;
	b->has_ntasks = true;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		b->ntasks += j->alloc[i].tasks;
	/* Slurm sets SLURM_NTASKS with -n, and with --ntasks-per-node (count x nodes). */
	b->ntasks_given = q->ntasks_given || q->sched.ntasks_per_node;
	b->has_cpus_per_task = q->cpt_given;
	b->cpus_per_task = q->sched.cpus_per_task;
	b->has_ntasks_per_node = q->sched.ntasks_per_node != 0;
	b->ntasks_per_node = q->sched.ntasks_per_node;
	b->tasks_per_node = j->tasks_per_node;
	b->job_cpus_per_node = j->cpus_per_node;
	b->has_cpus_on_node = true;
	b->cpus_on_node = j->alloc[0].cpus;
	if (q->mem_is_per_cpu) {
		b->has_mem_per_cpu = q->mem > 0;
		b->mem_per_cpu = (int64_t)q->mem;
	} else {
		b->has_mem_per_node = q->mem > 0;
		b->mem_per_node = (int64_t)q->mem;
	}
	for (uint32_t g = 0; g < DRV_MAX_NODE_GPUS; g++)
		if (j->alloc[0].gpus >> g & 1)
			gpus[b->n_gpus++] = g;
	b->gpus = gpus;
	b->has_gpus_total = q->sched.gpus_total != 0;
	b->gpus_total = q->sched.gpus_total;
	b->has_gpus_per_node = q->sched.gpus_per_node != 0;
	b->gpus_per_node = q->sched.gpus_per_node;
	b->account = q->account;
	b->qos = q->qos ? q->qos : "normal";
	b->open_mode = q->open_mode ? q->open_mode : "truncate";
	b->stdin = q->stdin_pat;
	b->dependency = q->dependency;
}

/* SLURM_ARRAY_*: the task's own index and the whole array's shape. */
static void add_array(struct drv_job_launch *b, const struct job *j)
{
	if (!j->array_job_id || j->array_task_id < 0)
		return;
	b->has_array_job_id = b->has_array_task_id = b->has_array_task_count = true;
	b->has_array_task_min = b->has_array_task_max = b->has_array_task_step = true;
	b->array_job_id = j->array_job_id;
	b->array_task_id = (uint32_t)j->array_task_id;
	b->array_task_count = j->array_count;
	b->array_task_min = j->array_min;
	b->array_task_max = j->array_max;
	b->array_task_step = j->array_step;
}

/* The job's own fields; script, env and argv are set by the caller. */
static void launch_fields(struct ctld *c, const struct job *j, struct drv_job_launch *b)
{
	b->job_id = j->id;
	b->restart = j->restart_count;
	b->name = j->name ? j->name : "";
	b->user = j->user ? j->user : "";
	b->uid = j->uid;
	b->gid = j->gid;
	b->has_gids = true;
	b->gids = identity_groups(j->user, j->gid, &b->n_gids);
	b->partition = j->partition;
	b->nodelist = j->nodelist;
	b->num_nodes = j->n_alloc;
	b->workdir = j->workdir ? j->workdir : "/";
	b->submit_dir = j->submit_dir ? j->submit_dir : b->workdir;
	b->stdout = j->stdout_pat ? j->stdout_pat : "slurm-%j.out";
	b->stderr = j->stderr_pat;
	b->submit_host = j->submit_host ? j->submit_host : "";
	b->cluster = c->conf->cluster_name;
	b->has_time_limit = b->has_kill_wait = b->has_start_time = true;
	b->time_limit = j->time_limit;
	b->kill_wait = c->conf->kill_wait;
	b->start_time = j->start_time;
	b->has_signal = b->has_signal_time = j->req.warn_signal != 0;
	b->signal = j->req.warn_signal;
	b->signal_time = j->req.warn_time;
	b->signal_batch = j->req.warn_batch;
}

static json_t *launch_body(struct ctld *c, struct job *j, const char *script,
			   const char *env_text, const char *argv_text)
{
	json_t *env = json_loads(env_text ? env_text : "[]", 0, NULL);
	json_t *argv = json_loads(argv_text ? argv_text : "[]", 0, NULL);
	uint32_t gpus[DRV_MAX_NODE_GPUS];
	struct drv_job_launch b = {.script = script};
	launch_fields(c, j, &b);
	/* the CPUs the scheduler chose on the batch node: its job cgroup's */
	char cpu_ids[4096] = "";
	const struct job_alloc *a = &j->alloc[0];
	if (a->cpu_ids &&
	    drv_cpuset_format(a->cpu_ids, a->cpu_bits, cpu_ids, sizeof(cpu_ids)) <
		sizeof(cpu_ids) &&
	    cpu_ids[0])
		b.cpu_ids = cpu_ids;
	b.env = load_strs(env, &b.n_env);
	b.argv = load_strs(argv, &b.n_argv);
	add_resources(&b, j, gpus);
	add_array(&b, j);
	json_t *body = drv_job_launch_encode(&b);
	free(b.gids);
	free(b.env);
	free(b.argv);
	json_decref(env);
	json_decref(argv);
	return body;
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
	json_t *body = launch_body(c, j, script, env, argv);
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
	link_send_signal_why(c, j, sig, batch_only, kill, NULL);
}

void link_send_signal_why(struct ctld *c, struct job *j, int sig, bool batch_only,
			  bool kill, const char *reason)
{
	struct node *n = &c->nodes.nodes[j->alloc[0].node];
	if (!n->peer)
		return; /* reconciled when noded registers again */
	struct drv_job_signal m = {.job_id = j->id,
				   .signal = sig,
				   .batch_only = batch_only,
				   .kill = kill,
				   .kill_wait = c->conf->kill_wait,
				   .has_kill_wait = true,
				   .reason = reason};
	json_t *req =
	    drv_request_new("job.signal", ctld_next_msg_id(c), drv_job_signal_encode(&m));
	peer_send(c, n->peer, req);
	json_decref(req);
}

static void send_freeze(struct ctld *c, const struct job *j, struct node *n, bool thaw)
{
	if (!n->peer)
		return; /* it gets it when it registers (link_send_suspended) */
	struct drv_job_freeze m = {
	    .job_id = j->id, .thaw = thaw, .anomaly_cleared = thaw && j->anomaly_cleared};
	json_t *req =
	    drv_request_new("job.freeze", ctld_next_msg_id(c), drv_job_freeze_encode(&m));
	peer_send(c, n->peer, req);
	json_decref(req);
}

void link_send_freeze(struct ctld *c, struct job *j, bool thaw)
{
	for (uint32_t i = 0; i < j->n_alloc; i++)
		send_freeze(c, j, &c->nodes.nodes[j->alloc[i].node], thaw);
	log_info("job=%u %s sent to its %u node(s)", j->id, thaw ? "thaw" : "freeze",
		 j->n_alloc);
}

void link_send_suspended(struct ctld *c, struct node *n)
{
	for (uint32_t k = 0; k < n->n_jobs; k++) {
		const struct job *j = n->jobs[k];
		/* a job resumed since it was suspended gets its thaw again */
		if (j->state == JOB_RUNNING && !j->completing && j->suspend_time > 0)
			send_freeze(c, j, n, !j->suspended);
	}
}

int link_send_notify(struct ctld *c, struct job *j, const char *message)
{
	struct node *n = &c->nodes.nodes[j->alloc[0].node];
	if (!n->peer)
		return DRV_RC_DISABLED;
	struct drv_job_notify m = {.job_id = j->id, .message = (char *)message};
	json_t *req =
	    drv_request_new("job.notify", ctld_next_msg_id(c), drv_job_notify_encode(&m));
	int rc = peer_send(c, n->peer, req);
	json_decref(req);
	log_info("job=%u notify sent to node=%s", j->id, n->conf->name);
	return rc < 0 ? DRV_RC_DISABLED : 0;
}
