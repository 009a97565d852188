/* fields.h — Slurm's print_fields, as sacctmgr and sshare lay out their
 * columns: a --format list ("account%30,User") picks fields by name (any
 * case, a prefix is enough) with an optional width; a table pads each
 * value to its width, right-justified for a positive width and left for a
 * negative one, cuts a longer value to width-1 characters and a '+', and
 * ends every field with a space; -p ends every field with '|', -P joins
 * them with '|'. Pure: writes to the FILE it is given. */
#ifndef DRV_CLI_FIELDS_H
#define DRV_CLI_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_FIELDS_MAX 64

/* One field a command knows. width: its default, negative = left-justified. */
struct cli_field_def {
	const char *name;   /* as --format names it */
	const char *header; /* as the header prints it ("Def Acct") */
	int width;
	int id;	 /* the command's own tag for the value */
	int min; /* > 0: sacctmgr's rule, the first field in table order whose
		  * name matches the word over max(its length, min) letters */
};

/* The fields asked for, in order. */
struct cli_fields {
	const struct cli_field_def *def[CLI_FIELDS_MAX];
	int width[CLI_FIELDS_MAX];
	size_t n;
};

enum cli_fields_mode {
	CLI_FIELDS_TABLE,     /* padded columns */
	CLI_FIELDS_PARSABLE,  /* -p: "a|b|" */
	CLI_FIELDS_PARSABLE2, /* -P: "a|b" */
};

/* Parses spec ("name[%[-]N],...") against defs (ended by a NULL name) into
 * *out, appending to what it holds. "%0" or no width keeps the default; an
 * explicit width N right-justifies, -N left-justifies. Returns 0, or -EINVAL
 * with the unknown name copied into bad (badlen bytes); *out then holds the
 * fields before it. */
int cli_fields_parse(const char *spec, const struct cli_field_def *defs,
		     struct cli_fields *out, char *bad, size_t badlen);

/* The header: names (and a line of dashes in a table). */
void cli_fields_header(FILE *f, const struct cli_fields *fl, enum cli_fields_mode mode);

/* One row: values[i] (borrowed; NULL prints as "") for fl's field i. */
void cli_fields_row(FILE *f, const struct cli_fields *fl, enum cli_fields_mode mode,
		    const char *const *values);

#endif
