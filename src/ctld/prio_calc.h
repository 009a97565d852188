/* prio_calc.h — the arithmetic of fair-share usage, pure: what a running
 * job is billed (TRESBillingWeights), what it adds to its association's
 * usage over some seconds (QOS UsageFactor), when PriorityUsageResetPeriod
 * next resets usage, and the fixed-point numbers the protocol carries
 * figures in. No I/O, no clock: times are arguments. */
#ifndef CTLD_PRIO_CALC_H
#define CTLD_PRIO_CALC_H

#include <stdint.h>

#include "common/conf.h"

/* What a job holds, as billing reads it. */
struct prio_held {
	uint32_t cpus, nodes, gpus;
	uint64_t mem; /* MiB */
};

/* The billable TRES of what a job holds: the sum of each TRES times its
 * weight in w (mem per MiB), as Slurm's calc_job_billable_tres; without
 * weights (w NULL or unset), its CPUs. */
double prio_billing(const struct drv_tres_weights *w, const struct prio_held *h);

/* What seconds of running add to usage: billing x seconds x the QOS's
 * UsageFactor; 0 for seconds <= 0. */
double prio_accrue(double billing, int64_t seconds, double usage_factor);

/* When usage is next reset after the reset at last_reset, as Slurm's
 * _next_reset (local time): DAILY the next midnight, WEEKLY the next Sunday
 * 00:00, MONTHLY, QUARTERLY and YEARLY the first day of the next month,
 * quarter (January, April, July, October) and year at 00:00; a daily or
 * weekly reset long missed moves up to the last one before now. 0 for NONE
 * and NOW (no period). */
int64_t prio_next_reset(enum drv_prio_reset period, int64_t last_reset, int64_t now);

/* The protocol carries figures as integers: v times scale, rounded,
 * clamped to 0..INT64_MAX (NaN: 0). */
#define PRIO_BILLIONTHS 1e9
#define PRIO_THOUSANDTHS 1e3
int64_t prio_fixed(double v, double scale);

#endif
