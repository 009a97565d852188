/* squeue_format.h — squeue's -o/--format and -O/--Format: parsing
 * "%[.][width]X" specs with literal text around them, and "Name[:[.]width]"
 * lists, and printing the header and job lines exactly as Slurm's squeue
 * does (a '.' right-justifies; a width pads and, for most fields,
 * truncates). Pure: output goes to the FILE the caller gives. */
#ifndef DRV_CLI_SQUEUE_FORMAT_H
#define DRV_CLI_SQUEUE_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/jobrec.h"
#include "cli/squeue_fields.h"

#define SQ_DEFAULT_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define SQ_LONG_FORMAT "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"

struct sq_item {
	const struct sq_field *field; /* borrowed from the table; NULL: literal */
	int width;		      /* 0: as long as the value */
	bool right;
	char *text; /* the literal text (field == NULL); owned */
};

struct sq_format {
	struct sq_item *items;
	size_t n;
};

/* Called once for each unknown -o letter (the letter, '\0' at the end of
 * the spec) or -O name (name, len). Slurm prints an error and goes on: an
 * unknown "%X..." is copied through literally, an unknown -O name prints
 * nothing; so do we. */
typedef void (*sq_bad_f)(const char *what, size_t len, void *arg);

/* Parses an -o spec into *out (release with sq_format_fini). Returns 0 or
 * -ENOMEM; out is left empty on failure. */
int sq_format_parse(const char *fmt, struct sq_format *out, sq_bad_f bad, void *arg);

/* Parses an -O spec "Name[:[.][width][suffix]],..." (width 20 without ':')
 * into *out. Returns 0 or -ENOMEM. */
int sq_format_parse_long(const char *spec, struct sq_format *out, sq_bad_f bad,
			 void *arg);

void sq_format_fini(struct sq_format *f);

/* Appends to a (a JSON array) the job record fields the format prints. */
void sq_format_wire_fields(const struct sq_format *f, json_t *a);

/* One line each, ending in "\n". now is ctld's clock (epoch seconds). */
void sq_print_header(const struct sq_format *f, FILE *out);
void sq_print_job(const struct sq_format *f, const struct cli_job *job, int64_t now,
		  FILE *out);

/* Slurm's _print_str: width 0 prints s as is; right-justified values are
 * padded to width and cut to it only when cut is true; left-justified ones
 * are always cut, then padded. */
void sq_print_str(FILE *out, const char *s, int width, bool right, bool cut);

#endif
