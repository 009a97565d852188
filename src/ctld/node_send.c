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
	return b;
}

void link_send_launch(struct ctld *c, struct job *j)
{
	struct node *n = &c->nodes.nodes[j->alloc[0]];
	if (!n->peer) {
		log_info("job=%u launch waits for node=%s to connect", j->id,
			 n->conf->name);
		return;
	}
	char *script = NULL, *env = NULL, *argv = NULL;
	if (store_job_payload(c->store, j->id, &script, &env, &argv) < 0) {
		log_error("job=%u has no script in the store: failing it", j->id);
		job_end(c, j, 1, 0, time(NULL));
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
	struct node *n = &c->nodes.nodes[j->alloc[0]];
	if (!n->peer)
		return; /* reconciled when noded registers again */
	json_t *body = json_pack("{s:i,s:i,s:b,s:b,s:i}", "job_id", (int)j->id, "signal",
				 sig, "batch_only", batch_only, "kill", kill, "kill_wait",
				 c->conf->kill_wait);
	json_t *req = drv_request_new("job.signal", ctld_next_msg_id(c), body);
	peer_send(c, n->peer, req);
	json_decref(req);
}
