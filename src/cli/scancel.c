/* scancel.c — cancels jobs or sends them a signal: the ids given and/or
 * the jobs that match the filters (-u, -n, -t, -p, -A, -q, -w, -R,
 * --wckey, --me; found with one job.query), confirmed one by one with -i,
 * then one job.cancel for all of them and Slurm's message for each id ctld
 * refused. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pwd.h>
#include <strings.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/signame.h"
#include "cli/state.h"
#include "common/hostlist.h"
#include "common/proto.h"

struct sc_opts {
	int signal; /* 0: cancel */
	bool quiet, batch, full, verbose, interactive;
	json_t *ids;
	json_t *tasks; /* array tasks as given: "12_3", "12_[1-5]" */
	json_t *steps; /* steps as given: "12.0" */
	int unknown;   /* ids Drover cannot hold (steps) */
	/* filters: borrowed comma lists, NULL when not given */
	const char *user, *name, *state, *partition, *account, *qos, *nodes;
	const char *reservation, *wckey; /* no Drover job has one: match none */
	char me[32];
};

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_IGNORE, OPT_ME, OPT_WCKEY };

static const struct option long_opts[] = {
    /** <signal> send this signal (name or number) instead of cancelling */
    {"signal", required_argument, 0, 's'},
    /** print no message for jobs that have ended or do not exist */
    {"quiet", no_argument, 0, 'Q'},
    /** signal only the batch shell, not the steps */
    {"batch", no_argument, 0, 'b'},
    /** <user> only this user's jobs */
    {"user", required_argument, 0, 'u'},
    /** <name> only jobs with this name */
    {"name", required_argument, 0, 'n'},
    /** <name> the same as --name */
    {"jobname", required_argument, 0, 'n'},
    /** <state> only jobs in this state: PENDING, RUNNING, SUSPENDED */
    {"state", required_argument, 0, 't'},
    /** <name> only jobs in this partition */
    {"partition", required_argument, 0, 'p'},
    /** only your own jobs */
    {"me", no_argument, 0, OPT_ME},
    /** <account> only jobs charged to this account */
    {"account", required_argument, 0, 'A'},
    /** <qos> only jobs with this QOS */
    {"qos", required_argument, 0, 'q'},
    /** <name> only jobs in this reservation (Drover has none: matches none) */
    {"reservation", required_argument, 0, 'R'},
    /** <hosts> only jobs on these nodes */
    {"nodelist", required_argument, 0, 'w'},
    /** <wckey> only jobs with this wckey (Drover has none: matches none) */
    {"wckey", required_argument, 0, OPT_WCKEY},
    /** with --signal, signal the batch shell and its children too, not only the steps */
    {"full", no_argument, 0, 'f'},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {"version", no_argument, 0, 'V'},
    /** say more about what scancel does */
    {"verbose", no_argument, 0, 'v'},
    /** <names> the cluster to ask; Drover serves one */
    {"clusters", required_argument, 0, 'M'},
    /** <names> the same as --clusters */
    {"cluster", required_argument, 0, 'M'},
    /** do not wait for staged-out data (accepted) */
    {"hurry", no_argument, 0, 'H'},
    /** ask before cancelling each job */
    {"interactive", no_argument, 0, 'i'},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf("Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n "
	       "job_name]\n"
	       "               [-p partition] [--hurry] [-Q] [--qos qos] [--reservation "
	       "reservation]\n"
	       "               [-s signal | integer] [-t PENDING | RUNNING | SUSPENDED]\n"
	       "               [--usage] [-u user_name] [--verbose] [-w hostlist]\n"
	       "               [-M cluster_name] [job_id[_array_id][.step_id]]\n");
}

/* Checks -t: Slurm's scancel takes only these states. */
static int check_states(const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t && rc == 0;
	     t = strtok_r(NULL, ",", &save)) {
		const char *st = cli_state_parse(t);
		if (!st || (strcmp(st, "PENDING") && strcmp(st, "RUNNING") &&
			    strcmp(st, "SUSPENDED"))) {
			cli_error("Invalid job state specified: %s", t);
			cli_error("Valid job states are PENDING, RUNNING, and SUSPENDED");
			rc = -EINVAL;
		}
	}
	free(copy);
	return rc;
}

