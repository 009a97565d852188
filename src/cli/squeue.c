/* squeue.c — lists jobs: asks ctld for the jobs that match the filters,
 * applies the same filters again locally (so the output is right whatever
 * ctld pre-filters), sorts them (-S, SQUEUE_SORT or Slurm's "P,t,-p") and
 * prints them with -o, -O, SQUEUE_FORMAT[2] or Slurm's default, or as
 * Slurm's --json. Options live in squeue_opts.c, fields in
 * squeue_fields.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/common.h"
#include "cli/squeue_format.h"
#include "cli/squeue_json.h"
#include "cli/squeue_list.h"
#include "cli/squeue_opts.h"
#include "cli/squeue_steps.h"
#include "common/hostlist.h"
#include "common/proto.h"

#define MAX_SORT_KEYS 64

static void bad_field(const char *what, size_t len, void *arg)
{
	cli_error("Invalid job format specification: %.*s", (int)len, what);
}

static void bad_step_field(const char *what, size_t len, void *arg)
{
	cli_error("Invalid job step format specification: %.*s", (int)len, what);
}

/* The format squeue prints with, parsed into *fmt; -1 on allocation
 * failure. Unknown fields are reported and printed as Slurm does. */
static int pick_format(const struct sq_opts *o, struct sq_format *fmt)
{
	if (o->step_flag) /* -s prints steps with their own letters */
		return 0;
	if (o->format_long)
		return sq_format_parse_long(o->format_long, fmt, bad_field, NULL);
	return sq_format_parse(o->format      ? o->format
			       : o->long_list ? SQ_LONG_FORMAT
					      : SQ_DEFAULT_FORMAT,
			       fmt, bad_field, NULL);
}

/* Sorting and filtering need these; the format adds what it prints. */
/* Appends the names of the job record's fields idx[0..n) to a. */
static void add_fields(json_t *a, const int *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a,
				      json_string(drv_shape_rec_job.fields[idx[i]].name));
}

static json_t *wire_fields(const struct sq_opts *o, const struct sq_format *fmt)
{
	json_t *a = json_array();
	static const int base[] = {
	    DRV_REC_JOB__JOB_ID,   DRV_REC_JOB__STATE,	     DRV_REC_JOB__PARTITION,
	    DRV_REC_JOB__NAME,	   DRV_REC_JOB__USER,	     DRV_REC_JOB__UID,
	    DRV_REC_JOB__PRIORITY, DRV_REC_JOB__ACCOUNT,     DRV_REC_JOB__START_TIME,
	    DRV_REC_JOB__END_TIME, DRV_REC_JOB__SUBMIT_TIME, DRV_REC_JOB__TIME_LIMIT,
	    DRV_REC_JOB__HOLD};
	static const int qos[] = {DRV_REC_JOB__QOS}, nodes[] = {DRV_REC_JOB__NODELIST},
			 lics[] = {DRV_REC_JOB__LICENSES};
	static const int steps[] = {DRV_REC_JOB__STEPS, DRV_REC_JOB__BATCH_HOST,
				    DRV_REC_JOB__ARRAY_JOB_ID, DRV_REC_JOB__ARRAY_TASK_ID,
				    DRV_REC_JOB__INTERACTIVE};

	add_fields(a, base, sizeof(base) / sizeof(base[0]));
	if (o->qos) /* what the -q and -w filters read */
		add_fields(a, qos, 1);
	if (o->nodelist)
		add_fields(a, nodes, 1);
	if (o->licenses) /* what -L reads */
		add_fields(a, lics, 1);
	if (o->step_flag)
		add_fields(a, steps, sizeof(steps) / sizeof(steps[0]));
	sq_format_wire_fields(fmt, a);
	return a;
}

