/* step_internal.h — what step.c and step_create.c share. */
#ifndef CTLD_STEP_INTERNAL_H
#define CTLD_STEP_INTERNAL_H

#include "ctld/step.h"

/* A new zeroed step at the end of j's list (aborts on ENOMEM). */
struct job_step *step_append(struct job *j);
/* CPUs the running steps without --overlap hold on the job's alloc slot. */
uint32_t step_cpus_busy(const struct job *j, uint32_t slot);
/* The GPUs (mask) running steps that asked for GPUs hold on that slot. */
uint64_t step_gpus_busy(const struct job *j, uint32_t slot);

#endif
