/* main.c — drover-authd: the credential service, one per host.
 *
 * Reads the cluster key (the only process on a client host that may), learns
 * each caller's uid/gid from its UNIX socket and hands back credentials bound
 * to one request. main() reads as the start-up steps in order; the shutdown
 * steps run in reverse. The socket work is in service.c. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <sodium.h>

#include "authd/authd.h"
#include "common/conf.h"
#include "common/daemon.h"
#include "common/log.h"
#include "drv_config.h"

struct options {
	const char *conf;
	const char *pidfile;
	const char *logfile;
	bool foreground;
	bool test_only;
	int verbose;
};

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: drover-authd [-f CONF] [-D] [-P PIDFILE] [-L LOGFILE] [-v] [-t] "
		"[-V]\n"
		"  -f, --conf=CONF      config file (default $DROVER_CONF, else "
		"/etc/drover/drover.conf)\n"
		"  -D, --foreground     stay in the foreground\n"
		"  -P, --pidfile=PATH   lock and write a pid file\n"
		"  -L, --logfile=PATH   log there instead of stderr\n"
		"  -v, --verbose        log debug lines too\n"
		"  -t, --test           check the config and the key, then exit\n"
		"  -V, --version        print the version and exit\n"
		"      --help\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
	    {"conf", required_argument, NULL, 'f'},
	    {"foreground", no_argument, NULL, 'D'},
	    {"pidfile", required_argument, NULL, 'P'},
	    {"logfile", required_argument, NULL, 'L'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"test", no_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "f:DP:L:vtV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->conf = optarg;
			break;
		case 'D':
			o->foreground = true;
			break;
		case 'P':
			o->pidfile = optarg;
			break;
		case 'L':
			o->logfile = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 't':
			o->test_only = true;
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

static void conf_warn(const char *msg, void *arg)
{
	log_warn("%s", msg);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	log_info("caught signal %d, exiting", (int)sig);
	event_base_loopbreak(arg);
}

/* Config and key: everything -t checks. */
static int load(const struct options *o, struct drv_conf **conf, struct authd *a)
{
	struct drv_error err = {"out of memory"};
	char *path = drv_conf_resolve_path(o->conf);
	int rc = path ? drv_conf_load(path, conf_warn, NULL, conf, &err) : -ENOMEM;
	free(path);
	if (rc < 0) {
		log_error("%s", err.text);
		return rc;
	}
	rc = drv_keyring_load(&a->keys, (*conf)->auth_key, (*conf)->key_grace, &err);
	if (rc < 0) {
		log_error("%s", err.text);
		drv_conf_free(*conf);
		*conf = NULL;
	}
	return rc;
}

/* Pid file, background, socket: everything after which we serve. */
static int start(const struct options *o, const struct drv_conf *conf, struct authd *a,
		 int *pidfd)
{
	struct drv_error err;
	if (o->pidfile && (*pidfd = drv_pidfile_lock(o->pidfile, &err)) < 0) {
		log_error("%s", err.text);
		return -1;
	}
	if (!o->foreground && drv_daemonize(&err) < 0) {
		log_error("%s", err.text);
		return -1;
	}
	if (*pidfd >= 0)
		drv_pidfile_update(*pidfd);
	if (gethostname(a->host, sizeof(a->host) - 1) < 0)
		snprintf(a->host, sizeof(a->host), "localhost");
	a->nonces =
	    drv_nonce_cache_new(conf->nonce_cache_size, conf->nonce_cache_per_user);
	a->policy = (struct drv_cred_policy){.lifetime = conf->cred_expire,
					     .skew = conf->clock_skew};
	a->key_watch = drv_keyring_watch(a->base, &a->keys);
	a->max_sessions = (size_t)conf->max_connections;
	a->max_sessions_per_uid = (size_t)conf->max_connections_per_user;
	if (!a->nonces || !a->key_watch) {
		log_error("out of memory");
		return -1;
	}
	if (authd_listen(a, conf->auth_socket, &err) < 0) {
		log_error("%s", err.text);
		return -1;
	}
	log_info("listening on %s", conf->auth_socket);
	drv_daemon_ready();
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {0};
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	drv_log_init("drover-authd", o.verbose ? DRV_LOG_DEBUG : DRV_LOG_INFO);
	if (o.logfile && drv_log_to_file(o.logfile) < 0) {
		fprintf(stderr, "drover-authd: cannot open log file %s: %s\n", o.logfile,
			strerror(errno));
		return 1;
	}
	if (sodium_init() < 0)
		return 1;
	struct authd a = {0};
	struct drv_conf *conf = NULL;
	if (load(&o, &conf, &a) < 0)
		return 1;
	if (o.test_only) {
		drv_conf_free(conf);
		drv_keyring_fini(&a.keys);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	a.base = event_base_new();
	struct event *sigterm = evsignal_new(a.base, SIGTERM, on_signal, a.base);
	struct event *sigint = evsignal_new(a.base, SIGINT, on_signal, a.base);
	int pidfd = -1;
	rc = 1;
	if (sigterm && sigint && event_add(sigterm, NULL) == 0 &&
	    event_add(sigint, NULL) == 0 && start(&o, conf, &a, &pidfd) == 0) {
		event_base_dispatch(a.base);
		rc = 0;
	}
	authd_stop(&a);
	drv_nonce_cache_free(a.nonces);
	if (sigterm)
		event_free(sigterm);
	if (sigint)
		event_free(sigint);
	if (pidfd >= 0) {
		unlink(o.pidfile);
		close(pidfd);
	}
	if (a.key_watch)
		event_free(a.key_watch);
	event_base_free(a.base);
	drv_keyring_fini(&a.keys);
	drv_conf_free(conf);
	return rc;
}
