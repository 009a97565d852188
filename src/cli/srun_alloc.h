/* srun_alloc.h — an allocation of its own for srun (outside a job) and
 * salloc: a job without a batch script, submitted, waited for, and released
 * when its client is done. */
#ifndef DRV_CLI_SRUN_ALLOC_H
#define DRV_CLI_SRUN_ALLOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/srun_opts.h"
#include "common/conf.h"

struct srun_alloc {
	uint32_t job_id;
	json_t *job; /* the job record once it runs (owned) */
};

/* Submits the allocation o asks for (name: the default job name) and waits
 * until it runs, printing Slurm's "queued and waiting" / "has been
 * allocated" lines (salloc: "Granted job allocation N" too). Returns 0, or
 * the command's exit status after Slurm's message. */
int srun_alloc_create(const struct drv_conf *conf, const struct srun_opts *o,
		      const char *name, bool salloc, struct srun_alloc *a);

/* Gives the allocation back (alloc.complete with srun's exit status). */
void srun_alloc_release(const struct drv_conf *conf, struct srun_alloc *a, int exit_code);

/* The job's record into *job (new reference; NULL when ctld does not hold
 * the job). 0, or -1 when ctld could not be asked. */
int srun_job_fetch(const struct drv_conf *conf, uint32_t job_id, json_t **job);

/* Sets the SLURM_* variables of an allocation in our own environment, as
 * salloc gives them to its command and srun to its step. */
void srun_alloc_setenv(const struct drv_conf *conf, const json_t *job);

#endif
