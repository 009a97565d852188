/* extern.c — Slurm's extern step (PrologFlags=Contain) on the batch node: a
 * cgroup step_extern beside step_batch, made with the job's limits before
 * the script runs and kept, empty or not, for the job's whole life. The
 * kernel keeps an empty cgroup, so no sleeping process is needed to hold
 * it (Slurm's slurmstepd needs one; this shepherd is that holder).
 *
 * pam_drover_adopt moves ssh sessions of the job's user into it. It finds
 * the step through DIR/extern, written here as root in the root-owned job
 * dir: the job, its user, its start and the cgroup.procs files to write a
 * pid into. At the job's end that file goes first (no new session is
 * adopted into a dying job), then everything in the step is killed, as in
 * any step, and the step removed. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "shepherd/shepherd.h"

#define EXTERN_FILE "extern"

static int add_procs(json_t *procs, const char *dir)
{
	char path[PATH_MAX + 16];
	if (!dir[0])
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return json_array_append_new(procs, json_string(path));
}

/* DIR/extern (mode 0600): what pam_drover_adopt reads. */
static int write_record(const char *dir, const struct spec *s, const struct cg_step *cg)
{
	json_t *procs = json_array();
	int rc = procs ? add_procs(procs, cg->mem) : -1;
	rc |= add_procs(procs, cg->frz);
	for (int i = 0; i < CG_NCTL; i++)
		rc |= add_procs(procs, cg->ctl[i]);
	json_t *rec = json_pack("{s:I,s:I,s:I,s:o}", "job_id", (json_int_t)s->job_id,
				"uid", (json_int_t)s->uid, "start_time",
				(json_int_t)s->start_time, "procs", procs);
	char *text = rc == 0 && rec ? json_dumps(rec, JSON_COMPACT) : NULL;
	json_decref(rec);
	if (!text)
		return -ENOMEM;
	rc = drv_write_file_replace(dir, EXTERN_FILE, text, strlen(text), 0600);
	free(text);
	return rc;
}

void extern_begin(struct cg_step *cg, const char *dir, const struct spec *s)
{
	memset(cg, 0, sizeof(*cg));
	if (!s->ns.has_cgroup || !s->ns.cgroup.extern_step)
		return;
	isolate_begin(cg, &s->ns, s->job_id, "extern", isolate_batch_mib(s));
	if (!cg->active)
		return; /* isolate_begin said why */
	int rc = write_record(dir, s, cg);
	if (rc < 0) {
		log_error("job=%lld step=extern: cannot write %s/%s: %s: ssh sessions "
			  "cannot join the job",
			  (long long)s->job_id, dir, EXTERN_FILE, strerror(-rc));
		return;
	}
	log_info("job=%lld step=extern: %s", (long long)s->job_id, cg->mem);
}

bool extern_end(struct cg_step *cg, const char *dir, const struct spec *s)
{
	char path[PATH_MAX + 16], who[48];
	snprintf(path, sizeof(path), "%s/%s", dir, EXTERN_FILE);
	if (unlink(path) < 0 && errno != ENOENT)
		log_warn("job=%lld: cannot remove %s: %s", (long long)s->job_id, path,
			 strerror(errno));
	if (!cg->active)
		return false;
	snprintf(who, sizeof(who), "job=%lld step=extern", (long long)s->job_id);
	bool unkillable = procs_end(cg, 0, PROCS_UNKILLABLE_S(&s->ns), who);
	cg_step_destroy(cg);
	return unkillable;
}
