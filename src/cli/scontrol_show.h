/* scontrol_show.h — the Key=Value records of `scontrol show job|node|
 * partition|step`, laid out byte for byte as
 * Slurm 22.05 prints them: a first line, continuation lines indented by
 * three spaces, and a blank line after each record. Output goes to the
 * FILE the caller gives. */
#ifndef DRV_CLI_SCONTROL_SHOW_H
#define DRV_CLI_SCONTROL_SHOW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/jobrec.h"

/* detail adds DerivedExitCode (scontrol -d). now is ctld's clock. */
void scs_print_job(FILE *out, const struct cli_job *job, int64_t now, bool detail);

/* One step of a running job: its srun step s, or its batch step (s NULL),
 * as `scontrol show step` prints it. */
void scs_print_step(FILE *out, const struct cli_job *job, const struct cli_step *s);

/* node and part are decoded records from node.query / part.query. */
void scs_print_node(FILE *out, const struct drv_rec_node *node);
void scs_print_part(FILE *out, const struct drv_rec_partition *part);

/* "IDLE", "IDLE+DRAIN", "DOWN+NOT_RESPONDING", ... into buf. */
void scs_node_state(const struct drv_rec_node *node, char *buf, size_t len);

#endif
