/* spec.c — reads the launch spec noded wrote into the job dir.
 *
 * spec.json is the job.launch body (already checked against its schema by
 * noded) plus "node" and "conf_path". This file still checks every field it
 * hands out, since a shepherd must never act on a half-read spec. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shepherd/shepherd.h"

static const char *str_member(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "";
}

static int64_t int_member(json_t *o, const char *key, int64_t dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* Borrows the strings of array key into *out (NULL-terminated). */
static int str_array(json_t *o, const char *key, const char ***out, size_t *n)
{
	json_t *a = json_object_get(o, key);
	size_t len = json_is_array(a) ? json_array_size(a) : 0;
	const char **v = calloc(len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (s)
			v[k++] = s;
	}
	*out = v;
	*n = k;
	return 0;
}

int spec_load(const char *dir, struct spec *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/spec.json", dir);
	json_error_t jerr;
	s->root = json_load_file(path, 0, &jerr);
	if (!json_is_object(s->root)) {
		snprintf(err, errlen, "%s: %s", path, jerr.text);
		spec_fini(s);
		return -EBADMSG;
	}
	json_t *r = s->root;
	s->job_id = int_member(r, "job_id", 0);
	s->restart = int_member(r, "restart", 0);
	int64_t uid = int_member(r, "uid", -1), gid = int_member(r, "gid", -1);
	s->name = str_member(r, "name");
	s->user = str_member(r, "user");
	s->partition = str_member(r, "partition");
	s->nodelist = str_member(r, "nodelist");
	s->workdir = str_member(r, "workdir");
	s->submit_dir = str_member(r, "submit_dir");
	s->stdout_pat = str_member(r, "stdout");
	s->stderr_pat = str_member(r, "stderr");
	s->script = str_member(r, "script");
	s->submit_host = str_member(r, "submit_host");
	s->cluster = str_member(r, "cluster");
	s->node = str_member(r, "node");
	s->conf_path = str_member(r, "conf_path");
	s->num_nodes = int_member(r, "num_nodes", 1);
	if (s->job_id <= 0 || uid < 0 || gid < 0 || uid > UINT32_MAX - 1 ||
	    gid > UINT32_MAX - 1 || !*s->script || !*s->workdir) {
		snprintf(err, errlen, "%s: job_id, uid, gid, script or workdir missing",
			 path);
		spec_fini(s);
		return -EBADMSG;
	}
	s->uid = (uid_t)uid;
	s->gid = (gid_t)gid;
	if (str_array(r, "env", &s->env, &s->n_env) < 0 ||
	    str_array(r, "argv", &s->argv, &s->n_argv) < 0) {
		snprintf(err, errlen, "out of memory");
		spec_fini(s);
		return -ENOMEM;
	}
	return 0;
}

void spec_fini(struct spec *s)
{
	free(s->env);
	free(s->argv);
	json_decref(s->root);
	memset(s, 0, sizeof(*s));
}
