/* sacct.c — lists jobs and their steps from ctld's accounting records:
 * parses the options (sacct_opts.c), asks ctld once (acct.query), keeps
 * the jobs Slurm's rules select (sacct_select.c) and prints their rows as
 * columns (sacct_format.c) or JSON (sacct_json.c). Prints nothing on
 * stderr on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/sacct_fields.h"
#include "cli/sacct_help.h"
#include "cli/sacct_json.h"
#include "cli/sacct_opts.h"
#include "cli/sacct_select.h"
#include "cli/sacct_time.h"
#include "cli/timeshow.h"
#include "common/proto.h"

static bool has_state(const json_t *states, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(states, i, v)
	{
		if (!strcmp(json_string_value(v), name))
			return true;
	}
	return false;
}

/* What ctld is asked: a superset of what sacct_select.c then keeps, as
 * narrow as ctld's own filters allow. ctld matches states by their current
 * value, which is -s's meaning for every state but RUNNING ("ran during
 * the window"); its window leaves out jobs never eligible, which only a
 * job cancelled while held is, so a query for CANCELLED goes without one.
 * Names, accounts and partitions match in any case there, as in Slurm's
 * database. */
static json_t *query_body(const struct sacct_opts *o, const struct sacct_window *w,
			  json_t *uids)
{
	const struct drv_shape *s = &drv_shape_acct_query;
	struct drv_acct_query q = {.duplicates =
				       o->duplicates}; /* requeued jobs' earlier runs */
	json_t *ids = sacct_sel_job_ids(o), *body;
	bool states = w->states;

	if (!states || !has_state(o->states, "CANCELLED")) {
		/* before 1970 (-S 1970-01-01 east of UTC) is ctld's "no bound" */
		q.start = w->start > 0 ? w->start : 0;
		q.end = w->end ? (w->end > 0 ? w->end : 1) : 0;
	}
	body = drv_acct_query_encode(&q);
	cli_body_set(body, s, DRV_ACCT_QUERY__JOB_IDS, ids);
	json_decref(ids);
	cli_body_set(body, s, DRV_ACCT_QUERY__UIDS, uids);
	cli_body_set(body, s, DRV_ACCT_QUERY__NAMES, o->names);
	cli_body_set(body, s, DRV_ACCT_QUERY__ACCOUNTS, o->accounts);
	cli_body_set(body, s, DRV_ACCT_QUERY__PARTITIONS, o->partitions);
	if (states && !has_state(o->states, "RUNNING"))
		cli_body_set(body, s, DRV_ACCT_QUERY__STATES, o->states);
	return body;
}

static int fetch(const struct drv_conf *conf, json_t *body, json_t **reply)
{
	struct drv_error err = {{0}};
	int rc = cli_call(conf, "acct.query", body, reply, &err);
	if (rc != 0) {
		const char *why =
		    err.text[0] ? err.text
		    : rc > 0	? drv_rc_text(rc)
				: "Unable to contact slurm controller (connect failure)";
		cli_error("Problem talking to the database: %s", why);
		return -1;
	}
	return 0;
}

static void print_rows(const struct sacct_opts *o, const struct sacct_ctx *c,
		       const struct cli_job *jobs, const bool *keep, size_t n)
{
	sacct_print_header(&o->fmt, stdout);
	for (size_t i = 0; i < n; i++) {
		bool job_row, batch_row;
		if (!keep[i])
			continue;
		sacct_job_rows(o, &jobs[i], &job_row, &batch_row);
		if (job_row)
			sacct_print_row(&o->fmt,
					&(struct sacct_row){&jobs[i], false, NULL}, c,
					stdout);
		if (batch_row)
			sacct_print_row(&o->fmt,
					&(struct sacct_row){&jobs[i], true, NULL}, c,
					stdout);
		struct cli_step ext;
		char tres[SACCT_VALUE_MAX];
		if (sacct_extern_step(c, &jobs[i], &ext, tres) &&
		    sacct_step_row(o, &jobs[i], &ext))
			sacct_print_row(&o->fmt,
					&(struct sacct_row){&jobs[i], true, &ext}, c,
					stdout);
		for (size_t k = 0; k < jobs[i].n_steps; k++)
			if (sacct_step_row(o, &jobs[i], &jobs[i].steps[k]))
				sacct_print_row(&o->fmt,
						&(struct sacct_row){&jobs[i], true,
								    &jobs[i].steps[k]},
						c, stdout);
	}
}

