/* squeue_opts.c — squeue's command line and SQUEUE_* variables. Order as in
 * Slurm: SQUEUE_ALL, SQUEUE_ARRAY and SQUEUE_SORT first (options override
 * them), then the options, then SQUEUE_FORMAT (or SQUEUE_FORMAT2) unless an
 * option chose the format (-o, -O, -l), then SQUEUE_ACCOUNT, _NAMES,
 * _PARTITION, _STATES and _USERS for filters the command line left unset. */
#include "cli/squeue_opts.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/state.h"

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_ME, OPT_JSON, OPT_IGNORE, OPT_START };

static const struct option long_opts[] = {
    /** print no header line */
    {"noheader", no_argument, 0, 'h'},
    /** <[ids]> only these jobs (all with no list) */
    {"jobs", optional_argument, 0, 'j'},
    /** <[ids]> the same as --jobs */
    {"job", optional_argument, 0, 'j'},
    /** <names> only the jobs of these users */
    {"user", required_argument, 0, 'u'},
    /** <names> the same as --user */
    {"users", required_argument, 0, 'u'},
    /** <states> only jobs in these states: PD, R, CG, ... or all */
    {"states", required_argument, 0, 't'},
    /** <states> the same as --states */
    {"state", required_argument, 0, 't'},
    /** <format> the columns, as %i %P %j %u %t %M %D %R and the rest of Slurm's % fields
     */
    {"format", required_argument, 0, 'o'},
    /** <fields> the columns by name: JobID,Partition,Name,UserName,... */
    {"Format", required_argument, 0, 'O'},
    /** <names> only jobs in these partitions */
    {"partition", required_argument, 0, 'p'},
    /** <names> the same as --partition */
    {"partitions", required_argument, 0, 'p'},
    /** <names> only jobs with these names */
    {"name", required_argument, 0, 'n'},
    /** the long format (adds the time limit, the full state) */
    {"long", no_argument, 0, 'l'},
    /** jobs in hidden partitions too */
    {"all", no_argument, 0, 'a'},
    /** one line per array task, pending ones too */
    {"array", no_argument, 0, 'r'},
    /** only your own jobs */
    {"me", no_argument, 0, OPT_ME},
    /** pending jobs' expected start times and nodes (the backfill plan) */
    {"start", no_argument, 0, OPT_START},
    /** print the jobs as Slurm's JSON */
    {"json", no_argument, 0, OPT_JSON},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {"version", no_argument, 0, 'V'},
    /** say more about what squeue does */
    {"verbose", no_argument, 0, 'v'},
    /** <names> only jobs charged to these accounts */
    {"account", required_argument, 0, 'A'},
    /** <names> the same as --account */
    {"accounts", required_argument, 0, 'A'},
    /** <names> only jobs with these QOS */
    {"qos", required_argument, 0, 'q'},
    /** <hosts> only jobs on these nodes */
    {"nodelist", required_argument, 0, 'w'},
    /** <name> only jobs in this reservation (Drover has none: matches none) */
    {"reservation", required_argument, 0, 'R'},
    /** <names> only jobs using these licenses */
    {"licenses", required_argument, 0, 'L'},
    /** <names> the cluster to ask; Drover serves one */
    {"clusters", required_argument, 0, 'M'},
    /** <names> the same as --clusters */
    {"cluster", required_argument, 0, 'M'},
    /** <fields> sort by these fields, - for descending */
    {"sort", required_argument, 0, 'S'},
    /** <[steps]> list steps instead of jobs */
    {"steps", optional_argument, 0, 's'},
    /** <[steps]> list steps instead of jobs, these only when given */
    {"step", optional_argument, 0, 's'},
    {"local", no_argument, 0, OPT_IGNORE},
    {"federation", no_argument, 0, OPT_IGNORE},
    {"hide", no_argument, 0, OPT_IGNORE},
    {"sibling", no_argument, 0, OPT_IGNORE},
    {"noconvert", no_argument, 0, OPT_IGNORE},
    {0, 0, 0, 0},
};

/* squeue's list of job states in its error message (Slurm's own order). */
static const char state_names[] =
    "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,"
    "PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,"
    "RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,"
    "SPECIAL_EXIT,STAGE_OUT,STOPPED";

static void usage(void)
{
	printf(
	    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
	    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
	    "              [--reservation reservation] [--sort fields] [--start]\n"
	    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
	    "              [-L licenses] [-w nodes] [--federation] [--local] "
	    "[--sibling]\n"
	    "\t      [-ahjlrsv]\n");
}

