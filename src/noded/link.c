/* link.c — the one persistent connection to ctld.
 *
 * Dials ctld, registers (node.register with the jobs this node holds),
 * heartbeats (node.ping), answers ctld's requests (job.launch, job.signal)
 * and delivers job.complete until ctld acknowledges each one. When the
 * connection fails or closes it dials again with a backoff of 200 ms
 * doubling to 2 s, trying each SlurmctldHost in turn. Every frame is MACed
 * with the cluster key, and only MACed frames are obeyed. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/kill_why.h"
#include "common/log.h"
#include "common/net.h"
#include "common/proto.h"
#include "noded/noded.h"

#define BACKOFF_MIN_MS 200
#define BACKOFF_MAX_MS 2000
#define REGISTER_TIMEOUT_S 10
#define COMPLETE_RESEND_S 2

static void link_connect(struct noded *nd);
static void send_register(struct noded *nd);

static void arm(struct event *ev, int ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
	event_add(ev, &tv);
}

static void schedule_reconnect(struct noded *nd)
{
	arm(nd->reconnect_ev, nd->backoff_ms);
	nd->backoff_ms *= 2;
	if (nd->backoff_ms > BACKOFF_MAX_MS)
		nd->backoff_ms = BACKOFF_MAX_MS;
}

/* Forgets the connection (its close callback has fired or will not). */
static void link_lost(struct noded *nd)
{
	nd->conn = NULL;
	nd->registered = false;
	nd->register_id = 0;
	event_del(nd->ping_ev);
	event_del(nd->register_timeout_ev);
	for (struct noded_job *j = nd->jobs; j; j = j->next)
		j->complete_id = 0; /* resend on the next connection */
	steps_link_lost(nd);
	schedule_reconnect(nd);
}

int link_send_request(struct noded *nd, const char *type, json_t *body, int64_t *id)
{
	if (!nd->conn) {
		json_decref(body);
		return -ENOTCONN;
	}
	int64_t rid = nd->next_id++;
	json_t *env = drv_request_new(type, rid, body);
	if (!env)
		return -ENOMEM;
	int rc = drv_conn_send(nd->conn, env, true);
	json_decref(env);
	if (rc < 0)
		log_warn("cannot send %s to ctld: %s", type, strerror(-rc));
	else if (id)
		*id = rid;
	return rc;
}

static void send_complete(struct noded *nd, struct noded_job *job)
{
	struct drv_job_complete m = {
	    .job_id = (uint32_t)job->job_id,
	    .restart = (uint32_t)job->restart,
	    .exit_code = job->exit_code & 0xff,
	    .signal = job->sig & 0x7f,
	    .launch_failed = job->launch_failed,
	    .timeout = job->timeout,
	    .message = job->message,
	    .prolog_failed = job->prolog_failed,
	    .epilog_failed = job->epilog_failed,
	    .usage = job->usage,
	    .has_usage = job->has_usage,
	    .oom = job->oom,
	    .lost = job->lost,
	    .unkillable = job->unkillable,
	};
	json_t *body = drv_job_complete_encode(&m);
	if (!body)
		return;
	if (link_send_request(nd, "job.complete", body, &job->complete_id) == 0) {
		job->complete_at = jobs_now();
		log_debug("job=%lld job.complete sent", (long long)job->job_id);
	}
}

void link_send_completions(struct noded *nd)
{
	if (!nd->registered)
		return;
	int64_t now = jobs_now();
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		if (j->phase != JOB_DONE || launch_epilog_pending(nd, j))
			continue;
		if (j->complete_id == 0 || now - j->complete_at >= COMPLETE_RESEND_S)
			send_complete(nd, j);
	}
}

/* ctld committed the job's end (or does not want it): drop the job. */
static void complete_acked(struct noded *nd, struct noded_job *job, int rc,
			   const char *error)
{
	if (rc != 0 && rc != DRV_RC_INVALID_JOB_ID && rc != DRV_RC_ALREADY_DONE) {
		log_warn("job=%lld job.complete refused (rc %d: %s); will resend",
			 (long long)job->job_id, rc, error ? error : "");
		return;
	}
	if (rc != 0)
		log_warn("job=%lld ctld has no use for its end (rc %d: %s); dropping it",
			 (long long)job->job_id, rc, error ? error : "");
	char dir[PATH_MAX];
	if (job->has_dir && spool_job_dir(nd, job->job_id, dir, sizeof(dir)) == 0)
		spool_remove_dir(dir);
	noded_cgroup_forget(nd, job->job_id);
	if (!steps_of_job(nd, job->job_id)) /* else when its last step's end is */
		noded_container_forget(nd, job->job_id);
	log_info("job=%lld end acknowledged by ctld", (long long)job->job_id);
	jobs_remove(nd, job);
}

