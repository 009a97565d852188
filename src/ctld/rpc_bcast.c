/* rpc_bcast.c — sbcast through ctld: a client's bcast.block goes to every
 * node of its running job as a bcast.write (with the job's uid and gid, so
 * noded writes as the job's user), and the client hears back once every
 * node answered: which nodes failed it and with what errno. A node that does
 * not answer within BCAST_TIMEOUT_S counts as failed with ETIMEDOUT, as does
 * one whose link is down, so a client never waits forever.
 *
 * Only the job's owner or an administrator may write into a job's nodes,
 * and only while the job runs, as Slurm grants its sbcast credential. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

/* How long the nodes have to answer one block. */
#define BCAST_TIMEOUT_S 30

struct bcast_wait {
	struct ctld *c;
	uint64_t peer_id;  /* the client's connection */
	int64_t client_id; /* its request id, for the reply */
	int64_t *msg_ids;  /* one bcast.write per node; 0 once answered */
	uint32_t *nodes;   /* their node indices */
	uint32_t n, left;
	json_t *errors; /* [[node, errno]] */
	struct event *timer;
	struct bcast_wait *next;
};

static void finish(struct bcast_wait *w)
{
	struct ctld *c = w->c;
	for (struct bcast_wait **pp = &c->bcasts; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	struct rpc_req r = {.c = c, .peer_id = w->peer_id, .id = w->client_id};
	struct drv_bcast_block_reply out = {.errors = w->errors};
	rpc_reply(&r, 0, NULL, drv_bcast_block_reply_encode(&out));
	json_decref(w->errors);
	if (w->timer)
		event_free(w->timer);
	free(w->msg_ids);
	free(w->nodes);
	free(w);
}

static void node_failed(struct bcast_wait *w, uint32_t k, int err)
{
	const char *name = w->c->nodes.names[w->nodes[k]];
	json_array_append_new(w->errors, json_pack("[si]", name, err));
	w->msg_ids[k] = 0;
	w->left--;
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct bcast_wait *w = arg;
	for (uint32_t k = 0; k < w->n; k++)
		if (w->msg_ids[k])
			node_failed(w, k, ETIMEDOUT);
	log_warn("sbcast: nodes did not answer a block in time");
	finish(w);
}

bool bcast_reply(struct ctld *c, const struct drv_rec_envelope *env)
{
	for (struct bcast_wait *w = c->bcasts; w; w = w->next)
		for (uint32_t k = 0; k < w->n; k++) {
			if (w->msg_ids[k] != env->id || env->id == 0)
				continue;
			if (env->rc != 0) /* noded answers an errno (docs/protocol.md) */
				node_failed(w, k, env->rc);
			else {
				w->msg_ids[k] = 0;
				w->left--;
			}
			if (w->left == 0)
				finish(w);
			return true;
		}
	return false;
}

/* Slurm's job lookup for an sbcast credential. */
static int job_rc(const struct rpc_req *r, const struct job *j)
{
	if (!j)
		return DRV_RC_INVALID_JOB_ID;
	if (!rpc_may_run_as(r, j)) /* it writes files as the job's user */
		return DRV_RC_ACCESS_DENIED;
	if (j->state == JOB_PENDING)
		return DRV_RC_JOB_PENDING;
	if (j->state != JOB_RUNNING || j->completing || j->n_alloc == 0)
		return DRV_RC_ALREADY_DONE;
	return 0;
}

static struct bcast_wait *wait_new(struct ctld *c, const struct rpc_req *r, uint32_t n)
{
	struct bcast_wait *w = calloc(1, sizeof(*w));
	if (!w)
		abort();
	w->c = c;
	w->peer_id = r->peer_id;
	w->client_id = r->id;
	w->n = w->left = n;
	w->msg_ids = calloc(n, sizeof(*w->msg_ids));
	w->nodes = calloc(n, sizeof(*w->nodes));
	w->errors = json_array();
	if (!w->msg_ids || !w->nodes || !w->errors)
		abort();
	return w;
}

void rpc_bcast_block(struct rpc_req *r)
{
	const struct drv_bcast_block *m = r->msg;
	struct ctld *c = r->c;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	int rc = job_rc(r, j);
	if (rc == 0 && m->dest[0] != '/') { /* sbcast made it absolute */
		rpc_reply(r, DRV_RC_PROTOCOL,
			  "bcast.block: dest must be an absolute path", NULL);
		return;
	}
	if (rc != 0) {
		rpc_reply(r, rc, NULL, NULL);
		return;
	}
	struct bcast_wait *w = wait_new(c, r, j->n_alloc);
	struct drv_bcast_write b = {.job_id = j->id,
				    .uid = j->uid,
				    .gid = j->gid,
				    .dest = m->dest,
				    .block = m->block,
				    .last = m->last,
				    .abort = m->abort,
				    .data = m->data,
				    .mode = m->mode,
				    .atime = m->atime,
				    .mtime = m->mtime,
				    .force = m->force,
				    .preserve = m->preserve};
	for (uint32_t k = 0; k < j->n_alloc; k++) {
		struct node *n = &c->nodes.nodes[j->alloc[k].node];
		w->nodes[k] = j->alloc[k].node;
		w->msg_ids[k] = ctld_next_msg_id(c);
		json_t *req = n->peer ? drv_request_new("bcast.write", w->msg_ids[k],
							drv_bcast_write_encode(&b))
				      : NULL;
		if (!req || peer_send(c, n->peer, req) < 0)
			node_failed(w, k, EHOSTUNREACH);
		json_decref(req);
	}
	w->next = c->bcasts;
	c->bcasts = w;
	if (w->left == 0) {
		finish(w);
		return;
	}
	struct timeval tv = {BCAST_TIMEOUT_S, 0};
	w->timer = evtimer_new(c->base, on_timeout, w);
	if (!w->timer || evtimer_add(w->timer, &tv) < 0)
		abort();
}

void bcast_fini(struct ctld *c)
{
	while (c->bcasts) {
		struct bcast_wait *w = c->bcasts;
		c->bcasts = w->next;
		json_decref(w->errors);
		if (w->timer)
			event_free(w->timer);
		free(w->msg_ids);
		free(w->nodes);
		free(w);
	}
}
