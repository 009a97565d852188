/* job_body.c — the job.submit body from sbatch's options, shared by sbatch
 * (a batch script) and srun/salloc (an allocation with no script). */
#include "cli/job_body.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/sacct_time.h"
#include "cli/sbatch_env.h"
#include "cli/sbatch_nodefile.h"
#include "cli/sbatch_place.h"
#include "cli/sbatch_res.h"
#include "cli/sbatch_script.h"
#include "common/proto_gen.h"
#include "common/timefmt.h"

extern char **environ;

static char *absolute(const char *cwd, const char *path)
{
	char *out = NULL;

	if (path[0] == '/')
		return strdup(path);
	if (asprintf(&out, "%s/%s", cwd, path) < 0)
		return NULL;
	return out;
}

/* Sets job.submit's field i in body (v stolen). */
static void set_field(json_t *body, size_t i, json_t *v)
{
	json_object_set_new(body, drv_shape_job_submit.fields[i].name, v);
}

int job_origin_get(struct job_origin *org)
{
	if (!getcwd(org->cwd, sizeof(org->cwd))) {
		cli_error("Unable to determine current working directory");
		return -errno;
	}
	if (gethostname(org->host, sizeof(org->host)) != 0)
		snprintf(org->host, sizeof(org->host), "localhost");
	org->host[sizeof(org->host) - 1] = '\0';
	return 0;
}

/* Prints a resource error as sbatch does: most are "error:", a few are
 * "fatal:", and those slurmctld finds in Slurm read as a refused submit. */
static void report_res_error(const struct drv_error *err)
{
	if (!strncmp(err->text, "fatal: ", 7))
		fprintf(stderr, "%s: %s\n", cli_prog(), err->text);
	else if (!strncmp(err->text, "submit: ", 8))
		cli_error("Batch job submission failed: %s", err->text + 8);
	else
		cli_error("%s", err->text);
}

/* -w, -x, -C, --mincpus, --tmp, --signal, --time-min into body, a node file
 * (-F, or -w with a '/') read first. Returns 0, sbatch's exit status after
 * Slurm's message, or -ENOMEM. */
static int add_placement(const struct sbatch_opts *o, json_t *body)
{
	struct sbatch_opts po = *o;
	struct drv_error err = {{0}}, warn = {{0}};
	char *names = NULL;
	const char *file = o->nodefile				     ? o->nodefile
			   : o->nodelist && strchr(o->nodelist, '/') ? o->nodelist
								     : NULL;
	if (file) {
		int e = sbatch_nodefile_read(file, &names);
		if (e < 0) {
			cli_error("slurm_allocate_resources error opening file %s, %s",
				  file, strerror(-e));
			if (file != o->nodefile)
				return 1;
			cli_error("Invalid --nodefile node file");
			return 255;
		}
		po.nodelist = names;
	}
	int rc = sbatch_place_to_json(&po, body, &err, &warn);
	free(names);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		report_res_error(&err);
		return rc == -EDOM ? 255 : 1;
	}
	if (warn.text[0])
		fprintf(stderr, "%s: Warning: %s\n", cli_prog(), warn.text);
	return 0;
}

/* --begin and --deadline, read as Slurm's parse_time() looking ahead.
 * Returns 0, or -1 after Slurm's two messages. */
static int time_opt(const char *name, const char *value, int64_t *out)
{
	time_t when = 0;
	int pos = 0;

	if (cli_time_parse(value, time(NULL), false, &when, &pos) < 0) {
		fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos, value);
		cli_error("Invalid --%s specification", name);
		return -1;
	}
	*out = (int64_t)when;
	return 0;
}

/* The lifecycle options (--begin, --deadline, --kill-on-invalid-dep) into
 * body. Returns 0, or 255 after Slurm's message, as its option parser. */
