/* jobrec.c — reading a job record and the values derived from it that
 * both squeue and scontrol print. */
#include "cli/jobrec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/common.h"

/* A string the record may leave out, or dflt. */
static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void job_strings(const struct drv_rec_job *r, struct cli_job *j)
{
	j->name = str_or(r->name, "");
	j->user = str_or(r->user, "");
	j->partition = str_or(r->partition, "");
	j->state = r->state;
	j->reason = str_or(r->reason, "None");
	j->nodelist = str_or(r->nodelist, "");
	j->batch_host = str_or(r->batch_host, "");
	j->workdir = str_or(r->workdir, "");
	j->submit_host = str_or(r->submit_host, "");
	j->command = str_or(r->command, "");
	j->std_out = r->stdout;
	j->std_err = r->stderr;
	j->std_in = r->stdin;
	j->comment = r->comment;
	j->hold = r->hold;
	j->account = r->account;
	j->qos = r->qos;
	j->gres = r->gres;
	j->dependency = r->dependency;
	j->tres = r->tres;
	j->min_memory_text = r->min_memory;
	j->array_task_str = r->array_task_str;
	j->req_tres = r->req_tres;
	j->alloc_tres = r->alloc_tres;
	j->cpus_per_node = r->cpus_per_node;
	j->alloc_gpus = r->alloc_gpus;
	j->run_state = r->run_state;
	j->req_nodes = r->req_nodes;
	j->exc_nodes = r->exc_nodes;
	j->features = r->features;
	j->sched_nodes = r->sched_nodes;
	j->lacks = r->lacks;
	j->licenses = r->licenses;
	j->node_detail = r->node_detail;
	j->n_node_detail = r->n_node_detail;
}

static void job_numbers(const struct drv_rec_job *r, struct cli_job *j)
{
	j->job_id = r->job_id;
	j->uid = r->uid;
	j->gid = r->gid;
	j->num_nodes = r->num_nodes;
	j->cpus = r->cpus;
	j->priority = r->priority;
	j->restart_count = r->restart_count;
	j->time_limit = r->time_limit;
	j->submit_time = r->submit_time;
	j->eligible_time = r->eligible_time;
	j->start_time = r->start_time;
	j->end_time = r->end_time;
	j->suspend_time = r->suspend_time;
	j->pre_sus_time = r->pre_sus_time;
	j->suspended_secs = r->suspended_secs;
	j->deadline = r->deadline;
	j->exit_code = r->exit_code;
	j->exit_signal = r->exit_signal;
	j->nice = r->nice;
	j->ntasks = r->ntasks;
	j->gpus = r->gpus;
	j->cpus_per_task = r->has_cpus_per_task ? (int64_t)r->cpus_per_task : -1;
	j->ntasks_per_node = r->has_ntasks_per_node ? (int64_t)r->ntasks_per_node : -1;
	j->mem_per_cpu = r->mem_per_cpu;
	j->exclusive = r->exclusive;
	j->oversubscribe = r->oversubscribe;
	j->array_job_id = r->array_job_id;
	j->array_task_id = r->array_task_id;
	j->array_max_tasks = r->array_max_tasks;
	j->cancel_uid = r->cancel_uid;
	j->requeue = r->requeue;
	j->interactive = r->interactive;
	j->min_cpus = r->min_cpus;
	j->min_tmp = r->min_tmp;
	j->time_min = r->time_min;
	j->max_nodes = r->max_nodes;
}

void cli_usage_from_total(const struct drv_rec_usage_total *b, bool has,
			  struct cli_usage *u)
{
	*u = (struct cli_usage){
	    .has = has,
	    .user_usec = b->user_usec,
	    .sys_usec = b->sys_usec,
	    .max_rss_kib = b->max_rss_kib,
	    .ave_rss_kib = b->ave_rss_kib,
	    .max_rss_task = b->max_rss_task,
	    .max_rss_node = str_or(b->max_rss_node, ""),
	    .ntasks = b->ntasks,
	    .max_vsize_kib = b->max_vsize_kib,
	    .ave_vsize_kib = b->ave_vsize_kib,
	    .max_vsize_task = b->max_vsize_task,
	    .max_vsize_node = str_or(b->max_vsize_node, ""),
	    .min_cpu_usec = b->min_cpu_usec,
	    .min_cpu_task = b->min_cpu_task,
	    .min_cpu_node = str_or(b->min_cpu_node, ""),
	    .max_cpu_usec = b->max_cpu_usec,
	    .max_cpu_task = b->max_cpu_task,
	    .max_cpu_node = str_or(b->max_cpu_node, ""),
	};
}

