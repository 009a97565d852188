/* sbatch_script.c — finds the #SBATCH directives in a batch script and
 * splits them into words the way Slurm's sbatch does, so the same option
 * parser reads them as it reads the command line. */
#include "cli/sbatch_script.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "#SBATCH"
#define MAGIC_LEN 7

struct wordv {
	char **v;
	size_t n, cap;
};

bool sbatch_script_has_shebang(const char *script, size_t len)
{
	return len >= 2 && script[0] == '#' && script[1] == '!';
}

static int wordv_push(struct wordv *wv, const char *s, size_t len)
{
	char *w;

	if (wv->n + 2 > wv->cap) {
		size_t cap = wv->cap ? wv->cap * 2 : 8;
		char **v = realloc(wv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		wv->v = v;
		wv->cap = cap;
	}
	w = strndup(s, len);
	if (!w)
		return -ENOMEM;
	wv->v[wv->n++] = w;
	wv->v[wv->n] = NULL;
	return 0;
}

/* Reads one word starting at *p (not past end) into buf; moves *p past it.
 * Sets *comment when an unquoted '#' ended the line. Returns the length. */
static size_t next_word(const char **p, const char *end, char *buf, bool *comment)
{
	const char *s = *p;
	char quote = 0;
	size_t n = 0;

	/* No backslash escapes: Slurm's sbatch has none in directives. */
	while (s < end && (quote || !isspace((unsigned char)*s))) {
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '"' || *s == '\'')) {
			quote = *s;
		} else if (!quote && *s == '#') {
			*comment = true;
			break;
		} else {
			buf[n++] = *s;
		}
		s++;
	}
	*p = s;
	return n;
}

/* Splits the part of one #SBATCH line after the magic word. */
static int split_directive(const char *s, const char *end, struct wordv *wv)
{
	char *buf = malloc((size_t)(end - s) + 1);
	bool comment = false;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (rc == 0 && !comment) {
		size_t n;

		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s >= end)
			break;
		n = next_word(&s, end, buf, &comment);
		if (n > 0 || !comment)
			rc = wordv_push(wv, buf, n);
	}
	free(buf);
	return rc;
}

static bool is_blank(const char *s, const char *end)
{
	for (; s < end; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* Classifies one line: 1 = a directive, 0 = blank or comment, -1 = a
 * command (the end of the directives). As in Slurm, a directive is any
 * line that starts with the magic word: "#SBATCH-J x" is "-J x", and
 * "#SBATCHX" yields the word "X", which sbatch then refuses. */
static int line_kind(const char *s, const char *end)
{
	const char *t = s;

	if ((size_t)(end - s) >= MAGIC_LEN && !memcmp(s, MAGIC, MAGIC_LEN))
		return 1;
	if (is_blank(s, end))
		return 0;
	while (t < end && isspace((unsigned char)*t))
		t++;
	return *t == '#' ? 0 : -1;
}

int sbatch_script_directives(const char *script, size_t len, char ***words, size_t *n)
{
	const char *end = script + len;
	const char *line = memchr(script, '\n', len);
	struct wordv wv = {0};
	int rc = 0;

	line = line ? line + 1 : end; /* the first line is the interpreter */
	while (rc == 0 && line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		int kind;

		if (!eol)
			eol = end;
		kind = line_kind(line, eol);
		if (kind < 0)
			break;
		if (kind > 0)
			rc = split_directive(line + MAGIC_LEN, eol, &wv);
		line = eol + 1;
	}
	if (rc == 0 && !wv.v) {
		/* no directives: still hand back an empty, NULL-terminated array */
		wv.v = calloc(1, sizeof(*wv.v));
		if (!wv.v)
			rc = -ENOMEM;
	}
	if (rc < 0) {
		sbatch_words_free(wv.v, wv.n);
		return rc;
	}
	*words = wv.v;
	*n = wv.n;
	return 0;
}

void sbatch_words_free(char **words, size_t n)
{
	if (!words)
		return;
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

char *sbatch_script_wrap(const char *cmd)
{
	char *s = NULL;

	if (asprintf(&s, "#!/bin/sh\n%s\n", cmd) < 0)
		return NULL;
	return s;
}
