/* kill_why.h — why a job or step is being ended, as noded tells its
 * shepherd (the value sigqueue() carries with the signal: SIGUSR1 to a
 * batch job's shepherd, SIGTERM to a step's). The shepherd then writes
 * Slurm's "slurmstepd: error: *** JOB N ON NODE CANCELLED AT T ***" line,
 * or "... DUE TO TIME LIMIT ***", before it signals the processes. */
#ifndef DRV_COMMON_KILL_WHY_H
#define DRV_COMMON_KILL_WHY_H

#include <signal.h>
#include <string.h>

enum drv_kill_why {
	DRV_KILL_WHY_NONE = 0,	     /* no line: plain SIGTERM */
	DRV_KILL_WHY_CANCEL = 1,     /* scancel, or the job's end for its steps */
	DRV_KILL_WHY_TIME_LIMIT = 2, /* the job reached its time limit */
	DRV_KILL_WHY_REQUEUE = 3,    /* scontrol requeue */
};

/* The signal noded sends a batch job's shepherd to have it end the job,
 * and the file in the job dir by which a shepherd says it takes it (an
 * older shepherd, still running after an upgrade, would die of it: noded
 * signals the job's group itself then). */
#define DRV_SHEPHERD_KILL_SIG SIGUSR1
#define DRV_SHEPHERD_KILL_FILE "kill_why"

/* Not ends but noded's word, on the same signal to a batch job's shepherd,
 * that scontrol suspended or resumed the job: the shepherd's time-limit
 * clock stops while the job is suspended (Slurm's limit excludes that time). */
#define DRV_SHEPHERD_SUSPEND 16
#define DRV_SHEPHERD_RESUME 17

/* The wire's reason ("cancel", "time_limit", "requeue"; NULL: none) as a
 * code. */
static inline enum drv_kill_why drv_kill_why_parse(const char *reason)
{
	if (!reason)
		return DRV_KILL_WHY_NONE;
	if (!strcmp(reason, "time_limit"))
		return DRV_KILL_WHY_TIME_LIMIT;
	if (!strcmp(reason, "requeue"))
		return DRV_KILL_WHY_REQUEUE;
	return !strcmp(reason, "cancel") ? DRV_KILL_WHY_CANCEL : DRV_KILL_WHY_NONE;
}

#endif
