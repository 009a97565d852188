/* rpc_job_cmds.c — scontrol's job commands that change nothing in ctld:
 * notify (a line for a running batch job's stderr, handed to the node that
 * runs the batch script) and write batch_script (the stored script read
 * back). Each answers to whom Slurm's slurmctld does: notify to the job's
 * owner, root and SlurmUser (validate_slurm_user), the script to its owner
 * and operators; a coordinator of its account to neither. */
#include <stdlib.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"
#include "ctld/rpc_handlers.h"
#include "ctld/store.h"

/* Slurm's srun_user_message: a finished job is "already done"; a batch job
 * that does not run yet has nowhere to write ("presently disabled"), nor
 * has an allocation without a batch script (Slurm hands that to srun's
 * listener, which Drover's srun does not keep; docs/compat.md). */
static int notify_rc(const struct job *j)
{
	if (job_state_final(j->state) || j->completing)
		return DRV_RC_ALREADY_DONE;
	if (j->state != JOB_RUNNING || j->interactive || j->n_alloc == 0)
		return DRV_RC_DISABLED;
	return 0;
}

void rpc_job_notify(struct rpc_req *r)
{
	const struct drv_job_notify *m = r->msg;
	struct job *j = job_table_find(&r->c->jobs, m->job_id);
	if (!j) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, NULL, NULL);
		return;
	}
	struct perm p;
	perm_of_req(r, &p);
	if (j->uid != r->cred.uid && !perm_is_slurm_user(&p)) {
		log_warn("job=%u notify refused to uid=%u", j->id, (unsigned)r->cred.uid);
		rpc_reply(r, DRV_RC_USER_ID_MISSING, NULL, NULL);
		return;
	}
	int rc = notify_rc(j);
	if (rc == 0)
		rc = link_send_notify(r->c, j, m->message);
	rpc_reply(r, rc, NULL, NULL);
}

void rpc_job_script(struct rpc_req *r)
{
	const struct drv_job_script *m = r->msg;
	struct job *j = job_table_find(&r->c->jobs, m->job_id);
	if (!j) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, NULL, NULL);
		return;
	}
	if (j->uid != r->cred.uid && !rpc_is_operator(r)) {
		rpc_reply(r, DRV_RC_USER_ID_MISSING, NULL, NULL);
		return;
	}
	if (j->interactive) { /* an srun or salloc allocation has none */
		rpc_reply(r, DRV_RC_JOB_SCRIPT_MISSING, NULL, NULL);
		return;
	}
	char *script = NULL, *env = NULL, *argv = NULL;
	/* an array's tasks share the script its submit stored */
	uint32_t payload_id = j->array_job_id ? j->array_job_id : j->id;
	if (store_job_payload(r->c->store, payload_id, &script, &env, &argv) < 0) {
		rpc_reply(r, DRV_RC_INVALID_JOB_ID, NULL, NULL);
		return;
	}
	struct drv_job_script_reply out = {.script = script};
	rpc_reply(r, 0, NULL, drv_job_script_reply_encode(&out));
	free(script);
	free(env);
	free(argv);
}
