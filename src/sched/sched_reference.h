/* sched_reference.h — the scheduler with its plainest search, for tests
 * and benchmarks that check the real one against it (never for ctld).
 *
 * sched_run_reference() is sched_run() with the earliest time a request
 * fits found the simplest way: every candidate start time in order (now,
 * then each end of what runs or is given, on the bf_resolution grid),
 * every node of the partition checked exactly at it (which CPU ids,
 * memory, GPU devices and partition limits are free over the job's
 * window). No tree of bounds, no counts, no cache shared between requests:
 * what sched_run decides must be exactly what this decides, only faster.
 * It is slow (candidate times x nodes per job): small snapshots only. */
#ifndef DRV_SCHED_REFERENCE_H
#define DRV_SCHED_REFERENCE_H

#include "sched/sched.h"

/* As sched_run (same ownership, same errors). */
int sched_run_reference(const struct sched_snapshot *snap,
			const struct sched_params *params, struct sched_result *out);

#endif
