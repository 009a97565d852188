/* sbatch_place.h — sbatch's placement options (-w, -x, -C, --mincpus,
 * --tmp) and --signal / --time-min, checked as Slurm's sbatch checks them
 * and written into a job.submit body (docs/protocol.md). Pure: no I/O;
 * errors come back as Slurm's message text for the caller to print. */
#ifndef DRV_CLI_SBATCH_PLACE_H
#define DRV_CLI_SBATCH_PLACE_H

#include <jansson.h>
#include <stdbool.h>

#include "cli/sbatch_opts.h"
#include "common/error.h"

/* "[{R|B}:]SIG[@secs]" (SIG a name as kill -l or a number; secs default
 * 60). Returns 0 with the parts, or -EINVAL and nothing set. */
int sbatch_signal_parse(const char *s, int *sig, int *secs, bool *batch);

/* Checks the options and adds their fields to body (borrowed). Returns 0,
 * with warn->text set when sbatch warns (a -w list cut to -n nodes); -EDOM
 * after a message sbatch's option parser gives (exit 255); -EINVAL after
 * one for a refused submission (exit 1); -ENOMEM. */
int sbatch_place_to_json(const struct sbatch_opts *o, json_t *body, struct drv_error *err,
			 struct drv_error *warn);

#endif
