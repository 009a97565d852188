/* sinfo_json.h — sinfo --json: one entry per output line (the grouping the
 * format gives), shaped as Slurm 24.11's data_parser v0.0.42 prints them:
 * {"sinfo":[...],"meta","warnings","errors"}. */
#ifndef DRV_CLI_SINFO_JSON_H
#define DRV_CLI_SINFO_JSON_H

#include <stdio.h>

#include "cli/sinfo_format.h"

/* Prints the response; argv (borrowed) becomes meta.command. Returns 0, or
 * 1 when writing failed. */
int si_json_print(const struct si_rows *rows, int argc, char **argv, const char *cluster,
		  FILE *out);

#endif
