/* usage.c — what the tasks used: each reaped task's CPU time from the
 * rusage wait4() hands back, its peak RSS the higher of that rusage's (the
 * largest of its processes, or of the children it waited for) and of its
 * samples (its processes summed, sample.c), its peak virtual size from
 * the samples alone. The sums, the peaks with the task that had them, the
 * least CPU time with its task, and the average peaks go into DIR/status
 * (and DIR/usage while the step runs) as "usage" (docs/protocol.md). This
 * is Slurm's jobacct_gather. No I/O, no state of its own. */
#include <sys/resource.h>

#include "shepherd/shepherd.h"

static int64_t usec(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* One task's figures, however they were measured. */
static void add(struct usage *u, uint32_t task, int64_t user, int64_t sys, int64_t rss,
		int64_t vsize)
{
	u->user_usec += user;
	u->sys_usec += sys;
	u->rss_sum_kib += rss;
	u->vsize_sum_kib += vsize;
	if (!u->ntasks || rss > u->max_rss_kib) {
		u->max_rss_kib = rss;
		u->max_rss_task = task;
	}
	if (!u->ntasks || vsize > u->max_vsize_kib) {
		u->max_vsize_kib = vsize;
		u->max_vsize_task = task;
	}
	if (!u->ntasks || user + sys < u->min_cpu_usec) {
		u->min_cpu_usec = user + sys;
		u->min_cpu_task = task;
	}
	if (!u->ntasks || user + sys > u->max_cpu_usec) {
		u->max_cpu_usec = user + sys;
		u->max_cpu_task = task;
	}
	u->ntasks++;
}

void usage_add(struct usage *u, uint32_t task, const struct rusage *ru,
	       const struct task_sample *ts)
{
	int64_t rss = ru->ru_maxrss; /* KiB on Linux */
	if (ts && ts->rss_kib > rss)
		rss = ts->rss_kib;
	/* a process's virtual size is never below its resident one, so a
	 * peak between two samples still bounds the virtual peak */
	int64_t vsize = ts ? (ts->vsize_kib > rss ? ts->vsize_kib : rss) : 0;
	add(u, task, usec(&ru->ru_utime), usec(&ru->ru_stime), rss, vsize);
}

void usage_add_sample(struct usage *u, const struct task_sample *ts)
{
	add(u, ts->id, ts->user_usec, ts->sys_usec, ts->rss_kib, ts->vsize_kib);
}

json_t *usage_to_json(const struct usage *u)
{
	int64_t n = u->ntasks ? u->ntasks : 1;
	json_t *o = json_pack("{s:I,s:I}", "max_cpu_usec", (json_int_t)u->max_cpu_usec,
			      "max_cpu_task", (json_int_t)u->max_cpu_task);
	json_t *rest = json_pack(
	    "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "user_usec",
	    (json_int_t)u->user_usec, "sys_usec", (json_int_t)u->sys_usec, "max_rss_kib",
	    (json_int_t)u->max_rss_kib, "ave_rss_kib", (json_int_t)(u->rss_sum_kib / n),
	    "max_rss_task", (json_int_t)u->max_rss_task, "ntasks", (json_int_t)u->ntasks,
	    "max_vsize_kib", (json_int_t)u->max_vsize_kib, "ave_vsize_kib",
	    (json_int_t)(u->vsize_sum_kib / n), "max_vsize_task",
	    (json_int_t)u->max_vsize_task, "min_cpu_usec", (json_int_t)u->min_cpu_usec,
	    "min_cpu_task", (json_int_t)u->min_cpu_task);
	if (!o || !rest || json_object_update(o, rest) < 0) {
		json_decref(o);
		o = NULL;
	}
	json_decref(rest);
	return o;
}
