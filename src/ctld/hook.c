/* hook.c — PrologSlurmctld and EpilogSlurmctld: the programs ctld runs for a
 * job when it is allocated and when it ends, as ctld's own user, with
 * Slurm's SLURM_* environment for them.
 *
 * They never block the loop: each is a child in its own process group,
 * reaped by the loop's SIGCHLD handler, killed after PrologEpilogTimeout.
 * What a PrologSlurmctld's end means for its job is decided in job_state.c
 * (job_prolog_slurmctld_done); an EpilogSlurmctld's failure is only logged,
 * as in Slurm. */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "common/log.h"
#include "ctld/ctld.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct hook {
	struct ctld *c;
	pid_t pid;
	uint32_t job_id, restart;
	bool epilog, timed_out;
	struct event *timer;
	struct hook *next;
};

static void hook_free(struct hook *h)
{
	if (h->timer)
		event_free(h->timer);
	free(h);
}

static void on_sigchld(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	pid_t pid;
	int st;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (struct hook **hp = &c->hooks; *hp; hp = &(*hp)->next) {
			struct hook *h = *hp;
			if (h->pid != pid)
				continue;
			*hp = h->next;
			bool ok = !h->timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 0;
			if (!ok)
				log_error("job=%u %s failed%s status=%d:%d", h->job_id,
					  h->epilog ? "EpilogSlurmctld"
						    : "PrologSlurmctld",
					  h->timed_out ? " (timed out)" : "",
					  WIFEXITED(st) ? WEXITSTATUS(st) : 0,
					  WIFSIGNALED(st) ? WTERMSIG(st) : 0);
			struct job *j = job_table_find(&c->jobs, h->job_id);
			if (!h->epilog && j)
				job_prolog_slurmctld_done(c, j, h->restart, ok);
			hook_free(h);
			break;
		}
	}
}

void hook_init(struct ctld *c)
{
	c->sigchld_ev = evsignal_new(c->base, SIGCHLD, on_sigchld, c);
	if (c->sigchld_ev)
		evsignal_add(c->sigchld_ev, NULL);
}

void hook_fini(struct ctld *c)
{
	/* A script still running ends with ctld (Slurm kills it too); a
	 * PrologSlurmctld runs again after the restart. */
	while (c->hooks) {
		struct hook *h = c->hooks;
		c->hooks = h->next;
		kill(-h->pid, SIGKILL);
		hook_free(h);
	}
	if (c->sigchld_ev)
		event_free(c->sigchld_ev);
	c->sigchld_ev = NULL;
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct hook *h = arg;
	log_warn("job=%u %s ran past PrologEpilogTimeout: killing it", h->job_id,
		 h->epilog ? "EpilogSlurmctld" : "PrologSlurmctld");
	h->timed_out = true;
	kill(-h->pid, SIGKILL);
}

static void add(json_t *env, const char *name, const char *value)
{
	char *e;
	if (value && asprintf(&e, "%s=%s", name, value) >= 0) {
		json_array_append_new(env, json_string(e));
		free(e);
	}
}

static void add_num(json_t *env, const char *name, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	add(env, name, buf);
}

static json_t *hook_env(const struct ctld *c, const struct job *j, bool epilog)
{
	json_t *env = json_array();
	add_num(env, "SLURM_JOB_ID", j->id);
	add_num(env, "SLURM_JOBID", j->id);
	add(env, "SLURM_JOB_NAME", j->name);
	add(env, "SLURM_JOB_USER", j->user);
	add_num(env, "SLURM_JOB_UID", j->uid);
	add_num(env, "SLURM_JOB_GID", j->gid);
	struct group *g = getgrgid(j->gid);
	add(env, "SLURM_JOB_GROUP", g ? g->gr_name : NULL);
	add(env, "SLURM_JOB_NODELIST", j->nodelist);
	add(env, "SLURM_JOB_PARTITION", j->partition);
	add(env, "SLURM_JOB_ACCOUNT", j->req.account);
	add(env, "SLURM_JOB_COMMENT", j->comment);
	add(env, "SLURM_CLUSTER_NAME", c->conf->cluster_name);
	add(env, "SLURM_SCRIPT_CONTEXT",
	    epilog ? "epilog_slurmctld" : "prolog_slurmctld");
	if (j->restart_count)
		add_num(env, "SLURM_RESTART_COUNT", j->restart_count);
	if (epilog) {
		char buf[48];
		add_num(env, "SLURM_JOB_EXIT_CODE",
			j->exit_signal ? j->exit_signal & 0x7f
				       : (j->exit_code & 0xff) << 8);
		snprintf(buf, sizeof(buf), "%d:%d", j->exit_code, j->exit_signal);
		add(env, "SLURM_JOB_EXIT_CODE2", buf);
		add(env, "SLURM_JOB_DERIVED_EC", buf);
	}
	return env;
}

int hook_start(struct ctld *c, const struct job *j, bool epilog)
{
	const char *path = epilog ? c->conf->epilog_slurmctld : c->conf->prolog_slurmctld;
	struct hook *h = calloc(1, sizeof(*h));
	json_t *env = hook_env(c, j, epilog);
	size_t n = json_array_size(env);
	char **envp = calloc(n + 1, sizeof(*envp));
	if (!h || !envp || !path) {
		free(h);
		free(envp);
		json_decref(env);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		envp[i] = (char *)json_string_value(json_array_get(env, i));
	pid_t pid = drv_child_spawn_quiet(path, envp);
	free(envp);
	json_decref(env);
	if (pid < 0) {
		free(h);
		return pid;
	}
	*h =
	    (struct hook){c, pid, j->id, j->restart_count, epilog, false, NULL, c->hooks};
	c->hooks = h;
	h->timer = evtimer_new(c->base, on_timeout, h);
	if (h->timer && c->conf->prolog_epilog_timeout < 65534) {
		struct timeval tv = {c->conf->prolog_epilog_timeout, 0};
		evtimer_add(h->timer, &tv);
	}
	log_info("job=%u %s %s started, pid %d", j->id,
		 epilog ? "EpilogSlurmctld" : "PrologSlurmctld", path, (int)pid);
	return 0;
}
