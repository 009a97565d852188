/* sstat.c — shows the usage of running job steps, as Slurm's sstat does.
 * The figures are what the steps' nodes sampled last (every
 * JobAcctGatherFrequency seconds), asked of ctld (step.stat), which asks
 * the nodes. -j JOB[.STEP][,...] (or the first argument) names
 * them; without a step the lowest numbered step that runs is shown, with
 * -a every running step (the batch step among them, as JOB.batch). -o
 * picks the fields, -i lists each node's processes instead, -n drops the
 * header, -p/-P delimit.
 *
 * As Slurm's sstat, a job that is not running or not known gets one error
 * line and the next job is looked at; the exit status stays 0. A job list
 * that is not one exits 1 before anything is asked. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/sstat.h"

#define STAT_FIELDS                                                                      \
	"jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,"       \
	"maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,"          \
	"mincpunode,mincputask,avecpu,ntasks,avecpufreq,reqcpufreqmin,reqcpufreqmax,"    \
	"reqcpufreqgov,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,"      \
	"avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,"       \
	"tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,"  \
	"tresusageinminn,tresusageinmint,tresusageintot,tresusageoutave,"                \
	"tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,tresusageoutmin,"             \
	"tresusageoutminn,tresusageoutmint,tresusageouttot"
#define STAT_FIELDS_PID "jobid,nodelist,pids"

#define STEP_ANY (-2)	/* no step named */
#define STEP_BATCH (-1) /* JOB.batch */
#define STEP_NONE (-3)	/* extern or interactive: Drover runs none */

struct sel {
	long long job_id, step_id;
	char text[64]; /* as given, for the messages */
};

struct opts {
	bool all, pids, header;
	enum cli_fields_mode mode;
	char *format; /* the -o and -i lists, joined (owned) */
	struct sel *sel;
	size_t n_sel;
};

static const struct option long_opts[] = {
    {"allsteps", no_argument, 0, 'a'},
    {"helpformat", no_argument, 0, 'e'},
    {"help", no_argument, 0, 'h'},
    {"jobs", required_argument, 0, 'j'},
    {"noheader", no_argument, 0, 'n'},
    {"fields", required_argument, 0, 'o'},
    {"format", required_argument, 0, 'o'},
    /** sizes as measured (Drover prints them so always) */
    {"noconvert", no_argument, 0, 'C'},
    {"pidformat", no_argument, 0, 'i'},
    {"parsable", no_argument, 0, 'p'},
    {"parsable2", no_argument, 0, 'P'},
    {"usage", no_argument, 0, 'U'},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {0, 0, 0, 0},
};

static void help(void)
{
	printf(
	    "sstat [<OPTION>] -j <job(.stepid)>\n"
	    "    Valid <OPTION> values are:\n"
	    "      -a, --allsteps:\n"
	    "                   Print all steps for the given job(s) when no step is\n"
	    "                   specified.\n"
	    "      -e, --helpformat:\n"
	    "                   Print a list of fields that can be specified with the\n"
	    "                   '--format' option\n"
	    "     -h, --help:   Print this description of use.\n"
	    "     -i, --pidformat:\n"
	    "                   Predefined format to list the pids running for each\n"
	    "                   job step.  (JobId,Nodes,Pids)\n"
	    "     -j, --jobs:\n"
	    "                   Format is <job(.step)>. Stat this job step\n"
	    "                   or comma-separated list of job steps. This option is\n"
	    "                   required.  The step portion will default to the lowest\n"
	    "                   numbered (not batch, extern, etc) step running if not\n"
	    "                   specified, unless the --allsteps flag is set where not\n"
	    "                   specifying a step will result in all running steps\n"
	    "                   to be displayed. A step id of 'batch' will display the\n"
	    "                   information about the batch step.\n"
	    "     -n, --noheader:\n"
	    "                   No header will be added to the beginning of output.\n"
	    "                   The default is to print a header.\n"
	    "     --noconvert:  Don't convert units from their original type\n"
	    "                   (e.g. 2048M won't be converted to 2G).\n"
	    "     -o, --format:\n"
	    "                   Comma separated list of fields. (use \"--helpformat\"\n"
	    "                   for a list of available fields).\n"
	    "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
	    "     -P, --parsable2: output will be '|' delimited without a '|' at the "
	    "end\n"
	    "     --usage:      Display brief usage message.\n"
	    "     -v, --verbose:\n"
	    "                   Primarily for debugging purposes, report the state of\n"
	    "                   various variables during processing.\n"
	    "     -V, --version: Print version.\n\n");
}