static void batch_usage(const struct drv_rec_job *r, struct cli_usage *u)
{
	cli_usage_from_total(&r->batch_usage, r->has_batch_usage, u);
}

/* A step record's usage fields (records.schema: absent ones are 0). */
static void step_usage(const struct drv_rec_step *r, struct cli_usage *u)
{
	struct drv_rec_usage_total t = {
	    .user_usec = r->user_usec,
	    .sys_usec = r->sys_usec,
	    .max_rss_kib = r->max_rss_kib,
	    .ave_rss_kib = r->ave_rss_kib,
	    .max_rss_task = r->max_rss_task,
	    .max_rss_node = r->max_rss_node,
	    .ntasks = r->has_usage_ntasks ? r->usage_ntasks : r->ntasks,
	    .max_vsize_kib = r->has_max_vsize_kib ? r->max_vsize_kib : 0,
	    .ave_vsize_kib = r->has_ave_vsize_kib ? r->ave_vsize_kib : 0,
	    .max_vsize_task = r->has_max_vsize_task ? r->max_vsize_task : 0,
	    .max_vsize_node = r->max_vsize_node,
	    .min_cpu_usec = r->has_min_cpu_usec ? r->min_cpu_usec : 0,
	    .min_cpu_task = r->has_min_cpu_task ? r->min_cpu_task : 0,
	    .min_cpu_node = r->min_cpu_node,
	    .max_cpu_usec = r->has_max_cpu_usec ? r->max_cpu_usec : 0,
	    .max_cpu_task = r->has_max_cpu_task ? r->max_cpu_task : 0,
	    .max_cpu_node = r->max_cpu_node,
	};
	cli_usage_from_total(&t, r->has_user_usec, u);
}

static void step_from_rec(const struct drv_rec_step *r, struct cli_step *s)
{
	*s = (struct cli_step){
	    .step_id = r->step_id,
	    .name = str_or(r->name, ""),
	    .state = r->state,
	    .nodelist = str_or(r->nodelist, ""),
	    .alloc_tres = str_or(r->alloc_tres, ""),
	    .tasks_per_node = str_or(r->tasks_per_node, ""),
	    .distribution = str_or(r->distribution, ""),
	    .exit_code = r->exit_code,
	    .exit_signal = r->exit_signal,
	    .start_time = r->start_time,
	    .end_time = r->end_time,
	    .num_nodes = r->num_nodes,
	    .ntasks = r->ntasks,
	    .cpus = r->cpus,
	    .cancel_uid = r->cancel_uid,
	};
	step_usage(r, &s->usage);
}

void cli_job_from_rec(const struct drv_rec_job *r, struct cli_job *j)
{
	memset(j, 0, sizeof(*j));
	job_strings(r, j);
	job_numbers(r, j);
	batch_usage(r, &j->batch_usage);
}

/* One compact row (values in the order of fields, which map to the record's
 * field indexes, -1: not one) onto the record's defaults. A value that does
 * not fit its declaration keeps the default. */
static void row_decode(json_t *row, const int *map, size_t n_map, struct drv_rec_job *r)
{
	struct drv_error err = {{0}};
	drv_shape_init(&drv_shape_rec_job, r);
	for (size_t c = 0; c < n_map && c < json_array_size(row); c++)
		if (map[c] >= 0)
			drv_shape_decode_field(&drv_shape_rec_job, (size_t)map[c],
					       json_array_get(row, c), r, &err);
	if (!r->state) /* required, so the formatters may read it */
		r->state = "";
}

/* The records of a compact reply, each decoded onto the defaults: a new
 * array of n (drv_rec_job_free each), or NULL. */