struct ordered {
	struct cli_job job;
	size_t pos;
};

static int by_submit(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	if (x->job.submit_time != y->job.submit_time)
		return x->job.submit_time < y->job.submit_time ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Slurm's database hands records back in the order they were submitted: a
 * requeued job, submitted again at its requeue, comes after jobs submitted
 * before that, and its earlier runs (sacct -D) before it. ctld sends them in
 * id order; ties keep it. */
static void sort_by_submit(struct cli_job *jobs, size_t n)
{
	struct ordered *v = calloc(n + 1, sizeof(*v));
	if (!v)
		return; /* id order, then */
	for (size_t i = 0; i < n; i++)
		v[i] = (struct ordered){jobs[i], i};
	qsort(v, n, sizeof(*v), by_submit);
	for (size_t i = 0; i < n; i++)
		jobs[i] = v[i].job;
	free(v);
}

static int list(const struct sacct_opts *o, const struct sacct_window *w, int argc,
		char **argv)
{
	struct drv_conf *conf = NULL;
	json_t *reply = NULL, *uids = sacct_user_filter(o, getuid());
	struct cli_job *jobs = NULL;
	bool *keep = NULL;
	int rc = 1;

	if (cli_conf_load(&conf) < 0 || fetch(conf, query_body(o, w, uids), &reply) < 0)
		goto out;
	struct sacct_ctx c = {0, conf->cluster_name, getenv("SLURM_TIME_FORMAT"),
			      drv_prolog_flag(conf->prolog_flags, "Contain")};
	size_t n = cli_jobs_from_reply(reply, &jobs, &c.now);
	keep = calloc(n + 1, sizeof(*keep));
	if (!jobs || !keep)
		goto out;
	sort_by_submit(jobs, n);
	for (size_t i = 0; i < n; i++)
		keep[i] = sacct_job_selected(o, w, uids, c.cluster, &jobs[i]);
	if (o->json)
		sacct_json_print(o, &c, jobs, keep, n, argc, argv, stdout);
	else
		print_rows(o, &c, jobs, keep, n);
	rc = 0;
out:
	free(keep);
	free(jobs);
	json_decref(reply);
	json_decref(uids);
	drv_conf_free(conf);
	return rc;
}

static int help(const struct sacct_opts *o)
{
	if (o->help == SACCT_HELP)
		sacct_print_help(stdout);
	else if (o->help == SACCT_HELPFORMAT)
		sacct_print_helpformat(stdout);
	else
		sacct_print_usage(stdout);
	return 0;
}

static int window_error(time_t start, time_t end)
{
	char s[64], e[64];
	cli_fmt_date(start, NULL, 0, s, sizeof(s));
	cli_fmt_date(end, NULL, 0, e, sizeof(e));
	cli_error("Start time (%s) requested is after end time (%s).", s, e);
	return 1;
}

int main(int argc, char **argv)
{
	struct sacct_opts o;
	struct sacct_window w;
	time_t now = time(NULL), start, end;
	int rc;

	cli_init("sacct");
	rc = sacct_opts_parse(argc, argv, now, &o);
	if (rc != 0)
		rc = rc > 0 ? 0 : 1;
	else if (o.help != SACCT_NO_HELP)
		rc = help(&o);
	else if (sacct_window(&o, now, &w, &start, &end) < 0)
		rc = window_error(start, end);
	else
		rc = list(&o, &w, argc, argv);
	sacct_opts_fini(&o);
	return rc;
}
