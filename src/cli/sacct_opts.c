/* sacct_opts.c — sacct's options, in the order and with the words of Slurm
 * 22.05's sacct: getopt's own messages for unknown options, "fatal" for a
 * bad job id or state (at once), "error" for a bad user, the field list
 * checked after all options, stray arguments after that. Options Slurm has
 * but Drover does not implement are left to getopt, so they are refused
 * with Slurm's wording rather than silently ignored. */
#include "cli/sacct_opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/sacct_time.h"
#include "cli/state.h"

#define DEFAULT_FIELDS "jobid,jobname,partition,account,alloccpus,state,exitcode"
#define BRIEF_FIELDS "jobid,state,exitcode"
#define LONG_FIELDS                                                                      \
	"jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,"        \
	"avevmsize,maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,"           \
	"maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,"    \
	"elapsed,state,exitcode,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,"   \
	"reqmem,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread," \
	"maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres," \
	"tresusageinave,tresusageinmax,tresusageinmaxnode,tresusageinmaxtask,"           \
	"tresusageinmin,tresusageinminnode,tresusageinmintask,tresusageintot,"           \
	"tresusageoutmax,tresusageoutmaxnode,tresusageoutmaxtask,tresusageoutave,"       \
	"tresusageouttot"

enum { OPT_DELIMITER = 0x100, OPT_NAME, OPT_JSON, OPT_USAGE, OPT_LOCAL };

static const struct option long_opts[] = {
    {"allusers", no_argument, 0, 'a'},
    {"accounts", required_argument, 0, 'A'},
    {"allocations", no_argument, 0, 'X'},
    {"brief", no_argument, 0, 'b'},
    {"delimiter", required_argument, 0, OPT_DELIMITER},
    {"duplicates", no_argument, 0, 'D'},
    /** accepted; Drover serves one cluster */
    {"federation", no_argument, 0, OPT_LOCAL},
    {"helpformat", no_argument, 0, 'e'},
    {"help-fields", no_argument, 0, 'e'},
    {"endtime", required_argument, 0, 'E'},
    {"gid", required_argument, 0, 'g'},
    {"group", required_argument, 0, 'g'},
    {"help", no_argument, 0, 'h'},
    {"json", no_argument, 0, OPT_JSON},
    {"local", no_argument, 0, OPT_LOCAL},
    {"name", required_argument, 0, OPT_NAME},
    {"jobs", required_argument, 0, 'j'},
    {"long", no_argument, 0, 'l'},
    {"allclusters", no_argument, 0, 'L'},
    {"cluster", required_argument, 0, 'M'},
    {"clusters", required_argument, 0, 'M'},
    {"noheader", no_argument, 0, 'n'},
    {"fields", required_argument, 0, 'o'},
    {"format", required_argument, 0, 'o'},
    /** fields separated by "|", with a trailing "|" */
    {"parsable", no_argument, 0, 'p'},
    /** fields separated by "|", none trailing */
    {"parsable2", no_argument, 0, 'P'},
    {"qos", required_argument, 0, 'q'},
    {"partition", required_argument, 0, 'r'},
    {"state", required_argument, 0, 's'},
    {"starttime", required_argument, 0, 'S'},
    {"uid", required_argument, 0, 'u'},
    {"user", required_argument, 0, 'u'},
    {"usage", no_argument, 0, OPT_USAGE},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {0, 0, 0, 0},
};

