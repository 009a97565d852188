/* sacct_format.h — the columns sacct prints (from --format, -b, -l,
 * SACCT_FORMAT) and the bytes of its header and rows: fixed-width columns
 * with Slurm's alignment and '+' truncation, or delimited with -p/-P. */
#ifndef DRV_CLI_SACCT_FORMAT_H
#define DRV_CLI_SACCT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/sacct_values.h"

enum sacct_parsable {
	SACCT_FIXED = 0,
	SACCT_PARSABLE,	      /* -p: a delimiter after every field */
	SACCT_PARSABLE_NO_END /* -P: none after the last */
};

struct sacct_format {
	int *cols;   /* field indexes, in order */
	size_t n;    /* number of columns */
	int *widths; /* per field index (as Slurm, a width applies to every
		      * column of that field) */
	enum sacct_parsable parsable;
	const char *delim; /* NULL: "|" */
	bool header;
};

/* Parses a field list as Slurm builds it: entries separated by ',', each
 * "Name[%W]" with Name any case-insensitive prefix of a field (or of
 * "ALL"), W a width (negative: left-aligned); parsing stops at the first
 * empty entry. On success fills f->cols, f->n, f->widths (the caller sets
 * the rest) and returns 0; on an unknown name copies it to bad (at most
 * bad_len bytes) and returns -EINVAL. Free with sacct_format_fini(). */
int sacct_format_parse(const char *list, struct sacct_format *f, char *bad,
		       size_t bad_len);
void sacct_format_fini(struct sacct_format *f);

/* The header (names, then a line of dashes unless parsable); nothing
 * when f->header is false. */
void sacct_print_header(const struct sacct_format *f, FILE *out);

/* One row. */
void sacct_print_row(const struct sacct_format *f, const struct sacct_row *r,
		     const struct sacct_ctx *c, FILE *out);

#endif
