/* Unit tests for sched/priority.c: every factor of Slurm's multifactor
 * formula against values computed by hand, the weighted sum, nice, the site
 * factor, the floor at 1 and the ceiling at 2^32-1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched.h"

#define EPS 1e-9

/* A cluster of 10 nodes and 100 CPUs; every weight 0 unless a test sets it. */
static struct sched_prio_weights weights(void)
{
	struct sched_prio_weights w;

	memset(&w, 0, sizeof(w));
	w.max_age = 1000;
	w.cluster_cpus = 100;
	w.cluster_nodes = 10;
	w.max_part_job_factor = 1000;
	w.max_qos_priority = 120;
	w.max_assoc_priority = 8;
	return w;
}

static struct sched_prio_job job(void)
{
	struct sched_prio_job j;

	memset(&j, 0, sizeof(j));
	j.eligible_time = 100;
	j.nodes = 2;
	j.cpus = 30;
	j.time_limit = 600;
	return j;
}

static struct sched_prio_factors prio(const struct sched_prio_weights *w,
				      const struct sched_prio_job *j, int64_t now)
{
	struct sched_prio_factors f;

	memset(&f, 0xff, sizeof(f)); /* every field must be written */
	sched_priority(w, j, now, &f);
	return f;
}

/* Age = min(now - eligible, PriorityMaxAge) / PriorityMaxAge. */
static void age_grows_to_max_age(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();

	w.age = 1000;
	assert_float_equal(prio(&w, &j, 350).age, 0.25, EPS);	/* 250 / 1000 */
	assert_float_equal(prio(&w, &j, 1099).age, 0.999, EPS); /* 999 / 1000 */
	assert_float_equal(prio(&w, &j, 1100).age, 1.0, EPS);
	assert_float_equal(prio(&w, &j, 90000).age, 1.0, EPS);
	assert_int_equal(prio(&w, &j, 350).priority, 250);
	/* before it became eligible, or never eligible: no age */
	assert_float_equal(prio(&w, &j, 50).age, 0.0, EPS);
	j.eligible_time = 0;
	assert_float_equal(prio(&w, &j, 350).age, 0.0, EPS);
	/* PriorityMaxAge=0: full age at once, as Slurm (no division by 0) */
	j.eligible_time = 100;
	w.max_age = 0;
	assert_float_equal(prio(&w, &j, 100).age, 1.0, EPS);
	/* no weight: the factor is not computed, as Slurm leaves it */
	w.age = 0;
	w.max_age = 1000;
	assert_float_equal(prio(&w, &j, 350).age, 0.0, EPS);
}

/* Job size: the mean of the node and CPU shares of the cluster. */
static void job_size_favors_large_jobs(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();

	w.job_size = 1000;
	/* (2/10 + 30/100) / 2 = 0.25 */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.25, EPS);
	assert_int_equal(prio(&w, &j, 0).priority, 250);
	/* CPUs not known yet: the nodes alone, 2/10 */
	j.cpus = 0;
	assert_float_equal(prio(&w, &j, 0).job_size, 0.2, EPS);
	/* the whole cluster: 1.0 */
	j.nodes = 10;
	j.cpus = 100;
	assert_float_equal(prio(&w, &j, 0).job_size, 1.0, EPS);
	/* more than the cluster is still 1.0 */
	j.cpus = 400;
	j.nodes = 40;
	assert_float_equal(prio(&w, &j, 0).job_size, 1.0, EPS);
	/* an empty cluster has no size to compare to */
	w.cluster_nodes = 0;
	w.cluster_cpus = 0;
	assert_float_equal(prio(&w, &j, 0).job_size, 0.0, EPS);
}

/* PriorityFavorSmall=YES: ((10-2)/10 + (100-30)/100) / 2 = 0.75. */
static void job_size_favor_small_inverts(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();

	w.job_size = 1000;
	w.favor_small = true;
	assert_float_equal(prio(&w, &j, 0).job_size, 0.75, EPS);
	j.cpus = 0; /* (10-2)/10 */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.8, EPS);
	j.nodes = 1;
	j.cpus = 1; /* (0.9 + 0.99) / 2 */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.945, EPS);
}

/* SMALL_RELATIVE_TO_TIME: max(CPUs, nodes x average CPUs per node) / limit
 * in minutes / cluster CPUs. */
static void job_size_relative_to_time(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();

	w.job_size = 1000;
	w.small_relative_to_time = true;
	j.nodes = 1;
	j.cpus = 50;
	j.time_limit = 600; /* max(50, 10) / 10 / 100 = 0.05 */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.05, EPS);
	j.nodes = 4;
	j.cpus = 10;
	j.time_limit = 120; /* max(10, 40) / 2 / 100 = 0.2 */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.2, EPS);
	j.time_limit = 90; /* rounded up to 2 minutes, as Slurm keeps limits */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.2, EPS);
	j.time_limit = 0; /* at least one minute: 40 / 1 / 100 */
	assert_float_equal(prio(&w, &j, 0).job_size, 0.4, EPS);
	/* a full-system job of one minute is 1.0 */
	j.nodes = 10;
	j.cpus = 100;
	j.time_limit = 60;
	assert_float_equal(prio(&w, &j, 0).job_size, 1.0, EPS);
	/* unlimited: Slurm divides by INFINITE minutes, next to nothing */
	j.time_limit = SCHED_NEVER;
	assert_true(prio(&w, &j, 0).job_size < 1e-9);
	/* with PriorityFavorSmall: 1 - size */
	w.favor_small = true;
	j.nodes = 4;
	j.cpus = 10;
	j.time_limit = 120;
	assert_float_equal(prio(&w, &j, 0).job_size, 0.8, EPS);
}