static int lifecycle_opts(const struct sbatch_opts *o, json_t *body)
{
	int64_t begin = 0, deadline = 0;

	if (o->begin && time_opt("begin", o->begin, &begin) < 0)
		return 255;
	if (o->deadline && time_opt("deadline", o->deadline, &deadline) < 0)
		return 255;
	if (o->kill_invalid_dep && strcasecmp(o->kill_invalid_dep, "yes") &&
	    strcasecmp(o->kill_invalid_dep, "no")) {
		cli_error("Invalid --kill-on-invalid-dep specification");
		return 255;
	}
	if (begin > 0)
		set_field(body, DRV_JOB_SUBMIT__BEGIN, json_integer(begin));
	if (deadline > 0)
		set_field(body, DRV_JOB_SUBMIT__DEADLINE, json_integer(deadline));
	if (o->kill_invalid_dep)
		set_field(body, DRV_JOB_SUBMIT__KILL_INVALID_DEP,
			  json_boolean(!strcasecmp(o->kill_invalid_dep, "yes")));
	return 0;
}

/* The fields every job.submit body has, and those the options give as
 * they are. New reference, or NULL when out of memory. */
static json_t *base_body(const struct sbatch_opts *o, const struct job_script *s,
			 const struct job_origin *org, const char *workdir, char **env,
			 size_t nenv, char **args, size_t nargs)
{
	struct drv_job_submit q;
	char *cmd = s->path ? absolute(org->cwd, s->path) : NULL;

	drv_shape_init(&drv_shape_job_submit, &q);
	q.name = o->job_name ? o->job_name : s->default_name;
	q.workdir = workdir;
	q.submit_dir = org->cwd;
	q.env = (const char **)env;
	q.n_env = nenv;
	q.export = o->export_spec ? o->export_spec : "ALL";
	q.hold = o->hold;
	q.test_only = o->test_only;
	q.submit_host = org->host;
	q.argv = (const char **)args;
	q.n_argv = nargs;
	q.interactive = !s->text;
	q.requeue = o->requeue;
	q.has_requeue = o->requeue || o->no_requeue; /* absent: JobRequeue decides */
	q.partition = o->partition;
	q.stdout = o->output;
	q.stderr = o->error;
	q.comment = o->comment;
	/* scontrol's Command=, an absolute path as in Slurm */
	q.command = cmd ? cmd : s->path;
	json_t *body = drv_job_submit_encode(&q);
	free(cmd);
	return body;
}

int job_body_build(const struct sbatch_opts *o, const struct job_script *s,
		   const struct job_origin *org, char **args, size_t nargs, json_t **out)
{
	struct drv_error err = {{0}};
	struct sbatch_res res;
	int64_t limit = 0;
	char **env = NULL, *workdir;
	size_t nenv = 0;
	json_t *body;
	int rc = sbatch_res_from_opts(o, &res, &err);

	if (rc < 0) {
		report_res_error(&err);
		return rc == -EDOM ? 255 : 1;
	}
	if (o->time && drv_time_parse_limit(o->time, &limit) < 0) {
		cli_error("Invalid --time specification");
		return 255;
	}
	cli_set_prio_process_env();
	if (sbatch_env_build(o->export_spec, environ, &env, &nenv, &err) < 0) {
		cli_error("%s",
			  err.text[0] ? err.text : "Unable to build the job environment");
		return 1;
	}
	workdir = o->chdir ? absolute(org->cwd, o->chdir) : strdup(org->cwd);
	body = base_body(o, s, org, workdir ? workdir : org->cwd, env, nenv, args, nargs);
	free(workdir);
	sbatch_words_free(env, nenv);
	if (body && s->text) /* its length: a script may hold NUL bytes */
		set_field(body, DRV_JOB_SUBMIT__SCRIPT, json_stringn(s->text, s->len));
	if (body && o->time)
		set_field(body, DRV_JOB_SUBMIT__TIME_LIMIT, json_integer(limit));
	if (body && sbatch_res_to_json(&res, body) < 0) {
		json_decref(body);
		body = NULL;
	}
	if (body && (rc = add_placement(o, body)) != 0) {
		json_decref(body);
		if (rc > 0)
			return rc;
		body = NULL;
	}
	if (!body) {
		cli_error("Out of memory");
		return 1;
	}
	rc = lifecycle_opts(o, body);
	if (rc) {
		json_decref(body);
		return rc;
	}
	*out = body;
	return 0;
}
