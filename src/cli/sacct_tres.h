/* sacct_tres.h — TRES strings ("billing=1,cpu=1,mem=100M,node=1") as sacct
 * prints them: keys in Slurm's order (by name), memory through Slurm's unit
 * conversion ("1.50G", "4G"), and the batch step's share of a job's
 * allocation. Pure functions on caller buffers. */
#ifndef DRV_CLI_SACCT_TRES_H
#define DRV_CLI_SACCT_TRES_H

#include <stddef.h>
#include <stdint.h>

/* Memory in MiB as Slurm's convert_num_unit() prints it: divided by 1024
 * while it is at least 1024, whole numbers plain ("100M", "4G") and others
 * with two decimals ("1.50G"). */
void sacct_fmt_mem(double mib, char *buf, size_t len);

/* A memory value as written in a TRES string or by ctld ("100M", "1.50G",
 * "2048", "1T") in MiB; -1 if it is not one. */
double sacct_mem_parse(const char *s, size_t n);

/* The value of key in a TRES string as a number (memory in MiB), or -1
 * when absent. */
double sacct_tres_get(const char *tres, const char *key);

/* Rewrites a TRES string the way sacct prints it: entries sorted by key,
 * memory reformatted. NULL or "" gives "". */
void sacct_tres_normalize(const char *tres, char *buf, size_t len);

/* The batch step's AllocTRES from the job's: billing dropped, cpu the batch
 * node's CPUs, mem the job's memory divided by its node count, gres/gpu the
 * batch node's GPUs (gpus < 0: keep the job's count), node=1. */
void sacct_tres_batch(const char *job_tres, int64_t cpus, int64_t nodes, int64_t gpus,
		      char *buf, size_t len);

#endif
