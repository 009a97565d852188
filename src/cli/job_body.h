/* job_body.h — the job.submit body built from sbatch's options: sbatch sends
 * it with its script, srun and salloc without one (an interactive
 * allocation). */
#ifndef DRV_CLI_JOB_BODY_H
#define DRV_CLI_JOB_BODY_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "cli/sbatch_opts.h"

struct job_script {
	char *text; /* NULL: an allocation without a script (srun, salloc) */
	size_t len;
	const char *default_name;
	const char *path; /* the script file as given; NULL for stdin and --wrap */
};

/* Where the command runs (who runs it is the credential's business). */
struct job_origin {
	char cwd[PATH_MAX];
	char host[256];
};

/* 0, or -errno after a message. */
int job_origin_get(struct job_origin *org);

/* Checks the values and builds the job.submit body into *out. Returns 0,
 * or the command's exit status after an error message: 255 for what
 * Slurm's option parser refuses, else 1 (or -ENOMEM). */
int job_body_build(const struct sbatch_opts *o, const struct job_script *s,
		   const struct job_origin *org, char **args, size_t nargs, json_t **out);

#endif
