/* sacct_usage.c — the usage fields of sacct (TotalCPU, UserCPU, SystemCPU,
 * MaxRSS, MaxRSSNode, MaxRSSTask, AveRSS, and from the samples AveCPU,
 * MinCPU*, MaxVMSize*, AveVMSize, TRESUsageIn*) from what the shepherds
 * measured: a step row shows its step's usage, the .batch row the
 * script's, and the job row the CPU times summed over all of them and no
 * RSS, as Slurm 22.05 prints them. */
#include <stdio.h>

#include "cli/sacct_values.h"
#include "cli/sacct_time.h"
#include "cli/usage_fmt.h"

#define V(name)                                                                          \
	const char *sacct_v_##name(const struct sacct_row *r, const struct sacct_ctx *c, \
				   char *buf)

/* The step row's usage; NULL on the job row. */
static const struct cli_usage *row_usage(const struct sacct_row *r)
{
	if (r->srun)
		return &r->srun->usage;
	return r->step ? &r->job->batch_usage : NULL;
}

enum cpu_kind { CPU_TOTAL, CPU_USER, CPU_SYS };

static int64_t usage_cpu(const struct cli_usage *u, enum cpu_kind k)
{
	if (!u->has)
		return 0;
	return k == CPU_USER  ? u->user_usec
	       : k == CPU_SYS ? u->sys_usec
			      : u->user_usec + u->sys_usec;
}

/* A job's CPU time is its steps' (the batch step's among them) summed. */
static int64_t row_cpu(const struct sacct_row *r, enum cpu_kind k)
{
	const struct cli_usage *u = row_usage(r);
	if (u)
		return usage_cpu(u, k);
	int64_t sum = usage_cpu(&r->job->batch_usage, k);
	for (size_t i = 0; i < r->job->n_steps; i++)
		sum += usage_cpu(&r->job->steps[i].usage, k);
	return sum;
}

static const char *cpu(int64_t usec, char *buf)
{
	sacct_fmt_cpu(usec / 1000000, usec % 1000000, buf, SACCT_VALUE_MAX);
	return buf;
}

const char *sacct_fmt_rss(int64_t kib, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = 0;
	if (kib <= 0)
		return snprintf(buf, len, "0"), buf;
	while (kib % 1024 == 0 && units[u + 1]) { /* exact multiples only */
		kib /= 1024;
		u++;
	}
	snprintf(buf, len, "%lld%c", (long long)kib, units[u]);
	return buf;
}

V(total_cpu)
{
	(void)c;
	return cpu(row_cpu(r, CPU_TOTAL), buf);
}

V(user_cpu)
{
	(void)c;
	return cpu(row_cpu(r, CPU_USER), buf);
}

V(sys_cpu)
{
	(void)c;
	return cpu(row_cpu(r, CPU_SYS), buf);
}

V(max_rss)
{
	(void)c;
	const struct cli_usage *u = row_usage(r);
	return u && u->has ? sacct_fmt_rss(u->max_rss_kib, buf, SACCT_VALUE_MAX) : NULL;
}

V(max_rss_node)
{
	(void)c;
	(void)buf;
	const struct cli_usage *u = row_usage(r);
	return u && u->has ? u->max_rss_node : NULL;
}

V(max_rss_task)
{
	(void)c;
	const struct cli_usage *u = row_usage(r);
	if (!u || !u->has)
		return NULL;
	snprintf(buf, SACCT_VALUE_MAX, "%lld", (long long)u->max_rss_task);
	return buf;
}

V(ave_rss)
{
	(void)c;
	const struct cli_usage *u = row_usage(r);
	return u && u->has ? sacct_fmt_rss(u->ave_rss_kib, buf, SACCT_VALUE_MAX) : NULL;
}

/* The step row's usage when it was sampled; NULL otherwise (blank). */
static const struct cli_usage *sampled(const struct sacct_row *r)
{
	const struct cli_usage *u = row_usage(r);
	return u && usage_sampled(u) ? u : NULL;
}

static const char *task_num(int64_t v, char *buf)
{
	snprintf(buf, SACCT_VALUE_MAX, "%lld", (long long)v);
	return buf;
}

V(ave_cpu)
{
	(void)c;
	const struct cli_usage *u = sampled(r);
	return u ? usage_fmt_ave_cpu(u, buf, SACCT_VALUE_MAX) : NULL;
}

V(ave_vsize)
{
	(void)c;
	const struct cli_usage *u = sampled(r);
	return u ? usage_fmt_kib(u->ave_vsize_kib, buf, SACCT_VALUE_MAX) : NULL;
}

V(max_vsize)
{
	(void)c;
	const struct cli_usage *u = sampled(r);
	return u ? usage_fmt_kib(u->max_vsize_kib, buf, SACCT_VALUE_MAX) : NULL;
}

V(max_vsize_node)
{
	(void)c;
	(void)buf;
	const struct cli_usage *u = sampled(r);
	return u ? u->max_vsize_node : NULL;
}

V(max_vsize_task)
{
	(void)c;
	const struct cli_usage *u = sampled(r);
	return u ? task_num(u->max_vsize_task, buf) : NULL;
}

V(min_cpu)
{
	(void)c;
	const struct cli_usage *u = sampled(r);
	return u ? usage_fmt_secs(u->min_cpu_usec, buf, SACCT_VALUE_MAX) : NULL;
}

V(min_cpu_node)
{
	(void)c;
	(void)buf;
	const struct cli_usage *u = sampled(r);
	return u ? u->min_cpu_node : NULL;
}

V(min_cpu_task)
{
	(void)c;
	const struct cli_usage *u = sampled(r);
	return u ? task_num(u->min_cpu_task, buf) : NULL;
}

/* A TRESUsageIn* string; without samples what sacct printed before them
 * (energy=0 in Ave and Tot of a finished step, else blank). */
static const char *tres_in(const struct sacct_row *r, const struct sacct_ctx *c,
			   char *buf, enum usage_tres which)
{
	const struct cli_usage *u = sampled(r);
	if (u)
		return usage_fmt_tres(u, which, buf, SACCT_VALUE_MAX);
	if (which == USAGE_TRES_AVE || which == USAGE_TRES_TOT)
		return sacct_v_usage_energy(r, c, buf);
	return NULL;
}

V(tres_in_ave)
{
	return tres_in(r, c, buf, USAGE_TRES_AVE);
}

V(tres_in_max)
{
	return tres_in(r, c, buf, USAGE_TRES_MAX);
}

V(tres_in_max_node)
{
	return tres_in(r, c, buf, USAGE_TRES_MAX_NODE);
}

V(tres_in_max_task)
{
	return tres_in(r, c, buf, USAGE_TRES_MAX_TASK);
}

V(tres_in_min)
{
	return tres_in(r, c, buf, USAGE_TRES_MIN);
}

V(tres_in_min_node)
{
	return tres_in(r, c, buf, USAGE_TRES_MIN_NODE);
}

V(tres_in_min_task)
{
	return tres_in(r, c, buf, USAGE_TRES_MIN_TASK);
}

V(tres_in_tot)
{
	return tres_in(r, c, buf, USAGE_TRES_TOT);
}
