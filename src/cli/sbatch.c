/* sbatch.c — submits a batch script: reads the script (file, stdin or
 * --wrap), merges #SBATCH directives, SBATCH_* variables and the command
 * line (in that order of precedence, lowest first), sends job.submit and
 * prints "Submitted batch job N". Nothing goes to stderr on success. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/common.h"
#include "common/proto_gen.h"
#include "cli/job_body.h"
#include "cli/sacct_time.h"
#include "cli/sbatch_env.h"
#include "cli/sbatch_nodefile.h"
#include "cli/sbatch_opts.h"
#include "cli/sbatch_place.h"
#include "cli/sbatch_res.h"
#include "cli/sbatch_script.h"
#include "cli/sbatch_wait.h"
#include "cli/timeshow.h"
#include "common/proto.h"
#include "common/timefmt.h"

extern char **environ;

static int read_all(FILE *f, struct job_script *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 65536 + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	s->text = buf;
	s->len = len;
	return 0;
}

/* Loads the script from --wrap, the file at argv[idx], or stdin. */
static int load_script(const struct sbatch_opts *o, int argc, char **argv, int idx,
		       struct job_script *s)
{
	FILE *f;
	int rc;

	if (o->wrap) {
		if (idx < argc) {
			cli_error("Script arguments not permitted with --wrap option");
			return -EINVAL;
		}
		s->text = sbatch_script_wrap(o->wrap);
		s->len = s->text ? strlen(s->text) : 0;
		s->default_name = "wrap";
		return s->text ? 0 : -ENOMEM;
	}
	if (idx >= argc) {
		s->default_name = "sbatch";
		return read_all(stdin, s);
	}
	s->path = argv[idx];
	f = fopen(argv[idx], "r");
	if (!f) {
		cli_error("Unable to open file %s", argv[idx]);
		return -ENOENT;
	}
	rc = read_all(f, s);
	fclose(f);
	if (rc < 0)
		cli_error("Unable to read file %s", argv[idx]);
	const char *base = strrchr(argv[idx], '/');
	s->default_name = base ? base + 1 : argv[idx];
	return rc;
}

static int check_script(const struct job_script *s)
{
	if (s->len == 0) {
		cli_error("Batch script is empty!");
		return -EINVAL;
	}
	if (!sbatch_script_has_shebang(s->text, s->len)) {
		cli_error("This does not look like a batch script.  The first line must "
			  "start with #! followed by the path to an interpreter.");
		cli_error("For instance: #!/bin/sh");
		return -EINVAL;
	}
	if (memchr(s->text, '\0', s->len)) {
		cli_error(
		    "The SLURM controller does not allow scripts that contain a NULL "
		    "character '\\0'.");
		return -EINVAL;
	}
	if (strstr(s->text, "\r\n")) {
		cli_error("Batch script contains DOS line breaks (\\r\\n)");
		cli_error("instead of expected UNIX line breaks (\\n).");
		return -EINVAL;
	}
	return 0;
}

/* Directives first, then SBATCH_* variables, then the command line. The
 * option values point into the directive words, which are handed back in
 * words and nwords for the caller to free once the options are used. */
static int merge_options(const struct job_script *s, int argc, char **argv,
			 struct sbatch_opts *o, char ***wordsp, size_t *nwords)
{
	char **words = NULL, **dargv;
	size_t n = 0;
	int rc, didx = 0;

	if (sbatch_script_directives(s->text, s->len, &words, &n) < 0)
		return -ENOMEM;
	*wordsp = words;
	*nwords = n;
	dargv = calloc(n + 2, sizeof(*dargv));
	if (!dargv)
		return -ENOMEM;
	dargv[0] = argv[0];
	memcpy(dargv + 1, words, n * sizeof(*words));
	*o = (struct sbatch_opts){0};
	rc = sbatch_opts_parse((int)n + 1, dargv, o, &didx);
	if (rc == 0 && didx < (int)n + 1) {
		/* a word that is no option, as Slurm refuses it */
		cli_error("Invalid directive found in batch script: %s", dargv[didx]);
		rc = -EDOM;
	}
	free(dargv);
	if (rc < 0)
		return rc;
	sbatch_opts_from_env(o);
	return sbatch_opts_parse(argc, argv, o, NULL);
}

/* -M/--clusters: Drover runs one cluster, so the list must name it (or be
 * "all"); Slurm's messages for each name it does not know. Returns 0 when
 * the job can go to this cluster, else 1 after the messages. */
static int check_clusters(const struct sbatch_opts *o, const struct drv_conf *conf)
{
	char *copy, *save = NULL;
	bool found = false;

	if (!o->clusters)
		return 0;
	copy = strdup(o->clusters);
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(t, "all") || !strcmp(t, conf->cluster_name))
			found = true;
		else
			cli_error("No cluster '%s' known by database.", t);
	}
	if (!found && copy)
		cli_error("'%s' can't be reached now, or it is an invalid entry for "
			  "--cluster.  Use 'sacctmgr list clusters' to see available "
			  "clusters.",
			  o->clusters);
	free(copy);
	return found ? 0 : 1;
}

