/* main.c — drover-noded: start-up in order, the loop, shut-down in reverse.
 *
 * Reads the config, finds this node in it, loads the cluster key, locks the
 * pid file, goes to the background, then sets up the listener, the spool
 * (whose first scan finds jobs that survived a restart), the shepherd
 * notification socket and the link to ctld. SIGTERM and SIGINT end the
 * daemon and leave every job running: their shepherds do not need us. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/listener.h>

#include "common/daemon.h"
#include "common/log.h"
#include "common/net.h"
#include "drv_config.h"
#include "noded/noded.h"

struct opts {
	const char *name;
	const char *conf_file;
	bool foreground;
	bool test;
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: drover-noded -N NAME [-f CONF] [-D] [-t] [-v] [-V]\n"
	    "  -N NAME   the node this daemon serves (default: short hostname)\n"
	    "  -f CONF   config file (default: $DROVER_CONF, /etc/drover/drover.conf)\n"
	    "  -D        stay in the foreground\n"
	    "  -t        check the config for this node and exit\n"
	    "  -v        more log output\n"
	    "  -V, --version  print the version and exit\n"
	    "  --help\n");
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "N:f:DtvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'N':
			o->name = optarg;
			break;
		case 'f':
			o->conf_file = optarg;
			break;
		case 'D':
			o->foreground = true;
			break;
		case 't':
			o->test = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("slurm %s (drover %s)\n", DRV_SLURM_VERSION, DRV_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* -t prints warnings for a person; a daemon logs them. arg: the opts. */
static void on_conf_warn(const char *msg, void *arg)
{
	const struct opts *o = arg;
	if (o->test)
		fprintf(stderr, "drover-noded: warning: %s\n", msg);
	else
		log_warn("%s", msg);
}

/* Reads the config and finds our node; prints why not on failure. */
static int load_config(struct noded *nd, const struct opts *o, char *hostbuf)
{
	char *path = drv_conf_resolve_path(o->conf_file);
	struct drv_error err = {""};
	int rc = path ? drv_conf_load(path, on_conf_warn, (void *)o, &nd->conf, &err)
		      : -ENOMEM;
	if (rc < 0) {
		fprintf(stderr, "drover-noded: error: %s\n", err.text);
		free(path);
		return rc;
	}
	char abs[PATH_MAX];
	nd->conf_path = strdup(realpath(path, abs) ? abs : path);
	free(path);
	nd->name = o->name;
	if (!nd->name) {
		gethostname(hostbuf, 256);
		hostbuf[255] = '\0';
		hostbuf[strcspn(hostbuf, ".")] = '\0';
		nd->name = hostbuf;
	}
	nd->node = drv_conf_node(nd->conf, nd->name);
	if (!nd->node) {
		fprintf(stderr, "drover-noded: error: node %s is not in the config %s\n",
			nd->name, nd->conf_path);
		return -ENOENT;
	}
	if ((rc = noded_container_load(nd, &err)) < 0)
		fprintf(stderr, "drover-noded: error: %s\n", err.text);
	return rc;
}

/* drover-shepherd lives beside our own binary. */
static char *find_shepherd(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/drover-shepherd", dirname(self));
	return strdup(path);
}

/* Key, spool dir, log file and pid file: everything before the fork. */
static int prepare(struct noded *nd, int *pid_fd)
{
	struct drv_error err = {""};
	const struct drv_node_conf *n = nd->node;
	if (drv_keyring_load(&nd->keys, nd->conf->auth_key, nd->conf->key_grace, &err) <
	    0) {
		fprintf(stderr, "drover-noded: error: %s\n", err.text);
		return -1;
	}
	nd->spool_dir =
	    drv_conf_node_path(nd->conf->slurmd_spool_dir, nd->name, n->hostname);
	nd->shepherd_path = find_shepherd();
	int rc = nd->spool_dir ? drv_mkdir_p(nd->spool_dir, 0755) : -ENOMEM;
	if (rc < 0 || !nd->shepherd_path) {
		fprintf(stderr, "drover-noded: error: spool dir %s: %s\n",
			nd->spool_dir ? nd->spool_dir : "?", strerror(-rc));
		return -1;
	}
	char *pid_path =
	    nd->conf->slurmd_pid_file
		? drv_conf_node_path(nd->conf->slurmd_pid_file, nd->name, n->hostname)
		: NULL;
	if (!pid_path && asprintf(&pid_path, "%s/noded.pid", nd->spool_dir) < 0)
		pid_path = NULL;
	/* Without a pid file the spool's own lock still keeps a second noded
	 * of the same name away from these jobs. */
	*pid_fd = pid_path ? drv_pidfile_lock(pid_path, &err) : -ENOMEM;
	free(pid_path);
	if (*pid_fd < 0) {
		fprintf(stderr, "drover-noded: error: node %s: %s\n", nd->name, err.text);
		return -1;
	}
	char *log_path =
	    drv_conf_node_path(nd->conf->slurmd_log_file, nd->name, n->hostname);
	if (log_path && drv_log_to_file(log_path) < 0) {
		fprintf(stderr, "drover-noded: error: cannot open log %s\n", log_path);
		free(log_path);
		return -1;
	}
	free(log_path);
	if (noded_container_init(nd, &err) < 0) {
		log_error("node=%s: %s", nd->name, err.text);
		fprintf(stderr, "drover-noded: error: %s\n", err.text);
		return -1;
	}
	return 0;
}

