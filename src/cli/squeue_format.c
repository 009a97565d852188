/* squeue_format.c — parsing squeue's -o and -O specs into items (a field of
 * squeue_fields.c, or literal text) and printing them as Slurm's squeue
 * does, header and padding included. */
#include "cli/squeue_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int push(struct sq_format *f, const struct sq_field *field, int width, bool right,
		const char *text, size_t text_len)
{
	struct sq_item *items = realloc(f->items, (f->n + 1) * sizeof(*items));
	struct sq_item *it;

	if (!items)
		return -ENOMEM;
	f->items = items;
	it = &items[f->n];
	*it = (struct sq_item){.field = field, .width = width, .right = right};
	if (!field && !(it->text = strndup(text, text_len)))
		return -ENOMEM;
	f->n++;
	return 0;
}

/* One token: the text between two '%' ("." width letter suffix). */
static int parse_token(struct sq_format *f, const char *tok, size_t len, sq_bad_f bad,
		       void *arg)
{
	const struct sq_field *field;
	size_t i = 0;
	bool right = false;
	int width = 0;
	int rc;

	if (i < len && tok[i] == '.') {
		right = true;
		i++;
	}
	while (i < len && tok[i] >= '0' && tok[i] <= '9' && width < 100000)
		width = width * 10 + (tok[i++] - '0');
	field = i < len ? sq_field_by_letter(tok[i]) : NULL;
	if (field) {
		rc = push(f, field, width, right, NULL, 0);
		i++;
		if (rc == 0 && i < len)
			rc = push(f, NULL, 0, false, tok + i, len - i);
		return rc;
	}
	if (bad)
		bad(tok + i, i < len ? 1 : 0, arg);
	rc = push(f, NULL, 0, false, "%", 1);
	return rc == 0 ? push(f, NULL, 0, false, tok, len) : rc;
}

int sq_format_parse(const char *fmt, struct sq_format *out, sq_bad_f bad, void *arg)
{
	struct sq_format f = {0};
	const char *p = strchr(fmt, '%');
	int rc = 0;

	if (!p)
		p = fmt + strlen(fmt);
	if (p > fmt)
		rc = push(&f, NULL, 0, false, fmt, (size_t)(p - fmt)); /* the prefix */
	while (rc == 0 && *p) {
		const char *tok = p + 1;
		const char *next = strchr(tok, '%');
		size_t len = next ? (size_t)(next - tok) : strlen(tok);

		if (len > 0) /* "%%" gives an empty token, skipped as Slurm does */
			rc = parse_token(&f, tok, len, bad, arg);
		p = tok + len;
	}
	if (rc < 0) {
		sq_format_fini(&f);
		return rc;
	}
	*out = f;
	return 0;
}

/* One "Name[:[.][width][suffix]]" item of -O, as Slurm's _parse_long_token. */
static int long_item(struct sq_format *f, const char *item, size_t len, sq_bad_f bad,
		     void *arg)
{
	const char *colon = memchr(item, ':', len), *end = item + len, *p;
	size_t nlen = colon ? (size_t)(colon - item) : len;
	const struct sq_field *field = sq_field_by_name(item, nlen);
	bool right = false;
	int width = 20, rc = 0;

	if (colon) {
		p = colon + 1;
		if (p < end && *p == '.') {
			right = true;
			p++;
		}
		for (width = 0; p < end && *p >= '0' && *p <= '9' && width < 100000; p++)
			width = width * 10 + (*p - '0');
	} else {
		p = end;
	}
	if (!field && bad)
		bad(item, nlen, arg);
	if (field)
		rc = push(f, field, width, right, NULL, 0);
	if (rc == 0 && p < end)
		rc = push(f, NULL, 0, false, p, (size_t)(end - p));
	return rc;
}

int sq_format_parse_long(const char *spec, struct sq_format *out, sq_bad_f bad, void *arg)
{
	struct sq_format f = {0};
	const char *p = spec;
	int rc = 0;

	while (rc == 0 && *p) {
		size_t len = strcspn(p, ",");
		if (len > 0)
			rc = long_item(&f, p, len, bad, arg);
		p += len;
		if (*p == ',')
			p++;
	}
	if (rc < 0) {
		sq_format_fini(&f);
		return rc;
	}
	*out = f;
	return 0;
}

void sq_format_fini(struct sq_format *f)
{
	for (size_t i = 0; f && i < f->n; i++)
		free(f->items[i].text);
	if (f) {
		free(f->items);
		f->items = NULL;
		f->n = 0;
	}
}

void sq_format_wire_fields(const struct sq_format *f, json_t *a)
{
	for (size_t i = 0; i < f->n; i++) {
		const int *w = f->items[i].field ? f->items[i].field->wire : NULL;
		for (; w && *w >= 0; w++)
			json_array_append_new(
			    a, json_string(drv_shape_rec_job.fields[*w].name));
	}
}

void sq_print_str(FILE *out, const char *s, int width, bool right, bool cut)
{
	int len = (int)strlen(s);

	if (width <= 0) {
		fputs(s, out);
	} else if (right) {
		if (len > width && cut)
			fwrite(s, 1, (size_t)width, out);
		else
			fprintf(out, "%*s", width, s);
	} else {
		fprintf(out, "%-*.*s", width, width, s);
	}
}

/* %R cuts "(Reason)" but, like %N, never a node list (Slurm's
 * _print_job_reason_list). */
static bool nodes_of_R(const struct sq_field *f, const char *value)
{
	return f->letter == 'R' && value[0] != '(';
}

static void print_line(const struct sq_format *f, const struct cli_job *job, int64_t now,
		       FILE *out)
{
	char buf[4096];

	for (size_t i = 0; i < f->n; i++) {
		const struct sq_item *it = &f->items[i];

		if (!it->field) {
			fputs(it->text, out);
			continue;
		}
		if (job)
			it->field->value(job, now, buf, sizeof(buf));
		sq_print_str(out, job ? buf : it->field->header, it->width, it->right,
			     job ? it->field->cut && !nodes_of_R(it->field, buf)
				 : it->field->head_cut);
	}
	fputc('\n', out);
}

void sq_print_header(const struct sq_format *f, FILE *out)
{
	print_line(f, NULL, 0, out);
}

void sq_print_job(const struct sq_format *f, const struct cli_job *job, int64_t now,
		  FILE *out)
{
	print_line(f, job, now, out);
}
