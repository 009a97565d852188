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
#include "ctld/cred.h"
#include "ctld/ctld.h"
#include "ctld/job_submit_lua.h"
#include "ctld/prio.h"
#include "ctld/rate_limit.h"
#include "ctld/rpc_handlers.h"
#include "drv_config.h"

struct options {
	const char *conf_path;
	bool foreground, test_only, verbose;
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: drover-ctld [-f CONF] [-D] [-t] [-v] [-V]\n"
		     "  -f CONF   configuration file (default $DROVER_CONF, then "
		     "/etc/drover/drover.conf)\n"
		     "  -D        stay in the foreground\n"
		     "  -t        check the configuration and exit\n"
		     "  -v        verbose logging\n"
		     "  -V, --version  print the version and exit\n"
		     "  --help\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {{"help", no_argument, NULL, 'h'},
					      {"version", no_argument, NULL, 'V'},
					      {NULL, 0, NULL, 0}};
	int ch;
	while ((ch = getopt_long(argc, argv, "f:DtvV", longs, NULL)) != -1) {
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
			printf("slurm %s (drover %s)\n", DRV_SLURM_VERSION, DRV_VERSION);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return -EINVAL;
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
	return drv_keyring_load(&c->keys, c->conf->auth_key, c->conf->key_grace, err);
}

/* JobSubmitPlugins=lua: job_submit.lua beside the config, as Slurm finds
 * it. Missing or broken, it is logged and every job is refused until it
 * loads (job_submit_lua.c); ctld runs on. */
static char *job_submit_path(const struct drv_conf *conf)
{
	char *path;
	if (asprintf(&path, "%s/job_submit.lua", conf->dir ? conf->dir : ".") < 0)
		return NULL;
	return path;
}

static int start_job_submit(struct ctld *c, struct drv_error *err)
{
	struct drv_error why = {{0}};
	if (!c->conf->job_submit_lua)
		return 0;
	char *path = job_submit_path(c->conf);
	c->job_submit = path ? jsl_new(path, c->conf->cluster_name) : NULL;
	free(path);
	if (!c->job_submit)
		return drv_error_set(err, ENOMEM, "out of memory");
	jsl_refresh(c->job_submit, &why); /* logs what is wrong */
	return 0;
}

/* -t: a job_submit.lua that would not load fails the check. */
static int check_job_submit(const struct drv_conf *conf, struct drv_error *err)
{
	if (!conf->job_submit_lua)
		return 0;
	char *path = job_submit_path(conf);
	if (!path)
		return drv_error_set(err, ENOMEM, "out of memory");
	struct drv_error why = {{0}};
	int rc = jsl_check(path, &why);
	free(path);
	return rc < 0 ? drv_error_set(err, -rc, "job_submit/lua: %s", why.text) : 0;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct ctld *c = arg;
	log_info("signal %d: shutting down", (int)sig);
	c->stopping = true;
	event_base_loopexit(c->base, NULL);
}

static int start_loop(struct ctld *c, struct drv_error *err)
{
	c->base = event_base_new();
	if (!c->base || event_base_priority_init(c->base, PRIO_COUNT) < 0)
		return drv_error_set(err, ENOMEM, "cannot create the event loop");
	if (!(c->key_watch = drv_keyring_watch(c->base, &c->keys)))
		return drv_error_set(err, ENOMEM, "out of memory");
	c->start_time = time(NULL);
	stats_init(&c->stats, c->start_time);
	if (node_table_init(&c->nodes, c->conf, c->start_time, err) < 0)
		return -EINVAL;
	if (job_table_init(&c->jobs) < 0 || part_table_init(c, err) < 0)
		return drv_error_set(err, ENOMEM, "out of memory");
	if (start_job_submit(c, err) < 0)
		return -ENOMEM;
	/* Time-driven work waits on timers (timed.c), armed from here on:
	 * recovery arms those of the jobs it brings back. Nothing ticks. */
	if (timed_init(c, err) < 0)
		return -ENOMEM;
	c->nonces =
	    drv_nonce_cache_new(c->conf->nonce_cache_size, c->conf->nonce_cache_per_user);
	c->rl = rate_limit_new();
	c->store = store_open(c->base, c->conf->state_save_location, err);
	if (!c->nonces || !c->rl || !c->store || ctld_recover(c, err) < 0)
		return -EIO;
	commit_init(c);
	if (acct_start(c, err) < 0)
		return -EIO;
	if (prio_init(c, err) < 0)
		return -EIO;
	sched_init(c);
	sched_request(c); /* a first pass over what recovery brought back */
	hook_init(c);
	job_resume_prologs(c);
	int port = 0;
	c->listener = drv_listen_tcp(c->base, c->conf->ctld_hosts[0].addr,
				     c->conf->ctld_port, peer_accept, c, &port, err);
	if (!c->listener)
		return -EADDRINUSE;
	log_info("listening on %s:%d", c->conf->ctld_hosts[0].addr, port);
	if (c->conf->rl.enable) /* Slurm's lines */
		log_info("RPC rate limiting enabled: rl_table_size=%u,rl_bucket_size=%u,"
			 "rl_refill_rate=%u,rl_refill_period=%u",
			 c->conf->rl.table_size, c->conf->rl.bucket_size,
			 c->conf->rl.refill_rate, c->conf->rl.refill_period);
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
	bcast_fini(c);
	stat_fini(c);
	hook_fini(c);
	jsl_free(c->job_submit);
	store_close(c->store);
	prio_fini(c);
	acct_stop(c);
	drv_nonce_cache_free(c->nonces);
	rate_limit_free(c->rl);
	job_table_fini(&c->jobs);
	part_table_fini(c);
	node_table_fini(&c->nodes);
	sched_fini(c);
	stats_fini(&c->stats);
	anomaly_fini(&c->anomaly);
	timed_fini(c);
	if (c->key_watch)
		event_free(c->key_watch);
	if (c->base)
		event_base_free(c->base);
}

/* Clients believe only replies signed as root or SlurmUser, so a ctld
 * running as anyone else could serve no one. */
static int check_slurm_user(struct ctld *c, uid_t uid, struct drv_error *err)
{
	const struct drv_conf *conf = c->conf;
	uid_t slurm_uid = 0, slurmd_uid = 0;
	int rc = drv_conf_slurm_uid(conf, &slurm_uid, err);
	if (rc == 0)
		rc = drv_conf_slurmd_uid(conf, &slurmd_uid, err);
	c->multi_user = rc == 0 && slurmd_uid == 0;
	c->slurm_uid = rc == 0 ? slurm_uid : 0;
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
		return 2; /* a usage error, as getopt's users say it */
	drv_log_init("drover-ctld", o.verbose ? DRV_LOG_DEBUG : DRV_LOG_INFO);
	signal(SIGPIPE, SIG_IGN);
	if (load_config(&c, &o, &err) < 0) {
		fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		goto out;
	}
	if (o.test_only) {
		if (check_job_submit(c.conf, &err) < 0)
			fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		else
			rc = 0;
		goto out;
	}
	c.owner_uid = getuid();
	c.owner_gid = getgid();
	if (check_slurm_user(&c, c.owner_uid, &err) < 0) {
		fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		goto out;
	}
	gethostname(c.host, sizeof(c.host) - 1);
	if (ctld_cred_start(&c, &err) < 0) {
		fprintf(stderr, "drover-ctld: error: %s\n", err.text);
		goto out;
	}
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
	drv_keyring_fini(&c.keys);
	drv_conf_free(c.conf);
	return rc;
}