/* Partition, QOS and association: each over the highest of its kind. */
static void partition_qos_and_assoc_are_relative_to_the_highest(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();
	struct sched_prio_factors f;

	w.partition = 2000;
	w.qos = 3000;
	w.assoc = 800;
	j.part_job_factor = 500; /* / 1000 */
	j.qos_priority = 30;	 /* / 120 */
	j.assoc_priority = 2;	 /* / 8 */
	f = prio(&w, &j, 0);
	assert_float_equal(f.partition, 0.5, EPS);
	assert_float_equal(f.qos, 0.25, EPS);
	assert_float_equal(f.assoc, 0.25, EPS);
	assert_int_equal(f.priority, 1000 + 750 + 200);
	/* none set, or no highest: 0, never a division by zero */
	j.part_job_factor = 0;
	w.max_qos_priority = 0;
	f = prio(&w, &j, 0);
	assert_float_equal(f.partition, 0.0, EPS);
	assert_float_equal(f.qos, 0.0, EPS);
}

/* TRES: what the job asks for over its partition's amount (the cluster's
 * where the partition gives none), each TRES weighted on its own. */
static void tres_factors_per_tres(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();
	struct sched_prio_factors f;

	w.tres[SCHED_TRES_CPU] = 2000;
	w.tres[SCHED_TRES_GPU] = 400.5;
	w.cluster_tres.v[SCHED_TRES_GPU] = 8;
	w.cluster_tres.v[SCHED_TRES_CPU] = 100;
	j.tres.v[SCHED_TRES_CPU] = 16;
	j.tres.v[SCHED_TRES_GPU] = 2;
	j.tres.v[SCHED_TRES_MEM] = 1024; /* no weight: no factor */
	j.part_tres.v[SCHED_TRES_CPU] = 64;
	j.part_tres.v[SCHED_TRES_MEM] = 4096;
	f = prio(&w, &j, 0);
	assert_float_equal(f.tres[SCHED_TRES_CPU], 0.25, EPS); /* 16 / 64 */
	assert_float_equal(f.tres[SCHED_TRES_GPU], 0.25, EPS); /* 2 / 8 */
	assert_float_equal(f.tres[SCHED_TRES_MEM], 0.0, EPS);
	assert_float_equal(f.tres[SCHED_TRES_NODE], 0.0, EPS);
	/* 0.25 x 2000 + 0.25 x 400.5 = 600.125 */
	assert_int_equal(f.priority, 600);
}

/* The sum of weight x factor, plus the site factor, minus nice. */
static void weighted_sum_site_and_nice(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();
	struct sched_prio_factors f;

	w.age = 1000;
	w.fairshare = 10000;
	w.job_size = 500;
	w.partition = 2000;
	w.qos = 3000;
	w.tres[SCHED_TRES_CPU] = 2000;
	j.fairshare = 0.5;
	j.part_job_factor = 500;
	j.qos_priority = 30;
	j.tres.v[SCHED_TRES_CPU] = 30;
	j.part_tres.v[SCHED_TRES_CPU] = 120;
	f = prio(&w, &j, 350);
	assert_float_equal(f.age, 0.25, EPS);
	assert_float_equal(f.fairshare, 0.5, EPS);
	assert_float_equal(f.job_size, 0.25, EPS);
	/* 250 + 5000 + 125 + 1000 + 750 + 500 */
	assert_int_equal(f.priority, 7625);
	j.nice = 100;
	assert_int_equal(prio(&w, &j, 350).priority, 7525);
	j.nice = -1000; /* an operator's negative nice raises it */
	assert_int_equal(prio(&w, &j, 350).priority, 8625);
	j.site_factor = 10;
	assert_int_equal(prio(&w, &j, 350).priority, 8635);
	/* a fair-share factor out of range is held to 0..1 */
	j.fairshare = 3.0;
	j.nice = 0;
	j.site_factor = 0;
	assert_float_equal(prio(&w, &j, 350).fairshare, 1.0, EPS);
}

/* The sum is truncated (333.33 is 333), never below 1 (0 is a held job's)
 * and never above 2^32-1. */
static void floor_ceiling_and_truncation(void **state)
{
	struct sched_prio_weights w = weights();
	struct sched_prio_job j = job();

	/* nothing weighted at all: 1 */
	assert_int_equal(prio(&w, &j, 350).priority, 1);
	w.fairshare = 1000;
	j.fairshare = 1.0 / 3.0;
	assert_int_equal(prio(&w, &j, 350).priority, 333);
	j.nice = 100000;
	assert_int_equal(prio(&w, &j, 350).priority, 1);
	j.nice = 333; /* 0.33 left: still 1 */
	assert_int_equal(prio(&w, &j, 350).priority, 1);
	j.nice = INT32_MIN + 3;
	j.fairshare = 1.0;
	w.fairshare = UINT32_MAX;
	w.age = UINT32_MAX;
	assert_int_equal(prio(&w, &j, 350).priority, UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(age_grows_to_max_age),
	    cmocka_unit_test(job_size_favors_large_jobs),
	    cmocka_unit_test(job_size_favor_small_inverts),
	    cmocka_unit_test(job_size_relative_to_time),
	    cmocka_unit_test(partition_qos_and_assoc_are_relative_to_the_highest),
	    cmocka_unit_test(tres_factors_per_tres),
	    cmocka_unit_test(weighted_sum_site_and_nice),
	    cmocka_unit_test(floor_ceiling_and_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
