/* squeue_format.h — squeue's -o/--format: parsing "%[.][width]X" specs with
 * literal text around them, and printing the header and job lines exactly as
 * Slurm's squeue does (a '.' right-justifies; a width pads and, for most
 * fields, truncates). Pure: output goes to the FILE the caller gives. */
#ifndef DRV_CLI_SQUEUE_FORMAT_H
#define DRV_CLI_SQUEUE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/jobrec.h"

#define SQ_DEFAULT_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"

struct sq_item {
	char field; /* a format letter, or 0 for literal text */
	int width;  /* 0: as long as the value */
	bool right;
	char *text; /* the literal text (field == 0); owned */
};

struct sq_format {
	struct sq_item *items;
	size_t n;
};

/* Called once for each unknown format letter; Slurm prints an error and
 * copies "%X..." through literally, and so do we. */
typedef void (*sq_bad_f)(char letter, void *arg);

/* Parses fmt into *out (release with sq_format_fini). Returns 0 or -ENOMEM;
 * out is left empty on failure. */
int sq_format_parse(const char *fmt, struct sq_format *out, sq_bad_f bad, void *arg);
void sq_format_fini(struct sq_format *f);

/* One line each, ending in "\n". now is ctld's clock (epoch seconds). */
void sq_print_header(const struct sq_format *f, FILE *out);
void sq_print_job(const struct sq_format *f, const struct cli_job *job, int64_t now,
		  FILE *out);

/* Slurm's _print_str: width 0 prints s as is; otherwise s is right- or
 * left-justified in width columns, cut to width when cut is true. */
void sq_print_str(FILE *out, const char *s, int width, bool right, bool cut);

/* Converts -O/--Format "Name[:[.]width],..." (width 20 by default) into the
 * equivalent -o format; a new malloc'd string, or NULL with the unknown
 * field name in bad. */
char *sq_format_from_long(const char *spec, char *bad, size_t bad_len);

#endif
