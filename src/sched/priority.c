/* priority.c — Slurm's priority/multifactor formula for one job: each factor
 * 0..1 (age, association, fair share, job size, partition, QOS, one per
 * TRES), weighted, summed, plus the site factor, minus nice, truncated to
 * an integer between 1 and UINT32_MAX. Pure: the fair-share factor comes
 * from sched_fairshare, everything else from the caller's plain data; no
 * clock (now is an argument). Follows set_priority_factors() and
 * _get_priority_internal() of Slurm 22.05, edge cases included. */
#include <math.h>
#include <string.h>

#include "sched/sched.h"

/* Slurm's time limit for unlimited jobs, in minutes (INFINITE). */
#define SLURM_INFINITE_MINUTES 4294967294.0

static double clamp01(double x)
{
	if (!(x > 0.0)) /* also NaN, though none can reach here */
		return 0.0;
	return x > 1.0 ? 1.0 : x;
}

/* Age: the time since the job became eligible over PriorityMaxAge, 1.0
 * from then on (and with PriorityMaxAge=0, as Slurm). */
static double age_factor(const struct sched_prio_weights *w,
			 const struct sched_prio_job *j, int64_t now)
{
	int64_t waited = 0;

	if (!j->eligible_time)
		return 0.0;
	if (now > j->eligible_time)
		waited = now - j->eligible_time;
	if (waited < w->max_age)
		return (double)waited / (double)w->max_age;
	return 1.0;
}

/* Minutes of a time limit, as Slurm keeps them: rounded up, at least one
 * (a limit of 0 would divide by zero), INFINITE for unlimited. */
static double limit_minutes(int64_t seconds)
{
	if (seconds == SCHED_NEVER)
		return SLURM_INFINITE_MINUTES;
	if (seconds <= 60)
		return 1.0;
	return (double)((seconds + 59) / 60);
}

/* SMALL_RELATIVE_TO_TIME: the job's CPUs (at least its nodes' worth at the
 * cluster's average CPUs per node) per minute of its limit, over the
 * cluster's CPUs. */
static double size_over_time(const struct sched_prio_weights *w,
			     const struct sched_prio_job *j)
{
	double size, nodes_cpus;

	if (!w->cluster_cpus || !w->cluster_nodes)
		return 0.0;
	nodes_cpus =
	    (double)j->nodes * (double)w->cluster_cpus / (double)w->cluster_nodes;
	size = (double)j->cpus > nodes_cpus ? (double)j->cpus : nodes_cpus;
	size = size / limit_minutes(j->time_limit) / (double)w->cluster_cpus;
	return w->favor_small ? 1.0 - size : size;
}

/* Job size: the mean of its share of the nodes and of the CPUs (the nodes
 * alone while its CPUs are not known), inverted with PriorityFavorSmall. */
static double job_size_factor(const struct sched_prio_weights *w,
			      const struct sched_prio_job *j)
{
	double nodes, f;

	if (w->small_relative_to_time)
		return clamp01(size_over_time(w, j));
	if (!w->cluster_nodes)
		return 0.0;
	nodes = (double)w->cluster_nodes;
	if (w->favor_small)
		f = (nodes - (double)j->nodes) / nodes;
	else
		f = (double)j->nodes / nodes;
	if (j->cpus && w->cluster_cpus) {
		double cpus = (double)w->cluster_cpus;

		if (w->favor_small)
			f += (cpus - (double)j->cpus) / cpus;
		else
			f += (double)j->cpus / cpus;
		f /= 2;
	}
	return clamp01(f);
}

/* A value over the highest of its kind (partition, QOS, association). */
static double normalized(uint32_t value, uint32_t highest)
{
	if (!value || !highest)
		return 0.0;
	return clamp01((double)value / (double)highest);
}

/* TRES: what the job asks for over its partition's (else the cluster's). */
static void tres_factors(const struct sched_prio_weights *w,
			 const struct sched_prio_job *j, double *out)
{
	for (int t = 0; t < SCHED_TRES_COUNT; t++) {
		uint64_t total =
		    j->part_tres.v[t] ? j->part_tres.v[t] : w->cluster_tres.v[t];

		out[t] = 0.0;
		if (w->tres[t] == 0.0 || !j->tres.v[t] || !total ||
		    total == SCHED_UNLIMITED)
			continue;
		out[t] = clamp01((double)j->tres.v[t] / (double)total);
	}
}

void sched_priority(const struct sched_prio_weights *w, const struct sched_prio_job *j,
		    int64_t now, struct sched_prio_factors *out)
{
	struct sched_prio_factors f;
	double sum;

	memset(&f, 0, sizeof(f));
	if (w->age)
		f.age = age_factor(w, j, now);
	if (w->assoc)
		f.assoc = normalized(j->assoc_priority, w->max_assoc_priority);
	if (w->fairshare)
		f.fairshare = clamp01(j->fairshare);
	if (w->job_size)
		f.job_size = job_size_factor(w, j);
	if (w->partition)
		f.partition = normalized(j->part_job_factor, w->max_part_job_factor);
	if (w->qos)
		f.qos = normalized(j->qos_priority, w->max_qos_priority);
	tres_factors(w, j, f.tres);

	sum = f.age * w->age + f.assoc * w->assoc + f.fairshare * w->fairshare +
	      f.job_size * w->job_size + f.partition * w->partition + f.qos * w->qos;
	for (int t = 0; t < SCHED_TRES_COUNT; t++)
		sum += f.tres[t] * w->tres[t];
	sum += (double)j->site_factor - (double)j->nice;

	/* 0 is reserved for held jobs; Slurm's priorities are 32 bits */
	if (!(sum >= 1.0))
		sum = 1.0;
	if (sum > (double)UINT32_MAX)
		sum = (double)UINT32_MAX;
	f.priority = (uint64_t)sum;
	*out = f;
}
