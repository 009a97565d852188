/* down.c — `drover down`: stop everything a local cluster started.
 *
 * Order matters: ctld first (so it launches nothing new), then every noded
 * (so no new shepherd appears), then the jobs (each shepherd and its job's
 * process group, found in the spool dirs), then authd. A process is
 * signalled only while the lock that proves it is ours is held, so a
 * recycled pid is never hit. Running it twice is harmless; a config that
 * no longer loads falls back to the dir's standard layout. */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cgroup.h"
#include "common/daemon.h"
#include "common/job_container_clean.h"
#include "drover/drover.h"

#define DOWN_TIMEOUT 10 /* seconds a daemon gets between SIGTERM and SIGKILL */

static void down_usage(FILE *f)
{
	fprintf(f,
		"Usage: drover down [--dir DIR]\n\n"
		"Stops the local cluster in DIR (default: the directory of\n"
		"$DROVER_CONF, else $XDG_STATE_HOME/drover or ~/.local/state/drover):\n"
		"its jobs, every noded, ctld and authd.\n\n"
		"  -d, --dir DIR   cluster directory\n"
		"  -h, --help      this text\n"
		"  -V, --version   print the version\n");
}

/* path = jobdir/name; false when it does not fit. */
static bool job_file(char *path, size_t len, const char *jobdir, const char *name)
{
	int n = snprintf(path, len, "%s/%s", jobdir, name);
	return n > 0 && (size_t)n < len;
}

/* Kills one job: its process group and its shepherd, while the shepherd
 * still holds JOBDIR/lock. Returns 1 when it was running. */
static int kill_job(const char *jobdir)
{
	char path[4200];
	if (!job_file(path, sizeof(path), jobdir, "lock") || !spawn_lock_held(path))
		return 0;
	long pgid = 0, shepherd = 0;
	if (job_file(path, sizeof(path), jobdir, "pgid") &&
	    spawn_read_int(path, &pgid) == 0 && pgid > 1)
		kill((pid_t)-pgid, SIGKILL);
	if (job_file(path, sizeof(path), jobdir, "shepherd.pid") &&
	    spawn_read_int(path, &shepherd) == 0 && shepherd > 1)
		kill((pid_t)shepherd, SIGKILL);
	fprintf(stderr, "drover: killed job %s (shepherd %ld, pgid %ld)\n",
		strrchr(jobdir, '/') + 1, shepherd, pgid);
	return 1;
}

static void wait_job_gone(const char *jobdir)
{
	char path[4200];
	if (!job_file(path, sizeof(path), jobdir, "lock"))
		return;
	for (int i = 0; i < 100 && spawn_lock_held(path); i++) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* The shepherds died before they could remove their cgroups: the node's
 * (SPOOL/cgroup, written by noded: mount point and scope) go too. */
static void remove_cgroups(const char *spool)
{
	char path[4200], text[4400];
	if (!job_file(path, sizeof(path), spool, "cgroup"))
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	char *scope = strchr(text, '\n'), *end;
	if (!scope)
		return;
	*scope++ = '\0';
	if ((end = strchr(scope, '\n')))
		*end = '\0';
	struct cg_layout l;
	if (*scope && cg_detect(text, &l) == 0)
		cg_node_remove(&l, scope);
}

/* The jobs' private /tmp (job_container/tmpfs): every BASE/JOB of the node
 * (SPOOL/job_container, written by noded: its BasePath) goes too, since
 * every job there was just killed. */
static void remove_job_containers(const char *spool)
{
	char path[4200], base[4200];
	if (!job_file(path, sizeof(path), spool, "job_container"))
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	bool got = fgets(base, sizeof(base), f) != NULL;
	fclose(f);
	base[strcspn(base, "\n")] = '\0';
	DIR *dp = got && base[0] == '/' ? opendir(base) : NULL;
	if (!dp)
		return;
	struct dirent *e;
	int64_t job_id;
	char why[4400];
	while ((e = readdir(dp)))
		if (drv_jc_job_name(e->d_name, &job_id) &&
		    drv_jc_remove_job(base, job_id, why, sizeof(why)) < 0)
			fprintf(stderr, "drover: job %lld: %s\n", (long long)job_id, why);
	closedir(dp);
}

static void kill_jobs_in(const char *spool)
{
	DIR *dp = opendir(spool);
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp))) {
		/* batch jobs (job.ID) and srun steps (step.ID.STEP) alike */
		if (strncmp(e->d_name, "job.", 4) && strncmp(e->d_name, "step.", 5))
			continue;
		char jobdir[4096];
		if (job_file(jobdir, sizeof(jobdir), spool, e->d_name) &&
		    kill_job(jobdir))
			wait_job_gone(jobdir);
	}
	closedir(dp);
	remove_cgroups(spool);
	remove_job_containers(spool);
}