static json_t *query_body(const struct sq_opts *o, const struct sq_format *fmt)
{
	const struct drv_shape *s = &drv_shape_job_query;
	struct drv_job_query q = {0};
	json_t *body;

	/* Slurm loads the jobs of -j whatever the other filters say */
	q.all_states = o->query_ids || o->all_states;
	/* the default listing: finished jobs stay in ctld */
	q.active = !o->query_ids && !o->all_states && !o->states;
	body = drv_job_query_encode(&q);
	if (!o->json) /* --json wants whole records */
		json_object_set_new(body, s->fields[DRV_JOB_QUERY__FIELDS].name,
				    wire_fields(o, fmt));
	if (o->query_ids) {
		cli_body_set(body, s, DRV_JOB_QUERY__JOB_IDS, o->query_ids);
		return body;
	}
	if (json_array_size(o->users))
		cli_body_set(body, s, DRV_JOB_QUERY__USERS, o->users);
	cli_body_set(body, s, DRV_JOB_QUERY__STATES, o->states);
	return body;
}

static bool is_known(const struct sq_opts *o, const struct cli_job *all, size_t n)
{
	struct sq_filter ids = {.job_ids = o->query_ids};

	for (size_t i = 0; i < n; i++)
		if (sq_filter_has_id(&ids, all[i].job_id) ||
		    (all[i].array_job_id > 0 &&
		     sq_filter_has_id(&ids, all[i].array_job_id)))
			return true;
	return false;
}

/* Keeps the jobs that match, in place; returns how many. */
static size_t keep_matching(const struct sq_opts *o, char *const *nodes, size_t n_nodes,
			    struct cli_job *jobs, size_t n)
{
	struct sq_filter filt = {.job_ids = o->job_ids,
				 .users = o->users,
				 .states = o->states,
				 .partitions = o->partitions,
				 .names = o->names,
				 .accounts = o->accounts,
				 .all_states = o->all_states,
				 .qos = o->qos,
				 .licenses = o->licenses,
				 .nodes = nodes,
				 .n_nodes = n_nodes,
				 .none = o->match_none,
				 .tasks = o->tasks};
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		/* Slurm holds a job by setting its priority to 0; show it so */
		if (jobs[i].hold && !strcmp(jobs[i].state, "PENDING"))
			jobs[i].priority = 0;
		if (sq_job_matches(&filt, &jobs[i]))
			jobs[kept++] = jobs[i];
	}
	return kept;
}

/* Sorts as -S says; Slurm prints the header before it finds a bad key. */
static int sort_jobs(const struct sq_opts *o, struct cli_job *jobs, size_t n, int64_t now)
{
	struct sq_sort_key keys[MAX_SORT_KEYS];
	bool warn_b = false;
	char bad = 0;
	int nkeys = sq_sort_parse(o->sort ? o->sort : SQ_DEFAULT_SORT, keys,
				  MAX_SORT_KEYS, &bad, &warn_b);

	if (warn_b)
		fprintf(stderr, "%s: Invalid sort specification: b\n", cli_prog());
	if (nkeys < 0) {
		cli_error("Invalid sort specification: %c", bad);
		return -EINVAL;
	}
	sq_sort(jobs, n, keys, nkeys, now);
	return 0;
}