static void __attribute__((noreturn)) fatal(const char *what, const char *text)
{
	fprintf(stderr, "%s: fatal: %s: %s\n", cli_prog(), what, text);
	exit(1);
}

/* One JOB[.STEP] of a job list, as Slurm's slurm_parse_step_str reads it. */
static void add_sel(struct opts *o, const char *tok, size_t len)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 63 ? len : 63), tok);
	if (!isdigit((unsigned char)buf[0]))
		fatal("Bad job/step specified", buf);
	struct sel s = {.job_id = atoll(buf), .step_id = STEP_ANY};
	snprintf(s.text, sizeof(s.text), "%s", buf);
	char *dot = strchr(buf, '.');
	if (dot) {
		*dot++ = '\0';
		if (!strcmp(dot, "batch"))
			s.step_id = STEP_BATCH;
		else if (!strcmp(dot, "extern") || !strcmp(dot, "interactive"))
			s.step_id = STEP_NONE;
		else if (isdigit((unsigned char)*dot))
			s.step_id = atoll(dot);
		else
			fatal("Bad step specified", buf);
	}
	struct sel *v = realloc(o->sel, (o->n_sel + 1) * sizeof(*v));
	if (!v)
		abort();
	o->sel = v;
	o->sel[o->n_sel++] = s;
}

static void add_jobs(struct opts *o, const char *list)
{
	for (const char *s = list; *s;) {
		size_t len = strcspn(s, ",");
		if (len)
			add_sel(o, s, len);
		s += len + (s[len] == ',');
	}
}

