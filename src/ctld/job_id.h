/* job_id.h — choosing a new job's id, as Slurm does: from FirstJobId up to
 * (not including) MaxJobId, then round again from FirstJobId, skipping every
 * id that is still in use. What "in use" means is the caller's (ctld: a
 * record in memory or in the store's history); this part is pure. */
#ifndef CTLD_JOB_ID_H
#define CTLD_JOB_ID_H

#include <stdint.h>

/* Sets *id to the smallest id in lo..hi (lo <= hi) that is not in use, or
 * to 0 when all of them are. 0 or -errno (a failed look-up). */
typedef int (*job_id_free_f)(uint32_t lo, uint32_t hi, void *arg, uint32_t *id);

/* The next id from *next on (first when *next is outside first..max-1),
 * going round once. On success *out is the id and *next the one after it.
 * -ENOSPC when every id of the range is in use, or free_in's -errno; then
 * nothing is set. Needs 0 < first < max. */
int job_id_pick(uint32_t first, uint32_t max, uint32_t *next, job_id_free_f free_in,
		void *arg, uint32_t *out);

#endif
