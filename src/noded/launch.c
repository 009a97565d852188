/* launch.c — job.launch: a job dir with the spec, then one fork/exec of
 * drover-shepherd, which does everything else for the job (after the
 * Prolog, when one is configured; the Epilog holds the job's end back).
 *
 * Idempotent by job_id + restart: a resent launch finds the job in the table
 * (running or ended) and is answered "ok" without a second start. The reply
 * says "ok" only once exec of the shepherd succeeded. This file also reaps
 * the shepherds it started (they are our children until we exit). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int launch_write_spec(struct noded *nd, json_t *body, const char *dir, bool task_scripts)
{
	/* The job's commands must find the config as this node knows it. */
	struct drv_rec_node_spec add = {.node = nd->name, .conf_path = nd->conf_path};
	static struct cgroup_spec_buf cgb; /* large; noded is one thread */
	add.has_cgroup = noded_cgroup_spec(nd, body, &add.cgroup, &cgb);
	add.has_job_container = noded_container_spec(nd, &add.job_container);
	/* how long the shepherd waits for the cgroup to empty after SIGKILL */
	add.unkillable_timeout = nd->conf->unkillable_step_timeout;
	add.has_unkillable_timeout = add.has_cgroup && add.unkillable_timeout > 0;
	add.acct_freq = nd->conf->acct_gather_freq; /* usage samples (sample.c) */
	add.has_acct_freq = true;
	/* The shepherd reads no config: it runs these from the spec. */
	if (task_scripts) {
		add.task_prolog = nd->conf->task_prolog;
		add.task_epilog = nd->conf->task_epilog;
	}
	json_t *spec = json_deep_copy(body), *extra = drv_rec_node_spec_encode(&add);
	char *text = spec && extra && json_object_update(spec, extra) == 0
			 ? json_dumps(spec, JSON_COMPACT)
			 : NULL;
	json_decref(spec);
	json_decref(extra);
	noded_cgroup_spec_free(&cgb);
	if (!text)
		return -ENOMEM;
	int rc = drv_write_file_replace(dir, "spec.json", text, strlen(text), 0600);
	free(text);
	return rc;
}

/* In the forked child: only async-signal-safe calls until exec. */
static void exec_shepherd(const char *path, const char *flag, const char *dir, int errfd,
			  const sigset_t *oldmask)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &dfl, NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	/* Nothing of ours (ctld link, listener) may leak into the job. */
	syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	char *argv[] = {"drover-shepherd", (char *)flag, (char *)dir, NULL};
	execv(path, argv);
	int e = errno;
	ssize_t w = write(errfd, &e, sizeof(e));
	(void)w;
	_exit(127);
}

int launch_shepherd(struct noded *nd, const char *flag, const char *dir, pid_t *pid,
		    struct drv_error *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return drv_error_set(err, errno, "pipe: %s", strerror(errno));
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t child = fork();
	if (child == 0)
		exec_shepherd(nd->shepherd_path, flag, dir, p[1], &old);
	int fork_errno = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (child < 0) {
		close(p[0]);
		return drv_error_set(err, fork_errno, "fork: %s", strerror(fork_errno));
	}
	int e = 0;
	ssize_t n;
	do
		n = read(p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n > 0) {
		waitpid(child, NULL, 0);
		return drv_error_set(err, e, "cannot run %s: %s", nd->shepherd_path,
				     strerror(e));
	}
	*pid = child;
	return 0;
}

/* The launch failed: ctld gets an error reply now and a job.complete with
 * launch_failed, recorded in the dir (when there is one) to survive us. */
static int launch_failed(struct noded *nd, int64_t job_id, int64_t restart,
			 const char *dir, struct drv_error *err)
{
	log_error("job=%lld launch failed: %s", (long long)job_id, err->text);
	if (dir) {
		struct drv_rec_spool_status st = {.exit_code = 1,
						  .restart = (uint32_t)restart,
						  .launch_failed = true,
						  .message = err->text};
		spool_write_status(dir, &st);
	}
	struct noded_job *job = jobs_add(nd, job_id, restart);
	if (job) {
		job->has_dir = dir != NULL;
		/* link.c sends the job.complete right after the error reply. */
		jobs_set_done(job, 1, 0, true, err->text);
	}
	return DRV_RC_ERROR;
}