/* Splits a comma list into a JSON array of strings (a new reference). */
static json_t *str_list(const char *s)
{
	json_t *a = json_array();
	char *copy = strdup(s), *save = NULL;

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_string(t));
	free(copy);
	return a;
}

static void set_list(json_t **slot, json_t *list)
{
	json_decref(*slot);
	*slot = list;
}

/* As Slurm: each entry is read with strtol ("12abc" is 12); "N_M" names
 * task M of array N; an id below 1 is refused. */
static int parse_jobs(const char *s, struct sq_opts *o)
{
	json_t *names = str_list(s), *v;
	size_t i;

	set_list(&o->query_ids, json_array());
	set_list(&o->job_ids, json_array());
	o->job_args = 0;
	json_array_foreach(names, i, v)
	{
		const char *t = json_string_value(v);
		char *end = NULL;
		long long id = strtoll(t, &end, 10);

		if (id <= 0 || id > UINT32_MAX) {
			cli_error("Invalid job id: %s", t);
			json_decref(names);
			return -EINVAL;
		}
		o->job_args++;
		json_array_append_new(o->query_ids, json_integer(id));
		if (*end != '_') {
			json_array_append_new(o->job_ids, json_integer(id));
		} else { /* "N_T": task T of array N */
			long long task = strtoll(end + 1, NULL, 10);
			if (!o->tasks)
				o->tasks = json_array();
			json_array_append_new(o->tasks, json_pack("[I,I]", id, task));
		}
	}
	json_decref(names);
	return 0;
}

/* -s LIST: "ID.STEP" or "ID_TASK.STEP" each, read with strtol as Slurm
 * does ("ID.batch" is step 0); an entry without a step is refused. */
static int parse_steps(const char *s, struct sq_opts *o)
{
	json_t *names = str_list(s), *v;
	size_t i;

	set_list(&o->steps, json_array());
	json_array_foreach(names, i, v)
	{
		const char *t = json_string_value(v);
		char *end = NULL;
		long long id = strtoll(t, &end, 10), task = -1;

		if (*end == '_')
			task = strtoll(end + 1, &end, 10);
		if (*end != '.') {
			cli_error("Invalid job_step id: %s.??", t);
			json_decref(names);
			return -EINVAL;
		}
		json_array_append_new(
		    o->steps, json_pack("[I,I,I]", id, task, strtoll(end + 1, NULL, 10)));
	}
	json_decref(names);
	return 0;
}

/* Unknown users are reported and skipped; squeue goes on (Slurm does). */
static void parse_users(const char *s, struct sq_opts *o)
{
	json_t *names = str_list(s), *v;
	size_t i;

	set_list(&o->users, json_array());
	json_array_foreach(names, i, v)
	{
		const char *n = json_string_value(v);
		const struct passwd *pw = getpwnam(n);
		char *end = NULL;
		unsigned long uid = strtoul(n, &end, 10);

		if (!pw && *n && !*end)
			pw = getpwuid((uid_t)uid);
		if (pw)
			json_array_append_new(o->users, json_string(pw->pw_name));
		else
			cli_error("Invalid user: %s\n", n);
	}
	json_decref(names);
}

static int parse_states(const char *s, struct sq_opts *o)
{
	json_t *names, *v;
	size_t i;

	set_list(&o->states, NULL);
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
			cli_error("Valid job states include: %s\n", state_names);
			json_decref(names);
			return -EINVAL;
		}
		json_array_append_new(o->states, json_string(st));
	}
	json_decref(names);
	return 0;
}

static void set_str(char **slot, const char *s)
{
	free(*slot);
	*slot = s ? strdup(s) : NULL;
}

static int set_format(struct sq_opts *o, int c, const char *arg)
{
	if (c == 'o' && o->format_long) {
		cli_error("-o (--format) is incompatible with -O (--Format)");
		return -EINVAL;
	}
	if (c == 'O' && o->format) {
		cli_error("-O (--Format) is incompatible with -o (--format)");
		return -EINVAL;
	}
	set_str(c == 'o' ? &o->format : &o->format_long, arg);
	return 0;
}

