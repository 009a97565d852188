/* sacct_json.h — sacct --json: the listed jobs in the shape of Slurm
 * 24.11's data_parser v0.0.42 ({"meta", "jobs", "warnings", "errors"}),
 * for the fields Drover has. */
#ifndef DRV_CLI_SACCT_JSON_H
#define DRV_CLI_SACCT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/jobrec.h"
#include "cli/sacct_opts.h"
#include "cli/sacct_values.h"

/* Prints the jobs i with keep[i] (each with its step rows as "steps"). */
void sacct_json_print(const struct sacct_opts *o, const struct sacct_ctx *c,
		      const struct cli_job *jobs, const bool *keep, size_t n, int argc,
		      char **argv, FILE *out);

#endif
