/* node_link.c — the ctld end of noded's persistent link: registration and
 * pings (with reconciliation of the jobs noded reports), completions, and the
 * launches and signals ctld sends. Every frame on this link is MACed. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

/* Jobs a node stopped listing are declared lost after this many pings,
 * which leaves time for a completion already on its way. */
#define MISSING_PINGS_LIMIT 3

/* A launch sent and not yet acknowledged by noded. */
struct pending_launch {
	int64_t msg_id;
	uint32_t job_id, restart;
	struct pending_launch *next;
};

void link_track_launch(struct ctld *c, int64_t msg_id, uint32_t job_id, uint32_t restart)
{
	struct pending_launch *pl = malloc(sizeof(*pl));
	if (!pl)
		return; /* the ack is then learnt from the next ping */
	*pl = (struct pending_launch){msg_id, job_id, restart, c->pending_launches};
	c->pending_launches = pl;
}

void link_fini(struct ctld *c)
{
	while (c->pending_launches) {
		struct pending_launch *next = c->pending_launches->next;
		free(c->pending_launches);
		c->pending_launches = next;
	}
}

/* The jobs a node says it runs (node.register's and node.ping's list). */
struct job_refs {
	const struct drv_rec_job_ref *v;
	size_t n;
};

static bool reported(struct job_refs jobs, uint32_t id, uint32_t restart)
{
	for (size_t i = 0; i < jobs.n; i++)
		if (jobs.v[i].job_id == id && jobs.v[i].restart == restart)
			return true;
	return false;
}

/* Is j's batch script on n? */
static bool batch_here(const struct job *j, const struct node *n)
{
	return j->n_alloc && j->alloc[0].node == n->idx;
}

static struct job *batch_job_on(struct node *n, uint32_t id)
{
	for (uint32_t i = 0; i < n->n_jobs; i++)
		if (n->jobs[i]->id == id && batch_here(n->jobs[i], n))
			return n->jobs[i];
	return NULL;
}

static void send_to_node(struct ctld *c, struct node *n, const char *type, json_t *body,
			 int64_t *msg_id)
{
	int64_t id = ctld_next_msg_id(c);
	json_t *env = drv_request_new(type, id, body);
	if (n->peer)
		peer_send(c, n->peer, env);
	json_decref(env);
	if (msg_id)
		*msg_id = id;
}

static void kill_stray(struct ctld *c, struct node *n, uint32_t job_id)
{
	log_info("node=%s reports job=%u that should not run there: killing it",
		 n->conf->name, job_id);
	struct drv_job_signal m = {.job_id = job_id,
				   .signal = SIGKILL,
				   .kill = true,
				   .kill_wait = c->conf->kill_wait,
				   .has_kill_wait = true};
	send_to_node(c, n, "job.signal", drv_job_signal_encode(&m), NULL);
}

/* One job ctld expects on n: acknowledged, launched again, or counted as
 * missing (and ended after a few pings). Returns true when it ended. */
static bool reconcile_one(struct ctld *c, struct node *n, struct job *j,
			  struct job_refs jobs, bool at_register, int64_t now)
{
	if (reported(jobs, j->id, job_run_restart(j))) {
		j->missing_pings = 0;
		if (!j->launch_acked) {
			j->launch_acked = true;
			commit_job(c, j);
		}
		if (j->completing && at_register)
			link_send_signal(c, j, SIGKILL, false, true);
	} else if (!j->launch_acked && j->state == JOB_RUNNING && !j->prolog_pending) {
		if (at_register)
			link_send_launch(c, j);
	} else if (++j->missing_pings >= MISSING_PINGS_LIMIT) {
		log_warn("job=%u no longer reported by node=%s", j->id, n->conf->name);
		if (j->completing && j->state == JOB_PENDING)
			job_end(c, j, 0, SIGKILL, false, now); /* a requeued run */
		else if (j->completing)
			job_end(c, j, j->exit_code, SIGKILL, false, now);
		else
			job_node_fail(c, j, now);
		return true;
	}
	return false;
}

/* Jobs noded runs that ctld does not expect there are stopped; each job ctld
 * expects there is checked by reconcile_one. */
static void reconcile(struct ctld *c, struct node *n, struct job_refs jobs,
		      bool at_register, int64_t now)
{
	for (size_t i = 0; i < jobs.n; i++)
		if (!batch_job_on(n, jobs.v[i].job_id))
			kill_stray(c, n, jobs.v[i].job_id);
	for (uint32_t k = 0; k < n->n_jobs;) {
		struct job *j = n->jobs[k];
		/* an srun/salloc allocation has no batch script to report */
		if (batch_here(j, n) && !j->interactive &&
		    reconcile_one(c, n, j, jobs, at_register, now))
			continue; /* it left n->jobs: the same slot holds another */
		k++;
	}
}

