/* conf_auth.c — AuthType and AuthInfo: which credentials clients use, where
 * authd's (or munged's) socket and the cluster key are, and the times
 * credentials and rotated keys are good for. Parsing only: the key is read
 * by the daemons (common/keyring.c), credentials checked in common/auth.c. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"

static int replace_string(char **field, char *s)
{
	if (!s)
		return -ENOMEM;
	free(*field);
	*field = s;
	return 0;
}

/* AuthType: auth/drover (authd and the cluster key) or auth/munge (a real
 * munged, auth_munge.c); daemons sign their frames with the key either way. */
int conf_apply_auth_type(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	if (strcasecmp(value, "auth/munge") == 0)
		return replace_string(&c->auth_type, strdup("auth/munge"));
	if (strcasecmp(value, "auth/drover") != 0)
		return drv_error_set(
		    err, EINVAL,
		    "AuthType=%.60s is not supported; use auth/drover or "
		    "auth/munge",
		    value);
	return replace_string(&c->auth_type, strdup("auth/drover"));
}

/* AuthInfo's numeric options: cred_expire (Slurm's: how long a credential
 * is valid, and how long a requeued job waits before it may start again),
 * clock_skew and key_grace (Drover's: how far hosts' clocks may disagree,
 * and how long a rotated-out key is still accepted). 1 when t is one of
 * them (set, or err filled), 0 when it is not. */
static int auth_info_number(struct drv_conf *c, const char *t, const char *eq, int *rc,
			    struct drv_error *err)
{
	static const struct {
		const char *name;
		size_t off;
		long max;
	} opts[] = {
	    {"cred_expire", offsetof(struct drv_conf, cred_expire), 86400},
	    {"clock_skew", offsetof(struct drv_conf, clock_skew), 3600},
	    {"key_grace", offsetof(struct drv_conf, key_grace), 86400},
	};
	for (size_t i = 0; eq && i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t n = strlen(opts[i].name);
		if ((size_t)(eq - t) != n || strncasecmp(t, opts[i].name, n))
			continue;
		char *end;
		long v = strtol(eq + 1, &end, 10);
		if (end == eq + 1 || *end || v < 0 || v > opts[i].max)
			*rc = drv_error_set(err, EINVAL,
					    "AuthInfo: %s '%.20s' is not 0..%ld",
					    opts[i].name, eq + 1, opts[i].max);
		else
			*(int *)((char *)c + opts[i].off) = (int)v;
		return 1;
	}
	return 0;
}

/* AuthInfo=socket=PATH,key=PATH,cred_expire=SECS,clock_skew=SECS,
 * key_grace=SECS: other options Slurm knows (ttl=) are accepted and
 * ignored. */
int conf_apply_auth_info(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	char *copy = strdup(value), *save = NULL, *sock = NULL, *key = NULL;
	int rc = copy ? 0 : -ENOMEM;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && rc == 0;
	     t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		char **dst = NULL;
		if (auth_info_number(c, t, eq, &rc, err))
			continue;
		if (eq && (size_t)(eq - t) == 6 && !strncasecmp(t, "socket", 6))
			dst = &sock;
		else if (eq && (size_t)(eq - t) == 3 && !strncasecmp(t, "key", 3))
			dst = &key;
		if (!dst)
			continue;
		if (!eq[1])
			rc = drv_error_set(err, EINVAL, "AuthInfo: '%.*s' has no path",
					   (int)(eq - t), t);
		else if ((rc = replace_string(dst, conf_resolve(p->conf->dir, eq + 1))) <
			 0)
			break;
	}
	if (rc == 0 && sock) {
		free(c->auth_socket);
		c->auth_socket = sock;
		sock = NULL;
	}
	if (rc == 0 && key) {
		free(c->auth_key);
		c->auth_key = key;
		key = NULL;
	}
	free(sock);
	free(key);
	free(copy);
	return rc;
}
