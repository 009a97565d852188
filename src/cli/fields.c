/* fields.c — column layout of sacctmgr and sshare (fields.h). */
#include "cli/fields.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An exact name first, then the first field the word is a prefix of; in a
 * table of minimum lengths (sacctmgr's), the first that matches over
 * max(len, min) letters. */
static const struct cli_field_def *find(const struct cli_field_def *defs,
					const char *word, size_t len)
{
	if (defs->name && defs->min > 0) {
		for (const struct cli_field_def *d = defs; d->name; d++) {
			size_t nlen = strlen(d->name);
			if (len && (len >= (size_t)d->min || len == nlen) &&
			    len <= nlen && !strncasecmp(d->name, word, len))
				return d;
		}
		return NULL;
	}
	for (const struct cli_field_def *d = defs; d->name; d++)
		if (strlen(d->name) == len && !strncasecmp(d->name, word, len))
			return d;
	for (const struct cli_field_def *d = defs; d->name; d++)
		if (len > 0 && strlen(d->name) > len && !strncasecmp(d->name, word, len))
			return d;
	return NULL;
}

/* One "name[%[-]N]" item of len bytes. */
static int parse_item(const char *item, size_t len, const struct cli_field_def *defs,
		      struct cli_fields *out, char *bad, size_t badlen)
{
	const char *pct = memchr(item, '%', len);
	size_t nlen = pct ? (size_t)(pct - item) : len;
	const struct cli_field_def *d = find(defs, item, nlen);
	int width = 0;

	if (pct) {
		char num[16];
		size_t wl = len - nlen - 1;
		char *end = NULL;

		snprintf(num, sizeof(num), "%.*s", (int)(wl < 15 ? wl : 15), pct + 1);
		width = (int)strtol(num, &end, 10);
		if (end == num || *end)
			d = NULL;
	}
	if (!d || out->n >= CLI_FIELDS_MAX) {
		snprintf(bad, badlen, "%.*s", (int)nlen, item);
		return -EINVAL;
	}
	out->def[out->n] = d;
	out->width[out->n] = width ? width : d->width;
	out->n++;
	return 0;
}

int cli_fields_parse(const char *spec, const struct cli_field_def *defs,
		     struct cli_fields *out, char *bad, size_t badlen)
{
	for (const char *s = spec; *s;) {
		size_t len = strcspn(s, ",");

		if (len > 0 && parse_item(s, len, defs, out, bad, badlen) < 0)
			return -EINVAL;
		s += len;
		if (*s)
			s++;
	}
	return 0;
}

/* One table cell: cut to the width with '+' when longer (cut marks the
 * values; headers are cut bare), padded, and a space. */
static void cell(FILE *f, const char *v, int width, bool mark)
{
	int w = abs(width);
	int len = (int)strlen(v);

	if (len > w) {
		if (mark && w > 0)
			fprintf(f, "%.*s+ ", w - 1, v);
		else
			fprintf(f, "%.*s ", w, v);
		return;
	}
	fprintf(f, width < 0 ? "%-*s " : "%*s ", w, v);
}

static void line(FILE *f, const struct cli_fields *fl, enum cli_fields_mode mode,
		 const char *const *values, bool header)
{
	for (size_t i = 0; i < fl->n; i++) {
		const char *v = values[i] ? values[i] : "";

		if (mode == CLI_FIELDS_TABLE)
			cell(f, v, fl->width[i], !header);
		else
			fprintf(f, "%s%s", v,
				mode == CLI_FIELDS_PARSABLE || i + 1 < fl->n ? "|" : "");
	}
	fputc('\n', f);
}

void cli_fields_header(FILE *f, const struct cli_fields *fl, enum cli_fields_mode mode)
{
	const char *names[CLI_FIELDS_MAX];

	for (size_t i = 0; i < fl->n; i++)
		names[i] = fl->def[i]->header;
	line(f, fl, mode, names, true);
	if (mode != CLI_FIELDS_TABLE)
		return;
	for (size_t i = 0; i < fl->n; i++) {
		for (int k = 0; k < abs(fl->width[i]); k++)
			fputc('-', f);
		fputc(' ', f);
	}
	fputc('\n', f);
}

void cli_fields_row(FILE *f, const struct cli_fields *fl, enum cli_fields_mode mode,
		    const char *const *values)
{
	line(f, fl, mode, values, false);
}
