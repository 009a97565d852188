/* io_pattern.h — srun's -o/-e/-i filename patterns (srun(1), "IO
 * Redirection"): %t task id, %n node id within the step, %N node name, %s
 * step id, %j job id, %J "jobid.stepid", %u user name, %x job name, %A array
 * job id, %a array task id, %% a percent sign; a width between % and the
 * letter zero-pads a number ("%3t" -> "007"). Pure. */
#ifndef DRV_CLI_IO_PATTERN_H
#define DRV_CLI_IO_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the letters expand to; strings are borrowed. A NULL string expands
 * to nothing; array_job_id 0 makes %A the job id and %a "4294967294"
 * (Slurm's NO_VAL for a job that is not an array). */
struct io_pattern_ctx {
	uint32_t job_id, step_id, task_id, node_id;
	uint32_t array_job_id, array_task_id;
	const char *node_name, *user, *job_name;
};

/* Writes pat expanded into out (size bytes, always terminated when size >
 * 0). An unknown letter after % is kept as written, as Slurm does.
 * Returns 0, -ENAMETOOLONG when the result does not fit (out holds the cut
 * text), or -EINVAL for a NULL pattern. */
int io_pattern_expand(const char *pat, const struct io_pattern_ctx *ctx, char *out,
		      size_t size);

/* True when pat names a file per task (%t) or per node (%n, %N), so one
 * open file cannot serve the whole step. */
bool io_pattern_per_task(const char *pat);

#endif