static void fatal(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: fatal: ", cli_prog());
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* Appends each non-empty entry of a comma list to *list (created on first
 * use), skipping duplicates as Slurm does. */
static void add_strings(json_t **list, const char *arg)
{
	if (!*list)
		*list = json_array();
	for (const char *p = arg; *p;) {
		size_t len = strcspn(p, ",");
		bool dup = false;
		size_t i;
		json_t *v;
		json_array_foreach(*list, i, v)
		{
			const char *s = json_string_value(v);
			dup |= strlen(s) == len && !strncasecmp(s, p, len);
		}
		if (len && !dup)
			json_array_append_new(*list, json_stringn(p, len));
		p += len + (p[len] == ',');
	}
}

/* Users or groups, by name or number; every one must exist. */
static int add_ids(json_t **list, const char *arg, bool group)
{
	json_t *names = NULL;
	size_t i;
	json_t *v;
	int rc = 0;
	add_strings(&names, arg);
	if (!*list)
		*list = json_array();
	json_array_foreach(names, i, v)
	{
		const char *n = json_string_value(v);
		int64_t id = -1, num;
		bool numeric = cli_parse_int(n, 0, UINT32_MAX, &num) == 0;
		if (group) {
			struct group *gr = numeric ? getgrgid((gid_t)num) : getgrnam(n);
			id = gr ? (int64_t)gr->gr_gid : -1;
		} else {
			struct passwd *pw = numeric ? getpwuid((uid_t)num) : getpwnam(n);
			id = pw ? (int64_t)pw->pw_uid : -1;
		}
		if (id < 0) {
			cli_error("Invalid %s id: %s", group ? "group" : "user", n);
			rc = -1;
			break;
		}
		json_array_append_new(*list, json_integer(id));
	}
	json_decref(names);
	return rc;
}

static int add_states(struct sacct_opts *o, const char *arg)
{
	json_t *names = NULL;
	size_t i;
	json_t *v;
	int rc = 0;
	add_strings(&names, arg);
	if (!o->states)
		o->states = json_array();
	json_array_foreach(names, i, v)
	{
		const char *st = cli_state_parse(json_string_value(v));
		if (!st) {
			fatal("unrecognized job state value '%s'", json_string_value(v));
			rc = -1;
			break;
		}
		json_array_append_new(o->states, json_string(st));
	}
	json_decref(names);
	return rc;
}

/* One -j entry: JOB[_TASK][+HET][.STEP]. */
static int parse_sel(const char *t, struct sacct_sel *s)
{
	char *end, num[32];
	*s = (struct sacct_sel){0, -1, -1, SACCT_STEP_WHOLE};
	if (!isdigit((unsigned char)*t)) {
		fatal("Bad job/step specified: %s", t);
		return -1;
	}
	s->job_id = strtoll(t, &end, 10);
	snprintf(num, sizeof(num), "%lld", (long long)s->job_id);
	if (*end == '_') {
		if (!isdigit((unsigned char)end[1])) {
			fatal("Bad job array element specified: %s", num);
			return -1;
		}
		s->task = strtoll(end + 1, &end, 10);
	}
	if (*end == '+')
		s->het = strtoll(end + 1, &end, 10);
	if (*end != '.')
		return 0;
	end++;
	if (!strncmp(end, "batch", 5))
		s->step = SACCT_STEP_BATCH;
	else if (!strncmp(end, "extern", 6))
		s->step = SACCT_STEP_EXTERN;
	else if (isdigit((unsigned char)*end))
		s->step = strtoll(end, NULL, 10);
	else {
		fatal("Bad step specified: %s", num);
		return -1;
	}
	return 0;
}

static int add_jobs(struct sacct_opts *o, const char *arg)
{
	json_t *items = NULL;
	size_t i;
	json_t *v;
	int rc = 0;
	add_strings(&items, arg);
	json_array_foreach(items, i, v)
	{
		struct sacct_sel s, *grown;
		if ((rc = parse_sel(json_string_value(v), &s)) < 0)
			break;
		grown = realloc(o->sel, (o->n_sel + 1) * sizeof(*grown));
		if (!grown)
			abort();
		o->sel = grown;
		o->sel[o->n_sel++] = s;
	}
	json_decref(items);
	return rc;
}

static int parse_when(const char *arg, time_t now, time_t *out)
{
	int pos = 0;
	if (sacct_time_parse(arg, now, out, &pos) < 0) {
		fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos, arg);
		return -1;
	}
	return 0;
}

static void add_fields(struct sacct_opts *o, const char *list)
{
	size_t old = o->field_list ? strlen(o->field_list) : 0;
	char *grown = realloc(o->field_list, old + strlen(list) + 2);
	if (!grown)
		abort();
	o->field_list = grown;
	sprintf(grown + old, "%s,", list);
}

