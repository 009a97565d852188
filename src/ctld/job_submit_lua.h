/* job_submit_lua.h — JobSubmitPlugins=lua: the site's job_submit.lua,
 * called as Slurm's job_submit/lua plugin calls it:
 * slurm_job_submit(job_desc, part_list, submit_uid) for each new job and
 * slurm_job_modify(job_desc, job_rec, part_list, modify_uid) for each
 * update. The only place Lua lives in Drover.
 *
 * The script is loaded at start and again whenever the file changes (one
 * stat per call). A script that does not load, lacks a function, fails or
 * runs past its limits refuses the job with one clear message and logs one
 * line naming file:line; ctld itself never stops for it. Each run is
 * bounded by a count of Lua instructions and a memory ceiling. */
#ifndef CTLD_JOB_SUBMIT_LUA_H
#define CTLD_JOB_SUBMIT_LUA_H

#include <stdint.h>

#include "common/error.h"
#include "ctld/job_desc.h"

/* Lua VM instructions one load or one hook may run, and the memory the
 * script's state may hold (docs/compat.md says both). */
#define JSL_INSTRUCTION_LIMIT 20000000ULL
#define JSL_MEMORY_LIMIT (64u << 20)
/* The most text a call's user messages keep (bytes, cut at a character):
 * what the replies carry (result.error: TEXT_LEN) and clients print. */
#define JSL_USER_MSG_MAX 1536

struct ctld;
struct job;
struct job_submit_lua;

/* The plugin for the script at path, in cluster cluster_name (slurm.
 * CLUSTER_NAME; both copied); loads nothing yet. NULL with
 * errno ENOMEM. */
struct job_submit_lua *jsl_new(const char *path, const char *cluster_name);
void jsl_free(struct job_submit_lua *p); /* accepts NULL */

/* Loads the script when the file changed since the last attempt (a new
 * inode, size or modification time). 0 when a working script is loaded;
 * -errno with err ("PATH:LINE: what") when not, logged once per version
 * of the file. */
int jsl_refresh(struct job_submit_lua *p, struct drv_error *err);

/* drover-ctld -t: loads path into a state of its own and drops it. 0, or
 * -EINVAL with err naming file:line. */
int jsl_check(const char *path, struct drv_error *err);

/* What a hook decided. */
struct jsl_result {
	int rc;		/* 0 accepted, else the Slurm error code to refuse with */
	char *user_msg; /* slurm.user_msg text, or why it failed; NULL when
			   none; the caller frees it */
};

/* Runs slurm_job_submit on d (its body changed by the script's writes),
 * with the partitions of c and submit_uid. Fills *out. */
void jsl_submit(struct job_submit_lua *p, const struct ctld *c, struct jd_doc *d,
		uint32_t submit_uid, struct jsl_result *out);

/* Runs slurm_job_modify on d (the update's body), for job j, by
 * modify_uid. Fills *out. */
void jsl_modify(struct job_submit_lua *p, const struct ctld *c, struct jd_doc *d,
		const struct job *j, uint32_t modify_uid, struct jsl_result *out);

#endif
