/* squeue.c — lists jobs: asks ctld for the jobs that match the filters,
 * applies the same filters again locally (so the output is right whatever
 * ctld pre-filters), sorts them as Slurm does by default (partition, then
 * state, then priority high to low, then job id) and prints them with the
 * format of -o or Slurm's default. */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/squeue_format.h"
#include "cli/squeue_list.h"
#include "cli/state.h"
#include "common/proto.h"

#define SQ_LONG_FORMAT "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"

struct sq_opts {
	bool no_header, all_states, job_flag;
	const char *format, *format_long;
	json_t *job_ids;    /* [N] or NULL */
	json_t *users;	    /* [S] or NULL */
	json_t *states;	    /* [S] long names, or NULL */
	json_t *partitions; /* [S] or NULL */
	json_t *names;	    /* [S] or NULL */
};

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_ME, OPT_IGNORE };

static const struct option long_opts[] = {
    {"noheader", no_argument, 0, 'h'},
    {"jobs", optional_argument, 0, 'j'},
    {"job", optional_argument, 0, 'j'},
    {"user", required_argument, 0, 'u'},
    {"users", required_argument, 0, 'u'},
    {"states", required_argument, 0, 't'},
    {"state", required_argument, 0, 't'},
    {"format", required_argument, 0, 'o'},
    {"Format", required_argument, 0, 'O'},
    {"partition", required_argument, 0, 'p'},
    {"partitions", required_argument, 0, 'p'},
    {"name", required_argument, 0, 'n'},
    {"long", no_argument, 0, 'l'},
    {"all", no_argument, 0, 'a'},
    {"array", no_argument, 0, 'r'},
    {"me", no_argument, 0, OPT_ME},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {"version", no_argument, 0, 'V'},
    {"verbose", no_argument, 0, 'v'},
    {"account", required_argument, 0, 'A'},
    {"qos", required_argument, 0, 'q'},
    {"clusters", required_argument, 0, 'M'},
    {"sort", required_argument, 0, 'S'},
    {"local", no_argument, 0, OPT_IGNORE},
    {"federation", no_argument, 0, OPT_IGNORE},
    {"hide", no_argument, 0, OPT_IGNORE},
    {"sibling", no_argument, 0, OPT_IGNORE},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf(
	    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
	    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
	    "              [--reservation reservation] [--sort fields] [--start]\n"
	    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
	    "              [-L licenses] [-w nodes] [--federation] [--local]\n"
	    "              [--sibling] [-ahjlrsv]\n");
}

/* Splits a comma list into a JSON array of strings (a new reference). */
static json_t *str_list(const char *s)
{
	json_t *a = json_array();
	char *copy = strdup(s), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_string(t));
	free(copy);
	return a;
}

static int parse_jobs(const char *s, struct sq_opts *o)
{
	json_t *names = str_list(s), *v;
	size_t i;
	int64_t id;

	json_decref(o->job_ids);
	o->job_ids = json_array();
	json_array_foreach(names, i, v)
	{
		if (cli_parse_int(json_string_value(v), 1, INT64_MAX, &id) < 0) {
			cli_error("Invalid job id: %s", json_string_value(v));
			json_decref(names);
			return -EINVAL;
		}
		json_array_append_new(o->job_ids, json_integer(id));
	}
	json_decref(names);
	return 0;
}

static int parse_users(const char *s, struct sq_opts *o)
{
	json_t *names = str_list(s), *v;
	size_t i;
	int64_t uid;

	json_decref(o->users);
	o->users = json_array();
	json_array_foreach(names, i, v)
	{
		const char *n = json_string_value(v);
		struct passwd *pw = NULL;

		if (cli_parse_int(n, 0, UINT32_MAX, &uid) == 0)
			pw = getpwuid((uid_t)uid);
		else
			pw = getpwnam(n);
		if (!pw) {
			cli_error("Invalid user: %s", n);
			json_decref(names);
			return -EINVAL;
		}
		json_array_append_new(o->users, json_string(pw->pw_name));
	}
	json_decref(names);
	return 0;
}