/* An option that selects jobs; -1: error printed. */
static int filter_opt(int c, const char *arg, time_t now, struct sacct_opts *o)
{
	switch (c) {
	case 'A':
		add_strings(&o->accounts, arg);
		return 0;
	case 'E':
		return parse_when(arg, now, &o->end);
	case 'g':
		return add_ids(&o->gids, arg, true);
	case OPT_NAME:
		add_strings(&o->names, arg);
		return 0;
	case 'j':
		return add_jobs(o, arg);
	case 'M':
		o->all_clusters = !strcasecmp(arg, "all") || !strcmp(arg, "-1");
		if (!o->all_clusters)
			add_strings(&o->clusters, arg);
		return 0;
	case 'q':
		add_strings(&o->qos, arg);
		return 0;
	case 'r':
		add_strings(&o->partitions, arg);
		return 0;
	case 's':
		return add_states(o, arg);
	case 'S':
		return parse_when(arg, now, &o->start);
	case 'u':
		if (!strcmp(arg, "-1")) {
			o->all_users = true;
			return 0;
		}
		o->all_users = false;
		return add_ids(&o->uids, arg, false);
	default: /* '?': getopt has explained it */
		return -1;
	}
}

/* One option; 1: print the version and stop; -1: error printed. */
static int one_opt(int c, const char *arg, time_t now, struct sacct_opts *o)
{
	switch (c) {
	case 'a':
		o->all_users = true;
		return 0;
	case 'b':
		o->brief = true;
		return 0;
	case OPT_DELIMITER:
		o->delim = arg;
		return 0;
	case 'D':
		o->duplicates = true;
		return 0;
	case 'e':
		o->help = SACCT_HELPFORMAT;
		return 0;
	case 'h':
		o->help = SACCT_HELP;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case 'l':
		o->long_fmt = true;
		return 0;
	case 'L':
		o->all_clusters = true;
		return 0;
	case 'n':
		o->header = false;
		return 0;
	case 'o':
		add_fields(o, arg);
		return 0;
	case 'p':
	case 'P':
		o->parsable = c == 'p' ? SACCT_PARSABLE : SACCT_PARSABLE_NO_END;
		return 0;
	case OPT_USAGE:
		o->help = SACCT_USAGE;
		return 0;
	case 'V':
		cli_print_version();
		return 1;
	case 'X':
		o->allocations = true;
		return 0;
	case 'v':
	case OPT_LOCAL:
		return 0; /* one cluster, no debug output: nothing to change */
	default:
		return filter_opt(c, arg, now, o);
	}
}

/* The columns: -o lists, then -b, then -l, else SACCT_FORMAT or the
 * default; then stray arguments. */
static int finish(int argc, char **argv, struct sacct_opts *o)
{
	const char *env = getenv("SACCT_FORMAT");
	char bad[256] = "";
	if (o->brief)
		add_fields(o, BRIEF_FIELDS);
	if (o->long_fmt)
		add_fields(o, LONG_FIELDS);
	if (!o->field_list)
		add_fields(o, env ? env : DEFAULT_FIELDS);
	if (sacct_format_parse(o->field_list, &o->fmt, bad, sizeof(bad)) < 0) {
		cli_error("Invalid field requested: \"%s\"", bad);
		return -1;
	}
	o->fmt.parsable = o->parsable;
	o->fmt.delim = o->delim;
	o->fmt.header = o->header;
	if (optind < argc) {
		cli_error("Unknown arguments:");
		for (int i = optind; i < argc; i++)
			cli_error(" %s", argv[i]);
		return -1;
	}
	return 0;
}

int sacct_opts_parse(int argc, char **argv, time_t now, struct sacct_opts *o)
{
	int c, rc;
	memset(o, 0, sizeof(*o));
	o->header = true;
	opterr = 1;
	optind = 0; /* GNU getopt: start afresh (a caller may parse twice) */
	while ((c = getopt_long(argc, argv, "aA:bDeE:g:hj:lLM:no:pPq:r:s:S:u:vVX",
				long_opts, NULL)) != -1)
		if ((rc = one_opt(c, optarg, now, o)) != 0)
			return rc;
	if (o->all_users) {
		json_decref(o->uids);
		o->uids = NULL;
	}
	return finish(argc, argv, o);
}

void sacct_opts_fini(struct sacct_opts *o)
{
	free(o->field_list);
	free(o->sel);
	json_decref(o->uids);
	json_decref(o->gids);
	json_decref(o->accounts);
	json_decref(o->names);
	json_decref(o->partitions);
	json_decref(o->qos);
	json_decref(o->clusters);
	json_decref(o->states);
	sacct_format_fini(&o->fmt);
}

json_t *sacct_sel_job_ids(const struct sacct_opts *o)
{
	json_t *ids;
	if (!o->n_sel)
		return NULL;
	ids = json_array();
	for (size_t i = 0; i < o->n_sel; i++)
		json_array_append_new(ids, json_integer(o->sel[i].job_id));
	return ids;
}
