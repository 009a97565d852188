/* status.c — `drover status`: which of a cluster's daemons run.
 *
 * A daemon runs when it holds the lock on its pid file; the pid printed is
 * the one in that file. Exit 0 when all run, 3 otherwise (as `systemctl
 * status` does for a unit that is not active). */
#include <stdio.h>
#include <stdlib.h>

#include "common/auth_munge.h"
#include "common/daemon.h"
#include "drover/drover.h"

static void status_usage(FILE *f)
{
	fprintf(f,
		"Usage: drover status [--dir DIR]\n\n"
		"Names the local cluster's directory DIR (default: the directory of\n"
		"$DROVER_CONF, else $XDG_STATE_HOME/drover or ~/.local/state/drover)\n"
		"and lists its daemons, each with its pid and whether it runs. Exits 0\n"
		"when all run, 3 if not.\n\n"
		"  -d, --dir DIR   cluster directory\n"
		"  -h, --help      this text\n"
		"  -V, --version   print the version\n");
}

int cmd_status(int argc, char **argv)
{
	const char *dir_opt = NULL;
	int rc = drover_parse_dir_opts(argc, argv, &dir_opt, status_usage);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	char *dir = NULL, *conf_path = NULL;
	struct drv_error err = {""};
	struct drv_conf *conf = NULL;
	struct cluster_daemon *d = NULL;
	size_t n = 0;
	if (cluster_locate(dir_opt, &dir, &conf_path, &err) < 0 ||
	    cluster_load_conf(conf_path, false, &conf, &err) < 0 ||
	    cluster_daemons(conf, dir, &d, &n, &err) < 0) {
		fprintf(stderr, "drover status: %s\n", err.text);
		drv_conf_free(conf);
		free(dir);
		free(conf_path);
		return 3;
	}
	size_t running = 0;
	/* auth/munge: the site's munged, not authd (d[0]), signs for users */
	size_t skip = drv_auth_munge(conf) ? 1 : 0;
	/* which cluster this is: $DROVER_CONF or the default may pick one the
	 * reader did not expect */
	printf("Cluster in %s (config %s)\n", dir, conf_path);
	printf("%-16s %8s  %s\n", "DAEMON", "PID", "STATE");
	for (size_t i = skip; i < n; i++) {
		pid_t pid = 0;
		bool alive = d[i].pidfile && drv_pidfile_alive(d[i].pidfile, &pid);
		char pidtxt[16] = "-";
		if (alive)
			snprintf(pidtxt, sizeof(pidtxt), "%d", (int)pid);
		printf("%-16s %8s  %s\n", d[i].label, pidtxt,
		       alive ? "running" : "stopped");
		running += alive;
	}
	cluster_daemons_free(d, n);
	drv_conf_free(conf);
	free(dir);
	free(conf_path);
	return running == n - skip ? 0 : 3;
}
