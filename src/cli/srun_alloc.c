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

int srun_job_fetch(const struct drv_conf *conf, uint32_t job_id, struct srun_job *job)
{
	struct drv_error err = {{0}};
	struct drv_job_query q = {
	    .job_ids = &job_id, .n_job_ids = 1, .has_job_ids = true};
	*job = (struct srun_job){0};
	if (cli_call(conf, "job.query", drv_job_query_encode(&q), &job->reply, &err) !=
		0 ||
	    drv_job_query_reply_decode(job->reply, &job->q, &err) < 0)
		return -1;
	job->rec = job->q.n_jobs ? &job->q.jobs[0] : NULL;
	return 0;
}

void srun_job_fini(struct srun_job *job)
{
	drv_job_query_reply_free(&job->q);
	json_decref(job->reply);
	*job = (struct srun_job){0};
}

static void cancel_job(const struct drv_conf *conf, uint32_t job_id)
{
	struct drv_error err = {{0}};
	struct drv_job_cancel c = {.job_ids = &job_id, .n_job_ids = 1};
	json_t *reply = NULL;
	if (cli_call(conf, "job.cancel", drv_job_cancel_encode(&c), &reply, &err) == 0)
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
		struct srun_job job;
		if (srun_job_fetch(conf, a->job_id, &job) < 0) {
			srun_job_fini(&job);
			sleep_ms(500); /* ctld restarting: it still holds the job */
			continue;
		}
		const char *state = job.rec ? job.rec->state : NULL;
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
		srun_job_fini(&job);
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
		cli_error("Unable to allocate resources: %s", cli_refusal_lines(why));
		return 1;
	}
	struct drv_job_submit_reply r = {0};
	(void)drv_job_submit_reply_decode(reply, &r, &err); /* checked by cli_call */
	a->job_id = r.job_id;
	cli_print_lines(r.user_msg, false); /* the site's job_submit.lua, as info */
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
	struct drv_alloc_complete c = {.job_id = a->job_id,
				       .exit_code = exit_code & 0xff};
	json_t *reply = NULL;
	if (cli_call(conf, "alloc.complete", drv_alloc_complete_encode(&c), &reply,
		     &err) == 0)
		json_decref(reply);
	srun_job_fini(&a->job);
}

static void set_str(const char *name, const char *v)
{
	if (v)
		setenv(name, v, 1);
}

static void set_num(const char *name, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	setenv(name, buf, 1);
}

void srun_alloc_setenv(const struct drv_conf *conf, const struct drv_rec_job *job)
{
	set_num("SLURM_JOB_ID", job->job_id);
	set_num("SLURM_JOBID", job->job_id);
	set_str("SLURM_JOB_NAME", job->name);
	set_str("SLURM_JOB_PARTITION", job->partition);
	set_str("SLURM_JOB_NODELIST", job->nodelist);
	set_str("SLURM_NODELIST", job->nodelist);
	set_num("SLURM_JOB_NUM_NODES", job->num_nodes);
	set_num("SLURM_NNODES", job->num_nodes);
	set_str("SLURM_JOB_CPUS_PER_NODE", job->cpus_per_node);
	set_str("SLURM_TASKS_PER_NODE", job->tasks_per_node);
	set_str("SLURM_SUBMIT_HOST", job->submit_host);
	set_str("SLURM_JOB_ACCOUNT", job->account);
	set_str("SLURM_JOB_QOS", job->qos);
	if (job->has_cpus_per_task)
		set_num("SLURM_CPUS_PER_TASK", job->cpus_per_task);
	if (job->has_ntasks_per_node)
		set_num("SLURM_NTASKS_PER_NODE", job->ntasks_per_node);
	setenv("SLURM_CLUSTER_NAME", conf->cluster_name, 1);
	char cwd[4096];
	if (getcwd(cwd, sizeof(cwd)))
		setenv("SLURM_SUBMIT_DIR", cwd, 1);
}
