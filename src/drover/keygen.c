/* keygen.c — `drover keygen [PATH]`: write a new cluster key.
 *
 * The default PATH is the key the config names (AuthInfo key=, by default
 * drover.key beside the config). An existing key is never overwritten:
 * replacing it would lock every daemon that holds the old one out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "drover/drover.h"

static void keygen_usage(FILE *f)
{
	fprintf(f, "Usage: drover keygen [PATH]\n\n"
		   "Writes a new random cluster key (mode 0600) to PATH, by default the\n"
		   "key named by the config ($DROVER_CONF or /etc/drover/drover.conf):\n"
		   "AuthInfo=key=..., else drover.key beside the config. Refuses to\n"
		   "overwrite an existing key.\n");
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

int cmd_keygen(int argc, char **argv)
{
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			keygen_usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			drover_print_version();
			return 0;
		}
		if (argv[i][0] == '-' || path) {
			fprintf(stderr, "drover keygen: unexpected argument '%s'\n",
				argv[i]);
			keygen_usage(stderr);
			return 2;
		}
		path = argv[i];
	}
	char *def = path ? NULL : default_key_path();
	if (!path && !def) {
		fprintf(stderr, "drover keygen: out of memory\n");
		return 1;
	}
	struct drv_error err = {""};
	int rc = drv_key_generate(path ? path : def, &err);
	if (rc < 0)
		fprintf(stderr, "drover keygen: %s\n", err.text);
	else
		fprintf(stderr, "drover: wrote cluster key %s\n", path ? path : def);
	free(def);
	return rc < 0 ? 1 : 0;
}
