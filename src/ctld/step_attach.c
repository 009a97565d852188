/* step_attach.c — step.attach: sattach asks where a running step's I/O can
 * be joined. The step's srun holds that I/O (its tasks' shepherds dial it),
 * so the answer is srun's port and a key derived from the step's io_key
 * (stepio_attach_key), given only to the job's owner or an administrator;
 * step_create.c records them with the step, step_record.c stores them.
 * The refusals are Slurm's: an unknown job, or a step of a running job that
 * is not running (ended, or never was), is "Invalid job id specified"; a
 * pending job is "Job is pending execution"; a job that ended is
 * "Job/step already completing or completed". Nothing
 * here changes any state. */
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"
#include "ctld/step.h"

static int attach_rc(const struct rpc_req *r, const struct job *j,
		     const struct job_step *s)
{
	if (!j)
		return DRV_RC_INVALID_JOB_ID;
	if (!rpc_may_run_as(r, j))
		return DRV_RC_ACCESS_DENIED;
	if (j->state == JOB_PENDING)
		return DRV_RC_JOB_PENDING;
	if (j->state != JOB_RUNNING || j->completing)
		return DRV_RC_ALREADY_DONE;
	if (!s || s->state != JOB_RUNNING || !s->io_host)
		return DRV_RC_INVALID_JOB_ID;
	return 0;
}

void rpc_step_attach(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_step_attach *m = r->msg;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	struct job_step *s = j ? step_find(j, m->step_id) : NULL;
	int rc = attach_rc(r, j, s);
	if (rc) {
		rpc_reply(r, rc, drv_rc_text(rc), NULL);
		return;
	}
	const char **names = calloc(s->num_nodes ? s->num_nodes : 1, sizeof(*names));
	if (!names)
		abort();
	for (uint32_t k = 0; k < s->num_nodes; k++)
		names[k] = c->nodes.names[s->node_idx[k]];
	struct drv_step_attach_reply o = {
	    .job_id = j->id,
	    .step_id = s->id,
	    .io_host = s->io_host,
	    .io_port = s->io_port,
	    .attach_key = s->attach_key,
	    .ntasks = s->ntasks,
	    .node_names = names,
	    .n_node_names = s->num_nodes,
	    .node_task_ids = s->task_ids,
	};
	rpc_reply(r, 0, NULL, drv_step_attach_reply_encode(&o));
	free(names);
}