static int parse_states(const char *s, struct sq_opts *o)
{
	json_t *names, *v;
	size_t i;

	json_decref(o->states);
	o->states = NULL;
	o->all_states = !strcasecmp(s, "all");
	if (o->all_states)
		return 0;
	names = str_list(s);
	o->states = json_array();
	json_array_foreach(names, i, v)
	{
		const char *st = cli_state_parse(json_string_value(v));
		if (!st) {
			cli_error("Invalid job state specified: %s",
				  json_string_value(v));
			cli_error("Valid job states include: %s", cli_state_all_names());
			json_decref(names);
			return -EINVAL;
		}
		json_array_append_new(o->states, json_string(st));
	}
	json_decref(names);
	return 0;
}

/* Handles one option; 1 = stop with exit 0 (help/version), <0 = error. */
static int one_opt(int c, const char *arg, struct sq_opts *o)
{
	switch (c) {
	case 'h':
		o->no_header = true;
		return 0;
	case 'j':
		o->job_flag = true;
		return arg ? parse_jobs(arg, o) : 0;
	case 'u':
		return parse_users(arg, o);
	case OPT_ME: {
		char uid[32];
		snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
		return parse_users(uid, o);
	}
	case 't':
		return parse_states(arg, o);
	case 'o':
		o->format = arg;
		return 0;
	case 'O':
		o->format_long = arg;
		return 0;
	case 'l':
		o->format = SQ_LONG_FORMAT;
		return 0;
	case 'p':
		json_decref(o->partitions);
		o->partitions = str_list(arg);
		return 0;
	case 'n':
		json_decref(o->names);
		o->names = str_list(arg);
		return 0;
	case OPT_HELP:
	case OPT_USAGE:
		usage();
		return 1;
	case 'V':
		cli_print_version();
		return 1;
	case '?':
		cli_try_help();
		return -EINVAL;
	default:
		return 0; /* accepted, no effect in Drover */
	}
}

static int parse_opts(int argc, char **argv, struct sq_opts *o)
{
	int c, rc;

	while ((c = getopt_long(argc, argv, "A:ahj::ln:M:O:o:p:q:rS:t:u:vV", long_opts,
				NULL)) != -1) {
		if ((rc = one_opt(c, optarg, o)) != 0)
			return rc;
	}
	if (optind < argc && o->job_flag && !o->job_ids) {
		if ((rc = parse_jobs(argv[optind++], o)) != 0)
			return rc;
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage();
		return -EINVAL;
	}
	return 0;
}

/* The record fields each format letter prints (the read path carries only
 * what is printed: a listing of 20,000 jobs stays small). */
static const struct {
	char letter;
	const char *fields;
} letter_fields[] = {
    {'a', "account"},
    {'b', "gres"},
    {'c', "cpus_per_task,ntasks_per_node"},
    {'E', "dependency"},
    {'h', "exclusive"},
    {'m', "min_memory,mem_per_cpu"},
    {'B', "batch_host"},
    {'C', "cpus"},
    {'D', "num_nodes"},
    {'e', "start_time,end_time,time_limit"},
    {'G', "gid"},
    {'k', "comment"},
    {'l', "time_limit"},
    {'L', "start_time,time_limit"},
    {'M', "start_time,end_time"},
    {'N', "nodelist"},
    {'o', "command"},
    {'q', "qos"},
    {'r', "reason,hold"},
    {'R', "reason,hold,nodelist"},
    {'S', "start_time"},
    {'U', "uid"},
    {'V', "submit_time"},
    {'y', "nice"},
    {'Z', "workdir"},
};

static void append_names(json_t *a, const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		json_array_append_new(a, json_stringn(p, len));
		p += len + (p[len] == ',');
	}
}

/* Sorting and filtering need job_id, state, partition, name, user, priority. */
static json_t *fields_for(const char *spec)
{
	json_t *a = json_array();
	append_names(a, "job_id,state,partition,name,user,priority");
	for (const char *p = spec; p && (p = strchr(p, '%')) != NULL;) {
		p += 1 + strspn(p + 1, ".-0123456789");
		if (!*p)
			break;
		for (size_t i = 0; i < sizeof(letter_fields) / sizeof(letter_fields[0]);
		     i++)
			if (letter_fields[i].letter == *p)
				append_names(a, letter_fields[i].fields);
		p++;
	}
	return a;
}

