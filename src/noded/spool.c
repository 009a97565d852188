/* spool.c — job dirs in SlurmdSpoolDir, and the scan that reads them.
 *
 * SPOOL/job.<id>/ holds spec.json (written by launch.c), lock (flocked by
 * the live shepherd for its whole life), pgid, shepherd.pid and, once the
 * job ended, status. The scan turns these files into the job table at start
 * (so a restarted noded finds its running jobs) and every second after, as a
 * fallback for a lost notification. It never signals or starts anything. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "noded/noded.h"

/* A dir with a spec but neither a held lock nor a status is given this long
 * for its shepherd to take the lock before the job counts as lost. */
#define START_GRACE_S 5

int spool_job_dir(const struct noded *nd, int64_t job_id, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/job.%lld", nd->spool_dir, (long long)job_id);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool spool_lock_held(const char *dir)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/lock", dir) >= (int)sizeof(path))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* A shared lock does not disturb a shepherd that is about to take its
	 * exclusive one: it blocks for the instant we hold ours. */
	bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

static int read_json(const char *dir, const char *file, json_t **out)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (access(path, F_OK) < 0)
		return -errno;
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	if (!j || !json_is_object(j)) {
		json_decref(j);
		return -EBADMSG;
	}
	*out = j;
	return 0;
}

int spool_read_pgid(const char *dir, pid_t *pgid)
{
	return spool_read_pid(dir, "pgid", pgid);
}

int spool_read_pid(const char *dir, const char *file, pid_t *pgid)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	long v = 0;
	int n = fscanf(f, "%ld", &v);
	fclose(f);
	if (n != 1 || v <= 1)
		return -EBADMSG;
	*pgid = (pid_t)v;
	return 0;
}

int spool_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	struct dirent *de;
	char path[PATH_MAX];
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			unlink(path); /* job dirs hold only plain files */
	}
	closedir(d);
	return rmdir(dir) < 0 ? -errno : 0;
}

int spool_read_shape(const char *dir, const char *file, const struct drv_shape *s,
		     void *out, json_t **json)
{
	int rc = read_json(dir, file, json);
	if (rc < 0)
		return rc;
	struct drv_error err;
	rc = drv_shape_decode(s, *json, out, &err);
	if (rc < 0) {
		log_warn("%s/%s: %s", dir, file, err.text);
		json_decref(*json);
		*json = NULL;
	}
	return rc;
}

int spool_write_status(const char *dir, const struct drv_rec_spool_status *st)
{
	json_t *o = drv_rec_spool_status_encode(st);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!text)
		return -ENOMEM;
	int rc = drv_write_file_atomic(dir, "status", text, strlen(text), 0600);
	free(text);
	return rc;
}

/* The job ended: take what its status file says. */
static void take_status(struct noded_job *job, const struct drv_rec_spool_status *st)
{
	jobs_set_done(job, st->exit_code, st->signal, st->launch_failed, st->message);
	job->timeout = st->timeout;
	job->usage = st->usage;
	job->has_usage = st->has_usage;
	job->oom = st->oom;
	job->unkillable = st->unkillable;
	job->prolog_failed = st->prolog_failed;
	job->lost = st->lost;
	log_info("job=%lld ended: exit_code=%d signal=%d%s", (long long)job->job_id,
		 job->exit_code, job->sig, job->timeout ? " (time limit)" : "");
}

/* The job's processes outlive a shepherd killed with SIGKILL. Kill them,
 * but only when the group leader is still the job's: in the shepherd's
 * session (the shepherd called setsid, so its pid is the session id). A
 * reused pid would not be in that session. */
static void kill_orphans(const char *dir)
{
	pid_t pgid, sid;
	char path[PATH_MAX];
	if (spool_read_pgid(dir, &pgid) < 0)
		return;
	if (snprintf(path, sizeof(path), "%s/shepherd.pid", dir) >= (int)sizeof(path))
		return;
	FILE *f = fopen(path, "re");
	long shepherd = 0;
	if (!f || fscanf(f, "%ld", &shepherd) != 1 || shepherd <= 1) {
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pgid);
	f = fopen(path, "re");
	char buf[512];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* after "pid (comm)" */
	int pgrp;
	if (p && sscanf(p + 1, " %*c %*d %d %d", &pgrp, &sid) == 2 && pgrp == pgid &&
	    sid == (pid_t)shepherd) {
		log_warn("killing process group %d left by a lost shepherd", (int)pgid);
		kill(-pgid, SIGKILL);
	}
}

/* No shepherd and no status: the shepherd died without a word. Record the
 * verdict in the dir too, so that it is the same after a restart. */
