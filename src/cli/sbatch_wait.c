/* sbatch_wait.c — sbatch -W/--wait: after the submission, polls ctld for the
 * job until it ends and turns its end into sbatch's exit status, as Slurm's
 * sbatch does (the job's exit code; 1 when a signal ended it). Only reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/sbatch_wait.h"

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/state.h"

/* Slurm's sbatch polls at a growing interval; Drover's reads are cheap,
 * so a short one bounded at a few seconds keeps --wait prompt. */
#define WAIT_MIN_MS 200
#define WAIT_MAX_MS 2000

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int sbatch_wait_status(const char *state, int64_t exit_code, int64_t exit_signal)
{
	if (!strcmp(state, "COMPLETED"))
		return 0;
	if (exit_signal != 0 || exit_code == 0)
		return 1;
	return (int)(exit_code & 0xff);
}

/* One look at the job: 1 and *status when it has ended, 0 while it runs,
 * -1 when ctld cannot be asked or no longer knows it. */
static int look(const struct drv_conf *conf, int64_t id, int *status)
{
	struct drv_error err = {{0}};
	uint32_t one = (uint32_t)id; /* a job id sbatch was given */
	struct drv_job_query q = {
	    .all_states = true, .job_ids = &one, .n_job_ids = 1, .has_job_ids = true};
	json_t *reply = NULL;
	struct cli_job *job = NULL;

	if (cli_call(conf, "job.query", drv_job_query_encode(&q), &reply, &err) != 0)
		return -1;
	int rc = cli_jobs_from_reply(reply, &job, NULL) == 1 ? 0 : -1;
	if (rc == 0 && !cli_state_is_active(job->state)) {
		*status =
		    sbatch_wait_status(job->state, job->exit_code, job->exit_signal);
		rc = 1;
	}
	free(job);
	json_decref(reply);
	return rc;
}

int sbatch_wait_job(const struct drv_conf *conf, int64_t id)
{
	long ms = WAIT_MIN_MS;
	int status = 1, rc;

	while ((rc = look(conf, id, &status)) == 0) {
		nap(ms);
		ms = ms * 2 > WAIT_MAX_MS ? WAIT_MAX_MS : ms * 2;
	}
	if (rc < 0)
		cli_error("Job %lld is no longer known; its exit status is lost",
			  (long long)id);
	return status;
}
