/* script.c — the Prolog and Epilog programs noded runs around a job
 * (slurm.conf's Prolog/Epilog), as noded's own user: root in cluster mode,
 * the cluster's user in local mode.
 *
 * Each runs as a child in its own process group with Slurm's SLURM_* job
 * environment and nothing else (no search path, as in Slurm); the loop never
 * waits for it: launch.c's SIGCHLD handler reaps it and calls script_reaped,
 * and a timer kills the group after PrologEpilogTimeout. The Prolog comes
 * before the job's shepherd starts (a failure means no shepherd, a job that
 * ctld requeues held and a drained node); the Epilog after the job ended and
 * before its end is reported (a failure drains the node). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "common/log.h"
#include "noded/noded.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct script_ctx {
	struct noded *nd;
	int64_t job_id;
};

static void add(json_t *env, const char *name, const char *value)
{
	char *e;
	if (value && asprintf(&e, "%s=%s", name, value) >= 0) {
		json_array_append_new(env, json_string(e));
		free(e);
	}
}

static void add_int(json_t *env, const char *name, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	add(env, name, buf);
}

/* The job's GPU indices as "0,1" (NULL when none). */
static char *gpu_list(const struct drv_job_launch *m)
{
	char *buf = m->n_gpus ? calloc(m->n_gpus * 11 + 1, 1) : NULL;
	size_t len = 0;
	for (size_t i = 0; buf && i < m->n_gpus; i++)
		len += (size_t)sprintf(buf + len, "%s%u", i ? "," : "",
				       (unsigned)m->gpus[i]);
	return buf;
}

json_t *script_env(const struct noded *nd, const struct drv_job_launch *m,
		   const char *context, const struct noded_job *done)
{
	json_t *env = json_array();
	add_int(env, "SLURM_JOB_ID", m->job_id);
	add_int(env, "SLURM_JOBID", m->job_id);
	add(env, "SLURM_JOB_USER", m->user);
	add_int(env, "SLURM_JOB_UID", m->uid);
	add_int(env, "SLURM_JOB_GID", m->gid);
	add(env, "SLURM_JOB_NODELIST", m->nodelist);
	add(env, "SLURM_JOB_PARTITION", m->partition);
	add(env, "SLURM_JOB_ACCOUNT", m->account);
	add(env, "SLURM_CLUSTER_NAME", m->cluster);
	add(env, "SLURMD_NODENAME", nd->name);
	add(env, "SLURM_CONF", nd->conf_path);
	add(env, "SLURM_SCRIPT_CONTEXT", context);
	char *gpus = gpu_list(m);
	add(env, "SLURM_JOB_GPUS", gpus);
	free(gpus);
	add_int(env, "SLURM_RESTART_COUNT", m->restart);
	if (done) {
		char buf[48];
		int status = done->sig ? done->sig & 0x7f : (done->exit_code & 0xff) << 8;
		snprintf(buf, sizeof(buf), "%d", status);
		add(env, "SLURM_JOB_EXIT_CODE", buf);
		snprintf(buf, sizeof(buf), "%d:%d", done->exit_code, done->sig);
		add(env, "SLURM_JOB_EXIT_CODE2", buf);
		snprintf(buf, sizeof(buf), "%d:%d", done->exit_code, done->sig);
		add(env, "SLURM_JOB_DERIVED_EC", buf);
	}
	return env;
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct script_ctx *ctx = arg;
	struct noded_job *job = jobs_find(ctx->nd, ctx->job_id);
	if (job && job->script_pid > 0) {
		log_warn("job=%lld %s ran past PrologEpilogTimeout: killing it",
			 (long long)job->job_id,
			 job->script_epilog ? "Epilog" : "Prolog");
		job->script_timed_out = true;
		kill(-job->script_pid, SIGKILL);
	}
}

void script_cancel_timer(struct noded_job *job)
{
	if (!job->script_timer)
		return;
	free(event_get_callback_arg(job->script_timer));
	event_free(job->script_timer);
	job->script_timer = NULL;
}

int script_start(struct noded *nd, struct noded_job *job, const char *path, json_t *env,
		 bool epilog)
{
	size_t n = json_array_size(env);
	char **envp = calloc(n + 1, sizeof(*envp));
	struct script_ctx *ctx = malloc(sizeof(*ctx));
	if (!envp || !ctx) {
		free(envp);
		free(ctx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		envp[i] = (char *)json_string_value(json_array_get(env, i));
	pid_t pid = drv_child_spawn_quiet(path, envp);
	free(envp);
	if (pid < 0) {
		free(ctx);
		return pid;
	}
	job->script_pid = pid;
	job->script_epilog = epilog;
	job->script_timed_out = false;
	*ctx = (struct script_ctx){nd, job->job_id};
	job->script_timer = evtimer_new(nd->base, on_timeout, ctx);
	if (!job->script_timer)
		free(ctx);
	else if (nd->conf->prolog_epilog_timeout < 65534) {
		struct timeval tv = {nd->conf->prolog_epilog_timeout, 0};
		evtimer_add(job->script_timer, &tv);
	}
	log_info("job=%lld %s %s started, pid %d", (long long)job->job_id,
		 epilog ? "Epilog" : "Prolog", path, (int)pid);
	return 0;
}

bool script_reaped(struct noded *nd, pid_t pid, int status)
{
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		if (j->script_pid != pid)
			continue;
		j->script_pid = 0;
		script_cancel_timer(j);
		bool ok =
		    !j->script_timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
		char why[96];
		if (j->script_timed_out)
			snprintf(why, sizeof(why), "timed out");
		else
			snprintf(why, sizeof(why), "status=%d:%d",
				 WIFEXITED(status) ? WEXITSTATUS(status) : 0,
				 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		if (!ok)
			log_error("job=%lld %s failed %s", (long long)j->job_id,
				  j->script_epilog ? "epilog" : "prolog", why);
		if (j->script_epilog)
			launch_epilog_done(nd, j, ok);
		else
			launch_prolog_done(nd, j, ok, why);
		return true;
	}
	return false;
}
