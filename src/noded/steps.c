/* steps.c — srun's steps on this node: a dir SPOOL/step.JOB.STEP with the
 * spec, a shepherd started with --step-dir that runs this node's tasks and
 * talks to srun itself, and a step.complete to ctld once it ended.
 *
 * As for batch jobs the dir is the truth: the shepherd holds DIR/lock while
 * it lives and writes DIR/status when the tasks are done, so a restarted
 * noded finds the steps an earlier one started (they outlive it) and still
 * reports their ends. The dir goes once ctld acknowledged the end. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/kill_why.h"
#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

#define COMPLETE_RESEND_S 2

struct noded_step {
	int64_t job_id, step_id;
	pid_t shepherd_pid; /* our child, 0 once reaped or when not ours */
	bool done;
	int exit_code, sig;
	bool launch_failed;
	bool oom;	 /* the kernel OOM-killed one of its tasks */
	bool unkillable; /* processes outlived SIGKILL: drain the node */
	bool cancelled;	 /* its shepherd ended the tasks (cancel, srun gone) */
	char *message;
	struct drv_rec_usage usage; /* the status file's, when has_usage */
	bool has_usage;
	int64_t complete_id, complete_at;
	struct noded_step *next;
};

static int step_dir(const struct noded *nd, int64_t job_id, int64_t step_id, char *buf,
		    size_t size)
{
	int n = snprintf(buf, size, "%s/step.%" PRId64 ".%" PRId64, nd->spool_dir, job_id,
			 step_id);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static struct noded_step *find(struct noded *nd, int64_t job_id, int64_t step_id)
{
	for (struct noded_step *s = nd->steps; s; s = s->next)
		if (s->job_id == job_id && s->step_id == step_id)
			return s;
	return NULL;
}

static struct noded_step *add(struct noded *nd, int64_t job_id, int64_t step_id)
{
	struct noded_step *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->job_id = job_id;
	s->step_id = step_id;
	s->next = nd->steps;
	nd->steps = s;
	return s;
}

static void drop(struct noded *nd, struct noded_step *s)
{
	for (struct noded_step **pp = &nd->steps; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			free(s->message);
			free(s);
			return;
		}
	}
}

void steps_free_all(struct noded *nd)
{
	while (nd->steps)
		drop(nd, nd->steps);
}

static void set_done(struct noded_step *s, int code, int sig, bool failed,
		     const char *why)
{
	s->done = true;
	s->exit_code = code;
	s->sig = sig;
	s->launch_failed = failed;
	free(s->message);
	s->message = why ? strdup(why) : NULL;
	s->has_usage = false;
}

static void send_complete(struct noded *nd, struct noded_step *s)
{
	if (!nd->registered)
		return;
	struct drv_step_complete m = {
	    .job_id = (uint32_t)s->job_id,
	    .step_id = (uint32_t)s->step_id,
	    .exit_code = s->exit_code & 0xff,
	    .signal = s->sig & 0x7f,
	    .launch_failed = s->launch_failed,
	    .message = s->message,
	    .usage = s->usage,
	    .has_usage = s->has_usage,
	    .oom = s->oom,
	    .unkillable = s->unkillable,
	    .cancelled = s->cancelled,
	};
	json_t *body = drv_step_complete_encode(&m);
	if (body && link_send_request(nd, "step.complete", body, &s->complete_id) == 0)
		s->complete_at = jobs_now();
}

/* The shepherd is gone: its status says how the tasks ended. */
static void read_status(struct noded *nd, struct noded_step *s)
{
	char dir[PATH_MAX];
	struct drv_rec_spool_status st;
	json_t *json = NULL;
	if (step_dir(nd, s->job_id, s->step_id, dir, sizeof(dir)) < 0 ||
	    spool_read_shape(dir, "status", &drv_shape_rec_spool_status, &st, &json) <
		0) {
		set_done(s, 0, SIGKILL, false, "the step's shepherd died");
		return;
	}
	set_done(s, st.exit_code, st.signal, st.launch_failed, st.message);
	s->usage = st.usage;
	s->has_usage = st.has_usage;
	s->oom = st.oom;
	s->unkillable = st.unkillable;
	s->cancelled = st.cancelled;
	drv_rec_spool_status_free(&st);
	json_decref(json);
}

