/* bench_schema_text.c — decoding a job.query reply of JOBS (default 20,000)
 * jobs with the tree decoder (json_loadb, then drv_shape_decode) against the
 * text decoder (common/schema_text.h), both as whole records ("jobs") and as
 * the compact rows squeue asks for ("fields" + "rows"). Prints the median,
 * min and max of RUNS (default 7) runs of each, in ms; asserts nothing.
 *
 *   ninja -C build bench/schema_text/bench_schema_text
 *   build/bench/schema_text/bench_schema_text          # JOBS=… RUNS=… */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/schema_text.h"

/* The columns squeue's default listing asks for (cli_job_fields). */
static const char *const columns[] = {
    "job_id",	  "name",      "user",	     "partition",   "state",	  "reason",
    "nodelist",	  "num_nodes", "cpus",	     "priority",    "time_limit", "submit_time",
    "start_time", "end_time",  "account",    "qos",	    "gres",	  "dependency",
    "nice",	  "ntasks",    "min_memory", "mem_per_cpu", "exclusive",  "cpus_per_task",
    "hold",	  "exit_code", "exit_signal"};
#define N_COLUMNS (sizeof(columns) / sizeof(*columns))

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Job i as ctld would list a pending one (name in buf). */
static struct drv_rec_job job(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "job-%zu", i);
	return (struct drv_rec_job){.job_id = (uint32_t)(1000 + i),
				    .name = buf,
				    .user = "alice",
				    .uid = 1000,
				    .partition = "debug",
				    .state = "PENDING",
				    .reason = "Priority",
				    .nodelist = "",
				    .time_limit = 3600,
				    .submit_time = 1764600000,
				    .priority = 4294901,
				    .cpus = 4,
				    .num_nodes = 1,
				    .account = "physics",
				    .qos = "normal",
				    .ntasks = 4,
				    .min_memory = "1000M",
				    .workdir = "/home/alice/run",
				    .command = "/home/alice/run/job.sh",
				    .cancel_uid = -1};
}

/* The reply's text, through the encoder: {"jobs":[records],...} or, with
 * rows, {"fields":[columns],"now":N,"rows":[[value per column]]}. */
static char *reply_text(size_t n, bool rows)
{
	struct drv_job_query_reply r = {.now = 1764600100};
	struct drv_rec_job *jobs = calloc(n, sizeof(*jobs));
	char(*names)[32] = calloc(n, sizeof(*names));
	json_t *list = json_array();
	for (size_t i = 0; i < n; i++) {
		jobs[i] = job(i, names[i], sizeof(names[i]));
		json_t *rec = drv_shape_encode(&drv_shape_rec_job, &jobs[i], 0),
		       *row = json_array();
		for (size_t k = 0; rows && k < N_COLUMNS; k++) {
			json_t *v = json_object_get(rec, columns[k]);
			json_array_append_new(row, v ? json_incref(v) : json_null());
		}
		json_array_append_new(list, row);
		json_decref(rec);
	}
	if (rows) {
		r.fields = (const char **)columns;
		r.n_fields = N_COLUMNS;
		r.has_fields = true;
		r.rows = list;
	} else {
		r.jobs = jobs;
		r.n_jobs = n;
		r.has_jobs = true;
	}
	json_t *o = drv_shape_encode(&drv_shape_job_query_reply, &r, 0);
	char *t = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	json_decref(list);
	free(jobs);
	free(names);
	return t;
}

static uint64_t sink; /* what each run read, so that nothing is optimised out */

static int count_job(void *elem, size_t i, void *ctx)
{
	const struct drv_rec_job *j = elem;
	(void)i;
	(void)ctx;
	sink += j->job_id + (j->name ? (unsigned char)j->name[0] : 0);
	return 0;
}

/* Tree, records: one parse, one decode of the whole reply. */
static void tree_records(char *text, size_t len)
{
	struct drv_job_query_reply r;
	json_t *x = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	if (!x || drv_shape_decode(&drv_shape_job_query_reply, x, &r, NULL) < 0)
		abort();
	for (size_t i = 0; i < r.n_jobs; i++)
		count_job(&r.jobs[i], i, NULL);
	drv_shape_free(&drv_shape_job_query_reply, &r);
	json_decref(x);
}

/* Tree, rows: one parse, then each row made an object and decoded. */
static void tree_rows(char *text, size_t len)
{
	json_t *x = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	struct drv_job_query_reply r;
	if (!x || drv_shape_decode(&drv_shape_job_query_reply, x, &r, NULL) < 0)
		abort();
	size_t i;
	json_t *row;
	json_array_foreach(r.rows, i, row)
	{
		json_t *o = json_object();
		for (size_t k = 0; k < r.n_fields; k++)
			json_object_set(o, r.fields[k], json_array_get(row, k));
		struct drv_rec_job j;
		if (drv_shape_decode(&drv_shape_rec_job, o, &j, NULL) < 0)
			abort();
		count_job(&j, i, NULL);
		drv_shape_free(&drv_shape_rec_job, &j);
		json_decref(o);
	}
	drv_shape_free(&drv_shape_job_query_reply, &r);
	json_decref(x);
}

static void text_records(char *text, size_t len)
{
	struct drv_job_query_reply r;
	struct drv_arena a = {0};
	if (drv_shape_stream_array(&drv_shape_job_query_reply, DRV_JOB_QUERY_REPLY__JOBS,
				   text, len, &r, &a, count_job, NULL, NULL) < 0)
		abort();
	drv_arena_free(&a);
}

static void text_rows(char *text, size_t len)
{
	struct drv_job_query_reply r;
	struct drv_arena a = {0};
	if (drv_job_rows_decode_text(text, len, &r, &a, count_job, NULL, NULL) < 0)
		abort();
	drv_arena_free(&a);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median, min, max of runs of fn over a fresh copy of text each time (the
 * text decoder writes into its buffer; the copy is not timed). */
static void measure(const char *what, void (*fn)(char *, size_t), const char *text,
		    int runs)
{
	size_t len = strlen(text);
	double t[64] = {0};
	char *copy = malloc(len);
	for (int i = 0; i < runs; i++) {
		memcpy(copy, text, len);
		double t0 = now_ms();
		fn(copy, len);
		t[i] = now_ms() - t0;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp);
	printf("| %s | %.1f | %.1f | %.1f |\n", what, t[runs / 2], t[0], t[runs - 1]);
	free(copy);
}

int main(void)
{
	const char *e = getenv("JOBS");
	size_t jobs = e ? strtoul(e, NULL, 10) : 20000;
	int runs = getenv("RUNS") ? atoi(getenv("RUNS")) : 7;
	if (runs < 1 || runs > 64)
		runs = 7;
	char *records = reply_text(jobs, false), *rows = reply_text(jobs, true);
	printf("job.query reply, %zu jobs: records %zu bytes, rows %zu bytes; "
	       "%d runs\n\n",
	       jobs, strlen(records), strlen(rows), runs);
	printf("| decoder | median (ms) | min | max |\n| --- | ---: | ---: | ---: |\n");
	measure("tree, records (json_loadb + drv_shape_decode)", tree_records, records,
		runs);
	measure("text, records (drv_shape_stream_array)", text_records, records, runs);
	measure("tree, rows (json_loadb + drv_shape_decode per row)", tree_rows, rows,
		runs);
	measure("text, rows (drv_job_rows_decode_text)", text_rows, rows, runs);
	free(records);
	free(rows);
	return sink == 0;
}