static void on_accept(int fd, const char *peer, void *arg)
{
	/* The port is reserved for step I/O; nothing talks on it yet. */
	log_debug("connection from %s on the node port closed", peer);
	close(fd);
}

static void on_stop_signal(evutil_socket_t sig, short what, void *arg)
{
	struct noded *nd = arg;
	log_info("%s: exiting, jobs keep running", strsignal((int)sig));
	event_base_loopbreak(nd->base);
}

/* Everything on the loop, in order; the link comes last. */
static int start_loop(struct noded *nd, struct event **stops)
{
	struct drv_error err = {""};
	nd->listener = drv_listen_tcp(nd->base, nd->node->addr, nd->node->port, on_accept,
				      nd, NULL, &err);
	if (!nd->listener) {
		log_error("node=%s: %s", nd->name, err.text);
		return -1;
	}
	if (!(nd->key_watch = drv_keyring_watch(nd->base, &nd->keys))) {
		log_error("node=%s: out of memory", nd->name);
		return -1;
	}
	noded_cgroup_init(nd);
	int rc = launch_start(nd);
	if (rc == 0)
		rc = spool_start(nd);
	if (rc == 0) {
		noded_cgroup_sweep(nd);
		noded_container_sweep(nd);
	}
	if (rc == 0 && (rc = notify_start(nd)) < 0)
		log_error("cannot bind %s/noded.sock: %s", nd->spool_dir, strerror(-rc));
	if (rc == 0 && ((rc = health_start(nd)) < 0 || (rc = anomaly_start(nd)) < 0))
		log_error("node=%s: out of memory", nd->name);
	if (rc < 0)
		return -1;
	stops[0] = evsignal_new(nd->base, SIGTERM, on_stop_signal, nd);
	stops[1] = evsignal_new(nd->base, SIGINT, on_stop_signal, nd);
	if (!stops[0] || !stops[1])
		return -1;
	evsignal_add(stops[0], NULL);
	evsignal_add(stops[1], NULL);
	drv_daemon_ready();
	log_info("node=%s started: %d CPUs, %llu MiB, port %d, spool %s", nd->name,
		 nd->cpus, (unsigned long long)nd->real_memory, nd->node->port,
		 nd->spool_dir);
	return link_start(nd);
}

static void fini(struct noded *nd, struct event **stops, int pid_fd)
{
	link_stop(nd);
	for (int i = 0; i < 2; i++) {
		if (stops[i])
			event_free(stops[i]);
	}
	anomaly_stop(nd);
	health_stop(nd);
	notify_stop(nd);
	spool_stop(nd);
	launch_stop(nd);
	jobs_free_all(nd);
	steps_free_all(nd);
	drv_listener_free(nd->listener);
	if (nd->key_watch)
		event_free(nd->key_watch);
	if (nd->base)
		event_base_free(nd->base);
	if (pid_fd >= 0)
		close(pid_fd);
	free(nd->shepherd_path);
	free(nd->host_cpus);
	free(nd->spool_dir);
	free(nd->conf_path);
	drv_keyring_fini(&nd->keys);
	noded_container_fini(nd);
	drv_conf_free(nd->conf);
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	drv_log_init("drover-noded", o.verbose ? DRV_LOG_DEBUG : DRV_LOG_INFO);
	struct noded nd = {.notify_fd = -1, .health_fd = -1};
	struct event *stops[2] = {NULL, NULL};
	int pid_fd = -1;
	char hostbuf[256];
	rc = 1;
	if (load_config(&nd, &o, hostbuf) < 0)
		goto out;
	if (o.test) {
		printf("drover-noded: config %s is good for node %s\n", nd.conf_path,
		       nd.name);
		rc = 0;
		goto out;
	}
	if (prepare(&nd, &pid_fd) < 0)
		goto out;
	struct drv_error err = {""};
	if (!o.foreground &&
	    (drv_daemonize(&err) < 0 || drv_pidfile_update(pid_fd) < 0)) {
		log_error("cannot go to the background: %s", err.text);
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	resources_init(&nd);
	nd.base = event_base_new();
	if (nd.base && start_loop(&nd, stops) == 0) {
		event_base_dispatch(nd.base);
		rc = 0;
	}
out:
	fini(&nd, stops, pid_fd);
	return rc;
}