static int print_table(const struct sq_opts *o, const struct sq_format *fmt,
		       struct cli_job *jobs, size_t n, int64_t now)
{
	if (o->long_list) {
		char when[64];
		time_t t = time(NULL);
		fputs(ctime_r(&t, when), stdout);
	}
	if (!o->no_header)
		sq_print_header(fmt, stdout);
	fflush(stdout);
	if (sort_jobs(o, jobs, n, now) < 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		sq_print_job(fmt, &jobs[i], now, stdout);
	return 0;
}

/* -s: the running steps of the jobs kept. */
static int print_steps(const struct sq_opts *o, const struct cli_job *jobs, size_t n,
		       int64_t now)
{
	if (o->long_list) {
		char when[64];
		time_t t = time(NULL);
		fputs(ctime_r(&t, when), stdout);
	}
	return sq_steps_print(o->format, !o->no_header, o->steps, jobs, n, now,
			      bad_step_field, stdout) < 0;
}

static int show(const struct sq_opts *o, const struct sq_format *fmt, json_t *reply,
		const char *cluster, char *const *nodes, size_t n_nodes)
{
	struct cli_job *jobs = NULL;
	int64_t now;
	size_t total = cli_jobs_from_reply(reply, &jobs, &now), n;
	int rc;

	if (!jobs)
		return 1;
	/* Slurm asks for the one job of "-j N" alone: unknown is an error. */
	if (o->job_args == 1 && !is_known(o, jobs, total)) {
		fprintf(stderr, "slurm_load_jobs error: %s\n",
			drv_rc_text(DRV_RC_INVALID_JOB_ID));
		free(jobs);
		return 1;
	}
	if (o->array_flag || o->tasks) /* one line per pending task */
		total = sq_expand_arrays(&jobs, total);
	n = keep_matching(o, nodes, n_nodes, jobs, total);
	if (o->json) {
		rc = sort_jobs(o, jobs, n, now) < 0 ? 1 : 0;
		if (rc == 0)
			rc = sq_json_print(jobs, n, now, o->argc, o->argv, cluster,
					   stdout);
	} else if (o->step_flag) {
		rc = print_steps(o, jobs, n, now);
	} else {
		rc = print_table(o, fmt, jobs, n, now);
	}
	free(jobs);
	return rc;
}

/* -w: the names it lists, each a node ctld knows, as Slurm checks them
 * ("Invalid node name X" otherwise). 0, or -EINVAL after the message. */
static int known_nodes(const struct drv_conf *conf, const char *list, char ***names,
		       size_t *n)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	const char *bad = list;

	struct drv_node_query_reply q = {0};
	if (drv_hostlist_expand(list, names, n, NULL) == 0 &&
	    cli_call(conf, "node.query", json_object(), &reply, &err) == 0 &&
	    drv_node_query_reply_decode(reply, &q, &err) == 0) {
		bad = NULL;
		for (size_t i = 0; i < *n && !bad; i++) {
			bool found = false;
			for (size_t k = 0; k < q.n_nodes; k++)
				found |= !strcmp(q.nodes[k].name, (*names)[i]);
			if (!found)
				bad = (*names)[i];
		}
		drv_node_query_reply_free(&q);
	}
	if (bad)
		cli_error("Invalid node name %s", bad);
	json_decref(reply);
	if (!bad)
		return 0;
	drv_strv_free(*names, *n);
	*names = NULL;
	*n = 0;
	return -EINVAL;
}

static int query(const struct sq_opts *o)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	struct sq_format fmt = {0};
	json_t *reply = NULL;
	int rc;

	if (pick_format(o, &fmt) < 0 || cli_conf_load(&conf) < 0) {
		sq_format_fini(&fmt);
		return 1;
	}
	char **nodes = NULL;
	size_t n_nodes = 0;
	if (o->nodelist && known_nodes(conf, o->nodelist, &nodes, &n_nodes) < 0) {
		drv_conf_free(conf);
		sq_format_fini(&fmt);
		return 1;
	}
	rc = cli_call(conf, "job.query", query_body(o, &fmt), &reply, &err);
	if (rc != 0) {
		const char *why =
		    err.text[0] ? err.text
		    : rc > 0	? drv_rc_text(rc)
				: "Unable to contact slurm controller (connect failure)";
		fprintf(stderr, "slurm_load_jobs error: %s\n", why);
		rc = 1;
	} else {
		rc = show(o, &fmt, reply, conf->cluster_name, nodes, n_nodes);
	}
	drv_strv_free(nodes, n_nodes);
	drv_conf_free(conf);
	json_decref(reply);
	sq_format_fini(&fmt);
	return rc;
}

int main(int argc, char **argv)
{
	struct sq_opts o = {0};
	int rc;

	cli_init("squeue");
	argv[0] = (char *)"squeue";
	rc = sq_opts_parse(argc, argv, &o);
	if (rc == 0)
		rc = query(&o);
	else
		rc = rc > 0 ? 0 : 1;
	sq_opts_fini(&o);
	return rc;
}
