/* job_tres.h — a job's trackable resources (TRES) as Slurm prints them. */
#ifndef CTLD_JOB_TRES_H
#define CTLD_JOB_TRES_H

#include <stddef.h>
#include <stdint.h>

#include "ctld/job.h"

/* Memory as TRES strings print it: 1000M, 2G, 1T (exact multiples only). */
void job_mem_fmt(uint64_t mib, char *buf, size_t len);

/* GPUs held, or requested before the start. */
uint32_t job_gpus(const struct job *j);

/* scontrol's TRES=: cpu=4,mem=2G,node=1,billing=4,gres/gpu=2 (held, or
 * requested before the start). */
void job_tres_scontrol(const struct job *j, char *buf, size_t len);

/* sacct's ReqTRES / AllocTRES, names in alphabetical order:
 * billing=2,cpu=2,gres/gpu=2,mem=500M,node=1. The request is what the job
 * asked for; the allocation what it holds (call it while it holds nodes).
 * New strings; NULL when out of memory. */
char *job_tres_requested(const struct job *j);
char *job_tres_allocated(const struct job *j);

#endif
