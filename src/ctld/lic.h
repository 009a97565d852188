/* lic.h — the cluster's licenses (drover.conf Licenses=) as ctld counts
 * them: a job's -L checked against them and resolved to their indices for
 * the scheduler, and how many running jobs hold. The licenses are the
 * config's: their indices do not change while ctld runs. */
#ifndef CTLD_LIC_H
#define CTLD_LIC_H

#include <stdint.h>

#include "ctld/job.h"

struct ctld;

/* A job's -L text (license.c's syntax) against the configured licenses: a
 * new array of *n entries in *out, the caller's. 0; DRV_RC_INVALID_LICENSES
 * for bad syntax, a license the cluster does not have, or more of one than
 * it has (Slurm's "Invalid license specification"); DRV_RC_ERROR on ENOMEM. */
int lic_job_parse(const struct ctld *c, const char *text, struct job_lic **out,
		  uint32_t *n);

/* j's licenses by index (what the scheduler's struct sched_pending.lics
 * and sched_running.lics take), resolved once; NULL with *n 0 when it asks
 * for none (or they no longer parse: logged). Borrowed from j. */
const struct job_lic *lic_job_resolve(const struct ctld *c, struct job *j, uint32_t *n);

/* How many of each configured license the running jobs hold: used[i] for
 * c->conf->licenses[i] (used has n_licenses entries, set here). */
void lic_used(struct ctld *c, uint32_t *used);

#endif
