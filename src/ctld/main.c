/* main.c — drover-ctld: reads like its start-up sequence. Init steps in
 * order, fini steps in reverse; the event loop in between owns everything. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"
#include "drv_config.h"

struct options {
	const char *conf_path;
	bool foreground, test_only, verbose;
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: drover-ctld [-f CONF] [-D] [-t] [-v]\n"
		     "  -f CONF   configuration file (default $DROVER_CONF, then "
		     "/etc/drover/drover.conf)\n"
		     "  -D        stay in the foreground\n"
		     "  -t        check the configuration and exit\n"
		     "  -v        verbose logging\n"
		     "  --help, --version\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {{"help", no_argument, NULL, 'h'},
					      {"version", no_argument, NULL, 'V'},
					      {NULL, 0, NULL, 0}};
	int ch;
	while ((ch = getopt_long(argc, argv, "f:Dtv", longs, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->conf_path = optarg;
			break;
		case 'D':
			o->foreground = true;
			break;
		case 't':
			o->test_only = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("drover-ctld %s\n", DRV_VERSION);
			exit(0);
		default:
			fprintf(stderr,
				"Try \"drover-ctld --help\" for more information\n");
			return -EINVAL;
		}
	}
	return 0;
}

static void print_warning(const char *msg, void *arg)
{
	log_warn("%s", msg);
}

/* The config, what ctld derives from it (nodes' GPUs), and the key. */
static int load_config(struct ctld *c, const struct options *o, struct drv_error *err)
{
	char *path = drv_conf_resolve_path(o->conf_path);
	int rc = drv_conf_load(path, print_warning, NULL, &c->conf, err);
	free(path);
	if (rc < 0)
		return rc;
	struct node_table check;
	if ((rc = node_table_init(&check, c->conf, 0, err)) < 0)
		return rc;
	node_table_fini(&check);
	return drv_key_load(c->conf->auth_key, &c->key, err);
}

static int build_partitions(struct ctld *c, struct drv_error *err)
{
	c->parts = calloc(c->conf->n_parts ? c->conf->n_parts : 1, sizeof(*c->parts));
	if (!c->parts)
		return drv_error_set(err, ENOMEM, "out of memory");
	c->n_parts = c->conf->n_parts;
	for (size_t i = 0; i < c->n_parts; i++) {
		struct part *p = &c->parts[i];
		p->conf = &c->conf->parts[i];
		p->up = !strcmp(p->conf->state, "UP");
		p->node_idx =
		    calloc(p->conf->n_nodes ? p->conf->n_nodes : 1, sizeof(uint32_t));
		if (!p->node_idx)
			return drv_error_set(err, ENOMEM, "out of memory");
		for (size_t k = 0; k < p->conf->n_nodes; k++) {
			struct node *n = node_find(&c->nodes, p->conf->node_names[k]);
			if (n)
				p->node_idx[p->n_nodes++] = n->idx;
		}
	}
	return 0;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct ctld *c = arg;
	log_info("signal %d: shutting down", (int)sig);
	c->stopping = true;
	event_base_loopexit(c->base, NULL);
}

/* Accounting history past PurgeJobAfter leaves the store: at most once a
 * minute (more often for shorter retentions), a bounded number of jobs at a
 * time so that one purge never holds the writer for long. */
static void purge_history(struct ctld *c, int64_t now)
{
	int64_t after = c->conf->purge_job_after;
	int64_t every = after < 60 ? after : 60;
	if (after > 0 && now - c->last_purge >= every) {
		c->last_purge = now;
		commit_purge(c, now - after, 10000);
	}
}

/* Stored nonces are needed only while their credentials are valid. */
static void prune_nonces(struct ctld *c, int64_t now)
{
	if (now - c->last_nonce_prune >= 60) {
		c->last_nonce_prune = now;
		commit_nonce_prune(c, now);
	}
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	int64_t now = time(NULL);
	node_check_timeouts(c, now);
	job_check_interactive_limits(c, now); /* and the steps nodes left silent */
	job_purge_old(c, now);
	purge_history(c, now);
	prune_nonces(c, now);
	drv_log_limit_flush();
	sched_request(c);
}

