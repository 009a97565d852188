/* io_pattern.c — expands srun's I/O filename patterns. It only builds
 * names: opening the files is the caller's. */
#include "cli/io_pattern.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NO_VAL 4294967294u /* Slurm's NO_VAL, what %a gives outside an array */

struct sink {
	char *out;
	size_t size, len;
};

static void put(struct sink *s, const char *text)
{
	size_t n = strlen(text);

	if (s->len < s->size) {
		size_t room = s->size - s->len - 1;
		memcpy(s->out + s->len, text, n < room ? n : room);
		s->out[s->len + (n < room ? n : room)] = '\0';
	}
	s->len += n;
}

static void put_num(struct sink *s, int width, uint32_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%0*u", width, v);
	put(s, buf);
}

/* One %-letter; false when the letter is not a pattern letter. */
static bool expand_one(struct sink *s, char c, int width, const struct io_pattern_ctx *x)
{
	char buf[48];

	switch (c) {
	case 't':
		put_num(s, width, x->task_id);
		break;
	case 'n':
		put_num(s, width, x->node_id);
		break;
	case 's':
		put_num(s, width, x->step_id);
		break;
	case 'j':
		put_num(s, width, x->job_id);
		break;
	case 'A':
		put_num(s, width, x->array_job_id ? x->array_job_id : x->job_id);
		break;
	case 'a':
		put_num(s, width, x->array_job_id ? x->array_task_id : NO_VAL);
		break;
	case 'J':
		snprintf(buf, sizeof(buf), "%0*u.%u", width, x->job_id, x->step_id);
		put(s, buf);
		break;
	case 'N':
		put(s, x->node_name ? x->node_name : "");
		break;
	case 'u':
		put(s, x->user ? x->user : "");
		break;
	case 'x':
		put(s, x->job_name ? x->job_name : "");
		break;
	default:
		return false;
	}
	return true;
}

int io_pattern_expand(const char *pat, const struct io_pattern_ctx *ctx, char *out,
		      size_t size)
{
	struct sink s = {out, size, 0};

	if (!pat)
		return -EINVAL;
	if (size)
		out[0] = '\0';
	for (const char *p = pat; *p; p++) {
		char lit[2] = {*p, '\0'};
		const char *q = p + 1;
		int width = 0;

		if (*p != '%') {
			put(&s, lit);
			continue;
		}
		if (*q == '%') {
			put(&s, "%");
			p = q;
			continue;
		}
		while (isdigit((unsigned char)*q) && width < 10)
			width = width * 10 + (*q++ - '0');
		if (*q && expand_one(&s, *q, width, ctx)) {
			p = q;
			continue;
		}
		put(&s, lit); /* not a pattern: the % stays */
	}
	return s.len < size ? 0 : -ENAMETOOLONG;
}

bool io_pattern_per_task(const char *pat)
{
	for (const char *p = pat; p && *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		const char *q = p + 1;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == 't' || *q == 'n' || *q == 'N')
			return true;
	}
	return false;
}
