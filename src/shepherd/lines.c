/* lines.c — Slurm's own lines in a job's output, as slurmstepd writes them
 * (its log goes to the job's stderr, a step's to srun): the cancel line
 * "slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT 2026-12-02T05:01:02 ***"
 * (with " DUE TO TIME LIMIT" for the time limit, " DUE TO JOB REQUEUE" for
 * scontrol requeue; "STEP 5.0" for a step)
 * and the OOM line of the task/cgroup plugin. Tools grep for these, so the
 * program name stays "slurmstepd" (docs/compat.md). This file only formats
 * and writes; it decides nothing. */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

int lines_cancelled(char *buf, size_t len, const char *entity, const char *node, int why)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32];
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	const char *tail = why == DRV_KILL_WHY_TIME_LIMIT ? " DUE TO TIME LIMIT"
			   : why == DRV_KILL_WHY_REQUEUE  ? " DUE TO JOB REQUEUE"
							  : "";
	int n =
	    snprintf(buf, len, "slurmstepd: error: *** %s ON %s CANCELLED AT %s%s ***\n",
		     entity, node, when, tail);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int lines_oom(char *buf, size_t len, const char *step_id, int64_t kills)
{
	int n =
	    snprintf(buf, len,
		     "slurmstepd: error: Detected %lld oom_kill event%s in StepId=%s. "
		     "Some of the step tasks have been OOM Killed.\n",
		     (long long)kills, kills == 1 ? "" : "s", step_id);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

void lines_write(int fd, const char *line, int n)
{
	if (fd < 0 || n <= 0)
		return;
	ssize_t w;
	do
		w = write(fd, line, (size_t)n);
	while (w < 0 && errno == EINTR);
}