/* An entry for this job id already exists. Returns 1 when the launch is a
 * resend (answer ok), 0 when the old entry was cleared, or an rc. */
static int check_existing(struct noded *nd, struct noded_job *job, int64_t restart,
			  struct drv_error *err)
{
	if (job->restart == restart)
		return 1;
	if (job->phase == JOB_RUNNING) {
		drv_error_set(err, EBUSY, "job %lld restart %lld is still running",
			      (long long)job->job_id, (long long)job->restart);
		return DRV_RC_ERROR;
	}
	/* ctld launches the next run, so it no longer waits for this end. */
	char dir[PATH_MAX];
	if (spool_job_dir(nd, job->job_id, dir, sizeof(dir)) == 0)
		spool_remove_dir(dir);
	jobs_remove(nd, job);
	return 0;
}

/* Records the end of a job that never ran (its Prolog failed, or its
 * shepherd could not start) in its dir and its table entry. */
static void record_no_start(struct noded *nd, struct noded_job *job, const char *dir,
			    const char *why)
{
	struct drv_rec_spool_status st = {.exit_code = 1,
					  .restart = (uint32_t)job->restart,
					  .launch_failed = true,
					  .prolog_failed = job->prolog_failed,
					  .message = why};
	spool_write_status(dir, &st);
	bool prolog_failed = job->prolog_failed;
	jobs_set_done(job, 1, 0, true, why);
	job->prolog_failed = prolog_failed;
	link_send_completions(nd);
}

/* The Prolog first; the shepherd starts when it ends well
 * (launch_prolog_done). ctld hears "ok": the launch is under way. */
static int start_prolog(struct noded *nd, const struct drv_job_launch *m, const char *dir,
			struct drv_error *err)
{
	struct noded_job *job = jobs_add(nd, m->job_id, m->restart);
	if (!job) {
		drv_error_set(err, ENOMEM, "out of memory");
		return DRV_RC_ERROR;
	}
	job->has_dir = true;
	json_t *env = script_env(nd, m, "prolog_slurmd", NULL);
	int rc = script_start(nd, job, nd->conf->prolog, env, false);
	json_decref(env);
	if (rc < 0) {
		char why[128];
		snprintf(why, sizeof(why), "prolog failed: %s", strerror(-rc));
		job->prolog_failed = true;
		record_no_start(nd, job, dir, why);
	}
	return 0;
}

void launch_prolog_done(struct noded *nd, struct noded_job *job, bool ok, const char *why)
{
	char dir[PATH_MAX], msg[160];
	struct drv_error err = {""};
	if (spool_job_dir(nd, job->job_id, dir, sizeof(dir)) < 0)
		return;
	if (!ok) {
		snprintf(msg, sizeof(msg), "prolog failed %s", why);
		job->prolog_failed = true;
		record_no_start(nd, job, dir, msg);
		return;
	}
	pid_t pid = 0;
	if (launch_shepherd(nd, "--job-dir", dir, &pid, &err) < 0) {
		log_error("job=%lld launch failed: %s", (long long)job->job_id, err.text);
		record_no_start(nd, job, dir, err.text);
		return;
	}
	job->shepherd_pid = pid;
	log_info("job=%lld restart=%lld launched after its prolog, shepherd pid %d",
		 (long long)job->job_id, (long long)job->restart, (int)pid);
}

