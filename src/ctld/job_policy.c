/* job_policy.c — between ctld's requests and job_submit_lua.c: copies the
 * request's body for the script, turns the script's verdict into a reply
 * (Slurm's code and text, the script's messages first) and decodes what
 * the script left, checked against the request's declaration. Owns no
 * state; it changes no job (the handlers apply the result). */
#include "ctld/job_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/job_submit_lua.h"
#include "ctld/slurm_errtab.h"

/* The reply's rc and text for the script's verdict: SLURM_ERROR (-1) is
 * "Unspecified error", a code Slurm does not know reads as Slurm's
 * "Unknown error". */
static int refusal(const struct jsl_result *res, char **why)
{
	int rc = res->rc > 0 ? res->rc : DRV_RC_ERROR;
	const char *text = slurm_err_text(res->rc > 0 ? res->rc : -1);
	char unknown[32];
	if (!text) {
		snprintf(unknown, sizeof(unknown), "Unknown error %d", res->rc);
		text = unknown;
	}
	int n = res->user_msg ? asprintf(why, "%s\n%s", res->user_msg, text)
			      : asprintf(why, "%s", text);
	if (n < 0)
		*why = NULL;
	return rc;
}

/* The body as decoded into s's struct at msg; on failure the policy left
 * something ctld cannot take, which refuses the request. */
static int decode(const struct drv_shape *s, json_t *body, void *msg, char **why)
{
	struct drv_error err = {{0}};
	if (drv_shape_decode(s, body, msg, &err) == 0)
		return 0;
	if (asprintf(why, "job_submit/lua: the request it returned is not valid: %s",
		     err.text) < 0)
		*why = NULL;
	log_error("job_submit/lua: the request it returned is not valid: %s", err.text);
	return DRV_RC_ERROR;
}

/* why on one log line: its lines joined by " / ". */
static const char *one_line(const char *why, char *buf, size_t len)
{
	size_t n = 0;
	for (const char *s = why ? why : "?"; *s && n + 4 < len; s++) {
		if (*s == '\n') {
			memcpy(buf + n, " / ", 3);
			n += 3;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int policy_submit(struct ctld *c, const struct rpc_req *r, struct policy_submit *out,
		  char **why)
{
	const struct drv_job_submit *orig = r->msg;
	struct jsl_result res;
	char *user = identity_user_name(r->cred.uid);
	struct jd_who who = {r->cred.uid, r->cred.gid, user};
	memset(out, 0, sizeof(*out));
	*why = NULL;
	/* shallow: writes only set or delete the body's own members */
	out->body = json_copy(r->body);
	if (!out->body) {
		free(user);
		return DRV_RC_ERROR;
	}
	struct jd_doc d = {out->body, &drv_shape_job_submit, &who};
	jsl_submit(c->job_submit, c, &d, r->cred.uid, &res);
	free(user);
	int rc = 0;
	if (res.rc != 0) {
		rc = refusal(&res, why);
		char line[512];
		log_info("job_submit/lua refused a job of uid=%u: %s",
			 (unsigned)r->cred.uid, one_line(*why, line, sizeof(line)));
	} else {
		rc = decode(&drv_shape_job_submit, out->body, &out->msg, why);
	}
	if (rc) {
		free(res.user_msg);
		json_decref(out->body);
		memset(out, 0, sizeof(*out));
		return rc;
	}
	out->user_msg = res.user_msg;
	out->partition_changed = !same_str(orig->partition, out->msg.partition);
	return 0;
}

void policy_submit_fini(struct policy_submit *ps)
{
	if (ps->body)
		drv_shape_free(&drv_shape_job_submit, &ps->msg);
	json_decref(ps->body);
	free(ps->user_msg);
	memset(ps, 0, sizeof(*ps));
}

int policy_update(struct ctld *c, const struct rpc_req *r, const struct job *j,
		  struct policy_update *out, char **why)
{
	struct jsl_result res;
	struct jd_who who = {j->uid, j->gid, j->user};
	memset(out, 0, sizeof(*out));
	*why = NULL;
	out->body = json_copy(r->body);
	if (!out->body)
		return DRV_RC_ERROR;
	struct jd_doc d = {out->body, &drv_shape_job_update, &who};
	jsl_modify(c->job_submit, c, &d, j, r->cred.uid, &res);
	int rc = res.rc ? refusal(&res, why)
			: decode(&drv_shape_job_update, out->body, &out->msg, why);
	char line[512];
	if (res.rc)
		log_info("job_submit/lua refused an update of job=%u by uid=%u: %s",
			 j->id, (unsigned)r->cred.uid,
			 one_line(*why, line, sizeof(line)));
	free(res.user_msg); /* Slurm sends no message with a successful update */
	if (rc) {
		json_decref(out->body);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

void policy_update_fini(struct policy_update *pu)
{
	if (pu->body)
		drv_shape_free(&drv_shape_job_update, &pu->msg);
	json_decref(pu->body);
	memset(pu, 0, sizeof(*pu));
}