static json_t *query_body(const struct sq_opts *o, const char *spec)
{
	json_t *body = json_object();

	json_object_set_new(body, "fields", fields_for(spec));

	if (o->job_ids)
		json_object_set(body, "job_ids", o->job_ids);
	if (o->users)
		json_object_set(body, "users", o->users);
	if (o->states)
		json_object_set(body, "states", o->states);
	/* With ids, ask for finished jobs too: they are known, only hidden. */
	if (o->all_states || o->job_ids)
		json_object_set_new(body, "all_states", json_true());
	else if (!o->states) /* the default listing: finished jobs stay in ctld */
		json_object_set_new(body, "active", json_true());
	return body;
}

static void bad_letter(char c, void *arg)
{
	cli_error("Invalid job format specification: %c", c);
}

/* The format squeue prints with, as a new string, or NULL after a message. */
static char *pick_format(const struct sq_opts *o)
{
	const char *env = getenv("SQUEUE_FORMAT");
	char bad[64] = "";
	char *f;

	if (o->format_long) {
		f = sq_format_from_long(o->format_long, bad, sizeof(bad));
		if (!f)
			cli_error("Invalid job format specification: %s", bad);
		return f;
	}
	return strdup(o->format ? o->format : env && *env ? env : SQ_DEFAULT_FORMAT);
}

static int print_jobs(const struct sq_opts *o, const json_t *reply, const char *spec)
{
	struct sq_filter filt = {o->job_ids,	o->users, o->states,
				 o->partitions, o->names, o->all_states};
	size_t n = 0, i, known = 0;
	struct cli_job *all = NULL;
	size_t total = cli_jobs_from_reply(reply, &all);
	struct cli_job *jobs = all;
	struct sq_format fmt;
	int64_t now = cli_json_int(reply, "now", (int64_t)time(NULL));

	if (!jobs || sq_format_parse(spec, &fmt, bad_letter, NULL) < 0) {
		free(jobs);
		return 1;
	}
	for (i = 0; i < total; i++) { /* keep the matching ones, in place */
		if (o->job_ids && sq_filter_has_id(&filt, all[i].job_id))
			known++;
		if (sq_job_matches(&filt, &all[i]))
			jobs[n++] = all[i];
	}
	if (o->job_ids && known == 0) {
		fprintf(stderr, "slurm_load_jobs error: %s\n",
			drv_rc_text(DRV_RC_INVALID_JOB_ID));
	} else {
		sq_sort(jobs, n);
		if (!o->no_header)
			sq_print_header(&fmt, stdout);
		for (i = 0; i < n; i++)
			sq_print_job(&fmt, &jobs[i], now, stdout);
	}
	sq_format_fini(&fmt);
	free(jobs);
	return o->job_ids && known == 0 ? 1 : 0;
}

static int query(const struct sq_opts *o)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	int rc;

	char *spec = pick_format(o);
	if (!spec || cli_conf_load(&conf) < 0) {
		free(spec);
		return 1;
	}
	rc = cli_call(conf, "job.query", query_body(o, spec), &reply, &err);
	drv_conf_free(conf);
	if (rc != 0) {
		const char *why =
		    err.text[0] ? err.text
		    : rc > 0	? drv_rc_text(rc)
				: "Unable to contact slurm controller (connect failure)";
		fprintf(stderr, "slurm_load_jobs error: %s\n", why);
		free(spec);
		return 1;
	}
	rc = print_jobs(o, reply, spec);
	json_decref(reply);
	free(spec);
	return rc;
}

static void opts_fini(struct sq_opts *o)
{
	json_decref(o->job_ids);
	json_decref(o->users);
	json_decref(o->states);
	json_decref(o->partitions);
	json_decref(o->names);
}

int main(int argc, char **argv)
{
	struct sq_opts o = {0};
	int rc;

	cli_init("squeue");
	argv[0] = (char *)"squeue";
	rc = parse_opts(argc, argv, &o);
	if (rc == 0)
		rc = query(&o);
	else
		rc = rc > 0 ? 0 : 1;
	opts_fini(&o);
	return rc;
}