/* Slurm's messages for a refused submission. */
static void report_refusal(const struct sbatch_opts *o, int rc,
			   const struct drv_error *err)
{
	const char *why = err->text[0] ? err->text
			  : rc > 0
			      ? drv_rc_text(rc)
			      : "Unable to contact slurm controller (connect failure)";

	/* ctld names the unknown one of a list itself (below) */
	if (rc == DRV_RC_INVALID_PARTITION && o->partition && !strchr(why, '\n'))
		cli_error("invalid partition specified: %s", o->partition);
	/* ctld's "reason\nrc text": slurmctld's messages come first */
	cli_error("Batch job submission failed: %s", cli_refusal_lines(why));
}

/* --test-only's answer, as Slurm's sbatch prints it (to stderr). */
static void print_will_run(const struct drv_job_submit_reply *r)
{
	char when[64];
	cli_fmt_time((time_t)r->start_time, when, sizeof(when));
	fprintf(stderr,
		"sbatch: Job %u to start at %s using %u processors on nodes %s in "
		"partition %s\n",
		r->job_id, when, r->procs, r->nodes ? r->nodes : "",
		r->partition ? r->partition : "");
}

static int submit(const struct sbatch_opts *o, json_t *body)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	long long id;
	int rc;

	if (cli_conf_load(&conf) < 0) {
		json_decref(body);
		return 1;
	}
	if (check_clusters(o, conf) != 0) {
		json_decref(body);
		drv_conf_free(conf);
		return 1;
	}
	rc = cli_call(conf, "job.submit", body, &reply, &err);
	if (rc != 0 && o->test_only && rc > 0) { /* slurm_perror's form */
		fprintf(stderr, "allocation failure: %s\n",
			err.text[0] ? err.text : drv_rc_text(rc));
		drv_conf_free(conf);
		return 1;
	}
	if (rc != 0) {
		report_refusal(o, rc, &err);
		drv_conf_free(conf);
		return 1;
	}
	struct drv_job_submit_reply r = {0};
	(void)drv_job_submit_reply_decode(reply, &r, &err); /* checked by cli_call */
	id = (long long)r.job_id;
	/* the site's job_submit.lua, as info (which Slurm's -Q silences) */
	if (!o->quiet)
		cli_print_lines(r.user_msg, false);
	if (o->test_only) {
		if (!o->quiet)
			print_will_run(&r);
		json_decref(reply);
		drv_conf_free(conf);
		return 0;
	}
	json_decref(reply);
	/* With -M Slurm names the cluster that took the job. */
	if (o->quiet)
		; /* Slurm prints neither form */
	else if (o->parsable && o->clusters)
		printf("%lld;%s\n", id, conf->cluster_name);
	else if (o->parsable)
		printf("%lld\n", id);
	else if (o->clusters)
		printf("Submitted batch job %lld on cluster %s\n", id,
		       conf->cluster_name);
	else
		printf("Submitted batch job %lld\n", id);
	fflush(stdout);
	rc = o->wait ? sbatch_wait_job(conf, id) : 0;
	drv_conf_free(conf);
	return rc;
}

static int run(int argc, char **argv)
{
	struct sbatch_opts first = {0}, o;
	struct job_script s = {0};
	struct job_origin org;
	json_t *body = NULL;
	char **words = NULL;
	size_t nwords = 0;
	int idx = argc, rc;

	rc = sbatch_opts_parse(argc, argv, &first, &idx);
	if (rc < 0)
		return rc == -EDOM ? 255 : 1;
	if (first.help) {
		sbatch_usage();
		return 0;
	}
	if (first.version) {
		cli_print_version();
		return 0;
	}
	rc = 1;
	if (load_script(&first, argc, argv, idx, &s) == 0 && check_script(&s) == 0 &&
	    (rc = merge_options(&s, idx, argv, &o, &words, &nwords)) == 0 &&
	    (rc = job_origin_get(&org) == 0 ? 0 : 1) == 0) {
		if (idx < argc)
			idx++; /* the script's own arguments follow it */
		rc =
		    job_body_build(&o, &s, &org, argv + idx, (size_t)(argc - idx), &body);
		/* Slurm keeps -Q from the command line only: a directive's is lost
		 * in its second pass */
		o.quiet = first.quiet;
	}
	free(s.text);
	sbatch_words_free(words, nwords);
	if (rc < 0)
		rc = rc == -EDOM ? 255 : 1;
	return rc == 0 ? submit(&o, body) : rc;
}

int main(int argc, char **argv)
{
	cli_init("sbatch");
	argv[0] = (char *)"sbatch"; /* getopt's messages name the program */
	return run(argc, argv);
}
