/* anomaly.c — the anomaly freeze in ctld (anomaly.h, docs/anomaly.md):
 * noded's job.anomaly, the per-job count of refusals for permission, and
 * the freeze itself, which is scontrol suspend's path (job_suspend.c) with
 * the policy's reason. It never thaws anything: that is an operator's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/anomaly.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

static const char memory_anomaly[] = "MemoryAnomaly";
static const char security_violation[] = "SecurityViolation";

/* A refusal table holds at most this many jobs: beyond, the stalest entry
 * goes (a flood of refused jobs must not grow ctld without bound). */
#define ANOMALY_MAX_TRACKED 4096

void anomaly_fini(struct anomaly_state *a)
{
	free(a->v);
	*a = (struct anomaly_state){0};
}

const char *anomaly_reason(const char *text)
{
	if (text && !strcmp(text, memory_anomaly))
		return memory_anomaly;
	if (text && !strcmp(text, security_violation))
		return security_violation;
	return NULL;
}

void anomaly_resumed(struct job *j)
{
	if (anomaly_reason(j->reason)) {
		j->reason = "None";
		j->anomaly_cleared = true;
	}
}

int anomaly_freeze(struct ctld *c, struct job *j, const char *reason, const char *what,
		   int64_t now)
{
	if (j->state != JOB_RUNNING || j->completing || j->suspended)
		return DRV_RC_JOB_NOT_RUNNING;
	int rc = job_suspend(c, j, false, now);
	if (rc != 0)
		return rc;
	j->reason = reason;
	uint32_t *n = reason == memory_anomaly ? &c->anomaly.frozen_memory
					       : &c->anomaly.frozen_security;
	(*n)++;
	log_warn("job=%u frozen for %s: %s (%u so far); scontrol resume or scancel it",
		 j->id, reason, what, (unsigned)*n);
	return 0;
}

/* --- SecurityViolation ------------------------------------------------- */

static bool refused(int rc)
{
	return rc == DRV_RC_ACCESS_DENIED || rc == DRV_RC_USER_ID_MISSING;
}

/* Whether the reply refuses, at the top or for one id of several. */
static bool reply_refuses(int rc, json_t *body)
{
	if (refused(rc))
		return true;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(body, "results"), i, x)
	{
		if (refused((int)json_integer_value(json_object_get(x, "rc"))))
			return true;
	}
	return false;
}

/* The entry of job_id (made, or the stalest reused when the table is
 * full); NULL only when memory ran out. */
static struct anomaly_denials *entry_of(struct anomaly_state *a, uint32_t job_id)
{
	size_t stalest = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->v[i].job_id == job_id)
			return &a->v[i];
		if (a->v[i].first < a->v[stalest].first)
			stalest = i;
	}
	if (a->n == a->cap && a->n >= ANOMALY_MAX_TRACKED) {
		a->v[stalest] = (struct anomaly_denials){.job_id = job_id};
		return &a->v[stalest];
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct anomaly_denials *v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n] = (struct anomaly_denials){.job_id = job_id};
	return &a->v[a->n++];
}

static void forget(struct anomaly_state *a, struct anomaly_denials *e)
{
	*e = a->v[--a->n];
}

void anomaly_note_reply(const struct rpc_req *r, int rc, json_t *body)
{
	struct ctld *c = r->c;
	const struct drv_conf *conf = c->conf;
	if (r->daemon || !r->cred.job_id || conf->anomaly_denied_limit <= 0 ||
	    !reply_refuses(rc, body))
		return;
	/* only a running job of the caller's own: processes of a job run as
	 * its user, and a finished job has nothing left to freeze */
	struct job *j = job_table_find(&c->jobs, r->cred.job_id);
	if (!j || j->uid != r->cred.uid || j->state != JOB_RUNNING || j->completing ||
	    j->suspended)
		return;
	int64_t now = time(NULL);
	struct anomaly_denials *e = entry_of(&c->anomaly, j->id);
	if (!e)
		return;
	if (e->count == 0 || now - e->first >= conf->anomaly_denied_window) {
		e->first = now; /* a new window */
		e->count = 0;
	}
	e->count++;
	log_info("job=%u: %s refused for permission to uid=%u (%u of "
		 "AnomalyDeniedLimit=%d within %d s)",
		 j->id, r->type, (unsigned)r->cred.uid, (unsigned)e->count,
		 conf->anomaly_denied_limit, conf->anomaly_denied_window);
	if (e->count < (uint32_t)conf->anomaly_denied_limit)
		return;
	char what[160];
	snprintf(what, sizeof(what), "%u requests refused for permission in %llds",
		 (unsigned)e->count, (long long)(now - e->first));
	forget(&c->anomaly, e);
	anomaly_freeze(c, j, security_violation, what, now);
}

/* --- MemoryAnomaly: noded froze the job on its node --------------------- */

static bool holds_node(const struct job *j, const struct node *n)
{
	for (uint32_t i = 0; i < j->n_alloc; i++)
		if (j->alloc[i].node == n->idx)
			return true;
	return false;
}

void link_job_anomaly(struct rpc_req *r)
{
	const struct drv_job_anomaly *m = r->msg;
	struct ctld *c = r->c;
	struct peer *p = peer_find(c, r->peer_id);
	struct job *j = job_table_find(&c->jobs, m->job_id);
	if (!p || !p->node) {
		rpc_reply(r, DRV_RC_INVALID_NODE_NAME, "node not registered", NULL);
		return;
	}
	if (!j || j->restart_count != m->restart || !holds_node(j, p->node)) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, drv_rc_text(DRV_RC_INVALID_JOB_ID),
			  NULL);
		return;
	}
	char what[300];
	snprintf(what, sizeof(what), "node=%s: %s", p->node->conf->name, m->message);
	int rc =
	    j->suspended ? 0 : anomaly_freeze(c, j, memory_anomaly, what, time(NULL));
	if (rc != 0) {
		/* no node may keep frozen a job ctld shows running */
		log_info("job=%u: node=%s froze it for %s, but %s: thawing it", j->id,
			 p->node->conf->name, m->reason, drv_rc_text(rc));
		if (j->state == JOB_RUNNING && !j->completing && j->n_alloc)
			link_send_freeze(c, j, true);
	}
	rpc_reply_durable(r, rc, rc ? drv_rc_text(rc) : NULL, NULL);
}

void anomaly_stats(const struct ctld *c, json_t *counters)
{
	const struct drv_conf *conf = c->conf;
	if (conf->anomaly_mem_rate <= 0 && conf->anomaly_mem_fraction <= 0 &&
	    conf->anomaly_denied_limit <= 0 && !c->anomaly.frozen_memory &&
	    !c->anomaly.frozen_security)
		return;
	json_object_set_new(counters, "anomaly_memory",
			    json_integer(c->anomaly.frozen_memory));
	json_object_set_new(counters, "anomaly_security",
			    json_integer(c->anomaly.frozen_security));
}
