/* conf_reload.c — `scontrol reconfigure`: what may change in a running
 * controller's config, and the change itself.
 *
 * It compares what two loads of the file wrote (drv_conf.written), refuses
 * the whole change when a key whose row has no reload flag differs, or a
 * node or partition line does (ctld builds its tables from those once),
 * and otherwise applies each changed key to the live config through the
 * same table code that read it. It knows no key by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_internal.h"

/* The last value the file gave key (the one that counts), or NULL. */
static const char *written(const struct drv_conf *c, const char *key)
{
	const char *v = NULL;
	for (size_t i = 0; i < c->n_written; i++)
		if (!strcasecmp(c->written[i].key, key))
			v = c->written[i].value;
	return v;
}

/* Whether a and b give kind (a key or a line kind) the same values in the
 * same order. */
static bool same_values(const struct drv_conf *a, const struct drv_conf *b,
			const char *kind)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < a->n_written && strcasecmp(a->written[i].key, kind))
			i++;
		while (j < b->n_written && strcasecmp(b->written[j].key, kind))
			j++;
		if (i == a->n_written || j == b->n_written)
			return i == a->n_written && j == b->n_written;
		if (strcmp(a->written[i].value, b->written[j].value))
			return false;
		i++;
		j++;
	}
}

static bool is_line_kind(const char *key)
{
	return !conf_key_find(conf_global_keys, key);
}

/* The first thing that differs and cannot change live: -EPERM, err naming
 * it; else 0. */
static int check(const struct drv_conf *conf, const struct drv_conf *fresh,
		 struct drv_error *err)
{
	const struct drv_conf *both[] = {conf, fresh};
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < both[s]->n_written; i++) {
			const char *key = both[s]->written[i].key;
			if (is_line_kind(key)) {
				if (!same_values(conf, fresh, key))
					return drv_error_set(err, EPERM,
							     "%s lines cannot change "
							     "live: restart drover-ctld",
							     key);
				continue;
			}
			const struct conf_key *k = conf_key_find(conf_global_keys, key);
			if (same_values(conf, fresh, key) || k->reload)
				continue;
			return drv_error_set(err, EPERM,
					     "%s cannot change live: restart drover-ctld",
					     k->name);
		}
	}
	return 0;
}

static void note(char *applied, size_t len, const char *key)
{
	size_t n = strlen(applied);
	if (n < len)
		snprintf(applied + n, len - n, "%s%s", n ? "," : "", key);
}

static bool clears(const struct conf_key *k)
{
	return k->type == CONF_STR || k->type == CONF_STR_LOWER || k->type == CONF_PATH ||
	       k->type == CONF_OTHER;
}

/* A key removed from the file goes back to its row's default; with none,
 * a string goes back to unset, anything else cannot change live (its
 * apply has no "unset"): -EPERM naming it. */
static int check_removed(const struct drv_conf *conf, const struct drv_conf *fresh,
			 struct drv_error *err)
{
	for (size_t i = 0; i < conf->n_written; i++) {
		const struct conf_key *k =
		    conf_key_find(conf_global_keys, conf->written[i].key);
		if (k && k->reload && !k->def && !clears(k) && !written(fresh, k->name))
			return drv_error_set(
			    err, EPERM, "%s cannot be removed live: restart drover-ctld",
			    k->name);
	}
	return 0;
}

static int copy_written(struct drv_conf *conf, const struct drv_conf *fresh)
{
	struct drv_conf tmp = {0};
	for (size_t i = 0; i < fresh->n_written; i++)
		if (conf_written_add(&tmp, fresh->written[i].key, fresh->written[i].value,
				     true) < 0)
			break;
	bool ok = tmp.n_written == fresh->n_written;
	struct drv_conf_kv *drop = ok ? conf->written : tmp.written;
	size_t n_drop = ok ? conf->n_written : tmp.n_written;
	for (size_t i = 0; i < n_drop; i++) {
		free(drop[i].key);
		free(drop[i].value);
	}
	free(drop);
	if (!ok)
		return -ENOMEM;
	conf->written = tmp.written;
	conf->n_written = tmp.n_written;
	return 0;
}

/* Applies every global key whose written value changed, in the order of
 * the table. */
static int apply(struct drv_conf *conf, const struct drv_conf *fresh, char *applied,
		 size_t len, struct drv_error *err)
{
	struct conf_parser p = {.conf = conf, .file = conf->path};
	for (const struct conf_key *k = conf_global_keys; k->name; k++) {
		const char *want = written(fresh, k->name);
		if (same_values(conf, fresh, k->name))
			continue;
		int rc = 0;
		if (want || k->def) {
			rc = conf_key_apply(&p, k, conf, want ? want : k->def, err);
		} else if (k->type != CONF_OTHER) {
			char **field = (char **)(void *)((char *)conf + k->off);
			free(*field);
			*field = NULL;
		}
		if (rc < 0)
			return rc;
		note(applied, len, k->name);
	}
	/* cgroup.conf as a whole: noded reads it for each job it starts
	 * (CgroupPlugin and CgroupMountpoint only at its start) */
	if (conf_cgroup_copy(&conf->cgroup, &fresh->cgroup) < 0)
		return -ENOMEM;
	return copy_written(conf, fresh);
}

int drv_conf_reload(struct drv_conf *conf, const struct drv_conf *fresh, char *applied,
		    size_t applied_len, struct drv_error *err)
{
	applied[0] = '\0';
	int rc = check(conf, fresh, err);
	if (rc == 0)
		rc = check_removed(conf, fresh, err);
	if (rc == 0)
		rc = apply(conf, fresh, applied, applied_len, err);
	if (rc == -ENOMEM)
		drv_error_set(err, ENOMEM, "out of memory");
	return rc;
}