int steps_launch(struct noded *nd, const struct drv_step_launch *m, json_t *body,
		 struct drv_error *err)
{
	int64_t job_id = m->job_id, step_id = m->step_id;
	if (find(nd, job_id, step_id))
		return 0; /* a resend */
	char dir[PATH_MAX];
	if (step_dir(nd, job_id, step_id, dir, sizeof(dir)) < 0) {
		drv_error_set(err, ENAMETOOLONG, "step dir path too long");
		return DRV_RC_ERROR;
	}
	struct noded_step *s = add(nd, job_id, step_id);
	if (!s) {
		drv_error_set(err, ENOMEM, "out of memory");
		return DRV_RC_ERROR;
	}
	spool_remove_dir(dir);
	int rc = mkdir(dir, 0700) < 0 ? -errno : launch_write_spec(nd, body, dir, false);
	pid_t pid = 0;
	if (rc < 0)
		drv_error_set(err, -rc, "cannot write %s/spec.json: %s", dir,
			      strerror(-rc));
	else
		rc = launch_shepherd(nd, "--step-dir", dir, &pid, err);
	if (rc < 0) {
		log_error("step=%lld.%lld launch failed: %s", (long long)job_id,
			  (long long)step_id, err->text);
		set_done(s, 1, 0, true, err->text);
		send_complete(nd, s);
		return DRV_RC_ERROR;
	}
	s->shepherd_pid = pid;
	log_info("step=%lld.%lld launched, shepherd pid %d", (long long)job_id,
		 (long long)step_id, (int)pid);
	return 0;
}

static pid_t read_pid(const char *dir, const char *file)
{
	char path[PATH_MAX + 32], buf[32] = "";
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	long v = strtol(buf, NULL, 10);
	return v > 1 ? (pid_t)v : 0;
}

/* kill: the shepherd ends its tasks (SIGTERM, SIGKILL after KillWait) and
 * reports; another signal goes straight to the step's processes (its
 * cgroup's; without one, the tasks' group). Only while the
 * shepherd holds its lock: after that the ids may be someone else's. */
static void deliver(struct noded *nd, struct noded_step *s, int sig, bool kill_it,
		    int why)
{
	char dir[PATH_MAX];
	if (s->done || step_dir(nd, s->job_id, s->step_id, dir, sizeof(dir)) < 0 ||
	    !spool_lock_held(dir))
		return;
	pid_t pid = read_pid(dir, kill_it ? "shepherd.pid" : "pgid");
	if (!pid)
		return;
	log_info("step=%lld.%lld %s %d", (long long)s->job_id, (long long)s->step_id,
		 kill_it ? "terminating, shepherd" : "signal to group",
		 kill_it ? pid : sig);
	/* the reason rides with the SIGTERM: the shepherd writes Slurm's line */
	char step[24];
	snprintf(step, sizeof(step), "%lld", (long long)s->step_id);
	if (kill_it)
		sigqueue(pid, SIGTERM, (union sigval){.sival_int = why});
	else if (sig > 0)
		signal_step_procs(nd, s->job_id, step, pid, sig);
}

int steps_signal(struct noded *nd, const struct drv_step_signal *m, struct drv_error *err)
{
	struct noded_step *s = find(nd, m->job_id, m->step_id);
	if (!s) {
		drv_error_set(err, ESRCH, "%s", drv_rc_text(DRV_RC_INVALID_JOB_ID));
		return DRV_RC_INVALID_JOB_ID;
	}
	deliver(nd, s, m->signal, m->kill, (int)drv_kill_why_parse(m->reason));
	return 0;
}

void steps_kill_job(struct noded *nd, int64_t job_id, int why)
{
	for (struct noded_step *s = nd->steps; s; s = s->next)
		if (s->job_id == job_id)
			deliver(nd, s, 0, true, why);
}

