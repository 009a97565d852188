/* job_policy.h — the site's submit policy (JobSubmitPlugins=lua) applied to
 * job.submit and job.update requests, before ctld validates them: the
 * script works on a copy of the request's body, and ctld goes on with that
 * copy as if the user had sent it. */
#ifndef CTLD_JOB_POLICY_H
#define CTLD_JOB_POLICY_H

#include <jansson.h>
#include <stdbool.h>

#include "common/proto_gen.h"
#include "ctld/ctld.h"

/* A job.submit after the policy ran. */
struct policy_submit {
	json_t *body;		   /* owned: the body as the script left it */
	struct drv_job_submit msg; /* decoded from body (borrows from it) */
	char *user_msg;		   /* owned: what to tell the user; NULL none */
	bool partition_changed;	   /* the script set another partition */
};

/* Runs slurm_job_submit on r's job.submit. 0 with *out filled (release it
 * with policy_submit_fini), or the rc to refuse with and *why its text
 * (the script's messages, then Slurm's text for rc, one per line; the
 * caller frees it); the refusal is logged. */
int policy_submit(struct ctld *c, const struct rpc_req *r, struct policy_submit *out,
		  char **why);
void policy_submit_fini(struct policy_submit *ps);

/* A job.update after the policy ran, for one job. */
struct policy_update {
	json_t *body;
	struct drv_job_update msg;
};

/* Runs slurm_job_modify on r's job.update for job j; as policy_submit. */
int policy_update(struct ctld *c, const struct rpc_req *r, const struct job *j,
		  struct policy_update *out, char **why);
void policy_update_fini(struct policy_update *pu);

#endif
