/* squeue_fields.h — the table of squeue's fields, declared once: the -o
 * letter, the -O name, the header, whether Slurm cuts the value to the
 * width, how the value is made from a job record and which record fields
 * ctld must send for it. Pure: values are written into the caller's buffer. */
#ifndef DRV_CLI_SQUEUE_FIELDS_H
#define DRV_CLI_SQUEUE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/jobrec.h"

typedef void (*sq_value_f)(const struct cli_job *job, int64_t now, char *buf, size_t len);

struct sq_field {
	char letter;	    /* the -o letter; 0 for -O-only fields */
	const char *name;   /* the -O name (matched without case), or NULL */
	const char *header; /* "" for %s */
	bool cut;	    /* false: a right-justified value is never cut */
	bool head_cut;	    /* the same for the header */
	sq_value_f value;
	const int
	    *wire; /* the job record fields it reads (DRV_REC_JOB__X), -1 ends; or NULL */
};

/* The field of an -o letter, or NULL. Borrowed from a static table. */
const struct sq_field *sq_field_by_letter(char letter);

/* The field of an -O name ("JobArrayID", any case), or NULL. */
const struct sq_field *sq_field_by_name(const char *name, size_t len);

/* Start time as squeue shows it: a job cancelled while pending has its end
 * time as its start time, as in Slurm. */
int64_t sq_job_start(const struct cli_job *job);

/* End time as squeue shows it: a running job with a limit ends at start +
 * limit; one without, never (-1 = "NONE"); 0 when unknown. */
int64_t sq_job_end(const struct cli_job *job);

#endif