static struct drv_rec_job *rows_decode(const struct drv_job_query_reply *q, size_t *n)
{
	*n = json_array_size(q->rows);
	struct drv_rec_job *recs = calloc(*n + 1, sizeof(*recs));
	int *map = calloc(q->n_fields + 1, sizeof(*map));
	for (size_t c = 0; recs && map && c < q->n_fields; c++) {
		const struct drv_field *f =
		    drv_shape_field(&drv_shape_rec_job, q->fields[c]);
		map[c] = f ? (int)(f - drv_shape_rec_job.fields) : -1;
	}
	for (size_t i = 0; recs && map && i < *n; i++)
		row_decode(json_array_get(q->rows, i), map, q->n_fields, &recs[i]);
	if (!map) {
		free(recs);
		recs = NULL;
	}
	free(map);
	return recs;
}

/* Where the steps start in the block of n jobs cli_jobs_from_reply
 * returns: after the jobs (and a spare one), aligned. */
static size_t steps_offset(size_t n)
{
	size_t head = (n + 1) * sizeof(struct cli_job), a = _Alignof(struct cli_step);
	return (head + a - 1) / a * a;
}

/* One block for the jobs and, after them, all their steps and node
 * details (the decoded arrays go with the reply's decode; their strings
 * stay in the reply), so the caller frees all at once. */
static struct cli_job *jobs_map(const struct drv_rec_job *recs, size_t n)
{
	size_t steps = 0, details = 0;
	for (size_t i = 0; i < n; i++) {
		steps += recs[i].n_steps;
		details += recs[i].n_node_detail;
	}
	size_t at_details = steps_offset(n) + steps * sizeof(struct cli_step);
	size_t a = _Alignof(struct drv_rec_job_alloc);
	at_details = (at_details + a - 1) / a * a;
	struct cli_job *jobs =
	    calloc(1, at_details + details * sizeof(struct drv_rec_job_alloc));
	if (!jobs)
		return NULL;
	struct cli_step *next =
	    (struct cli_step *)(void *)((char *)jobs + steps_offset(n));
	struct drv_rec_job_alloc *det =
	    (struct drv_rec_job_alloc *)(void *)((char *)jobs + at_details);
	for (size_t i = 0; i < n; i++) {
		cli_job_from_rec(&recs[i], &jobs[i]);
		for (size_t k = 0; k < recs[i].n_steps; k++)
			step_from_rec(&recs[i].steps[k], &next[k]);
		if (recs[i].n_steps)
			jobs[i].steps = next;
		jobs[i].n_steps = recs[i].n_steps;
		next += recs[i].n_steps;
		if (recs[i].n_node_detail)
			memcpy(det, recs[i].node_detail,
			       recs[i].n_node_detail * sizeof(*det));
		jobs[i].node_detail = recs[i].n_node_detail ? det : NULL;
		det += recs[i].n_node_detail;
	}
	return jobs;
}

size_t cli_jobs_from_reply(json_t *reply, struct cli_job **out, int64_t *now)
{
	struct drv_job_query_reply q;
	struct drv_error err = {{0}};
	struct drv_rec_job *rows = NULL;
	size_t n = 0;

	*out = NULL;
	if (drv_job_query_reply_decode(reply, &q, &err) < 0)
		return 0;
	if (now)
		*now = q.now ? q.now : (int64_t)time(NULL);
	if (q.rows)
		rows = rows_decode(&q, &n);
	else
		n = q.n_jobs;
	if (!q.rows || rows)
		*out = jobs_map(rows ? rows : q.jobs, n);
	for (size_t i = 0; rows && i < n; i++)
		drv_rec_job_free(&rows[i]);
	free(rows);
	drv_job_query_reply_free(&q);
	return *out ? n : 0;
}

