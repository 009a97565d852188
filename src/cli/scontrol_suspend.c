/* scontrol_suspend.c — `scontrol suspend|resume JOBID[,JOBID...] ...`, as
 * Slurm's scontrol_suspend: an optional "jobid=" or "job=" prefix, ids
 * separated by commas or blanks, one request per id, and for each refusal
 * "<error> for job <id>" on stderr (nothing with -Q) and exit 1. Who may do
 * it and what a job's state allows are ctld's to decide. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/scontrol.h"
#include "common/proto_gen.h"
#include "common/proto.h"

/* Slurm's _is_job_id, for the forms Drover takes: digits, with commas or
 * blanks between ids (array task ids, "N_T", are not taken: compat.md). */
static bool is_job_list(const char *text)
{
	bool digit = false;
	for (const char *p = text; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p != ',' && *p != ' ')
			return false;
	}
	return digit;
}

/* One job: 0, or 1 after Slurm's line. */
static int suspend_one(struct sctl *s, bool resume, const char *id_text)
{
	char *end;
	errno = 0;
	unsigned long long id = strtoull(id_text, &end, 10);
	int rc = DRV_RC_INVALID_JOB_ID;
	struct drv_error err = {{0}};
	if (!errno && !*end && id > 0 && id <= UINT32_MAX) {
		struct drv_job_suspend m = {.job_id = (uint32_t)id, .resume = resume};
		json_t *reply = NULL;
		rc =
		    sctl_call(s, "job.suspend", drv_job_suspend_encode(&m), &reply, &err);
		json_decref(reply);
		if (rc == -EINVAL && !err.text[0])
			return 1; /* the config's own message was printed */
	}
	if (rc == 0)
		return 0;
	if (!s->quiet)
		fprintf(stderr, "%s for job %s\n",
			rc > 0 ? drv_rc_text(rc) : sctl_failure_text(rc, &err), id_text);
	return 1;
}

/* One argument: "jobid=5,6", "7" ... */
static int suspend_arg(struct sctl *s, bool resume, const char *arg)
{
	if (!strncasecmp(arg, "jobid=", 6))
		arg += 6;
	if (!strncasecmp(arg, "job=", 4))
		arg += 4;
	if (!is_job_list(arg)) {
		if (!s->quiet)
			fprintf(stderr, "%s for job %s\n",
				drv_rc_text(DRV_RC_INVALID_JOB_ID), arg);
		return 1;
	}
	char *copy = strdup(arg), *save = NULL;
	if (!copy)
		return 1;
	int failed = 0;
	for (char *tok = strtok_r(copy, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save))
		failed |= suspend_one(s, resume, tok);
	free(copy);
	return failed;
}

int sctl_suspend(struct sctl *s, int argc, char **argv)
{
	if (argc < 2) {
		if (!s->quiet)
			fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return 1;
	}
	bool resume = argv[0][0] == 'r' || argv[0][0] == 'R';
	int failed = 0;
	for (int i = 1; i < argc; i++)
		failed |= suspend_arg(s, resume, argv[i]);
	return failed;
}
