/* scontrol_jobcmds.c — `scontrol wait_job JOBID`, `notify JOBID MSG` and
 * `write batch_script JOBID [FILE]`, with Slurm 22.05's messages, their
 * streams and its exit codes (some of which are 0 after an error, as
 * Slurm's are). listpids is scontrol_listpids.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/scontrol.h"
#include "common/proto.h"

/* Slurm's argument count messages; quiet silences them where Slurm's
 * quiet_flag does. Returns 1 when the count is wrong. */
static int arg_count(const struct sctl *s, int argc, int min, int max, const char *tag,
		     bool quiet_applies)
{
	const char *what = argc < min ? "few" : argc > max ? "many" : NULL;
	if (!what)
		return 0;
	if (!(quiet_applies && s->quiet))
		fprintf(stderr, "too %s arguments for keyword:%s\n", what, tag);
	return 1;
}

/* Slurm's wait_job waits for the nodes of a running job to boot; Drover's
 * nodes of a running job are up, so one look decides: running (or
 * suspended) is ready, any other state "no longer running" (also pending,
 * as Slurm answers it), and a job ctld does not hold a problem. */
int sctl_wait_job(struct sctl *s, int argc, char **argv)
{
	if (arg_count(s, argc, 2, 2, argv[0], true))
		return 1;
	long id = atol(argv[1]);
	if (id <= 0) {
		fprintf(stderr, "Invalid job_id %s", argv[1]); /* sic: no newline */
		return 1;
	}
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	struct cli_job *jobs = NULL;
	const char *state = NULL;
	size_t n = 0;
	if (sctl_call(s, "job.query", sctl_job_query_body(id), &reply, &err) == 0)
		n = cli_jobs_from_reply(reply, &jobs, NULL);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].job_id == id)
			state = jobs[i].state;
	int rc = 1;
	if (!state) {
		fprintf(stderr, "scontrol: Problem running job %ld\n", id);
	} else if (!strcmp(state, "RUNNING") || !strcmp(state, "SUSPENDED")) {
		fprintf(stderr, "scontrol: Nodes are ready for job %ld\n", id);
		rc = 0;
	} else {
		fprintf(stderr, "scontrol: Job %ld no longer running\n", id);
	}
	free(jobs);
	json_decref(reply);
	return rc;
}

/* notify JOBID WORD...: the words joined by spaces. */
int sctl_notify(struct sctl *s, int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return 1;
	}
	long id = atol(argv[1]);
	if (id <= 0) { /* Slurm then reports the errno it never set */
		fprintf(stderr, "Invalid job_id %sjob notify failure: No error\n",
			argv[1]);
		return 1;
	}
	size_t len = 1;
	for (int i = 2; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *msg = calloc(1, len);
	if (!msg)
		return 1;
	for (int i = 2; i < argc; i++) {
		if (i > 2)
			strcat(msg, " ");
		strcat(msg, argv[i]);
	}
	struct drv_job_notify m = {.job_id = (uint32_t)id, .message = msg};
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	int rc = sctl_call(s, "job.notify", drv_job_notify_encode(&m), &reply, &err);
	free(msg);
	json_decref(reply);
	if (rc == -EINVAL && !err.text[0])
		return 1; /* the config's own message was printed */
	if (rc != 0) {
		fprintf(stderr, "job notify failure: %s\n",
			rc > 0 ? drv_rc_text(rc) : sctl_failure_text(rc, &err));
		return 1;
	}
	return 0;
}

/* The job's script (new string) or NULL after Slurm's message. */
static char *fetch_script(struct sctl *s, long id)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	char *script = NULL;
	int rc = DRV_RC_INVALID_JOB_ID;
	if (id > 0 && id <= UINT32_MAX) {
		struct drv_job_script m = {.job_id = (uint32_t)id};
		rc = sctl_call(s, "job.script", drv_job_script_encode(&m), &reply, &err);
	}
	struct drv_job_script_reply r = {0};
	if (rc == 0 && drv_job_script_reply_decode(reply, &r, &err) == 0) {
		script = strdup(r.script);
		drv_job_script_reply_free(&r);
	} else if (!(rc == -EINVAL && !err.text[0])) {
		fprintf(stderr, "job script retrieval failed: %s\n",
			rc > 0 ? drv_rc_text(rc) : sctl_failure_text(rc, &err));
	}
	json_decref(reply);
	return script;
}

/* write batch_script JOBID [FILE]: to FILE (default slurm-JOBID.sh, "-"
 * stdout). Slurm exits 0 after each of its failures here; so do we. The
 * script is fetched before FILE is opened, so that a failure leaves an
 * existing FILE as it was (Slurm truncates it, then removes it). */
static int write_batch_script(struct sctl *s, int argc, char **argv)
{
	if (argc < 1)
		return 0;
	long id = atol(argv[0]);
	char *name = NULL;
	if (argc > 1 ? !(name = strdup(argv[1]))
		     : asprintf(&name, "slurm-%ld.sh", id) < 0)
		return 1;
	char *script = fetch_script(s, id);
	if (!script) {
		free(name);
		return 0;
	}
	if (!strcmp(name, "-")) {
		fputs(script, stdout);
	} else {
		FILE *out = fopen(name, "w");
		if (!out) {
			fprintf(stderr, "failed to open file `%s`: %s\n", name,
				strerror(errno));
		} else {
			fputs(script, out);
			if (fclose(out) != 0)
				fprintf(stderr, "failed to write file `%s`: %s\n", name,
					strerror(errno));
			else if (!s->quiet)
				printf("batch script for job %ld written to %s\n", id,
				       name);
		}
	}
	free(script);
	free(name);
	return 0;
}

int sctl_write(struct sctl *s, int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return 1;
	}
	size_t len = strlen(argv[1]);
	if (!strncasecmp(argv[1], "batch_script", len > 5 ? len : 5)) {
		if (argc > 4) {
			fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
			return 1;
		}
		return write_batch_script(s, argc - 2, argv + 2);
	}
	fprintf(stderr, "invalid write argument:%s\n", argv[1]);
	return 1;
}
