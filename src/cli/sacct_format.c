/* sacct_format.c — sacct's column list and the exact bytes of its output.
 * Follows Slurm 22.05's print_fields rules: names matched by prefix, a
 * width set on a field applies to all its columns, an entry that is empty
 * ends the list, and each kind of field treats its width in its own way
 * (strings end in '+' when cut, dates are cut silently, numbers and
 * durations are never cut). */
#include "cli/sacct_format.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sacct_fields.h"

static int add_col(struct sacct_format *f, int field)
{
	int *cols = realloc(f->cols, (f->n + 1) * sizeof(*cols));
	if (!cols)
		return -ENOMEM;
	f->cols = cols;
	f->cols[f->n++] = field;
	return 0;
}

/* One entry (already cut at its ','). */
static int parse_entry(char *start, struct sacct_format *f, char *bad, size_t bad_len)
{
	size_t nf;
	const struct sacct_field *tab = sacct_fields(&nf);
	char *pct = strchr(start, '%');
	int width = 0;
	if (pct) {
		width = atoi(pct + 1);
		*pct = '\0';
	}
	size_t len = strlen(start);
	if (!strncasecmp("ALL", start, len)) {
		for (size_t i = 0; i < nf; i++) {
			if (tab[i].extra)
				continue;
			if (pct)
				f->widths[i] = width;
			if (add_col(f, (int)i) < 0)
				return -ENOMEM;
		}
		return 0;
	}
	int i = sacct_field_find(start, len);
	if (i < 0) {
		snprintf(bad, bad_len, "%s", start);
		return -EINVAL;
	}
	if (pct)
		f->widths[i] = width;
	return add_col(f, i);
}

int sacct_format_parse(const char *list, struct sacct_format *f, char *bad,
		       size_t bad_len)
{
	size_t nf;
	const struct sacct_field *tab = sacct_fields(&nf);
	char *copy = malloc(strlen(list) + 2), *start, *end;
	int rc = 0;

	f->cols = NULL;
	f->n = 0;
	f->widths = calloc(nf, sizeof(*f->widths));
	if (!copy || !f->widths) {
		free(copy);
		sacct_format_fini(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nf; i++)
		f->widths[i] = tab[i].width;
	strcpy(copy, list);
	if (!*copy || copy[strlen(copy) - 1] != ',')
		strcat(copy, ",");
	for (start = copy; rc == 0 && (end = strchr(start, ',')); start = end + 1) {
		*end = '\0';
		while (isspace((unsigned char)*start))
			start++;
		if (!*start)
			break; /* as Slurm: an empty entry ends the list */
		rc = parse_entry(start, f, bad, bad_len);
	}
	free(copy);
	if (rc < 0)
		sacct_format_fini(f);
	return rc;
}

void sacct_format_fini(struct sacct_format *f)
{
	free(f->cols);
	free(f->widths);
	f->cols = NULL;
	f->widths = NULL;
	f->n = 0;
}

static const char *delim(const struct sacct_format *f)
{
	return f->delim ? f->delim : "|";
}

void sacct_print_header(const struct sacct_format *f, FILE *out)
{
	size_t nf;
	const struct sacct_field *tab = sacct_fields(&nf);

	if (!f->header)
		return;
	for (size_t i = 0; i < f->n; i++) {
		const char *name = tab[f->cols[i]].name;
		int w = f->widths[f->cols[i]], aw = abs(w);
		if (f->parsable == SACCT_PARSABLE_NO_END && i + 1 == f->n)
			fputs(name, out);
		else if (f->parsable)
			fprintf(out, "%s%s", name, delim(f));
		else
			fprintf(out, "%*.*s ", w, aw, name);
	}
	fputc('\n', out);
	if (f->parsable)
		return;
	for (size_t i = 0; i < f->n; i++) {
		for (int d = abs(f->widths[f->cols[i]]); d > 0; d--)
			fputc('-', out);
		fputc(' ', out);
	}
	fputc('\n', out);
}

/* A string cell: cut to the width with a '+' in the last place. */
static void print_str(const char *v, int w, FILE *out)
{
	int aw = abs(w);
	char cut[SACCT_VALUE_MAX];
	if (!v) {
		v = " ";
	} else if (strlen(v) > (size_t)aw && aw > 0 && (size_t)aw < sizeof(cut)) {
		memcpy(cut, v, (size_t)aw);
		cut[aw - 1] = '+';
		cut[aw] = '\0';
		v = cut;
	}
	if (w >= 0)
		fprintf(out, "%*.*s ", aw, aw, v);
	else
		fprintf(out, "%-*.*s ", aw, aw, v);
}

static void print_cell(enum sacct_field_kind kind, const char *v, int w, FILE *out)
{
	int aw = abs(w);
	switch (kind) {
	case SF_STR:
		print_str(v, w, out);
		return;
	case SF_DATE:
		if (w >= 0)
			fprintf(out, "%*.*s ", aw, aw, v ? v : "");
		else
			fprintf(out, "%-*.*s ", aw, aw, v ? v : "");
		return;
	case SF_NUM:
	case SF_TIME:
		if (!v)
			fprintf(out, "%*s ", w, " ");
		else if (w >= 0)
			fprintf(out, "%*s ", aw, v);
		else
			fprintf(out, "%-*s ", aw, v);
		return;
	}
}

void sacct_print_row(const struct sacct_format *f, const struct sacct_row *r,
		     const struct sacct_ctx *c, FILE *out)
{
	size_t nf;
	const struct sacct_field *tab = sacct_fields(&nf);
	char buf[SACCT_VALUE_MAX];

	for (size_t i = 0; i < f->n; i++) {
		const struct sacct_field *fld = &tab[f->cols[i]];
		const char *v = fld->value(r, c, buf);
		if (f->parsable == SACCT_PARSABLE_NO_END && i + 1 == f->n)
			fputs(v ? v : "", out);
		else if (f->parsable)
			fprintf(out, "%s%s", v ? v : "", delim(f));
		else
			print_cell(fld->kind, v, f->widths[f->cols[i]], out);
	}
	fputc('\n', out);
}
