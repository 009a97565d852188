/* job_container_conf.c — reads job_container.conf (job_container_conf.h).
 *
 * Owns the file's syntax and the meaning of its keys, checked on every line
 * whichever node it is for, so that a bad file fails on every node alike.
 * Knows nothing of mounts: noded and the shepherd act on the result. */
#include "common/job_container_conf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"

#define PAIRS_MAX 32

/* What one line sets; has_* say which keys it wrote. */
struct jc_line {
	char *base_path; /* "none" becomes NULL with has_base */
	bool has_base, has_auto, has_dirs;
	bool auto_base_path;
	char *dirs[DRV_JC_DIRS_MAX];
	size_t n_dirs;
};

/* The reader's state: the file, the line, and what applies to the node. */
struct jc_reader {
	const char *path, *node;
	int line;
	struct jc_line global, mine; /* lines without NodeName; those naming us */
	struct drv_error *err;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct jc_reader *r, const char *fmt, ...)
{
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return drv_error_set(r->err, EINVAL, "%s:%d: %s", r->path, r->line, what);
}

static void line_fini(struct jc_line *l)
{
	free(l->base_path);
	for (size_t i = 0; i < l->n_dirs; i++)
		free(l->dirs[i]);
	memset(l, 0, sizeof(*l));
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "1", NULL};
	static const char *const no[] = {"false", "no", "0", NULL};
	for (size_t i = 0; yes[i]; i++) {
		if (!strcasecmp(v, yes[i]) || !strcasecmp(v, no[i])) {
			*out = !strcasecmp(v, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* An absolute path with no empty, "." or ".." part and no trailing '/'. */
static bool normalized(const char *p)
{
	if (p[0] != '/' || !p[1])
		return false;
	for (const char *s = p; *s;) {
		s++; /* past the '/' */
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && !strncmp(s, "..", 2)))
			return false;
		s += n;
	}
	return true;
}

bool drv_jc_path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

int drv_jc_dir_name(const char *dir, char *buf, size_t len)
{
	int n = snprintf(buf, len, ".%s", dir[0] == '/' ? dir + 1 : dir);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
	return 0;
}

/* One Dirs entry: a path no other entry shares a private name with. */
static int add_dir(struct jc_reader *r, struct jc_line *l, const char *d)
{
	char name[256], other[256];
	if (!normalized(d))
		return fail(
		    r, "Dirs: '%.100s' is not an absolute path without . or .. parts", d);
	if (l->n_dirs == DRV_JC_DIRS_MAX)
		return fail(r, "Dirs: more than %d entries", DRV_JC_DIRS_MAX);
	if (drv_jc_dir_name(d, name, sizeof(name)) < 0)
		return fail(r, "Dirs: '%.100s' is too long", d);
	if (!strcmp(name, ".ns") || !strcmp(name, ".lock"))
		return fail(r, "Dirs: '%.100s' is reserved (its private name is %s)", d,
			    name);
	for (size_t i = 0; i < l->n_dirs; i++) {
		drv_jc_dir_name(l->dirs[i], other, sizeof(other));
		if (!strcmp(name, other))
			return fail(r,
				    "Dirs: '%.100s' is given twice (or clashes with "
				    "'%.100s')",
				    d, l->dirs[i]);
	}
	if (!(l->dirs[l->n_dirs] = strdup(d)))
		return drv_error_set(r->err, ENOMEM, "out of memory");
	l->n_dirs++;
	return 0;
}

static int set_dirs(struct jc_reader *r, struct jc_line *l, const char *v)
{
	char *copy = strdup(v), *save = NULL;
	if (!copy)
		return drv_error_set(r->err, ENOMEM, "out of memory");
	for (size_t i = 0; i < l->n_dirs; i++)
		free(l->dirs[i]);
	l->n_dirs = 0;
	int rc = 0;
	for (char *d = strtok_r(copy, ",", &save); d && rc == 0;
	     d = strtok_r(NULL, ",", &save))
		rc = add_dir(r, l, d);
	free(copy);
	if (rc == 0 && l->n_dirs == 0)
		rc = fail(r, "Dirs: '%.100s' names no directory", v);
	l->has_dirs = true;
	return rc;
}

static int set_base(struct jc_reader *r, struct jc_line *l, const char *v)
{
	free(l->base_path);
	l->base_path = NULL;
	l->has_base = true;
	if (!strcasecmp(v, "none"))
		return 0;
	if (!normalized(v))
		return fail(r, "BasePath: '%.100s' is not an absolute path (or none)", v);
	if (!(l->base_path = strdup(v)))
		return drv_error_set(r->err, ENOMEM, "out of memory");
	return 0;
}

/* Keys Slurm has that ask for what Drover does not do: refused with the
 * words drover.conf's refusals use. */
static int refuse(struct jc_reader *r, const char *key, const char *v)
{
	bool b;
	if (!strcasecmp(key, "Shared") || !strcasecmp(key, "EntireStepInNS")) {
		if (parse_bool(v, &b) < 0)
			return fail(r, "%s: '%.60s' is not a valid value", key, v);
		if (!b)
			return 0;
		return drv_error_set(r->err, EINVAL,
				     "%s:%d: %s=%.60s: Drover does not do what this "
				     "asks; it takes false (docs/compat.md)",
				     r->path, r->line, key, v);
	}
	if (!strcasecmp(key, "CloneNSScript_Wait") ||
	    !strcasecmp(key, "CloneNSEpilog_Wait"))
		return 0; /* no script runs, so how long it may take is moot */
	return drv_error_set(r->err, EINVAL,
			     "%s:%d: %s=%.60s: Drover does not do what this asks; "
			     "remove the line (docs/compat.md)",
			     r->path, r->line, key, v);
}

static int apply_pair(struct jc_reader *r, struct jc_line *l, const char *key,
		      const char *v)
{
	static const char *const slurm_only[] = {
	    "Shared",	     "EntireStepInNS",	   "InitScript",	 "CloneNSScript",
	    "CloneNSEpilog", "CloneNSScript_Wait", "CloneNSEpilog_Wait", NULL};
	if (!*v)
		return fail(r, "the value of %s is missing", key);
	if (!strcasecmp(key, "BasePath"))
		return set_base(r, l, v);
	if (!strcasecmp(key, "Dirs"))
		return set_dirs(r, l, v);
	if (!strcasecmp(key, "AutoBasePath")) {
		l->has_auto = true;
		if (parse_bool(v, &l->auto_base_path) < 0)
			return fail(
			    r,
			    "AutoBasePath: '%.60s' is not a valid value (true or false)",
			    v);
		return 0;
	}
	for (size_t i = 0; slurm_only[i]; i++)
		if (!strcasecmp(key, slurm_only[i]))
			return refuse(r, slurm_only[i], v);
	if (!strcasecmp(key, "NodeName"))
		return fail(r, "NodeName must come first on its line");
	return fail(r, "Parsing error at unrecognized key: %.60s", key);
}

/* Whether the NodeName hostlist names our node. */
static int names_us(struct jc_reader *r, const char *list, bool *mine)
{
	char **names = NULL;
	size_t n = 0;
	struct drv_error e = {""};
	if (!*list)
		return fail(r, "the value of NodeName is missing");
	if (drv_hostlist_expand(list, &names, &n, &e) < 0)
		return fail(r, "NodeName=%.60s: %.80s", list, e.text);
	*mine = false;
	for (size_t i = 0; i < n && !*mine; i++)
		*mine = !strcmp(names[i], r->node);
	drv_strv_free(names, n);
	return 0;
}

/* Takes what line l set into the settings of its kind (to: global or mine). */
static void merge(struct jc_line *to, struct jc_line *l)
{
	if (l->has_base) {
		free(to->base_path);
		to->base_path = l->base_path;
		l->base_path = NULL;
		to->has_base = true;
	}
	if (l->has_auto) {
		to->auto_base_path = l->auto_base_path;
		to->has_auto = true;
	}
	if (l->has_dirs) {
		for (size_t i = 0; i < to->n_dirs; i++)
			free(to->dirs[i]);
		memcpy(to->dirs, l->dirs, sizeof(l->dirs));
		to->n_dirs = l->n_dirs;
		l->n_dirs = 0;
		to->has_dirs = true;
	}
}

/* Splits s (comment gone, not empty) into Key=Value words and applies them. */
static int process_line(struct jc_reader *r, char *s)
{
	char *words[PAIRS_MAX], *save = NULL;
	size_t n = 0;
	for (char *w = strtok_r(s, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n == PAIRS_MAX)
			return fail(r, "too many key=value pairs");
		if (!strchr(w, '='))
			return fail(r, "'%.60s' is not key=value", w);
		if (w[0] == '=')
			return fail(r, "'=' without a key");
		words[n++] = w;
	}
	bool node_line = false, mine = false;
	size_t i = 0;
	if (n > 0 && !strncasecmp(words[0], "NodeName=", 9)) {
		node_line = true;
		int rc = names_us(r, words[0] + 9, &mine);
		if (rc < 0)
			return rc;
		i = 1;
	}
	struct jc_line l = {0};
	int rc = 0;
	for (; i < n && rc == 0; i++) {
		char *eq = strchr(words[i], '=');
		*eq = '\0';
		rc = apply_pair(r, &l, words[i], eq + 1);
	}
	if (rc == 0 && (!node_line || mine))
		merge(node_line ? &r->mine : &r->global, &l);
	line_fini(&l);
	return rc;
}

static int read_lines(struct jc_reader *r, FILE *f)
{
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&buf, &cap, f) >= 0) {
		r->line++;
		buf[strcspn(buf, "#\r\n")] = '\0';
		char *s = buf + strspn(buf, " \t");
		if (*s)
			rc = process_line(r, s);
	}
	free(buf);
	return rc;
}