bool launch_epilog_pending(struct noded *nd, struct noded_job *job)
{
	char dir[PATH_MAX];
	struct drv_job_launch spec;
	json_t *spec_json = NULL;
	if (job->script_pid > 0)
		return true;
	if (!nd->conf->epilog || job->epilog_done || job->prolog_failed)
		return false;
	job->epilog_done = true; /* unless it starts below */
	if (spool_job_dir(nd, job->job_id, dir, sizeof(dir)) < 0 ||
	    spool_read_shape(dir, "spec.json", &drv_shape_job_launch, &spec, &spec_json) <
		0)
		return false; /* nothing to tell it: the end goes out now */
	json_t *env = script_env(nd, &spec, "epilog_slurmd", job);
	drv_job_launch_free(&spec);
	json_decref(spec_json);
	int rc = script_start(nd, job, nd->conf->epilog, env, true);
	json_decref(env);
	if (rc < 0) {
		log_error("job=%lld cannot run the epilog: %s", (long long)job->job_id,
			  strerror(-rc));
		job->epilog_failed = true;
		return false;
	}
	job->epilog_done = false;
	return true;
}

void launch_epilog_done(struct noded *nd, struct noded_job *job, bool ok)
{
	job->epilog_done = true;
	job->epilog_failed = !ok;
	link_send_completions(nd);
}

int launch_job(struct noded *nd, const struct drv_job_launch *m, json_t *body,
	       struct drv_error *err)
{
	int64_t job_id = m->job_id, restart = m->restart;
	struct noded_job *job = jobs_find(nd, job_id);
	if (job) {
		int rc = check_existing(nd, job, restart, err);
		if (rc != 0)
			return rc == 1 ? 0 : rc;
	}
	char dir[PATH_MAX];
	if (spool_job_dir(nd, job_id, dir, sizeof(dir)) < 0) {
		drv_error_set(err, ENAMETOOLONG, "job dir path too long");
		return launch_failed(nd, job_id, restart, NULL, err);
	}
	spool_remove_dir(dir); /* a leftover no table entry knows of */
	if (mkdir(dir, 0700) < 0) {
		drv_error_set(err, errno, "mkdir %s: %s", dir, strerror(errno));
		return launch_failed(nd, job_id, restart, NULL, err);
	}
	int rc = launch_write_spec(nd, body, dir, true);
	if (rc < 0) {
		drv_error_set(err, -rc, "writing %s/spec.json: %s", dir, strerror(-rc));
		return launch_failed(nd, job_id, restart, dir, err);
	}
	if (nd->conf->prolog)
		return start_prolog(nd, m, dir, err);
	pid_t pid = 0;
	if (launch_shepherd(nd, "--job-dir", dir, &pid, err) < 0)
		return launch_failed(nd, job_id, restart, dir, err);
	job = jobs_add(nd, job_id, restart);
	if (!job) {
		/* The shepherd runs; the next scan will find its dir. */
		log_error("job=%lld: out of memory", (long long)job_id);
		return 0;
	}
	job->shepherd_pid = pid;
	job->has_dir = true;
	log_info("job=%lld restart=%lld launched, shepherd pid %d", (long long)job_id,
		 (long long)restart, (int)pid);
	return 0;
}

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
	struct noded *nd = arg;
	pid_t pid;
	int st;
	bool any = false;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (script_reaped(nd, pid, st) || steps_reaped(nd, pid) ||
		    health_reaped(nd, pid, st))
			continue;
		for (struct noded_job *j = nd->jobs; j; j = j->next) {
			if (j->shepherd_pid == pid) {
				j->shepherd_pid = 0;
				any = true;
			}
		}
	}
	if (any)
		spool_scan(nd);
}

int launch_start(struct noded *nd)
{
	nd->sigchld_ev = evsignal_new(nd->base, SIGCHLD, on_sigchld, nd);
	if (!nd->sigchld_ev || evsignal_add(nd->sigchld_ev, NULL) < 0)
		return -ENOMEM;
	return 0;
}

void launch_stop(struct noded *nd)
{
	if (nd->sigchld_ev)
		event_free(nd->sigchld_ev);
	nd->sigchld_ev = NULL;
}
