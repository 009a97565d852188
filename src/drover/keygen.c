/* keygen.c — `drover keygen [--rotate] [PATH]`: write a new cluster key.
 *
 * The default PATH is the key the config names (AuthInfo key=, by default
 * drover.key beside the config). Without --rotate an existing key is never
 * overwritten: replacing it would lock every daemon that holds the old one
 * out. With --rotate the new key replaces it atomically and the old one is
 * kept as PATH.prev; running daemons notice the new file by themselves and
 * accept the old key for AuthInfo key_grace seconds more (common/keyring.c). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "drover/drover.h"

static void keygen_usage(FILE *f)
{
	fprintf(f,
		"Usage: drover keygen [--rotate] [PATH]\n\n"
		"Writes a new random cluster key (mode 0600) to PATH, by default the\n"
		"key named by the config ($DROVER_CONF or /etc/drover/drover.conf):\n"
		"AuthInfo=key=..., else drover.key beside the config. Refuses to\n"
		"overwrite an existing key unless --rotate.\n\n"
		"  -r, --rotate    replace the key at PATH with a new one (written to\n"
		"                  PATH.tmp, synced, renamed over PATH) and keep the\n"
		"                  old one as PATH.prev (mode 0600); running daemons\n"
		"                  pick the new key up within a second, sign with it,\n"
		"                  and accept the old one for AuthInfo key_grace\n"
		"                  seconds (default 300); copy the new key to every\n"
		"                  host within that time\n"
		"  -h, --help      this text\n"
		"  -V, --version   print the version\n");
}

/* The config's key path; drover.key beside the config when it cannot be read. */
static char *default_key_path(void)
{
	char *conf_path = drv_conf_resolve_path(NULL);
	if (!conf_path)
		return NULL;
	struct drv_conf *conf = NULL;
	struct drv_error err = {""};
	char *key = NULL;
	if (cluster_load_conf(conf_path, false, &conf, &err) == 0 && conf->auth_key) {
		key = strdup(conf->auth_key);
	} else {
		char *slash = strrchr(conf_path, '/');
		size_t dirlen = slash ? (size_t)(slash - conf_path) + 1 : 0;
		key = malloc(dirlen + sizeof("drover.key"));
		if (key)
			snprintf(key, dirlen + sizeof("drover.key"), "%.*sdrover.key",
				 (int)dirlen, conf_path);
	}
	drv_conf_free(conf);
	free(conf_path);
	return key;
}

/* Returns 0 to go on, 1 when done (help/version), -1 on a usage error. */
static int parse_keygen(int argc, char **argv, bool *rotate, const char **path)
{
	static const struct option longs[] = {{"rotate", no_argument, NULL, 'r'},
					      {"help", no_argument, NULL, 'h'},
					      {"version", no_argument, NULL, 'V'},
					      {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "rhV", longs, NULL)) != -1) {
		if (c == 'r') {
			*rotate = true;
		} else if (c == 'h') {
			keygen_usage(stdout);
			return 1;
		} else if (c == 'V') {
			drover_print_version();
			return 1;
		} else {
			keygen_usage(stderr);
			return -1;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "drover keygen: unexpected argument '%s'\n",
			argv[optind + 1]);
		keygen_usage(stderr);
		return -1;
	}
	*path = optind < argc ? argv[optind] : NULL;
	return 0;
}

int cmd_keygen(int argc, char **argv)
{
	const char *path = NULL;
	bool rotate = false;
	int rc = parse_keygen(argc, argv, &rotate, &path);
	if (rc != 0)
		return rc < 0 ? 2 : 0;
	char *def = path ? NULL : default_key_path();
	if (!path && !def) {
		fprintf(stderr, "drover keygen: out of memory\n");
		return 1;
	}
	const char *key = path ? path : def;
	struct drv_error err = {""};
	rc = rotate ? drv_key_rotate(key, &err) : drv_key_generate(key, &err);
	if (rc < 0)
		fprintf(stderr, "drover keygen: %s\n", err.text);
	else if (rotate)
		fprintf(stderr,
			"drover: rotated cluster key %s (the previous one is %s.prev)\n",
			key, key);
	else
		fprintf(stderr, "drover: wrote cluster key %s\n", key);
	free(def);
	return rc < 0 ? 1 : 0;
}