/* What the node gets: its lines over the global ones, then the defaults. */
static int settle(struct jc_reader *r, struct drv_jc_conf *out)
{
	struct jc_line *g = &r->global, *m = &r->mine;
	merge(g, m);
	if (!g->has_base)
		return drv_error_set(r->err, EINVAL,
				     "%s: no BasePath for node %s (job_container/tmpfs "
				     "needs one, or BasePath=none)",
				     r->path, r->node);
	if (!g->has_dirs) {
		g->dirs[0] = strdup("/tmp");
		g->dirs[1] = strdup("/dev/shm");
		g->n_dirs = 2;
		if (!g->dirs[0] || !g->dirs[1])
			return drv_error_set(r->err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; g->base_path && i < g->n_dirs; i++) {
		if (drv_jc_path_under(g->base_path, g->dirs[i]))
			return drv_error_set(r->err, EINVAL,
					     "%s: BasePath=%.100s lies in %.100s, which "
					     "jobs get their own of (Dirs)",
					     r->path, g->base_path, g->dirs[i]);
	}
	*out = (struct drv_jc_conf){.base_path = g->base_path,
				    .auto_base_path = g->auto_base_path,
				    .n_dirs = g->n_dirs};
	memcpy(out->dirs, g->dirs, sizeof(g->dirs));
	memset(g, 0, sizeof(*g));
	return 0;
}

int drv_jc_conf_load(const char *path, const char *node, struct drv_jc_conf *out,
		     struct drv_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return drv_error_set(err, errno, "cannot read %s: %s", path,
				     strerror(errno));
	struct jc_reader r = {.path = path, .node = node, .err = err};
	int rc = read_lines(&r, f);
	fclose(f);
	if (rc == 0)
		rc = settle(&r, out);
	line_fini(&r.global);
	line_fini(&r.mine);
	return rc;
}

void drv_jc_conf_fini(struct drv_jc_conf *c)
{
	if (!c)
		return;
	free(c->base_path);
	for (size_t i = 0; i < c->n_dirs; i++)
		free(c->dirs[i]);
	memset(c, 0, sizeof(*c));
}
