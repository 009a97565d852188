/* scontrol_step.c — `scontrol show step [ID[_T][.STEP]]`: the running steps
 * of running jobs (each job's batch step first, then its srun steps from
 * the record's "steps"), as Slurm 22.05's scontrol prints them. One
 * job.query; the record text is scs_print_step's (scontrol_show.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/scontrol.h"
#include "cli/scontrol_show.h"
#include "common/proto.h"

/* What the argument names: a job (0: all), an array task (-1: none) and
 * a step (-1: all). Read with strtol as Slurm reads it: "abc" is every
 * job, "ID.batch" step 0. */
struct step_arg {
	int64_t job_id, task, step;
};

static struct step_arg parse_arg(const char *arg)
{
	struct step_arg a = {0, -1, -1};
	char *end = NULL;
	if (!arg)
		return a;
	a.job_id = strtoll(arg, &end, 10);
	if (*end == '_')
		a.task = strtoll(end + 1, &end, 10);
	if (*end == '.')
		a.step = strtoll(end + 1, NULL, 10);
	return a;
}

static bool job_named(const struct step_arg *a, const struct cli_job *j)
{
	if (a->job_id <= 0)
		return true;
	if (a->task >= 0)
		return j->array_job_id == a->job_id && j->array_task_id == a->task;
	return j->job_id == a->job_id || j->array_job_id == a->job_id;
}

/* Prints the steps of j that a names; returns how many. */
static int print_job_steps(struct sctl *s, const struct step_arg *a,
			   const struct cli_job *j)
{
	int shown = 0;
	char *text = NULL;
	size_t len = 0;
	if (strcmp(j->state, "RUNNING"))
		return 0;
	for (long k = -1; k < (long)j->n_steps; k++) {
		const struct cli_step *st = k < 0 ? NULL : &j->steps[k];
		if (!st ? a->step >= 0 || !*j->batch_host || j->interactive
			: strcmp(st->state, "RUNNING") ||
			      (a->step >= 0 && st->step_id != a->step))
			continue;
		FILE *f = open_memstream(&text, &len);
		if (!f)
			break;
		scs_print_step(f, j, st);
		fclose(f);
		sctl_emit(s, text);
		shown++;
	}
	return shown;
}

static int by_id_desc(const void *x, const void *y)
{
	const struct cli_job *a = x, *b = y;
	return (a->job_id < b->job_id) - (a->job_id > b->job_id);
}

int sctl_show_step(struct sctl *s, const char *id_str)
{
	struct drv_error err = {{0}};
	struct step_arg a = parse_arg(id_str);
	json_t *reply = NULL;
	struct cli_job *jobs = NULL;
	int rc, shown = 0;
	bool known = false;

	rc = sctl_call(s, "job.query", sctl_job_query_body(a.job_id), &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n",
			sctl_failure_text(rc, &err));
		return 1;
	}
	size_t n = cli_jobs_from_reply(reply, &jobs, NULL);
	qsort(jobs, n, sizeof(*jobs), by_id_desc); /* ctld's newest first */
	for (size_t i = 0; i < n; i++) {
		if (!job_named(&a, &jobs[i]))
			continue;
		known = true;
		shown += print_job_steps(s, &a, &jobs[i]);
	}
	free(jobs);
	json_decref(reply);
	if (a.job_id > 0 && !known) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n",
			drv_rc_text(DRV_RC_INVALID_JOB_ID));
		return 1;
	}
	if (shown == 0) {
		if (a.job_id <= 0) {
			printf("No job steps in the system\n");
			return 0;
		}
		printf("Job step %s not found\n", id_str);
		return 1;
	}
	return 0;
}