int steps_signal_job(struct noded *nd, int64_t job_id, int sig)
{
	int n = 0;
	char dir[PATH_MAX];
	for (struct noded_step *s = nd->steps; s; s = s->next) {
		if (s->job_id != job_id || s->done ||
		    step_dir(nd, s->job_id, s->step_id, dir, sizeof(dir)) < 0 ||
		    !spool_lock_held(dir))
			continue;
		pid_t pgid = read_pid(dir, "pgid");
		if (pgid && kill(-pgid, sig) == 0)
			n++;
	}
	return n;
}

bool steps_reaped(struct noded *nd, pid_t pid)
{
	for (struct noded_step *s = nd->steps; s; s = s->next) {
		if (s->shepherd_pid != pid)
			continue;
		s->shepherd_pid = 0;
		read_status(nd, s);
		send_complete(nd, s);
		return true;
	}
	return false;
}

static bool parse_step_name(const char *name, int64_t *job_id, int64_t *step_id)
{
	char *end;
	if (strncmp(name, "step.", 5))
		return false;
	long long j = strtoll(name + 5, &end, 10);
	if (end == name + 5 || *end != '.' || j <= 0)
		return false;
	const char *p = end + 1;
	long long s = strtoll(p, &end, 10);
	if (end == p || *end || s < 0)
		return false;
	*job_id = j;
	*step_id = s;
	return true;
}

/* Step dirs no entry knows of: an earlier noded's steps. */
static void adopt(struct noded *nd)
{
	DIR *d = opendir(nd->spool_dir);
	if (!d)
		return;
	struct dirent *de;
	int64_t job_id, step_id;
	while ((de = readdir(d)))
		if (parse_step_name(de->d_name, &job_id, &step_id) &&
		    !find(nd, job_id, step_id))
			add(nd, job_id, step_id);
	closedir(d);
}

void steps_scan(struct noded *nd)
{
	static bool adopted;
	if (!adopted) {
		adopt(nd);
		adopted = true;
	}
	int64_t now = jobs_now();
	char dir[PATH_MAX];
	for (struct noded_step *s = nd->steps; s; s = s->next) {
		if (!s->done && s->shepherd_pid == 0 &&
		    step_dir(nd, s->job_id, s->step_id, dir, sizeof(dir)) == 0 &&
		    !spool_lock_held(dir))
			read_status(nd, s);
		if (s->done &&
		    (s->complete_id == 0 || now - s->complete_at >= COMPLETE_RESEND_S))
			send_complete(nd, s);
	}
}

bool steps_reply(struct noded *nd, int64_t id, int rc)
{
	for (struct noded_step *s = nd->steps; s; s = s->next) {
		if (s->complete_id != id)
			continue;
		if (rc != 0) {
			log_warn(
			    "step=%lld.%lld step.complete refused (rc %d); will resend",
			    (long long)s->job_id, (long long)s->step_id, rc);
			return true;
		}
		char dir[PATH_MAX];
		if (step_dir(nd, s->job_id, s->step_id, dir, sizeof(dir)) == 0)
			spool_remove_dir(dir);
		int64_t job_id = s->job_id;
		drop(nd, s);
		/* the job's /tmp lives while the node holds the job or a step of it */
		if (!jobs_find(nd, job_id) && !steps_of_job(nd, job_id))
			noded_container_forget(nd, job_id);
		return true;
	}
	return false;
}

void steps_link_lost(struct noded *nd)
{
	for (struct noded_step *s = nd->steps; s; s = s->next)
		s->complete_id = 0;
}

bool steps_of_job(const struct noded *nd, int64_t job_id)
{
	for (const struct noded_step *s = nd->steps; s; s = s->next)
		if (s->job_id == job_id)
			return true;
	return false;
}

size_t steps_running_of_job(const struct noded *nd, int64_t job_id, int64_t *ids,
			    size_t max)
{
	size_t n = 0;
	for (const struct noded_step *s = nd->steps; s && n < max; s = s->next)
		if (s->job_id == job_id && !s->done)
			ids[n++] = s->step_id;
	return n;
}