void link_node_register(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_node_register *m = r->msg;
	struct node *n = node_find(&c->nodes, m->name);
	struct peer *p = peer_find(c, r->peer_id);
	if (!n || !p) {
		log_warn("refused registration of unknown node %s", m->name);
		rpc_reply(r, DRV_RC_INVALID_NODE_NAME,
			  drv_rc_text(DRV_RC_INVALID_NODE_NAME), NULL);
		return;
	}
	int64_t now = time(NULL);
	node_register(c, n, p, m, now);
	reconcile(c, n, (struct job_refs){m->jobs, m->n_jobs}, true, now);
	link_send_suspended(c, n);
	struct drv_node_register_reply reply = {.cluster = c->conf->cluster_name,
						.state = (char *)node_base_state(n),
						.drain = n->drain};
	rpc_reply(r, 0, NULL, drv_node_register_reply_encode(&reply));
}

static struct node *node_of(struct rpc_req *r)
{
	const struct drv_node_ping *m = r->msg;
	struct node *n = node_find(&r->c->nodes, m->name);
	if (n)
		n->last_seen = time(NULL);
	return n;
}

void link_node_ping(struct rpc_req *r)
{
	struct node *n = node_of(r);
	struct peer *p = peer_find(r->c, r->peer_id);
	if (!n || !p || n->peer != p) {
		/* Not registered on this link (ctld restarted?): ask noded to. */
		rpc_reply(r, DRV_RC_INVALID_NODE_NAME, "node not registered", NULL);
		return;
	}
	const struct drv_node_ping *m = r->msg;
	reconcile(r->c, n, (struct job_refs){m->jobs, m->n_jobs}, false, time(NULL));
	/* the node's state, for its HealthCheckNodeState */
	struct drv_node_ping_reply reply = {.state = (char *)node_base_state(n),
					    .drain = n->drain};
	rpc_reply(r, 0, NULL, drv_node_ping_reply_encode(&reply));
}

void link_node_drain(struct rpc_req *r)
{
	const struct drv_node_drain *m = r->msg;
	struct node *n = node_find(&r->c->nodes, m->name);
	struct peer *p = peer_find(r->c, r->peer_id);
	if (!n || !p || n->peer != p) {
		/* only a node's own noded drains it this way */
		rpc_reply(r, DRV_RC_INVALID_NODE_NAME, "node not registered", NULL);
		return;
	}
	n->last_seen = time(NULL);
	node_health_failed(r->c, n, m->reason, time(NULL));
	rpc_reply_durable(r, 0, NULL, NULL);
}

/* The batch job ended on p's node: its usage, then its end (or the
 * Prolog's failure). */
static void batch_ended(struct ctld *c, struct job *j, struct peer *p,
			const struct drv_job_complete *m)
{
	int code = m->exit_code;
	if (m->launch_failed) {
		log_error("job=%u launch failed: %s", j->id,
			  m->message ? m->message : "?");
		code = code ? code : 1;
	}
	memset(&j->batch_usage, 0, sizeof(j->batch_usage));
	if (m->has_usage) {
		usage_add(&j->batch_usage, &m->usage, p->node->conf->name);
	}
	if (m->prolog_failed) {
		node_drain(c, p->node, "Prolog error", time(NULL));
		job_prolog_failed(c, j, time(NULL));
	} else if (m->lost && j->state == JOB_RUNNING && !j->completing) {
		/* its shepherd was killed with the node's daemons (drover down,
		 * a crash): as Slurm, the run ends NODE_FAIL, requeued with
		 * --requeue */
		log_warn("job=%u: its shepherd on node=%s was lost", j->id,
			 p->node->conf->name);
		job_node_fail(c, j, time(NULL));
	} else {
		(m->oom ? job_end_oom : job_end)(c, j, code, m->signal, m->timeout,
						 time(NULL));
	}
}

void link_job_complete(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_job_complete *m = r->msg;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	struct peer *p = peer_find(c, r->peer_id);
	if (p && p->node)
		p->node->last_seen = time(NULL);
	bool ours = j && job_run_restart(j) == m->restart && p && p->node &&
		    batch_here(j, p->node);
	if (ours && (j->state == JOB_RUNNING || j->completing))
		batch_ended(c, j, p, m);
	if (ours && m->epilog_failed)
		node_drain(c, p->node, "Epilog error", time(NULL));
	/* whatever job it was: the node holds processes it cannot end */
	if (p && p->node && m->unkillable && !p->node->drain)
		node_drain(c, p->node, NODE_REASON_KILL_FAILED, time(NULL));
	/* Acknowledged once durable: noded re-sends until it hears this. */
	rpc_reply_durable(r, 0, NULL, NULL);
}

void link_reply(struct ctld *c, struct peer *p, const struct drv_rec_envelope *env)
{
	int64_t id = env->id;
	if (bcast_reply(c, env) || stat_reply(c, env))
		return;
	for (struct pending_launch **pp = &c->pending_launches; *pp; pp = &(*pp)->next) {
		struct pending_launch *pl = *pp;
		if (pl->msg_id != id)
			continue;
		*pp = pl->next;
		struct job *j = job_table_find(&c->jobs, pl->job_id);
		int rc = env->rc;
		if (j && rc == 0 && j->state == JOB_RUNNING &&
		    j->restart_count == pl->restart && !j->launch_acked) {
			j->launch_acked = true;
			commit_job(c, j);
		}
		free(pl);
		return;
	}
}

size_t link_pending_launches(const struct ctld *c)
{
	size_t n = 0;
	for (const struct pending_launch *p = c->pending_launches; p; p = p->next)
		n++;
	return n;
}
