/* step.c — job steps ending: on their nodes' reports, by scancel, with
 * their job. Their records are in step_record.c; the layout of a new step
 * and its launch in step_create.c. */
#include "ctld/step.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"
#include "ctld/step_internal.h"

/* --- ending ----------------------------------------------------------- */

/* reason (static, NULL none) goes with a kill: the shepherd of the step's
 * first node writes Slurm's "*** STEP N.S ON NODE CANCELLED AT ***" line.
 * Node index spare (UINT32_MAX: none) is skipped. */
static void send_step_signal(struct ctld *c, const struct job *j,
			     const struct job_step *s, int sig, bool kill,
			     const char *reason, uint32_t spare)
{
	for (uint32_t k = 0; s->node_idx && k < s->num_nodes; k++) {
		if (s->node_done[k] || s->node_idx[k] >= c->nodes.n ||
		    s->node_idx[k] == spare)
			continue;
		struct node *n = &c->nodes.nodes[s->node_idx[k]];
		if (!n->peer)
			continue;
		struct drv_step_signal m = {.job_id = j->id,
					    .step_id = s->id,
					    .signal = sig,
					    .kill = kill,
					    .reason = reason};
		json_t *req = drv_request_new("step.signal", ctld_next_msg_id(c),
					      drv_step_signal_encode(&m));
		peer_send(c, n->peer, req);
		json_decref(req);
	}
}

/* The step's record is final: its CPUs are free for the next step. Tasks
 * its job's end killed make it CANCELLED (TIMEOUT at the job's limit);
 * tasks that had ended by themselves before their node reported keep
 * their own end, as Slurm takes a step's state from its nodes. */
static void step_finish(struct ctld *c, struct job *j, struct job_step *s, int64_t now)
{
	if (s->cancelled)
		s->state = JOB_CANCELLED;
	else if (s->oom) { /* Slurm: OUT_OF_MEMORY with ExitCode 0:125 */
		s->state = JOB_OUT_OF_MEMORY;
		s->exit_code = 0;
		s->exit_signal = DRV_SIG_OOM;
	} else if (s->job_ended && s->exit_signal)
		s->state = s->timed_out ? JOB_TIMEOUT : JOB_CANCELLED;
	else
		s->state = s->exit_code || s->exit_signal ? JOB_FAILED : JOB_COMPLETED;
	s->end_time = now;
	commit_job(c, j);
	log_info("step=%u.%u ended %s exit=%d:%d", j->id, s->id, job_state_name(s->state),
		 s->exit_code, s->exit_signal);
	job_steps_ended(c, j);
}

/* Seconds past KillWait a step of an ended job waits for its nodes. */
#define STEP_REPORT_GRACE 10

/* Ends a step of an ended job without its nodes' word. */
static void give_up(struct ctld *c, struct job *j, struct job_step *s, int64_t now)
{
	if (!s->exit_signal)
		s->exit_signal = SIGKILL;
	step_finish(c, j, s, now);
}

void steps_end_all(struct ctld *c, struct job *j, bool timed_out, bool wait, int64_t now)
{
	steps_end_all_why(c, j, timed_out ? "time_limit" : "cancel", false, timed_out,
			  wait, now);
}

void steps_end_all_why(struct ctld *c, struct job *j, const char *reason,
		       bool spare_batch_node, bool timed_out, bool wait, int64_t now)
{
	/* the batch node's steps end with the job's kill there (job.signal),
	 * so that the batch step hears first, as in Slurm */
	uint32_t spare = spare_batch_node && j->n_alloc ? j->alloc[0].node : UINT32_MAX;
	for (uint32_t i = 0; i < j->n_steps; i++) {
		struct job_step *s = &j->steps[i];
		if (s->state != JOB_RUNNING)
			continue;
		if (!s->job_ended) {
			send_step_signal(c, j, s, SIGKILL, true, reason, spare);
			s->job_ended = true;
			s->timed_out = timed_out;
			s->give_up = now + c->conf->kill_wait + STEP_REPORT_GRACE;
			commit_job(c, j);
		}
		if (!wait || !s->node_idx)
			give_up(c, j, s, now);
	}
}

void steps_give_up(struct ctld *c, struct job *j, int64_t now)
{
	for (uint32_t i = 0; i < j->n_steps; i++) {
		struct job_step *s = &j->steps[i];
		if (s->state == JOB_RUNNING && s->job_ended && now >= s->give_up) {
			log_warn("step=%u.%u: its nodes never reported its end", j->id,
				 s->id);
			give_up(c, j, s, now);
		}
	}
}

