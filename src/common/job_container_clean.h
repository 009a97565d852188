/* job_container_clean.h — removing what job_container/tmpfs made for a job
 * on a node: BASE/JOB with the namespace anchored at BASE/JOB/.ns and the
 * job's private directories. noded does it at a job's end and at start-up,
 * `drover down` for the jobs it killed. Needs root; touches nothing but
 * BASE/JOB. */
#ifndef DRV_JOB_CONTAINER_CLEAN_H
#define DRV_JOB_CONTAINER_CLEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Removes BASE/JOB (base: a real path): unmounts the anchor and the job
 * dir's private mount of itself, removes the files without following a
 * link or entering another file system. 1 when it was there and is gone,
 * 0 when it was not there, -errno with the reason in why when some of it
 * is left. */
int drv_jc_remove_job(const char *base, int64_t job_id, char *why, size_t len);

/* Whether name (an entry of BASE) is a job's: digits only, above 0. */
bool drv_jc_job_name(const char *name, int64_t *job_id);

#endif
