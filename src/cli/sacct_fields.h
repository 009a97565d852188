/* sacct_fields.h — the table of sacct's format fields: Slurm 22.05's names
 * in its order, default widths (negative: left-aligned), how each prints
 * and where its value comes from; plus the few Drover adds after them.
 * Static data; returned pointers are to the table. */
#ifndef DRV_CLI_SACCT_FIELDS_H
#define DRV_CLI_SACCT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/sacct_values.h"

/* How Slurm's print routine for the field treats the width: strings are cut
 * with a '+', dates cut silently, numbers and durations never cut. */
enum sacct_field_kind { SF_STR, SF_NUM, SF_DATE, SF_TIME };

struct sacct_field {
	const char *name;
	int width;
	enum sacct_field_kind kind;
	sacct_value_f value;
	bool extra; /* not in Slurm 22.05: left out of --helpformat and ALL */
};

/* The whole table; *n its length. */
const struct sacct_field *sacct_fields(size_t *n);

/* The index of the first field whose name starts with the len characters
 * of name, any case (Slurm's rule: "jobi" is JobID, "st" is Start), or -1. */
int sacct_field_find(const char *name, size_t len);

/* --helpformat: Slurm's names, four a line in 19 columns. */
void sacct_print_helpformat(FILE *f);

#endif