static void mark_lost(struct noded *nd, struct noded_job *job, const char *dir)
{
	kill_orphans(dir);
	/* and what left the group (a daemon in a session of its own), which
	 * its batch step's cgroup still holds */
	signal_step_procs(nd, job->job_id, "batch", 0, SIGKILL);
	struct drv_rec_spool_status st = {.signal = 9,
					  .restart = (uint32_t)job->restart,
					  .message = "shepherd lost",
					  .lost = true};
	spool_write_status(dir, &st);
	jobs_set_done(job, 0, 9, false, st.message);
	job->lost = true;
	log_warn("job=%lld shepherd lost", (long long)job->job_id);
}

/* A job dir the table does not know (an earlier noded's job): its entry,
 * with the restart of its status (st, when it ended) or of its spec. NULL
 * when there is none to add. */
static struct noded_job *adopt_job(struct noded *nd, int64_t job_id, const char *dir,
				   const struct drv_rec_spool_status *st)
{
	struct drv_job_launch spec;
	json_t *spec_json = NULL;
	bool has_spec = spool_read_shape(dir, "spec.json", &drv_shape_job_launch, &spec,
					 &spec_json) == 0;
	if (!has_spec && !st) {
		/* A launch cut short before its spec was written: no shepherd
		 * ran and ctld never heard "ok". */
		log_info("job=%lld removing a dir without spec", (long long)job_id);
		spool_remove_dir(dir);
		return NULL;
	}
	int64_t restart = st ? st->restart : spec.restart;
	if (has_spec)
		drv_job_launch_free(&spec);
	json_decref(spec_json);
	return jobs_add(nd, job_id, restart);
}

/* Brings one job dir and its table entry in step; returns true when the job
 * newly ended. */
static bool scan_one(struct noded *nd, int64_t job_id, const char *dir)
{
	struct noded_job *job = jobs_find(nd, job_id);
	if (job && job->phase == JOB_DONE) {
		job->has_dir = true;
		return false;
	}
	struct drv_rec_spool_status st;
	json_t *status = NULL;
	bool ended = spool_read_shape(dir, "status", &drv_shape_rec_spool_status, &st,
				      &status) == 0;
	if (!job) {
		job = adopt_job(nd, job_id, dir, ended ? &st : NULL);
		if (!job) {
			json_decref(status);
			return false;
		}
	}
	job->has_dir = true;
	if (ended) {
		take_status(job, &st);
		drv_rec_spool_status_free(&st);
		json_decref(status);
		return true;
	}
	if (spool_lock_held(dir) || job->shepherd_pid > 0 || job->script_pid > 0 ||
	    jobs_now() - job->seen_at < START_GRACE_S)
		return false;
	mark_lost(nd, job, dir);
	return true;
}

static bool parse_job_name(const char *name, int64_t *job_id)
{
	if (strncmp(name, "job.", 4) != 0 || name[4] < '1' || name[4] > '9')
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(name + 4, &end, 10);
	if (errno || *end || v <= 0)
		return false;
	*job_id = v;
	return true;
}

void spool_scan(struct noded *nd)
{
	DIR *d = opendir(nd->spool_dir);
	if (!d) {
		log_error("cannot read spool %s: %s", nd->spool_dir, strerror(errno));
		return;
	}
	for (struct noded_job *j = nd->jobs; j; j = j->next)
		j->has_dir = false;
	bool ended = false;
	struct dirent *de;
	char dir[PATH_MAX];
	int64_t job_id;
	while ((de = readdir(d))) {
		if (!parse_job_name(de->d_name, &job_id) ||
		    spool_job_dir(nd, job_id, dir, sizeof(dir)) < 0)
			continue;
		ended |= scan_one(nd, job_id, dir);
	}
	closedir(d);
	/* A running job whose dir vanished cannot be watched any more. */
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		if (j->phase == JOB_RUNNING && !j->has_dir && j->shepherd_pid == 0) {
			jobs_set_done(j, 0, 9, false, "job dir vanished");
			ended = true;
		}
	}
	signal_retry_pending(nd);
	steps_scan(nd);
	if (ended)
		link_send_completions(nd);
}

static void on_scan_timer(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	spool_scan(nd);
	link_send_completions(nd);
}

int spool_start(struct noded *nd)
{
	spool_scan(nd);
	nd->scan_ev = event_new(nd->base, -1, EV_PERSIST, on_scan_timer, nd);
	if (!nd->scan_ev)
		return -ENOMEM;
	struct timeval tv = {1, 0};
	event_add(nd->scan_ev, &tv);
	return 0;
}

void spool_stop(struct noded *nd)
{
	if (nd->scan_ev)
		event_free(nd->scan_ev);
	nd->scan_ev = NULL;
}