bool steps_give_up_due(const struct job *j, int64_t *due)
{
	bool any = false;
	for (uint32_t i = 0; i < j->n_steps; i++) {
		const struct job_step *s = &j->steps[i];
		if (s->state == JOB_RUNNING && s->job_ended &&
		    (!any || s->give_up < *due)) {
			*due = s->give_up;
			any = true;
		}
	}
	return any;
}

int step_cancel(struct ctld *c, struct job *j, uint32_t step_id, int sig, uid_t by)
{
	struct job_step *s = step_find(j, step_id);
	if (!s)
		return DRV_RC_INVALID_STEP;
	if (s->state != JOB_RUNNING)
		return DRV_RC_ALREADY_DONE;
	if (sig) {
		send_step_signal(c, j, s, sig, false, NULL, UINT32_MAX);
		return 0;
	}
	s->cancelled = true;
	s->cancel_uid = by;
	commit_job(c, j);
	send_step_signal(c, j, s, SIGKILL, true, "cancel", UINT32_MAX);
	log_info("step=%u.%u cancelled by uid=%u", j->id, s->id, (unsigned)by);
	return 0;
}

void steps_signal(struct ctld *c, struct job *j, int sig)
{
	for (uint32_t i = 0; i < j->n_steps; i++)
		if (j->steps[i].state == JOB_RUNNING)
			send_step_signal(c, j, &j->steps[i], sig, false, NULL,
					 UINT32_MAX);
}

/* Marks p's node of s done; its usage is counted the first time only (noded
 * re-sends until it hears back). False when the node had reported. */
static bool node_reported(struct job *j, struct job_step *s, struct peer *p,
			  const struct drv_step_complete *m, bool *left)
{
	bool first = false;
	*left = false;
	for (uint32_t k = 0; s->alloc_idx && s->node_done && k < s->num_nodes; k++) {
		if (s->node_idx && s->node_idx[k] == p->node->idx && !s->node_done[k])
			first = s->node_done[k] = true;
		*left |= !s->node_done[k];
	}
	if (first && m->has_usage) {
		usage_add(&s->usage, &m->usage, p->node->conf->name);
	}
	return first;
}

/* noded: its share of a step ended. The step ends with its last node. A
 * step that ended with its job takes the usage its nodes report after. */
void link_step_complete(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_step_complete *m = r->msg;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	struct peer *p = peer_find(c, r->peer_id);
	struct job_step *s = j ? step_find(j, m->step_id) : NULL;
	bool left;
	/* the node holds processes it cannot end (UnkillableStepTimeout) */
	if (p && p->node && m->unkillable && !p->node->drain)
		node_drain(c, p->node, NODE_REASON_KILL_FAILED, time(NULL));
	if (!s || !p || !p->node) {
		rpc_reply(r, 0, NULL, NULL);
		return;
	}
	if (s->state != JOB_RUNNING) {
		if (node_reported(j, s, p, m, &left)) {
			commit_job(c, j);
			rpc_reply_durable(r, 0, NULL, NULL);
		} else {
			rpc_reply(r, 0, NULL, NULL);
		}
		return;
	}
	int code = m->exit_code, sig = m->signal;
	if (m->launch_failed) {
		log_error("step=%u.%u launch failed on node=%s: %s", j->id, s->id,
			  p->node->conf->name, m->message ? m->message : "?");
		code = code ? code : 1;
	}
	node_reported(j, s, p, m, &left);
	if (code > s->exit_code)
		s->exit_code = code;
	if (sig && !s->exit_signal)
		s->exit_signal = sig;
	if (m->oom)
		s->oom = true;
	/* its shepherd ended the tasks: a cancel, or srun gone (Slurm: CANCELLED) */
	if (m->cancelled && s->exit_signal)
		s->cancelled = true;
	if (!left) {
		step_finish(c, j, s, time(NULL));
		sched_request(c); /* nothing for the queue, but the CPUs are free */
	} else {
		commit_job(c, j);
	}
	rpc_reply_durable(r, 0, NULL, NULL);
}

/* srun or salloc is done with the allocation it made. */
void rpc_alloc_complete(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_alloc_complete *m = r->msg;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	if (!j) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, drv_rc_text(DRV_RC_INVALID_JOB_ID),
			  NULL);
		return;
	}
	if (!rpc_may_run_as(r, j)) {
		rpc_reply(r, DRV_RC_ACCESS_DENIED, drv_rc_text(DRV_RC_ACCESS_DENIED),
			  NULL);
		return;
	}
	if (!j->interactive || j->state != JOB_RUNNING) {
		rpc_reply(r, 0, NULL, NULL); /* already over: nothing to do */
		return;
	}
	job_end(c, j, m->exit_code, m->signal, false, time(NULL));
	rpc_reply_durable(r, 0, NULL, NULL);
}
