/* rpc_sstat.c — sstat through ctld: a client's step.stat names a running
 * job (and one of its steps, or all); ctld asks each node that runs one
 * of those steps for its latest samples (step.sample, answered from the
 * DIR/usage files the shepherds keep), then adds the nodes' samples up per
 * step as a step's end is added up (usage.c) and answers. Nothing is
 * stored and nothing changes: the answer is as fresh as the last sample
 * (JobAcctGatherFrequency). A node that does not answer within
 * STAT_TIMEOUT_S, or whose link is down, is left out, so a client never
 * waits forever.
 *
 * Only the job's owner or an administrator may look, as Slurm's slurmd
 * lets them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"
#include "ctld/step.h"
#include "ctld/usage.h"

#define STAT_TIMEOUT_S 10
#define STAT_BATCH (-1) /* the batch step's id in step.stat */

struct stat_wait {
	struct ctld *c;
	uint64_t peer_id;  /* the client's connection */
	int64_t client_id; /* its request id, for the reply */
	int64_t *steps;	   /* the steps asked for, STAT_BATCH first */
	size_t n_steps;
	uint32_t *nodes;  /* the nodes asked (table indices) */
	int64_t *msg_ids; /* their step.sample ids; 0 once answered */
	json_t **samples; /* their answers' "samples" (owned), NULL none */
	uint32_t n, left;
	struct event *timer;
	struct stat_wait *next;
};

static void wait_free(struct stat_wait *w)
{
	for (uint32_t k = 0; k < w->n; k++)
		json_decref(w->samples[k]);
	if (w->timer)
		event_free(w->timer);
	free(w->steps);
	free(w->nodes);
	free(w->msg_ids);
	free(w->samples);
	free(w);
}

/* Adds node k's sample of step to u, its pids to pids; false when none. */
static bool add_node(const struct stat_wait *w, uint32_t k, int64_t step,
		     struct step_usage *u, json_t *pids)
{
	size_t i;
	json_t *s;
	json_array_foreach(w->samples[k], i, s)
	{
		struct drv_rec_step_sample one;
		struct drv_error err;
		if (drv_rec_step_sample_decode(s, &one, &err) < 0)
			continue;
		bool match = one.step_id == step;
		if (match) {
			usage_add(u, &one.usage, w->c->nodes.names[w->nodes[k]]);
			for (size_t p = 0; p < one.usage.n_pids; p++)
				json_array_append_new(pids,
						      json_integer(one.usage.pids[p]));
		}
		drv_shape_free(&drv_shape_rec_step_sample, &one);
		if (match)
			return true;
	}
	return false;
}

/* One step's row: its nodes' samples added up (no usage while none of
 * them has a sample yet). NULL on ENOMEM. */
static json_t *step_row(const struct stat_wait *w, int64_t step)
{
	struct step_usage u = {0};
	char **names = calloc(w->n ? w->n : 1, sizeof(*names));
	json_t *nodes = json_array();
	size_t nn = 0;
	for (uint32_t k = 0; names && nodes && k < w->n; k++) {
		json_t *pids = json_array();
		if (pids && add_node(w, k, step, &u, pids)) {
			names[nn++] = w->c->nodes.names[w->nodes[k]];
			json_array_append_new(
			    nodes,
			    json_pack("{s:s,s:O}", "node", names[nn - 1], "pids", pids));
		}
		json_decref(pids);
	}
	json_t *row = NULL;
	char *list = nn ? drv_hostlist_compress(names, nn) : strdup("");
	if (list) {
		struct drv_rec_stat_step st = {.step_id = step,
					       .nodelist = list,
					       .ntasks = (uint32_t)u.ntasks,
					       .has_usage = u.has};
		usage_to_total(&u, &st.usage);
		row = drv_shape_encode(&drv_shape_rec_stat_step, &st, 0);
		if (row)
			json_object_set(row, "nodes", nodes);
	}
	free(list);
	free(names);
	json_decref(nodes);
	return row;
}

