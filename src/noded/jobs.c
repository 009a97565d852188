/* jobs.c — the in-memory table of the jobs this node holds.
 *
 * A cache of the spool: spool.c fills it, launch.c adds to it, link.c removes
 * a job once ctld acknowledged its end. It holds nothing that cannot be
 * rebuilt from the job dirs. A node holds few jobs, so a list is enough. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "noded/noded.h"

int64_t jobs_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

struct noded_job *jobs_find(struct noded *nd, int64_t job_id)
{
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		if (j->job_id == job_id)
			return j;
	}
	return NULL;
}

struct noded_job *jobs_add(struct noded *nd, int64_t job_id, int64_t restart)
{
	struct noded_job *job = calloc(1, sizeof(*job));
	if (!job)
		return NULL;
	job->job_id = job_id;
	job->restart = restart;
	job->phase = JOB_RUNNING;
	job->seen_at = jobs_now();
	job->next = nd->jobs;
	nd->jobs = job;
	return job;
}

static void job_free(struct noded_job *job)
{
	signal_cancel_timer(job);
	script_cancel_timer(job);
	free(job->message);
	free(job);
}

void jobs_remove(struct noded *nd, struct noded_job *job)
{
	for (struct noded_job **p = &nd->jobs; *p; p = &(*p)->next) {
		if (*p == job) {
			*p = job->next;
			job_free(job);
			return;
		}
	}
}

void jobs_free_all(struct noded *nd)
{
	while (nd->jobs) {
		struct noded_job *next = nd->jobs->next;
		job_free(nd->jobs);
		nd->jobs = next;
	}
}

void jobs_set_done(struct noded_job *job, int exit_code, int sig, bool launch_failed,
		   const char *message)
{
	job->phase = JOB_DONE;
	job->exit_code = exit_code;
	job->sig = sig;
	job->launch_failed = launch_failed;
	job->timeout = false; /* spool.c sets it from the status file */
	job->oom = false;
	job->lost = false; /* spool.c sets it */
	free(job->message);
	job->message = message ? strdup(message) : NULL;
	job->has_usage = false; /* spool.c sets it from the status file */
	job->complete_id = 0;
	job->complete_at = 0;
	signal_cancel_timer(job);
}

int jobs_list(const struct noded *nd, struct drv_rec_job_ref **refs, size_t *n)
{
	size_t count = 0;
	for (const struct noded_job *j = nd->jobs; j; j = j->next)
		count++;
	*refs = calloc(count ? count : 1, sizeof(**refs));
	*n = 0;
	if (!*refs)
		return -ENOMEM;
	for (const struct noded_job *j = nd->jobs; j; j = j->next)
		(*refs)[(*n)++] = (struct drv_rec_job_ref){
		    .job_id = (uint32_t)j->job_id, .restart = (uint32_t)j->restart};
	return 0;
}