static void register_done(struct noded *nd, int rc, const char *error, json_t *body)
{
	nd->register_id = 0;
	event_del(nd->register_timeout_ev);
	if (rc != 0) {
		log_error("ctld refused registration of node=%s: rc %d: %s", nd->name, rc,
			  error ? error : drv_rc_text(rc));
		drv_conn_free(nd->conn);
		link_lost(nd);
		return;
	}
	struct drv_node_register_reply m;
	struct drv_error err;
	bool known = body && drv_node_register_reply_decode(body, &m, &err) == 0;
	log_info("node=%s registered with ctld %s (cluster %s)", nd->name,
		 drv_conn_peer(nd->conn), known ? m.cluster : "?");
	nd->registered = true;
	nd->backoff_ms = BACKOFF_MIN_MS;
	int interval = nd->conf->slurmd_timeout / 3;
	arm(nd->ping_ev, (interval < 1 ? 1 : interval) * 1000);
	link_send_completions(nd);
	health_node_state(nd, known && m.state ? m.state : NULL, known && m.drain, true);
	if (known)
		drv_node_register_reply_free(&m);
}

/* node.ping's reply: the node's state, for the health check. */
static void ping_done(struct noded *nd, json_t *body)
{
	struct drv_node_ping_reply m;
	struct drv_error err;
	if (!body || drv_node_ping_reply_decode(body, &m, &err) < 0)
		return; /* an older ctld: the state stays as it was */
	health_node_state(nd, m.state, m.drain, false);
	drv_node_ping_reply_free(&m);
}

static void handle_reply(struct noded *nd, const struct drv_rec_envelope *env)
{
	int64_t id = env->id;
	int rc = env->rc;
	const char *error = env->error;
	if (id != 0 && id == nd->register_id) {
		register_done(nd, rc, error, env->body);
		return;
	}
	if (id != 0 && id == nd->ping_id) {
		nd->ping_id = 0;
		if (rc == DRV_RC_INVALID_NODE_NAME) {
			/* ctld lost our registration (it restarted): register
			 * again on this link. */
			log_warn(
			    "ctld does not know node=%s on this link; registering again",
			    nd->name);
			nd->registered = false;
			event_del(nd->ping_ev);
			send_register(nd);
			return;
		}
		if (rc == 0) {
			ping_done(nd, env->body);
			return;
		}
	}
	if (id != 0 && steps_reply(nd, id, rc))
		return;
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		if (j->complete_id == id && id != 0) {
			complete_acked(nd, j, rc, error);
			return;
		}
	}
	if (rc != 0)
		log_warn("ctld answered request %lld with rc %d: %s", (long long)id, rc,
			 error ? error : "");
}

/* Runs ctld's request type: msg is body decoded into the type's struct;
 * launches write body itself into the spec, with its defaults filled. */
static int dispatch(struct noded *nd, const char *type, json_t *body, const void *msg,
		    json_t **reply_body, struct drv_error *err)
{
	if (strcmp(type, "job.launch") == 0) {
		drv_msg_fill_defaults(type, body);
		return launch_job(nd, msg, body, err);
	}
	if (strcmp(type, "job.signal") == 0) {
		const struct drv_job_signal *m = msg;
		/* the steps first: their lines reach srun before the batch
		 * step's end takes srun with it */
		if (m->kill) {
			suspend_thaw_for_kill(nd,
					      m->job_id); /* scancel of a suspended job */
			steps_kill_job(nd, m->job_id, (int)drv_kill_why_parse(m->reason));
		}
		int rc = signal_job(nd, m, err);
		return rc == DRV_RC_INVALID_JOB_ID ? 0
						   : rc; /* a node that only runs steps */
	}
	if (strcmp(type, "job.freeze") == 0) {
		int rc = suspend_job(nd, msg, err);
		return rc == DRV_RC_INVALID_JOB_ID ? 0 : rc; /* nothing of it here */
	}
	if (strcmp(type, "step.launch") == 0) {
		drv_msg_fill_defaults(type, body);
		return steps_launch(nd, msg, body, err);
	}
	if (strcmp(type, "step.signal") == 0)
		return steps_signal(nd, msg, err);
	if (strcmp(type, "job.notify") == 0)
		return usermsg_deliver(nd, msg, err);
	if (strcmp(type, "node.reconfigure") == 0)
		return noded_reconfigure(nd, err);
	if (strcmp(type, "bcast.write") == 0)
		return bcast_write(nd, msg, err);
	if (strcmp(type, "step.sample") == 0)
		return sample_steps(nd, msg, reply_body, err);
	drv_error_set(err, EINVAL, "%s is not a request for noded", type);
	return DRV_RC_NOT_SUPPORTED;
}

