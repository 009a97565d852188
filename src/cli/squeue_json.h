/* squeue_json.h — squeue --json: the jobs as Slurm's data_parser v0.0.42
 * prints them ({"jobs":[...],"last_backfill","last_update","meta",
 * "warnings","errors"}), for every field Drover has. */
#ifndef DRV_CLI_SQUEUE_JSON_H
#define DRV_CLI_SQUEUE_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/jobrec.h"

/* One job as a v0.0.42 job_info object (a new reference). */
json_t *sq_json_job(const struct cli_job *job, int64_t now, const char *cluster);

/* Prints the whole response. argv (borrowed) becomes meta.command. Returns
 * 0, or 1 when writing failed. */
int sq_json_print(const struct cli_job *jobs, size_t n, int64_t now, int argc,
		  char **argv, const char *cluster, FILE *out);

#endif
