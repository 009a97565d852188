/* multi_prog.c — reads srun's --multi-prog file into one argv per task,
 * with Slurm's messages for a bad file. It runs nothing. */
#include "cli/multi_prog.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 256

struct words {
	char *w[MAX_WORDS];
	int n;
};

/* Splits a line into words, removing quotes. Returns 0 or -EINVAL (an
 * unterminated quote or too many words); w[] point into line. */
static int split(char *line, struct words *ws)
{
	char *p = line;

	ws->n = 0;
	while (*p) {
		char *out;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (ws->n == MAX_WORDS)
			return -EINVAL;
		ws->w[ws->n++] = out = p;
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '\'' || *p == '"') {
				char q = *p++;
				while (*p && *p != q)
					*out++ = *p++;
				if (!*p)
					return -EINVAL;
				p++;
			} else {
				*out++ = *p++;
			}
		}
		bool more = *p != '\0';
		*out = '\0';
		if (more && out != p)
			p++;
		else if (more)
			*p++ = '\0';
	}
	return 0;
}

static int err2(struct drv_error *err, const char *first, const char *name, int line)
{
	if (first && *first)
		return drv_error_set(err, EINVAL,
				     "%s\nLine %d of configuration file %s invalid",
				     first, line, name);
	return drv_error_set(err, EINVAL, "Line %d of configuration file %s invalid",
			     line, name);
}