static void finish(struct stat_wait *w)
{
	struct ctld *c = w->c;
	for (struct stat_wait **pp = &c->stats_waits; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	json_t *steps = json_array();
	for (size_t i = 0; steps && i < w->n_steps; i++) {
		json_t *row = step_row(w, w->steps[i]);
		if (row)
			json_array_append_new(steps, row);
	}
	struct rpc_req r = {.c = c, .peer_id = w->peer_id, .id = w->client_id};
	if (steps)
		rpc_reply(&r, 0, NULL, json_pack("{s:o}", "steps", steps));
	else
		rpc_reply(&r, DRV_RC_PROTOCOL, "out of memory", NULL);
	wait_free(w);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct stat_wait *w = arg;
	for (uint32_t k = 0; k < w->n; k++)
		if (w->msg_ids[k])
			log_warn("sstat: node=%s did not answer step.sample in time",
				 w->c->nodes.names[w->nodes[k]]);
	finish(w);
}

bool stat_reply(struct ctld *c, const struct drv_rec_envelope *env)
{
	for (struct stat_wait *w = c->stats_waits; w; w = w->next)
		for (uint32_t k = 0; k < w->n; k++) {
			if (w->msg_ids[k] != env->id || env->id == 0)
				continue;
			json_t *s = env->rc == 0 && json_is_object(env->body)
					? json_object_get(env->body, "samples")
					: NULL;
			if (json_is_array(s))
				w->samples[k] = json_incref(s);
			w->msg_ids[k] = 0;
			if (--w->left == 0)
				finish(w);
			return true;
		}
	return false;
}

/* The steps of j that step.stat asks for and that run: into w->steps. */
static void pick_steps(struct stat_wait *w, const struct job *j,
		       const struct drv_step_stat *m)
{
	w->steps = calloc(j->n_steps + 1, sizeof(*w->steps));
	if (!w->steps)
		abort();
	bool any = !m->has_step_id;
	if (!j->interactive && (any || m->step_id == STAT_BATCH))
		w->steps[w->n_steps++] = STAT_BATCH;
	for (uint32_t i = 0; i < j->n_steps; i++)
		if (j->steps[i].state == JOB_RUNNING &&
		    (any || m->step_id == (int64_t)j->steps[i].id))
			w->steps[w->n_steps++] = j->steps[i].id;
}

/* The step.sample for node of the table: the asked steps that run there
 * (NULL when none). */
static json_t *node_request(const struct stat_wait *w, const struct job *j, uint32_t node)
{
	json_t *ids = json_array();
	bool batch = false;
	for (size_t i = 0; ids && i < w->n_steps; i++) {
		if (w->steps[i] == STAT_BATCH) {
			batch = j->alloc[0].node == node;
			continue;
		}
		const struct job_step *s =
		    step_find((struct job *)j, (uint32_t)w->steps[i]);
		for (uint32_t k = 0; s && k < s->num_nodes; k++)
			if (s->node_idx[k] == node)
				json_array_append_new(ids, json_integer(s->id));
	}
	if (!ids || (!batch && json_array_size(ids) == 0)) {
		json_decref(ids);
		return NULL;
	}
	return json_pack("{s:I,s:b,s:o}", "job_id", (json_int_t)j->id, "batch", batch,
			 "step_ids", ids);
}

static struct stat_wait *wait_new(struct ctld *c, const struct rpc_req *r, uint32_t n)
{
	struct stat_wait *w = calloc(1, sizeof(*w));
	if (!w)
		abort();
	w->c = c;
	w->peer_id = r->peer_id;
	w->client_id = r->id;
	w->nodes = calloc(n ? n : 1, sizeof(*w->nodes));
	w->msg_ids = calloc(n ? n : 1, sizeof(*w->msg_ids));
	w->samples = calloc(n ? n : 1, sizeof(*w->samples));
	if (!w->nodes || !w->msg_ids || !w->samples)
		abort();
	return w;
}

/* Sends each allocated node its step.sample; w->left counts the sent. */
static void ask_nodes(struct ctld *c, struct stat_wait *w, const struct job *j)
{
	for (uint32_t a = 0; a < j->n_alloc; a++) {
		struct node *n = &c->nodes.nodes[j->alloc[a].node];
		json_t *body = n->peer ? node_request(w, j, j->alloc[a].node) : NULL;
		if (!body)
			continue;
		int64_t id = ctld_next_msg_id(c);
		json_t *req = drv_request_new("step.sample", id, body);
		if (req && peer_send(c, n->peer, req) == 0) {
			w->nodes[w->n] = j->alloc[a].node;
			w->msg_ids[w->n++] = id;
			w->left++;
		}
		json_decref(req);
	}
}

void rpc_step_stat(struct rpc_req *r)
{
	const struct drv_step_stat *m = r->msg;
	struct ctld *c = r->c;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	if (!j) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, NULL, NULL);
		return;
	}
	if (!rpc_may_act_on(r, j)) {
		rpc_reply(r, DRV_RC_ACCESS_DENIED, NULL, NULL);
		return;
	}
	struct stat_wait *w = wait_new(c, r, j->n_alloc);
	bool runs = j->state == JOB_RUNNING && !j->completing && j->n_alloc;
	if (runs)
		pick_steps(w, j, m);
	if (w->n_steps)
		ask_nodes(c, w, j);
	w->next = c->stats_waits;
	c->stats_waits = w;
	if (w->left == 0) {
		finish(w);
		return;
	}
	struct timeval tv = {STAT_TIMEOUT_S, 0};
	w->timer = evtimer_new(c->base, on_timeout, w);
	if (!w->timer || evtimer_add(w->timer, &tv) < 0)
		abort();
}

void stat_fini(struct ctld *c)
{
	while (c->stats_waits) {
		struct stat_wait *w = c->stats_waits;
		c->stats_waits = w->next;
		wait_free(w);
	}
}
