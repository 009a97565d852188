/* squeue_steps.h — squeue -s/--steps: one line per running step of the
 * listed jobs (their srun steps from the record's "steps" and the batch
 * step, ID.batch, of each running job), in Slurm 22.05's default step
 * order (partition, job id, step id; the batch step last) and with the
 * step fields its squeue knows: %A %b %i %j %l %M %N %P %S %u %U. Pure:
 * output goes to the FILE the caller gives. */
#ifndef DRV_CLI_SQUEUE_STEPS_H
#define DRV_CLI_SQUEUE_STEPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/jobrec.h"
#include "cli/squeue_format.h"

#define SQ_STEP_FORMAT "%.15i %.8j %.9P %.8u %.9M %N"

/* Prints the header (with header true) and the lines of the steps of jobs
 * (borrowed) that sel selects, with format
 * (an -o spec; NULL: SQ_STEP_FORMAT). sel is -s's list,
 * [[ID, TASK, STEP]] for "ID.STEP" (TASK -1) and "ID_TASK.STEP", or NULL
 * for all steps; as in Slurm, "ID.batch" means step 0 and no list names
 * a batch step. bad is called once for each letter
 * that is no step field; like Slurm, the spec's text is printed for it.
 * now is ctld's clock. Returns 0 or -ENOMEM (nothing printed). */
int sq_steps_print(const char *format, bool header, const json_t *sel,
		   const struct cli_job *jobs, size_t n, int64_t now, sq_bad_f bad,
		   FILE *out);

#endif
