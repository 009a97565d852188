/* sbatch_wait.h — sbatch -W/--wait: wait for the submitted job to end. */
#ifndef DRV_CLI_SBATCH_WAIT_H
#define DRV_CLI_SBATCH_WAIT_H

#include <stdint.h>

#include "common/conf.h"

/* Polls ctld (conf borrowed) until job id has ended; returns sbatch's exit
 * status for it (see sbatch_wait_status), or 1 after a message when ctld
 * stops answering for it. */
int sbatch_wait_job(const struct drv_conf *conf, int64_t id);

/* Slurm's sbatch --wait status for a job that ended in state with
 * exit_code:exit_signal: 0 for COMPLETED, 1 when a signal (or nothing
 * Drover can name) ended it, else the exit code. Pure. */
int sbatch_wait_status(const char *state, int64_t exit_code, int64_t exit_signal);

#endif