/* The filter options; 1 when c is not one of them. */
static int filter_opt(int c, const char *arg, struct sc_opts *o)
{
	switch (c) {
	case 'u':
		o->user = arg;
		return 0;
	case 'n':
		o->name = arg;
		return 0;
	case 't':
		o->state = arg;
		return check_states(arg);
	case 'p':
		o->partition = arg;
		return 0;
	case 'A':
		o->account = arg;
		return 0;
	case 'q':
		o->qos = arg;
		return 0;
	case 'w':
		o->nodes = arg;
		return 0;
	case 'R':
		o->reservation = arg;
		return 0;
	case OPT_WCKEY:
		o->wckey = arg;
		return 0;
	case OPT_ME:
		snprintf(o->me, sizeof(o->me), "%u", (unsigned)geteuid());
		o->user = o->me;
		return 0;
	default:
		return 1;
	}
}

/* 1: exit 0 now (help, version); <0: exit 1. */
static int parse_opts(int argc, char **argv, struct sc_opts *o)
{
	int c, rc;

	while ((c = getopt_long(argc, argv, "A:bfHiM:n:p:q:QR:s:t:u:vVw:", long_opts,
				NULL)) != -1) {
		if ((rc = filter_opt(c, optarg, o)) <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		switch (c) {
		case 's':
			o->signal = cli_signal_parse(optarg);
			if (o->signal < 0) {
				fprintf(stderr, "Unknown job signal: %s\n", optarg);
				return -EINVAL;
			}
			break;
		case 'Q':
			o->quiet = true;
			break;
		case 'b':
			o->batch = true;
			break;
		case 'f':
			o->full = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'i':
			o->interactive = true;
			break;
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
			break; /* accepted, no effect in Drover */
		}
	}
	return 0;
}

static bool has_filter(const struct sc_opts *o)
{
	return o->user || o->name || o->state || o->partition || o->account || o->qos ||
	       o->nodes || o->reservation || o->wckey;
}

/* A plain cancel (no signal, no --batch) passes over jobs that are unknown
 * or over, as Slurm's scancel does; anything else reports them. */
static bool plain(const struct sc_opts *o)
{
	return !o->signal && !o->batch;
}

/* An id that names no job Drover can hold: a step ("12.0"). */
static void unknown_id(struct sc_opts *o, const char *arg, bool step)
{
	bool silent = plain(o) && !step; /* a plain cancel passes over it */

	if (!o->quiet && (!silent || o->verbose))
		cli_error("Kill job error on job %sid %s: %s", step ? "step " : "", arg,
			  drv_rc_text(DRV_RC_INVALID_JOB_ID));
	if (!silent)
		o->unknown++;
}

static int parse_ids(int argc, char **argv, struct sc_opts *o)
{
	int64_t id, sub;
	char head[32];

	o->ids = json_array();
	o->tasks = json_array();
	o->steps = json_array();
	for (int i = optind; i < argc; i++) {
		size_t n = strcspn(argv[i], "_.");
		const char *sep = argv[i] + n;

		snprintf(head, sizeof(head), "%.*s", (int)(n < 31 ? n : 31), argv[i]);
		bool range = sep[0] == '_' && sep[1] == '[' && strchr(sep, ']');
		if (n >= sizeof(head) || cli_parse_int(head, 1, INT64_MAX, &id) < 0 ||
		    (*sep && !range && cli_parse_int(sep + 1, 0, INT64_MAX, &sub) < 0 &&
		     strcmp(sep, ".batch") && strcmp(sep, ".extern"))) {
			cli_error("Invalid job id %s", argv[i]);
			return -EINVAL;
		}
		if (*sep == '_')
			json_array_append_new(o->tasks, json_string(argv[i]));
		else if (*sep == '.' && isdigit((unsigned char)sep[1]))
			json_array_append_new(o->steps, json_string(argv[i]));
		else if (*sep)
			unknown_id(o, argv[i], true);
		else
			json_array_append_new(o->ids, json_integer(id));
	}
	if (json_array_size(o->ids) == 0 && json_array_size(o->tasks) == 0 &&
	    json_array_size(o->steps) == 0 && !o->unknown && !has_filter(o) &&
	    optind >= argc) {
		cli_error("No job identification provided");
		return -EINVAL;
	}
	return 0;
}

/* One result: prints Slurm's message; returns 1 when it fails the run. A
 * plain cancel of a job that is unknown or already over is no error (Slurm
 * passes over it silently); a signal to it is, with Slurm's text. */
/* A step: Slurm 22.05's scancel refuses a step of a job that is not active
 * (unknown or ended) itself, naming the step, exit 1 (silent with -Q);
 * slurmctld refuses a step a live job does not have, and scancel names the
 * job alone and exits with the code's low byte (2017: 225), -Q or not. */
static int report_step(const struct sc_opts *o, const struct drv_rec_result *res)
{
	if (res->rc == 0)
		return 0;
	if (res->rc == DRV_RC_INVALID_JOB_ID || res->rc == DRV_RC_ALREADY_DONE) {
		if (!o->quiet)
			cli_error("Kill job error on job step id %s: %s", res->id,
				  drv_rc_text(DRV_RC_INVALID_JOB_ID));
		return 1;
	}
	int code = res->rc == DRV_RC_INVALID_STEP ? DRV_RC_INVALID_JOB_ID : res->rc;
	cli_error("Kill job error on job step id %lld: %s", (long long)res->job_id,
		  drv_rc_text(code));
	return (code & 0xff) ? (code & 0xff) : 1;
}

static int report(const struct sc_opts *o, const struct drv_rec_result *res)
{
	if (res->id && strchr(res->id, '.'))
		return report_step(o, res);
	int rc = res->rc;
	const char *text = res->error;
	bool gone = rc == DRV_RC_ALREADY_DONE || rc == DRV_RC_INVALID_JOB_ID;

	if (rc == 0 || (gone && plain(o) && !o->verbose))
		return 0;
	if (gone)
		text = drv_rc_text(DRV_RC_INVALID_JOB_ID);
	const char *id = res->id;
	if (!o->quiet && id)
		cli_error("Kill job error on job %sid %s: %s",
			  strchr(id, '.') ? "step " : "", id,
			  text && *text ? text : drv_rc_text(rc));
	else if (!o->quiet)
		cli_error("Kill job error on job id %lld: %s", (long long)res->job_id,
			  text && *text ? text : drv_rc_text(rc));
	return gone && plain(o) ? 0 : 1;
}

static bool in_list(const char *list, const char *v)
{
	size_t len = strlen(v);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && !strncasecmp(p, v, len))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* -u's names or uids as user names (a new array), or NULL after a message. */
static json_t *user_names(const char *list)
{
	json_t *a = json_array();
	char *copy = strdup(list), *save = NULL;
	int64_t uid;

	for (char *t = strtok_r(copy, ",", &save); t && a;
	     t = strtok_r(NULL, ",", &save)) {
		struct passwd *pw = cli_parse_int(t, 0, UINT32_MAX, &uid) == 0
					? getpwuid((uid_t)uid)
					: getpwnam(t);
		if (!pw) {
			cli_error("Invalid user name: %s", t);
			json_decref(a);
			a = NULL;
		} else {
			json_array_append_new(a, json_string(pw->pw_name));
		}
	}
	free(copy);
	return a;
}

/* -w: the job holds at least one of the nodes named. */
static bool on_nodes(const char *wanted, const char *held)
{
	char **w = NULL, **h = NULL;
	size_t nw = 0, nh = 0;
	bool hit = false;

	if (!held || !*held || drv_hostlist_expand(wanted, &w, &nw, NULL) < 0)
		return false;
	if (drv_hostlist_expand(held, &h, &nh, NULL) == 0)
		for (size_t i = 0; i < nw && !hit; i++)
			for (size_t k = 0; k < nh && !hit; k++)
				hit = !strcmp(w[i], h[k]);
	drv_strv_free(w, nw);
	drv_strv_free(h, nh);
	return hit;
}

static bool selected(const struct sc_opts *o, const struct cli_job *j)
{
	size_t i;
	json_t *v;
	bool id_ok = json_array_size(o->ids) == 0;

	json_array_foreach(o->ids, i, v)
	{
		id_ok |= json_integer_value(v) == j->job_id;
	}
	if (!id_ok || !cli_state_is_active(j->state))
		return false;
	if (o->state && !in_list(o->state, j->state) &&
	    !in_list(o->state, cli_state_compact(j->state)))
		return false;
	if (o->reservation || o->wckey)
		return false;
	return (!o->name || in_list(o->name, j->name)) &&
	       (!o->partition || in_list(o->partition, j->partition)) &&
	       (!o->account || in_list(o->account, j->account ? j->account : "")) &&
	       (!o->qos || in_list(o->qos, j->qos ? j->qos : "normal")) &&
	       (!o->nodes || on_nodes(o->nodes, j->nodelist));
}

/* -i: Slurm's question for each job, answered on stdin. */
static bool confirmed(const struct cli_job *j)
{
	char line[64];

	printf("Cancel job_id=%lld name=%s partition=%s [y/n]? ", (long long)j->job_id,
	       j->name, j->partition);
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
}

/* Replaces o->ids with the jobs that match the filters (and the ids, when
 * some were given). Returns 0 or -1 after a message. */
static int select_jobs(const struct drv_conf *conf, struct sc_opts *o)
{
	struct drv_error err = {{0}};
	const struct drv_shape *s = &drv_shape_job_query;
	struct drv_job_query q = {0};
	json_t *body, *reply = NULL, *ids = json_array(), *users = NULL;
	size_t i;
	int rc;

	if (o->user && !(users = user_names(o->user))) {
		json_decref(ids);
		return -1;
	}
	body = drv_job_query_encode(&q);
	cli_body_set(body, s, DRV_JOB_QUERY__USERS, users);
	json_decref(users);
	json_object_set_new(body, s->fields[DRV_JOB_QUERY__FIELDS].name,
			    cli_job_fields(NULL));
	rc = cli_call(conf, "job.query", body, &reply, &err);
	if (rc != 0) {
		cli_error("slurm_load_jobs error: %s",
			  err.text[0] ? err.text
			  : rc > 0    ? drv_rc_text(rc)
				      : "Unable to contact slurm controller");
		json_decref(ids);
		return -1;
	}
	struct cli_job *jobs = NULL;
	size_t n = cli_jobs_from_reply(reply, &jobs, NULL);
	for (i = 0; i < n; i++)
		if (selected(o, &jobs[i]) && (!o->interactive || confirmed(&jobs[i])))
			json_array_append_new(ids, json_integer(jobs[i].job_id));
	free(jobs);
	json_decref(reply);
	json_decref(o->ids);
	o->ids = ids;
	return 0;
}

static int cancel(struct sc_opts *o)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	const struct drv_shape *s = &drv_shape_job_cancel;
	struct drv_job_cancel_reply r = {0};
	json_t *reply = NULL, *body;
	int rc, failed = 0;

	if (cli_conf_load(&conf) < 0)
		return 1;
	if ((has_filter(o) || o->interactive) && select_jobs(conf, o) < 0) {
		drv_conf_free(conf);
		return 1;
	}
	if (json_array_size(o->ids) == 0 && json_array_size(o->tasks) == 0 &&
	    json_array_size(o->steps) == 0) {
		drv_conf_free(conf);
		/* no job matched the filters: nothing to do, as Slurm */
		return o->unknown ? 1 : 0;
	}
	struct drv_job_cancel c = {
	    .signal = o->signal,
	    .records_only =
		has_filter(o), /* the filters chose records, not whole arrays */
	    .full = o->full,   /* -f: the batch shell and all its children */
	    .batch_only = !o->full && o->batch,
	};
	body = drv_job_cancel_encode(&c);
	cli_body_set(body, s, DRV_JOB_CANCEL__JOB_IDS, o->ids);
	if (json_array_size(o->tasks))
		cli_body_set(body, s, DRV_JOB_CANCEL__ARRAY_TASKS, o->tasks);
	if (json_array_size(o->steps))
		cli_body_set(body, s, DRV_JOB_CANCEL__STEPS, o->steps);
	rc = cli_call(conf, "job.cancel", body, &reply, &err);
	drv_conf_free(conf);
	if (rc != 0) {
		if (!o->quiet)
			cli_error(
			    "Kill job error on job id %lld: %s",
			    (long long)json_integer_value(json_array_get(o->ids, 0)),
			    err.text[0] ? err.text : drv_rc_text(rc > 0 ? rc : 1));
		return 1;
	}
	if (drv_job_cancel_reply_decode(reply, &r, &err) < 0)
		failed = 1;
	/* Slurm's scancel names the steps of jobs that are not active before
	 * it sends anything; the rest come back from slurmctld after. It exits
	 * with the highest status. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r.n_results; i++) {
			const struct drv_rec_result *x = &r.results[i];
			bool early = x->id && strchr(x->id, '.') &&
				     (x->rc == DRV_RC_INVALID_JOB_ID ||
				      x->rc == DRV_RC_ALREADY_DONE);
			if (early != (pass == 0))
				continue;
			int one = report(o, x);
			failed = one > failed ? one : failed;
		}
	drv_job_cancel_reply_free(&r);
	json_decref(reply);
	return failed ? failed : o->unknown ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sc_opts o = {0};
	int rc;

	cli_init("scancel");
	argv[0] = (char *)"scancel";
	rc = parse_opts(argc, argv, &o);
	if (rc == 0)
		rc = parse_ids(argc, argv, &o) < 0 ? 1 : cancel(&o);
	else
		rc = rc > 0 ? 0 : 1;
	json_decref(o.ids);
	json_decref(o.tasks);
	json_decref(o.steps);
	return rc;
}