json_t *cli_job_fields(const char *extra)
{
	static const int list[] = {
	    DRV_REC_JOB__JOB_ID,      DRV_REC_JOB__NAME,       DRV_REC_JOB__USER,
	    DRV_REC_JOB__PARTITION,   DRV_REC_JOB__STATE,      DRV_REC_JOB__REASON,
	    DRV_REC_JOB__NODELIST,    DRV_REC_JOB__NUM_NODES,  DRV_REC_JOB__CPUS,
	    DRV_REC_JOB__PRIORITY,    DRV_REC_JOB__TIME_LIMIT, DRV_REC_JOB__SUBMIT_TIME,
	    DRV_REC_JOB__START_TIME,  DRV_REC_JOB__END_TIME,   DRV_REC_JOB__ACCOUNT,
	    DRV_REC_JOB__QOS,	      DRV_REC_JOB__GRES,       DRV_REC_JOB__DEPENDENCY,
	    DRV_REC_JOB__NICE,	      DRV_REC_JOB__NTASKS,     DRV_REC_JOB__MIN_MEMORY,
	    DRV_REC_JOB__MEM_PER_CPU, DRV_REC_JOB__EXCLUSIVE,  DRV_REC_JOB__CPUS_PER_TASK,
	    DRV_REC_JOB__HOLD,	      DRV_REC_JOB__EXIT_CODE,  DRV_REC_JOB__EXIT_SIGNAL};
	json_t *a = json_array();
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		json_array_append_new(
		    a, json_string(drv_shape_rec_job.fields[list[i]].name));
	for (const char *p = extra; p && *p;) {
		size_t len = strcspn(p, ",");
		json_array_append_new(a, json_stringn(p, len));
		p += len + (p[len] == ',');
	}
	return a;
}

void cli_mem_fmt(int64_t mib, char *buf, size_t len)
{
	if (mib > 0 && mib % (1024 * 1024) == 0)
		snprintf(buf, len, "%lldT", (long long)(mib / (1024 * 1024)));
	else if (mib > 0 && mib % 1024 == 0)
		snprintf(buf, len, "%lldG", (long long)(mib / 1024));
	else if (mib > 0)
		snprintf(buf, len, "%lldM", (long long)mib);
	else
		snprintf(buf, len, "0");
}

int64_t cli_job_elapsed(const struct cli_job *job, int64_t now)
{
	int64_t end;

	if (!strcmp(job->state, "PENDING") || job->start_time <= 0)
		return 0;
	if (!strcmp(job->state, "SUSPENDED"))
		return job->pre_sus_time;
	end = (job->end_time > 0 && strcmp(job->state, "RUNNING")) ? job->end_time : now;
	if (job->suspend_time > 0) /* Slurm: run since the last resume, and before */
		return end > job->suspend_time
			   ? end - job->suspend_time + job->pre_sus_time
			   : job->pre_sus_time;
	return end > job->start_time ? end - job->start_time : 0;
}

int64_t cli_job_limit_end(const struct cli_job *job)
{
	if (job->time_limit < 0)
		return -1;
	if (job->start_time <= 0)
		return 0;
	if (job->suspend_time > 0)
		return job->suspend_time + job->time_limit - job->pre_sus_time;
	return job->start_time + job->time_limit;
}

/* Appends the expansion of one "%c" to f. */
static void expand_one(FILE *f, const struct cli_job *job, char c)
{
	switch (c) {
	case 'j':
		fprintf(f, "%lld", (long long)job->job_id);
		break;
	case 'A': /* the array's id; a job's own outside arrays */
		fprintf(
		    f, "%lld",
		    (long long)(job->array_job_id > 0 ? job->array_job_id : job->job_id));
		break;
	case 'a': /* Slurm prints NO_VAL - 1 outside arrays and for a pending rest */
		fprintf(f, "%lld",
			(long long)(job->array_task_id >= 0 ? job->array_task_id
							    : 4294967294LL));
		break;
	case 'x':
		fputs(job->name, f);
		break;
	case 'u':
		fputs(job->user, f);
		break;
	case '%':
		fputc('%', f);
		break;
	default:
		fputc('%', f);
		fputc(c, f);
	}
}

char *cli_job_stdio_path(const struct cli_job *job, const char *pattern)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	if (!pattern)
		pattern = "slurm-%j.out";
	if (pattern[0] != '/')
		fprintf(f, "%s/", job->workdir);
	for (const char *p = pattern; *p; p++) {
		if (*p == '%' && p[1]) {
			expand_one(f, job, *++p);
		} else {
			fputc(*p, f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