/* Marks the ids of spec in mine[] (1 = on this line); counts them. */
static int mark_spec(const char *spec, uint32_t ntasks, const char *owner, char *mine,
		     uint32_t *count, char *why, size_t whylen)
{
	const char *p = spec;

	if (!strcmp(spec, "*")) {
		for (uint32_t t = 0; t < ntasks; t++)
			if (!owner[t] && !mine[t]) {
				mine[t] = 1;
				(*count)++;
			}
		return 0;
	}
	while (*p) {
		char *end;
		unsigned long lo, hi;
		if (!isdigit((unsigned char)*p))
			goto bad_range;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad_range;
			hi = strtoul(end + 1, &end, 10);
		}
		if (*end && *end != ',')
			goto bad_range;
		if (hi < lo) {
			snprintf(why, whylen, "Invalid task range, %lu-%lu", lo, hi);
			return -EINVAL;
		}
		for (unsigned long t = lo; t <= hi; t++) {
			if (t >= ntasks) {
				snprintf(why, whylen, "Invalid task id, %lu >= ntasks",
					 t);
				return -EINVAL;
			}
			if (owner[t] || mine[t]) {
				snprintf(why, whylen, "Duplicate record for task %lu", t);
				return -EINVAL;
			}
			mine[t] = 1;
			(*count)++;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
bad_range:
	snprintf(why, whylen, "Invalid task range specification (%s)", spec);
	return -EINVAL;
}

/* One argument with %t and %o replaced. NULL on ENOMEM. */
static char *subst(const char *arg, uint32_t task, uint32_t offset)
{
	size_t cap = strlen(arg) * 4 + 32, len = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	for (const char *p = arg; *p; p++) {
		if (p[0] == '%' && (p[1] == 't' || p[1] == 'o')) {
			len += (size_t)snprintf(out + len, cap - len, "%u",
						p[1] == 't' ? task : offset);
			p++;
		} else {
			out[len++] = *p;
		}
		if (cap - len < 16) {
			char *n = realloc(out, cap *= 2);
			if (!n) {
				free(out);
				return NULL;
			}
			out = n;
		}
	}
	out[len] = '\0';
	return out;
}

static char **make_argv(const struct words *ws, uint32_t task, uint32_t offset)
{
	char **av = calloc((size_t)ws->n, sizeof(*av)); /* words minus spec, plus NULL */

	if (!av)
		return NULL;
	for (int i = 1; i < ws->n; i++) {
		av[i - 1] = subst(ws->w[i], task, offset);
		if (!av[i - 1]) {
			for (int k = 0; k < i - 1; k++)
				free(av[k]);
			free(av);
			return NULL;
		}
	}
	return av;
}

static void free_argv(char **av)
{
	for (char **p = av; p && *p; p++)
		free(*p);
	free(av);
}

/* Gives every task marked in mine[] its argv. */
static int assign(const struct words *ws, uint32_t ntasks, char *mine, char *owner,
		  char ***argv)
{
	uint32_t offset = 0;

	for (uint32_t t = 0; t < ntasks; t++) {
		if (!mine[t])
			continue;
		argv[t] = make_argv(ws, t, offset++);
		if (!argv[t])
			return -ENOMEM;
		owner[t] = 1;
		mine[t] = 0;
	}
	return 0;
}

struct state {
	const char *name;
	uint32_t ntasks;
	char *owner, *mine;
	char ***argv;
	bool star_seen;
};

static int do_line(struct state *s, char *line, int lineno, struct drv_error *err)
{
	struct words ws;
	char why[120] = "";
	uint32_t count = 0;
	int rc;

	if (split(line, &ws) < 0)
		return err2(err, NULL, s->name, lineno);
	if (ws.n == 0)
		return 0;
	if (s->star_seen)
		return err2(err, "Task range specification with asterisk must be last",
			    s->name, lineno);
	if (ws.n < 2)
		return err2(err, NULL, s->name, lineno);
	if (mark_spec(ws.w[0], s->ntasks, s->owner, s->mine, &count, why, sizeof(why)) <
	    0) {
		memset(s->mine, 0, s->ntasks);
		return err2(err, why, s->name, lineno);
	}
	s->star_seen = !strcmp(ws.w[0], "*");
	rc = assign(&ws, s->ntasks, s->mine, s->owner, s->argv);
	if (rc < 0)
		return drv_error_set(err, ENOMEM, "out of memory");
	return 0;
}

static void free_all(char ***argv, uint32_t n)
{
	for (uint32_t t = 0; argv && t < n; t++)
		free_argv(argv[t]);
	free(argv);
}

int multi_prog_parse(const char *text, const char *name, uint32_t ntasks,
		     struct multi_prog *mp, struct drv_error *err)
{
	struct state s = {.name = name, .ntasks = ntasks};
	char *copy = strdup(text);
	int rc = 0, lineno = 0;

	s.owner = calloc(ntasks + 1, 1);
	s.mine = calloc(ntasks + 1, 1);
	s.argv = calloc(ntasks + 1, sizeof(*s.argv));
	if (!copy || !s.owner || !s.mine || !s.argv) {
		rc = drv_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	/* strsep, not strtok: empty lines still count for line numbers */
	for (char *p = copy, *line; (line = strsep(&p, "\n")) != NULL;) {
		if (!p && !*line)
			break;
		rc = do_line(&s, line, ++lineno, err);
		if (rc < 0)
			goto out;
	}
	for (uint32_t t = 0; t < ntasks; t++)
		if (!s.argv[t]) {
			rc = drv_error_set(
			    err, EINVAL,
			    "Configuration file %s invalid, no record for task id %u",
			    name, t);
			goto out;
		}
	mp->ntasks = ntasks;
	mp->argv = s.argv;
	s.argv = NULL;
out:
	free_all(s.argv, ntasks);
	free(s.owner);
	free(s.mine);
	free(copy);
	return rc;
}

int multi_prog_load(const char *path, uint32_t ntasks, struct multi_prog *mp,
		    struct drv_error *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!f)
		return drv_error_set(err, errno,
				     "Could not open multi_prog config file %s", path);
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		fclose(f);
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	fclose(m);
	if (rc < 0)
		drv_error_set(err, EIO, "Could not open multi_prog config file %s", path);
	else
		rc = multi_prog_parse(text ? text : "", path, ntasks, mp, err);
	free(text);
	return rc;
}

void multi_prog_fini(struct multi_prog *mp)
{
	if (!mp)
		return;
	free_all(mp->argv, mp->ntasks);
	mp->argv = NULL;
	mp->ntasks = 0;
}
