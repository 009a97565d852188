/* node_state.c — every node state transition: registration, heartbeats, loss
 * of contact, timeouts to DOWN (each node's timer, timed.c), and admin
 * updates (DRAIN/RESUME/DOWN).
 * Drawn in docs/state-machines.md. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

static void set_reason(struct node *n, const char *reason, uid_t uid, int64_t now)
{
	snprintf(n->reason, sizeof(n->reason), "%s", reason ? reason : "");
	n->reason_time = reason && *reason ? now : 0;
	n->reason_uid = uid;
}

void node_release_job(struct ctld *c, struct job *j)
{
	for (uint32_t i = 0; i < j->n_alloc; i++) {
		const struct job_alloc *a = &j->alloc[i];
		struct node *n = &c->nodes.nodes[a->node];
		n->cpus_alloc -= a->cpus < n->cpus_alloc ? a->cpus : n->cpus_alloc;
		n->mem_alloc -= a->mem < n->mem_alloc ? a->mem : n->mem_alloc;
		n->gpus_alloc &= ~a->gpus;
		node_remove_job(n, j);
	}
	job_alloc_clear(j);
}

/* Slurm drains a node that reports less than its config declares. */
static void check_resources(struct ctld *c, struct node *n,
			    const struct drv_node_register *m, int64_t now)
{
	int64_t cpus = m->cpus, mem = m->real_memory;
	char why[200] = "";
	if (cpus < n->conf->cpus)
		snprintf(why, sizeof(why), "Low socket*core*thread count, Low CPUs");
	else if ((uint64_t)mem < n->conf->real_memory)
		snprintf(why, sizeof(why),
			 "Low RealMemory (reported:%lld < 100.00%% of configured:%llu)",
			 (long long)mem, (unsigned long long)n->conf->real_memory);
	if (!*why || c->conf->config_overrides)
		return;
	n->drain = true;
	set_reason(n, why, 0, now);
	commit_node(c, n);
	log_warn("node=%s drained: %s", n->conf->name, why);
}

int node_register(struct ctld *c, struct node *n, struct peer *p,
		  const struct drv_node_register *m, int64_t now)
{
	if (n->peer && n->peer != p)
		n->peer->node = NULL; /* a newer connection replaces a stale one */
	n->peer = p;
	p->node = n;
	n->registered = true;
	n->registered_time = now;
	n->last_seen = now;
	n->boot_time = m->boot_time;
	n->slurmd_start_time = m->has_start_time ? m->start_time : now;
	if (!n->last_busy) /* Slurm's start: busy until it registered */
		n->last_busy = now;
	if (n->down && !n->down_by_admin) {
		/* ReturnToService=1: a node DOWN for not responding comes back. */
		n->down = false;
		set_reason(n, NULL, 0, now);
		commit_node(c, n);
		log_info("node=%s returned to service", n->conf->name);
	}
	check_resources(c, n, m, now);
	timed_node(c, n);
	sched_request(c);
	log_info("node=%s registered from %s", n->conf->name, drv_conn_peer(p->conn));
	return 0;
}

void node_drain(struct ctld *c, struct node *n, const char *reason, int64_t now)
{
	n->drain = true;
	set_reason(n, reason, 0, now);
	commit_node(c, n);
	log_warn("node=%s drained: %s", n->conf->name, reason);
}

void node_health_failed(struct ctld *c, struct node *n, const char *reason, int64_t now)
{
	if (n->drain) {
		/* an admin's reason, or the program's own `scontrol update`,
		 * says more than a second drain would */
		log_info("node=%s HealthCheckProgram failed, already drained: %s",
			 n->conf->name, reason);
		return;
	}
	node_drain(c, n, reason, now);
	sched_request(c);
}

void node_lost_conn(struct ctld *c, struct node *n)
{
	/* Not DOWN yet: noded may just be restarting. SlurmdTimeout decides. */
	n->peer = NULL;
}

static void node_set_down(struct ctld *c, struct node *n, const char *why, bool admin,
			  uid_t uid, int64_t now)
{
	n->down = true;
	n->down_by_admin = admin;
	set_reason(n, why, uid, now);
	commit_node(c, n);
	while (n->n_jobs) /* job_node_fail releases the job from this node */
		job_node_fail(c, n->jobs[n->n_jobs - 1], now);
	log_warn("node=%s DOWN: %s", n->conf->name, why);
}

void node_check_timeout(struct ctld *c, struct node *n, int64_t now)
{
	if (n->down || c->conf->slurmd_timeout <= 0)
		return; /* registration arms the timer again */
	if (n->last_seen + c->conf->slurmd_timeout > now)
		timed_node(c, n); /* heard from since: SlurmdTimeout after that */
	else
		node_set_down(c, n, "Not responding", false, 0, now);
}

int node_admin_update(struct ctld *c, struct node *n, const char *state,
		      const char *reason, uid_t uid, int64_t now)
{
	if (!strcmp(state, "DRAIN")) {
		n->drain = true;
		set_reason(n, reason, uid, now);
	} else if (!strcmp(state, "RESUME") || !strcmp(state, "UNDRAIN") ||
		   !strcmp(state, "IDLE")) {
		n->drain = false;
		if (n->down && strcmp(state, "UNDRAIN"))
			n->down = n->down_by_admin = false;
		set_reason(n, NULL, uid, now);
	} else if (!strcmp(state, "DOWN")) {
		node_set_down(c, n, reason, true, uid, now);
	} else {
		return DRV_RC_ERROR;
	}
	n->admin_override = true;
	commit_node(c, n);
	timed_node(c, n); /* RESUME of a DOWN node: SlurmdTimeout applies again */
	sched_request(c);
	log_info("node=%s set %s by uid=%u reason=%s", n->conf->name, state,
		 (unsigned)uid, reason ? reason : "");
	return 0;
}