static void add_format(struct opts *o, const char *list)
{
	size_t have = o->format ? strlen(o->format) : 0;
	char *f = realloc(o->format, have + strlen(list) + 2);
	if (!f)
		abort();
	snprintf(f + have, strlen(list) + 2, "%s%s", have ? "," : "", list);
	o->format = f;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;
	while ((c = getopt_long(argc, argv, "aehij:no:pPvV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all = true;
			break;
		case 'e':
			sstat_help_fields(stdout);
			exit(0);
		case 'h':
			help();
			exit(0);
		case 'U':
			printf("Usage: sstat [options] -j <job(.stepid)>\n"
			       "\tUse --help for help\n");
			exit(0);
		case 'i':
			o->pids = true;
			add_format(o, STAT_FIELDS_PID);
			break;
		case 'j':
			add_jobs(o, optarg);
			break;
		case 'n':
			o->header = false;
			break;
		case 'o':
			add_format(o, optarg);
			break;
		case 'p':
			o->mode = CLI_FIELDS_PARSABLE;
			break;
		case 'P':
			o->mode = CLI_FIELDS_PARSABLE2;
			break;
		case 'C':
		case 'v':
			break;
		case 'V':
			cli_print_version();
			exit(0);
		default: /* getopt has explained it */
			exit(1);
		}
	}
	if (optind < argc)
		add_jobs(o, argv[optind]);
}

/* "1,2,3" of a JSON array of pids (malloc'd). */
static char *pid_list(const json_t *pids)
{
	size_t i, n = json_array_size(pids);
	char *s = calloc(n * 12 + 1, 1);
	json_t *p;
	if (!s)
		abort();
	json_array_foreach(pids, i, p)
	{
		size_t l = strlen(s);
		snprintf(s + l, 13, "%s%lld", l ? "," : "",
			 (long long)json_integer_value(p));
	}
	return s;
}

static void print_row(const struct cli_fields *fl, const struct opts *o,
		      const struct sstat_row *r)
{
	const char *values[CLI_FIELDS_MAX];
	char bufs[CLI_FIELDS_MAX][256];
	for (size_t i = 0; i < fl->n; i++)
		values[i] = sstat_value(fl->def[i]->id, r, bufs[i], sizeof(bufs[i]));
	cli_fields_row(stdout, fl, o->mode, values);
}

/* One step of step.stat's reply: a row, or with -i one row per node. */
static void print_step(const struct cli_fields *fl, const struct opts *o,
		       long long job_id, json_t *js)
{
	struct drv_rec_stat_step st;
	struct drv_error err;
	if (drv_rec_stat_step_decode(js, &st, &err) < 0)
		return;
	struct sstat_row r = {.job_id = job_id,
			      .step_id = st.step_id,
			      .nodelist = st.nodelist,
			      .ntasks = st.ntasks,
			      .pids = ""};
	cli_usage_from_total(&st.usage, st.has_usage, &r.usage);
	json_t *nodes = json_object_get(js, "nodes"), *n;
	size_t i;
	char *all = calloc(1, 1);
	json_array_foreach(nodes, i, n)
	{
		char *p = pid_list(json_object_get(n, "pids"));
		if (o->pids) {
			r.nodelist = cli_json_str(n, "node", "");
			r.pids = p;
			print_row(fl, o, &r);
		} else if (all && *p) {
			char *more = malloc(strlen(all) + strlen(p) + 2);
			if (more)
				sprintf(more, "%s%s%s", all, *all ? "," : "", p);
			free(all);
			all = more;
		}
		free(p);
	}
	if (!o->pids) {
		r.pids = all ? all : "";
		print_row(fl, o, &r);
	}
	free(all);
	drv_shape_free(&drv_shape_rec_stat_step, &st);
}

/* Asks for one job (step) and prints what runs; errors as Slurm's. */
static void stat_one(const struct drv_conf *conf, const struct cli_fields *fl,
		     const struct opts *o, const struct sel *s)
{
	json_t *body = json_pack("{s:I}", "job_id", (json_int_t)s->job_id), *reply = NULL;
	if (s->step_id >= STEP_BATCH)
		json_object_set_new(body, "step_id", json_integer(s->step_id));
	struct drv_error err = {""};
	int rc = 0;
	if (s->step_id == STEP_NONE) /* Drover runs no extern or interactive step */
		json_decref(body);
	else if (s->job_id < 1 || s->job_id > 4294967294LL) { /* no such job id */
		json_decref(body);
		rc = 1;
	} else
		rc = cli_call(conf, "step.stat", body, &reply, &err);
	if (rc != 0) {
		cli_error("couldn't get steps for job %lld", s->job_id);
		return;
	}
	json_t *steps = json_object_get(reply, "steps"), *js;
	if (json_array_size(steps) == 0) {
		if (s->step_id == STEP_ANY)
			cli_error("No steps running for job %lld", s->job_id);
		else
			cli_error("StepId=%s not found running.", s->text);
	}
	size_t i;
	bool printed = false;
	json_array_foreach(steps, i, js)
	{
		bool batch = cli_json_int(js, "step_id", 0) < 0;
		/* no step named: the lowest numbered one, or with -a all */
		if (s->step_id == STEP_ANY && !o->all && (batch || printed))
			continue;
		print_step(fl, o, s->job_id, js);
		printed = true;
	}
	json_decref(reply);
}

int main(int argc, char **argv)
{
	cli_init("sstat");
	struct opts o = {.header = true, .mode = CLI_FIELDS_TABLE};
	parse_opts(argc, argv, &o);
	if (o.n_sel == 0) {
		cli_error("You didn't give me any jobs to stat.");
		return 1;
	}
	struct cli_fields fl = {0};
	char bad[128];
	if (cli_fields_parse(o.format ? o.format : STAT_FIELDS, sstat_fields, &fl, bad,
			     sizeof(bad)) < 0) {
		cli_error("Invalid field requested: \"%s\"", bad);
		return 1;
	}
	struct drv_conf *conf = NULL;
	if (cli_conf_load(&conf) < 0)
		return 1;
	if (o.header)
		cli_fields_header(stdout, &fl, o.mode);
	for (size_t i = 0; i < o.n_sel; i++)
		stat_one(conf, &fl, &o, &o.sel[i]);
	drv_conf_free(conf);
	free(o.sel);
	free(o.format);
	return 0;
}
