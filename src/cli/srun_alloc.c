/* srun_alloc.c — srun's and salloc's own allocation (srun_alloc.h).
 *
 * The job is submitted with "interactive" and no script; ctld starts no
 * batch step for it, and ends it when we say alloc.complete (or at its time
 * limit). We wait for it by polling its state, quickly at first: most
 * allocations are granted within a scheduling pass. */
#include "cli/srun_alloc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/job_body.h"
#include "common/proto.h"

int srun_job_fetch(const struct drv_conf *conf, uint32_t job_id, json_t **job)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	json_t *body = json_pack("{s:[I]}", "job_ids", (json_int_t)job_id);
	*job = NULL;
	if (cli_call(conf, "job.query", body, &reply, &err) != 0)
		return -1;
	*job = json_incref(json_array_get(json_object_get(reply, "jobs"), 0));
	json_decref(reply);
	return 0;
}

static void cancel_job(const struct drv_conf *conf, uint32_t job_id)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	if (cli_call(conf, "job.cancel",
		     json_pack("{s:[I]}", "job_ids", (json_int_t)job_id), &reply,
		     &err) == 0)
		json_decref(reply);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Polls until the job runs. 0, or 1 when it ended (or we were told to stop)
 * before it ran, after Slurm's message. */
static int wait_running(const struct drv_conf *conf, struct srun_alloc *a, bool salloc,
			int immediate)
{
	const char *prog = cli_prog();
	bool said_queued = false;
	int delay = 20;
	time_t since = time(NULL);
	struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int rc = 1;
	for (;;) {
		json_t *job = NULL;
		if (srun_job_fetch(conf, a->job_id, &job) < 0) {
			sleep_ms(500); /* ctld restarting: it still holds the job */
			continue;
		}
		const char *state = json_string_value(json_object_get(job, "state"));
		if (state && !strcmp(state, "RUNNING")) {
			a->job = job;
			if (said_queued)
				fprintf(stderr,
					"%s: job %u has been allocated resources\n", prog,
					a->job_id);
			rc = 0;
			break;
		}
		bool pending = state && !strcmp(state, "PENDING");
		json_decref(job);
		if (!pending) {
			fprintf(stderr,
				"%s: error: Job allocation %u has been revoked.\n", prog,
				a->job_id);
			break;
		}
		if (immediate > 0 && time(NULL) - since >= immediate) {
			cancel_job(conf, a->job_id);
			fprintf(stderr,
				"%s: error: Unable to allocate resources: Immediate "
				"execution "
				"impossible, insufficient priority\n",
				prog);
			break;
		}
		if (interrupted) {
			cancel_job(conf, a->job_id);
			fprintf(stderr, "%s: Job allocation %u has been revoked.\n", prog,
				a->job_id);
			break;
		}
		if (!said_queued && delay >= 160) {
			if (salloc)
				fprintf(stderr, "%s: Pending job allocation %u\n", prog,
					a->job_id);
			fprintf(stderr, "%s: job %u queued and waiting for resources\n",
				prog, a->job_id);
			said_queued = true;
		}
		sleep_ms(delay);
		delay = delay < 500 ? delay * 2 : 500;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

int srun_alloc_create(const struct drv_conf *conf, const struct srun_opts *o,
		      const char *name, bool salloc, struct srun_alloc *a)
{
	struct job_origin org;
	struct job_script none = {.default_name = name};
	json_t *body = NULL;
	memset(a, 0, sizeof(*a));
	if (job_origin_get(&org) < 0)
		return 1;
	int rc = job_body_build(&o->job, &none, &org, NULL, 0, &body);
	if (rc)
		return rc < 0 ? 1 : rc;
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	rc = cli_call(conf, "job.submit", body, &reply, &err);
	if (rc != 0) {
		const char *why =
		    err.text[0] ? err.text
		    : rc > 0	? drv_rc_text(rc)
				: "Unable to contact slurm controller (connect failure)";
		const char *nl = strrchr(why, '\n');
		if (nl) {
			cli_error("%.*s", (int)(nl - why), why);
			why = nl + 1;
		}
		cli_error("Unable to allocate resources: %s", why);
		return 1;
	}
	a->job_id = (uint32_t)cli_json_int(reply, "job_id", 0);
	json_decref(reply);
	if (wait_running(conf, a, salloc, o->immediate) != 0)
		return 1;
	if (salloc)
		fprintf(stderr, "salloc: Granted job allocation %u\n", a->job_id);
	return 0;
}

void srun_alloc_release(const struct drv_conf *conf, struct srun_alloc *a, int exit_code)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	json_t *body = json_pack("{s:I,s:i}", "job_id", (json_int_t)a->job_id,
				 "exit_code", exit_code & 0xff);
	if (cli_call(conf, "alloc.complete", body, &reply, &err) == 0)
		json_decref(reply);
	json_decref(a->job);
	a->job = NULL;
}

static void set_from(const json_t *job, const char *key, const char *name)
{
	json_t *v = json_object_get(job, key);
	char buf[32];
	if (json_is_string(v))
		setenv(name, json_string_value(v), 1);
	else if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		setenv(name, buf, 1);
	}
}

void srun_alloc_setenv(const struct drv_conf *conf, const json_t *job)
{
	static const char *const pairs[][2] = {
	    {"job_id", "SLURM_JOB_ID"},
	    {"job_id", "SLURM_JOBID"},
	    {"name", "SLURM_JOB_NAME"},
	    {"partition", "SLURM_JOB_PARTITION"},
	    {"nodelist", "SLURM_JOB_NODELIST"},
	    {"nodelist", "SLURM_NODELIST"},
	    {"num_nodes", "SLURM_JOB_NUM_NODES"},
	    {"num_nodes", "SLURM_NNODES"},
	    {"cpus_per_node", "SLURM_JOB_CPUS_PER_NODE"},
	    {"tasks_per_node", "SLURM_TASKS_PER_NODE"},
	    {"submit_host", "SLURM_SUBMIT_HOST"},
	    {"account", "SLURM_JOB_ACCOUNT"},
	    {"qos", "SLURM_JOB_QOS"},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		set_from(job, pairs[i][0], pairs[i][1]);
	if (!json_is_null(json_object_get(job, "cpus_per_task")))
		set_from(job, "cpus_per_task", "SLURM_CPUS_PER_TASK");
	if (!json_is_null(json_object_get(job, "ntasks_per_node")))
		set_from(job, "ntasks_per_node", "SLURM_NTASKS_PER_NODE");
	setenv("SLURM_CLUSTER_NAME", conf->cluster_name, 1);
	char cwd[4096];
	if (getcwd(cwd, sizeof(cwd)))
		setenv("SLURM_SUBMIT_DIR", cwd, 1);
}