/* Handles one option; 1 = stop with exit 0 (help/version), <0 = error. */
static int one_opt(int c, const char *arg, struct sq_opts *o)
{
	char uid[32];

	switch (c) {
	case 'h':
		o->no_header = true;
		return 0;
	case 'j':
		o->job_flag = true;
		return arg ? parse_jobs(arg, o) : 0;
	case 's':
		o->step_flag = true;
		return arg ? parse_steps(arg, o) : 0;
	case 'u':
		parse_users(arg, o);
		return 0;
	case OPT_ME:
		snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
		parse_users(uid, o);
		return 0;
	case 't':
		return parse_states(arg, o);
	case 'o':
	case 'O':
		return set_format(o, c, arg);
	case 'l':
		o->long_list = true;
		return 0;
	case 'p':
		set_list(&o->partitions, str_list(arg));
		return 0;
	case 'n':
		set_list(&o->names, str_list(arg));
		return 0;
	case 'A':
		set_list(&o->accounts, str_list(arg));
		return 0;
	case 'q':
		set_list(&o->qos, str_list(arg));
		return 0;
	case 'w':
		set_str(&o->nodelist, arg);
		return 0;
	case 'R':
		o->match_none = true;
		return 0;
	case 'L':
		set_list(&o->licenses, str_list(arg));
		return 0;
	case 'r':
		o->array_flag = true;
		return 0;
	case 'S':
		set_str(&o->sort, arg);
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_START:
		o->start_flag = true;
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

/* The filters the command line left unset come from SQUEUE_*. */
static int env_filters(struct sq_opts *o)
{
	const char *v;

	if (!o->accounts && (v = getenv("SQUEUE_ACCOUNT")))
		o->accounts = str_list(v);
	if (!o->names && (v = getenv("SQUEUE_NAMES")))
		o->names = str_list(v);
	if (!o->qos && (v = getenv("SQUEUE_QOS")))
		o->qos = str_list(v);
	if (!o->licenses && (v = getenv("SQUEUE_LICENSES")))
		o->licenses = str_list(v);
	if (!o->partitions && (v = getenv("SQUEUE_PARTITION")))
		o->partitions = str_list(v);
	if (!o->states && !o->all_states && (v = getenv("SQUEUE_STATES")) &&
	    parse_states(v, o) < 0)
		return -EINVAL;
	if (!o->users && (v = getenv("SQUEUE_USERS")))
		parse_users(v, o);
	return 0;
}

static void env_first(struct sq_opts *o)
{
	const char *v;

	if (getenv("SQUEUE_ARRAY"))
		o->array_flag = true;
	if ((v = getenv("SQUEUE_SORT")))
		set_str(&o->sort, v);
}

static void env_format(struct sq_opts *o)
{
	const char *v;

	if (o->format || o->format_long || o->long_list)
		return;
	if ((v = getenv("SQUEUE_FORMAT")))
		set_str(&o->format, v);
	else if ((v = getenv("SQUEUE_FORMAT2")))
		set_str(&o->format_long, v);
}

/* --start: Slurm's expected-start listing of pending jobs, earliest first
 * (what -o, -S and -t give still wins). */
static int start_defaults(struct sq_opts *o)
{
	if (!o->format && !o->format_long && !o->long_list)
		set_str(&o->format, "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R");
	if (!o->sort)
		set_str(&o->sort, "S");
	if (!o->states && !o->all_states)
		return parse_states("PD", o);
	return 0;
}

int sq_opts_parse(int argc, char **argv, struct sq_opts *o)
{
	int c, rc;

	o->argc = argc;
	o->argv = argv;
	env_first(o);
	while ((c = getopt_long(argc, argv, "A:ahi:j::lL:M:n:O:o:p:q:R:rs::S:t:u:U:vVw:",
				long_opts, NULL)) != -1) {
		if ((rc = one_opt(c, optarg, o)) != 0)
			return rc;
	}
	if (o->long_list && o->format) {
		fprintf(stderr,
			"%s: fatal: Options -o(--format) and -l(--long) are mutually "
			"exclusive. Please remove one and retry.\n",
			cli_prog());
		return -EINVAL;
	}
	env_format(o);
	if (o->start_flag && !o->step_flag && (rc = start_defaults(o)) != 0)
		return rc;
	if (optind < argc && o->job_flag && (rc = parse_jobs(argv[optind++], o)) != 0)
		return rc;
	if (optind < argc && o->step_flag && !o->steps &&
	    (rc = parse_steps(argv[optind++], o)) != 0)
		return rc;
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage();
		return -EINVAL;
	}
	return env_filters(o);
}

void sq_opts_fini(struct sq_opts *o)
{
	free(o->format);
	free(o->format_long);
	free(o->sort);
	json_decref(o->query_ids);
	json_decref(o->job_ids);
	json_decref(o->tasks);
	json_decref(o->users);
	json_decref(o->states);
	json_decref(o->partitions);
	json_decref(o->names);
	json_decref(o->accounts);
	json_decref(o->qos);
	json_decref(o->licenses);
	json_decref(o->steps);
	free(o->nodelist);
}
