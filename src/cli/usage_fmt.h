/* usage_fmt.h — a step's sampled usage in the forms sacct and sstat print
 * it (Slurm 22.05's): sizes through Slurm's exact unit conversion, CPU
 * times as [D-]HH:MM:SS, and the TRESUsageIn* strings over the TRES Drover
 * gathers (cpu, energy, mem, vmem; no fs/disk or pages). Pure. */
#ifndef DRV_CLI_USAGE_FMT_H
#define DRV_CLI_USAGE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/jobrec.h"

#define USAGE_FMT_MAX 256

/* Which TRESUsageIn* string. */
enum usage_tres {
	USAGE_TRES_AVE,
	USAGE_TRES_MAX,
	USAGE_TRES_MAX_NODE,
	USAGE_TRES_MAX_TASK,
	USAGE_TRES_MIN,
	USAGE_TRES_MIN_NODE,
	USAGE_TRES_MIN_TASK,
	USAGE_TRES_TOT,
};

/* Did the step leave samples (virtual sizes are known only from them)? */
bool usage_sampled(const struct cli_usage *u);
/* kib KiB as Slurm's convert_num_unit prints bytes: "0", "1084K", "2M". */
const char *usage_fmt_kib(int64_t kib, char *buf, size_t len);
/* usec of CPU time in whole seconds: "00:00:01", "1-02:03:04". */
const char *usage_fmt_secs(int64_t usec, char *buf, size_t len);
/* The average CPU time of u's tasks, as usage_fmt_secs. */
const char *usage_fmt_ave_cpu(const struct cli_usage *u, char *buf, size_t len);
/* One TRESUsageIn* string of u into buf (USAGE_FMT_MAX bytes). */
const char *usage_fmt_tres(const struct cli_usage *u, enum usage_tres which, char *buf,
			   size_t len);

#endif
