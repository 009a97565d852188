/* sample.c — ctld's step.sample (sstat): the latest usage sample of each
 * asked-for step of a job that still runs here. Its shepherd rewrites
 * DIR/usage every JobAcctGatherFrequency seconds (src/shepherd/sample.c);
 * a step whose dir holds a status has ended and is left out, as is one
 * with no sample yet. Reads only; changes nothing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/log.h"
#include "noded/noded.h"

/* Appends {"step_id": step_id, "usage": ...} when dir runs and has one. */
static void add_sample(json_t *samples, const char *dir, int64_t step_id)
{
	char status[PATH_MAX];
	struct stat sb;
	int n = snprintf(status, sizeof(status), "%s/status", dir);
	if (n < 0 || (size_t)n >= sizeof(status) || stat(status, &sb) == 0)
		return; /* ended: sacct has its usage */
	struct drv_rec_usage u = {0};
	json_t *json = NULL;
	if (spool_read_shape(dir, "usage", &drv_shape_rec_usage, &u, &json) < 0)
		return;
	drv_shape_free(&drv_shape_rec_usage, &u);
	json_array_append_new(samples, json_pack("{s:I,s:O}", "step_id",
						 (json_int_t)step_id, "usage", json));
	json_decref(json);
}

int sample_steps(struct noded *nd, const struct drv_step_sample *m, json_t **reply,
		 struct drv_error *err)
{
	json_t *samples = json_array();
	char dir[PATH_MAX];
	if (!samples) {
		drv_error_set(err, ENOMEM, "out of memory");
		return ENOMEM;
	}
	if (m->batch && spool_job_dir(nd, m->job_id, dir, sizeof(dir)) == 0)
		add_sample(samples, dir, -1);
	for (size_t i = 0; i < m->n_step_ids; i++) {
		int n = snprintf(dir, sizeof(dir), "%s/step.%" PRIu32 ".%" PRIu32,
				 nd->spool_dir, m->job_id, m->step_ids[i]);
		if (n > 0 && (size_t)n < sizeof(dir))
			add_sample(samples, dir, m->step_ids[i]);
	}
	*reply = json_pack("{s:o}", "samples", samples);
	if (*reply)
		return 0;
	drv_error_set(err, ENOMEM, "out of memory");
	return ENOMEM;
}
