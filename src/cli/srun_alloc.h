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
#include "common/proto_gen.h"

/* A job's record as ctld returned it: rec points into q, which borrows
 * from reply. */
struct srun_job {
	json_t *reply;
	struct drv_job_query_reply q;
	const struct drv_rec_job *rec; /* NULL when ctld does not hold the job */
};

struct srun_alloc {
	uint32_t job_id;
	struct srun_job job; /* the job record once it runs */
};

/* Submits the allocation o asks for (name: the default job name) and waits
 * until it runs, printing Slurm's "queued and waiting" / "has been
 * allocated" lines (salloc: "Granted job allocation N" too). Returns 0, or
 * the command's exit status after Slurm's message. */
int srun_alloc_create(const struct drv_conf *conf, const struct srun_opts *o,
		      const char *name, bool salloc, struct srun_alloc *a);

/* Gives the allocation back (alloc.complete with srun's exit status). */
void srun_alloc_release(const struct drv_conf *conf, struct srun_alloc *a, int exit_code);

/* The job's record into *job (release with srun_job_fini, also after a
 * failure). 0, or -1 when ctld could not be asked. */
int srun_job_fetch(const struct drv_conf *conf, uint32_t job_id, struct srun_job *job);
void srun_job_fini(struct srun_job *job);

/* Sets the SLURM_* variables of an allocation in our own environment, as
 * salloc gives them to its command and srun to its step. */
void srun_alloc_setenv(const struct drv_conf *conf, const struct drv_rec_job *job);

#endif
