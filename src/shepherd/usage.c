/* usage.c — what the tasks used, from the rusage wait4() hands back.
 *
 * Each reaped task adds its own CPU time and peak RSS (which cover the
 * descendants it waited for); the sums, the peak and the task that had it,
 * and the average peak go into DIR/status as "usage" (docs/protocol.md).
 * This is Slurm's jobacct_gather at the end of a step, without the samples
 * taken while it runs. No I/O, no state of its own. */
#include <sys/resource.h>

#include "shepherd/shepherd.h"

static int64_t usec(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

void usage_add(struct usage *u, uint32_t task, const struct rusage *ru)
{
	int64_t rss = ru->ru_maxrss; /* KiB on Linux */
	u->user_usec += usec(&ru->ru_utime);
	u->sys_usec += usec(&ru->ru_stime);
	u->rss_sum_kib += rss;
	if (!u->ntasks || rss > u->max_rss_kib) {
		u->max_rss_kib = rss;
		u->max_rss_task = task;
	}
	u->ntasks++;
}

json_t *usage_to_json(const struct usage *u)
{
	int64_t ave = u->ntasks ? u->rss_sum_kib / u->ntasks : 0;
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "user_usec",
			 (json_int_t)u->user_usec, "sys_usec", (json_int_t)u->sys_usec,
			 "max_rss_kib", (json_int_t)u->max_rss_kib, "ave_rss_kib",
			 (json_int_t)ave, "max_rss_task", (json_int_t)u->max_rss_task,
			 "ntasks", (json_int_t)u->ntasks);
}