static void kill_jobs(const struct drv_conf *conf)
{
	for (size_t i = 0; i < conf->n_nodes; i++) {
		const struct drv_node_conf *nc = &conf->nodes[i];
		char *spool =
		    drv_conf_node_path(conf->slurmd_spool_dir, nc->name, nc->hostname);
		if (spool)
			kill_jobs_in(spool);
		free(spool);
	}
}

/* Stops the daemons d[from..to) together: SIGTERM to all, then wait. */
static int stop_range(struct cluster_daemon *d, size_t from, size_t to)
{
	int rc = 0;
	for (size_t i = from; i < to; i++) {
		pid_t pid = 0;
		if (d[i].pidfile && drv_pidfile_alive(d[i].pidfile, &pid) &&
		    spawn_signal(d[i].pidfile, SIGTERM) == 0)
			fprintf(stderr, "drover: stopping %s (pid %d)\n", d[i].label,
				(int)pid);
	}
	for (size_t i = from; i < to; i++)
		if (spawn_wait_stopped(d[i].label, d[i].pidfile, DOWN_TIMEOUT) < 0)
			rc = -1;
	return rc;
}

/* Without a readable config, stops what the standard layout of a cluster
 * dir names: run/ctld.pid, run/noded-*.pid, the jobs in spool/x/job.*,
 * then run/authd.pid. Returns 0 when everything found is stopped. */
static int down_by_layout(const char *dir)
{
	char pattern[4200];
	glob_t nodes = {0}, spools = {0};
	snprintf(pattern, sizeof(pattern), "%s/run/noded-*.pid", dir);
	glob(pattern, 0, NULL, &nodes);
	size_t n = 2 + nodes.gl_pathc;
	struct cluster_daemon *d = calloc(n, sizeof(*d));
	if (!d) {
		globfree(&nodes);
		return -1;
	}
	snprintf(d[0].label, sizeof(d[0].label), "authd");
	snprintf(pattern, sizeof(pattern), "%s/run/authd.pid", dir);
	d[0].pidfile = strdup(pattern);
	snprintf(d[1].label, sizeof(d[1].label), "ctld");
	snprintf(pattern, sizeof(pattern), "%s/run/ctld.pid", dir);
	d[1].pidfile = strdup(pattern);
	for (size_t i = 0; i < nodes.gl_pathc; i++) {
		const char *base = strrchr(nodes.gl_pathv[i], '/') + 1;
		snprintf(d[2 + i].label, sizeof(d[2 + i].label), "noded %.*s",
			 (int)(strlen(base) - strlen("noded-") - strlen(".pid")),
			 base + strlen("noded-"));
		d[2 + i].pidfile = strdup(nodes.gl_pathv[i]);
	}
	globfree(&nodes);
	int rc = stop_range(d, 1, 2);
	rc |= stop_range(d, 2, n);
	snprintf(pattern, sizeof(pattern), "%s/spool/*/", dir);
	glob(pattern, GLOB_ONLYDIR, NULL, &spools);
	for (size_t i = 0; i < spools.gl_pathc; i++)
		kill_jobs_in(spools.gl_pathv[i]);
	globfree(&spools);
	rc |= stop_range(d, 0, 1);
	cluster_daemons_free(d, n);
	return rc;
}

int cmd_down(int argc, char **argv)
{
	const char *dir_opt = NULL;
	int rc = drover_parse_dir_opts(argc, argv, &dir_opt, down_usage);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	char *dir = NULL, *conf_path = NULL;
	struct drv_error err = {""};
	struct drv_conf *conf = NULL;
	struct cluster_daemon *d = NULL;
	size_t n = 0;
	if (cluster_locate(dir_opt, &dir, &conf_path, &err) < 0) {
		fprintf(stderr, "drover down: %s\n", err.text);
		return 1;
	}
	if (cluster_load_conf(conf_path, false, &conf, &err) < 0 ||
	    cluster_daemons(conf, dir, &d, &n, &err) < 0) {
		/* A broken config must not keep a cluster from being stopped. */
		char run[4200];
		snprintf(run, sizeof(run), "%s/run", dir);
		bool has_run = access(run, F_OK) == 0;
		fprintf(stderr, "drover down: %s%s\n", err.text,
			has_run ? "; stopping what the cluster dir names" : "");
		rc = has_run ? down_by_layout(dir) : -1;
	} else {
		/* d[0] is authd, d[1] ctld, then the nodes. */
		rc = stop_range(d, 1, 2);
		rc |= stop_range(d, 2, n);
		kill_jobs(conf);
		rc |= stop_range(d, 0, 1);
	}
	if (rc == 0)
		fprintf(stderr, "drover: cluster in %s is down\n", dir);
	cluster_daemons_free(d, n);
	drv_conf_free(conf);
	free(dir);
	free(conf_path);
	return rc == 0 ? 0 : 1;
}