static void handle_request(struct noded *nd, struct drv_conn *c, const char *type,
			   int64_t id, json_t *body)
{
	struct drv_error err = {""};
	/* The frame was checked against its declaration when it was parsed. */
	const struct drv_msg_decl *d = drv_msg_decl_find(type);
	void *msg = d ? calloc(1, d->body->size) : NULL;
	json_t *reply_body = NULL; /* {} unless the request has a reply */
	int rc;
	if (!msg || drv_shape_decode_valid(d->body, body, msg, &err) < 0) {
		rc = DRV_RC_PROTOCOL;
		if (!msg)
			drv_error_set(&err, ENOMEM, "out of memory");
	} else {
		rc = dispatch(nd, type, body, msg, &reply_body, &err);
		drv_shape_free(d->body, msg);
	}
	free(msg);
	if (rc || !reply_body) {
		json_decref(reply_body);
		reply_body = json_object();
	}
	json_t *reply = drv_reply_new(id, rc, rc ? err.text : NULL, reply_body);
	if (reply && drv_conn_send(c, reply, true) < 0)
		log_warn("cannot reply to ctld's %s", type);
	json_decref(reply);
	/* A failed launch owes a job.complete, sent after the reply. */
	link_send_completions(nd);
}

static void on_msg(struct drv_conn *c, json_t *env_json, bool mac_ok, void *arg)
{
	struct noded *nd = arg;
	struct drv_rec_envelope env;
	struct drv_error err;
	if (drv_rec_envelope_decode(env_json, &env, &err) < 0)
		return; /* drv_envelope_parse let it through: cannot happen */
	if (!mac_ok) {
		/* Only ctld, which holds the key, may direct this node. */
		log_warn("unsigned %s from %s ignored", env.type, drv_conn_peer(c));
		return;
	}
	if (strcmp(env.type, "reply") == 0)
		handle_reply(nd, &env);
	else if (json_is_object(env.body))
		handle_request(nd, c, env.type, env.id, env.body);
}

static void on_close(struct drv_conn *c, void *arg)
{
	struct noded *nd = arg;
	if (nd->registered)
		log_warn("lost connection to ctld %s", drv_conn_peer(c));
	else
		log_debug("cannot reach ctld %s", drv_conn_peer(c));
	link_lost(nd);
}

static void send_register(struct noded *nd)
{
	struct drv_node_register m;
	resources_describe(nd, &m);
	if (jobs_list(nd, &m.jobs, &m.n_jobs) < 0)
		return;
	json_t *body = drv_node_register_encode(&m);
	free(m.jobs);
	if (body && link_send_request(nd, "node.register", body, &nd->register_id) == 0)
		arm(nd->register_timeout_ev, REGISTER_TIMEOUT_S * 1000);
}

static void link_connect(struct noded *nd)
{
	const struct drv_conf *conf = nd->conf;
	static size_t host_idx;
	if (conf->n_ctld_hosts == 0) {
		log_error("no SlurmctldHost in the config");
		return;
	}
	const struct drv_ctld_host *h =
	    &conf->ctld_hosts[host_idx++ % conf->n_ctld_hosts];
	nd->conn = drv_conn_connect(nd->base, h->addr, conf->ctld_port, &nd->keys,
				    conf->max_message_size, on_msg, on_close, nd);
	if (!nd->conn) {
		log_debug("cannot connect to %s:%d: %s", h->addr, conf->ctld_port,
			  strerror(errno));
		schedule_reconnect(nd);
		return;
	}
	send_register(nd);
}

static void on_reconnect(evutil_socket_t fd, short what, void *arg)
{
	link_connect(arg);
}

static void on_ping(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	if (!nd->registered)
		return;
	struct drv_node_ping m = {.name = nd->name};
	if (jobs_list(nd, &m.jobs, &m.n_jobs) == 0) {
		json_t *body = drv_node_ping_encode(&m);
		free(m.jobs);
		if (body)
			link_send_request(nd, "node.ping", body, &nd->ping_id);
	}
	int interval = nd->conf->slurmd_timeout / 3;
	arm(nd->ping_ev, (interval < 1 ? 1 : interval) * 1000);
}

static void on_register_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	log_warn("ctld did not answer node.register in %ds; reconnecting",
		 REGISTER_TIMEOUT_S);
	drv_conn_free(nd->conn);
	link_lost(nd);
}

int link_start(struct noded *nd)
{
	nd->next_id = 1;
	nd->backoff_ms = BACKOFF_MIN_MS;
	nd->reconnect_ev = evtimer_new(nd->base, on_reconnect, nd);
	nd->ping_ev = evtimer_new(nd->base, on_ping, nd);
	nd->register_timeout_ev = evtimer_new(nd->base, on_register_timeout, nd);
	if (!nd->reconnect_ev || !nd->ping_ev || !nd->register_timeout_ev)
		return -ENOMEM;
	link_connect(nd);
	return 0;
}

void link_stop(struct noded *nd)
{
	drv_conn_free(nd->conn);
	nd->conn = NULL;
	struct event **evs[] = {&nd->reconnect_ev, &nd->ping_ev,
				&nd->register_timeout_ev};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		if (*evs[i])
			event_free(*evs[i]);
		*evs[i] = NULL;
	}
}
