/* sbatch_env.c — --export: which variables of the submit environment the
 * job gets, and which it gets set to given values. */
#include "cli/sbatch_env.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sbatch_script.h"

struct envv {
	char **v;
	size_t n, cap;
};

/* Length of the name part of "K=V" (or of all of "K"). */
static size_t name_len(const char *kv)
{
	const char *eq = strchr(kv, '=');

	return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* Sets name=value (replacing an earlier entry with that name). */
static int envv_set(struct envv *e, const char *name, size_t nlen, const char *value)
{
	char *kv = NULL;

	if (asprintf(&kv, "%.*s=%s", (int)nlen, name, value) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < e->n; i++) {
		if (name_len(e->v[i]) == nlen && !strncmp(e->v[i], name, nlen)) {
			free(e->v[i]);
			e->v[i] = kv;
			return 0;
		}
	}
	if (e->n + 2 > e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 32;
		char **v = realloc(e->v, cap * sizeof(*v));
		if (!v) {
			free(kv);
			return -ENOMEM;
		}
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
	return 0;
}

static int envv_copy(struct envv *e, const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv)
		return 0; /* not a variable; nothing to pass */
	return envv_set(e, kv, (size_t)(eq - kv), eq + 1);
}

static const char *env_lookup(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/* Splits spec on commas outside quotes, removing the quotes. Each item is
 * written NUL-terminated into buf one after another; returns the count. */
static size_t split_items(const char *spec, char *buf)
{
	size_t count = 0;
	char quote = 0;
	char *o = buf;

	for (const char *s = spec;; s++) {
		char c = *s; /* read before writing: out may overwrite it */

		if (!c || (c == ',' && !quote)) {
			*o++ = '\0';
			count++;
			if (!c)
				break;
		} else if (quote && c == quote) {
			quote = 0;
		} else if (!quote && (c == '\'' || c == '"')) {
			quote = c;
		} else {
			*o++ = c;
		}
	}
	return count;
}

static int apply_item(struct envv *e, const char *item, char *const *envp,
		      struct drv_error *err)
{
	size_t nlen = name_len(item);
	const char *v;

	if (!*item || !strcasecmp(item, "ALL") || !strcasecmp(item, "NONE"))
		return 0;
	if (nlen == 0)
		return drv_error_set(err, EINVAL, "Invalid --export specification: %s",
				     item);
	if (item[nlen] == '=')
		return envv_set(e, item, nlen, item + nlen + 1);
	v = env_lookup(envp, item);
	return v ? envv_set(e, item, nlen, v) : 0;
}

static bool has_word(const char *buf, size_t count, const char *word)
{
	for (size_t i = 0; i < count; i++, buf += strlen(buf) + 1)
		if (!strcasecmp(buf, word))
			return true;
	return false;
}

int sbatch_env_build(const char *spec, char *const *envp, char ***out, size_t *n,
		     struct drv_error *err)
{
	struct envv e = {0};
	char *buf = strdup(spec ? spec : "ALL");
	size_t count;
	const char *item;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	count = split_items(buf, buf); /* never longer than the input */
	bool all = has_word(buf, count, "ALL");
	for (char *const *p = envp; rc == 0 && p && *p; p++)
		if (all || !strncmp(*p, "SLURM_", 6))
			rc = envv_copy(&e, *p);
	item = buf;
	for (size_t i = 0; rc == 0 && i < count; i++, item += strlen(item) + 1)
		rc = apply_item(&e, item, envp, err);
	free(buf);
	if (rc == 0 && !e.v && !(e.v = calloc(1, sizeof(*e.v))))
		rc = -ENOMEM;
	if (rc < 0) {
		sbatch_words_free(e.v, e.n);
		return rc;
	}
	*out = e.v;
	*n = e.n;
	return 0;
}
