/* sstat.h — what sstat's files share: the field table and the value of a
 * field for one step row (sstat_fields.c). */
#ifndef DRV_CLI_SSTAT_H
#define DRV_CLI_SSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/fields.h"
#include "cli/jobrec.h"

/* A field's value kind (struct cli_field_def's id). */
enum {
	SS_BLANK,
	SS_ZERO,
	SS_UNKNOWN,
	SS_ENERGY,
	SS_JOBID,
	SS_NODELIST,
	SS_NTASKS,
	SS_PIDS,
	SS_AVE_CPU,
	SS_AVE_RSS,
	SS_AVE_VSIZE,
	SS_MAX_RSS,
	SS_MAX_RSS_NODE,
	SS_MAX_RSS_TASK,
	SS_MAX_VSIZE,
	SS_MAX_VSIZE_NODE,
	SS_MAX_VSIZE_TASK,
	SS_MIN_CPU,
	SS_MIN_CPU_NODE,
	SS_MIN_CPU_TASK,
	SS_TRES_IN, /* + enum usage_tres */
};

/* One row: a step (or, with -i, one node of it). Strings borrowed. */
struct sstat_row {
	int64_t job_id, step_id; /* step -1: the batch step */
	const char *nodelist;
	int64_t ntasks;
	const char *pids; /* "1,2,3" */
	struct cli_usage usage;
};

/* Slurm's sstat fields, ended by a NULL name. */
extern const struct cli_field_def sstat_fields[];

/* --helpformat's list. */
void sstat_help_fields(FILE *out);

/* Field id's value for r: a static string, buf (len bytes) or a string of
 * r; NULL prints as blank. */
const char *sstat_value(int id, const struct sstat_row *r, char *buf, size_t len);

#endif
