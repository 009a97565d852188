/* job_id.c — the round of job ids (job_id.h). It keeps no state: the next
 * id lives in the job table and is persisted with it (commit_meta), so a
 * restart goes on from where the last id was issued. */
#include "ctld/job_id.h"

#include <errno.h>

int job_id_pick(uint32_t first, uint32_t max, uint32_t *next, job_id_free_f free_in,
		void *arg, uint32_t *out)
{
	if (first == 0 || first >= max)
		return -EINVAL;
	/* a next id outside the range: the range changed, or it just ran out */
	uint32_t start = *next >= first && *next < max ? *next : first, id = 0;
	int rc = free_in(start, max - 1, arg, &id);
	if (rc == 0 && id == 0 && start > first)
		rc = free_in(first, start - 1, arg, &id); /* round again */
	if (rc < 0)
		return rc;
	if (id == 0)
		return -ENOSPC;
	*out = id;
	*next = id + 1;
	return 0;
}