static int start_loop(struct ctld *c, struct drv_error *err)
{
	c->base = event_base_new();
	if (!c->base || event_base_priority_init(c->base, PRIO_COUNT) < 0)
		return drv_error_set(err, ENOMEM, "cannot create the event loop");
	c->start_time = time(NULL);
	if (node_table_init(&c->nodes, c->conf, c->start_time, err) < 0)
		return -EINVAL;
	if (job_table_init(&c->jobs) < 0 || build_partitions(c, err) < 0)
		return drv_error_set(err, ENOMEM, "out of memory");
	c->nonces =
	    drv_nonce_cache_new(c->conf->nonce_cache_size, c->conf->nonce_cache_per_user);
	c->store = store_open(c->base, c->conf->state_save_location, err);
	if (!c->nonces || !c->store || ctld_recover(c, err) < 0)
		return -EIO;
	commit_init(c);
	if (acct_start(c, err) < 0)
		return -EIO;
	sched_init(c);
	hook_init(c);
	job_resume_prologs(c);
	int port = 0;
	c->listener = drv_listen_tcp(c->base, c->conf->ctld_hosts[0].addr,
				     c->conf->ctld_port, peer_accept, c, &port, err);
	if (!c->listener)
		return -EADDRINUSE;
	struct timeval one_sec = {1, 0};
	c->tick_ev = event_new(c->base, -1, EV_PERSIST, on_tick, c);
	event_add(c->tick_ev, &one_sec);
	log_info("listening on %s:%d", c->conf->ctld_hosts[0].addr, port);
	return 0;
}

static void stop_loop(struct ctld *c)
{
	if (c->listener)
		drv_listener_free(c->listener);
	if (c->store && c->flush_ev)
		commit_drain(c);
	peer_free_all(c);
	link_fini(c);
	hook_fini(c);
	store_close(c->store);
	acct_stop(c);
	drv_nonce_cache_free(c->nonces);
	job_table_fini(&c->jobs);
	for (size_t i = 0; i < c->n_parts; i++)
		free(c->parts[i].node_idx);
	free(c->parts);
	node_table_fini(&c->nodes);
	sched_fini(c);
	if (c->tick_ev)
		event_free(c->tick_ev);
	if (c->base)
		event_base_free(c->base);
}

/* Clients believe only replies signed as root or SlurmUser, so a ctld
 * running as anyone else could serve no one. */
static int check_slurm_user(const struct drv_conf *conf, uid_t uid, struct drv_error *err)
{
	uid_t slurm_uid;
	int rc = drv_conf_slurm_uid(conf, &slurm_uid, err);
	if (rc < 0 || uid == 0 || uid == slurm_uid)
		return rc;
	return drv_error_set(err, EPERM,
			     "running as uid %u, but SlurmUser is %s (uid %u): clients "
			     "would refuse every reply",
			     (unsigned)uid, conf->slurm_user, (unsigned)slurm_uid);
}

int main(int argc, char **argv)
{
	struct options o = {0};
	struct ctld c = {0};
	struct drv_error err = {{0}};
	int pid_fd = -1, rc = 1;
	if (parse_args(argc, argv, &o) < 0)
		return 1;
	drv_log_init("drover-ctld", o.verbose ? DRV_LOG_DEBUG : DRV_LOG_INFO);
	signal(SIGPIPE, SIG_IGN);
	if (load_config(&c, &o, &err) < 0) {
		fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		goto out;
	}
	if (o.test_only) {
		rc = 0;
		goto out;
	}
	c.owner_uid = getuid();
	c.owner_gid = getgid();
	if (check_slurm_user(c.conf, c.owner_uid, &err) < 0) {
		fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		goto out;
	}
	gethostname(c.host, sizeof(c.host) - 1);
	if (c.conf->ctld_pid_file &&
	    (pid_fd = drv_pidfile_lock(c.conf->ctld_pid_file, &err)) < 0) {
		fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		goto out;
	}
	if (c.conf->ctld_log_file && drv_log_to_file(c.conf->ctld_log_file) < 0) {
		fprintf(stderr, "drover-ctld: error: cannot open log %s\n",
			c.conf->ctld_log_file);
		goto out;
	}
	if (!o.foreground && drv_daemonize(&err) < 0) {
		log_error("%s", err.text);
		goto out;
	}
	if (pid_fd >= 0)
		drv_pidfile_update(pid_fd);
	if (start_loop(&c, &err) < 0) {
		log_error("%s", err.text);
		goto stop;
	}
	struct event *sigs[] = {evsignal_new(c.base, SIGTERM, on_signal, &c),
				evsignal_new(c.base, SIGINT, on_signal, &c)};
	for (size_t i = 0; i < 2; i++)
		event_add(sigs[i], NULL);
	log_info("drover-ctld %s started, cluster %s", DRV_VERSION, c.conf->cluster_name);
	drv_daemon_ready();
	event_base_dispatch(c.base);
	for (size_t i = 0; i < 2; i++)
		event_free(sigs[i]);
	rc = 0;
stop:
	stop_loop(&c);
out:
	drv_conf_free(c.conf);
	return rc;
}
