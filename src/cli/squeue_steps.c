/* squeue_steps.c — squeue -s: which steps get a line, their order, the
 * step format letters and the bytes of each line, as Slurm 22.05's squeue
 * prints them (checked against a real one). Job filtering is squeue.c's;
 * this file never talks to ctld. */
#include "cli/squeue_steps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/timeshow.h"
#include "common/timefmt.h"

/* One line: a job and its srun step, or its batch step (step NULL). */
struct line {
	const struct cli_job *job;
	const struct cli_step *step;
};

typedef void (*value_f)(const struct line *l, int64_t now, char *buf, size_t len);

struct step_field {
	char letter;
	const char *header;
	bool cut;      /* a right-justified value is cut to the width */
	bool head_cut; /* the same for the header */
	value_f value;
};

static void v_tasks(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "%lld", (long long)(l->step ? l->step->ntasks : 1));
}

static void v_tres(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "(null)"); /* Slurm prints its unset string so */
}

static void v_id(const struct line *l, int64_t now, char *b, size_t len)
{
	const struct cli_job *j = l->job;
	char step[32];
	if (l->step)
		snprintf(step, sizeof(step), "%lld", (long long)l->step->step_id);
	else
		snprintf(step, sizeof(step), "batch");
	if (j->array_job_id > 0 && j->array_task_id >= 0)
		snprintf(b, len, "%lld_%lld.%s", (long long)j->array_job_id,
			 (long long)j->array_task_id, step);
	else
		snprintf(b, len, "%lld.%s", (long long)j->job_id, step);
}

static void v_name(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "%s", l->step ? l->step->name : "batch");
}

/* srun steps have no limit of their own in Drover */
static void v_limit(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "UNLIMITED");
}

static int64_t start_of(const struct line *l)
{
	return l->step ? l->step->start_time : l->job->start_time;
}

static void v_time(const struct line *l, int64_t now, char *b, size_t len)
{
	int64_t start = start_of(l);
	drv_time_fmt_elapsed(start > 0 && now > start ? now - start : 0, b, len);
}

static void v_nodes(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "%s", l->step ? l->step->nodelist : l->job->batch_host);
}

static void v_partition(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "%s", l->job->partition);
}

static void v_start(const struct line *l, int64_t now, char *b, size_t len)
{
	cli_fmt_time((time_t)start_of(l), b, len);
}

static void v_user(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "%s", l->job->user);
}

static void v_uid(const struct line *l, int64_t now, char *b, size_t len)
{
	snprintf(b, len, "%lld", (long long)l->job->uid);
}

static const struct step_field fields[] = {
    {'A', "TASKS", true, true, v_tasks},      {'b', "TRES_PER_JOB", true, true, v_tres},
    {'i', "STEPID", true, true, v_id},	      {'j', "NAME", true, true, v_name},
    {'l', "TIME_LIMIT", true, true, v_limit}, {'M', "TIME", false, true, v_time},
    {'N', "NODELIST", false, false, v_nodes}, {'P', "PARTITION", true, true, v_partition},
    {'S', "START_TIME", true, true, v_start}, {'u', "USER", true, true, v_user},
    {'U', "UID", true, true, v_uid},
};

static const struct step_field *field_of(char c)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].letter == c)
			return &fields[i];
	return NULL;
}

/* Reports each letter of spec that is no step field. */
static void report_bad(const char *spec, sq_bad_f bad)
{
	for (const char *p = strchr(spec, '%'); p && bad; p = strchr(p, '%')) {
		p += 1 + (p[1] == '.');
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			return;
		if (!field_of(*p))
			bad(p, 1, NULL);
		p++;
	}
}

/* Walks the spec, printing the header (l NULL) or l's line. Unknown
 * letters are printed as written. */
static void print_line(const char *spec, const struct line *l, int64_t now, FILE *out)
{
	char buf[4096];
	for (const char *p = spec; *p;) {
		if (*p != '%') {
			fputc(*p++, out);
			continue;
		}
		const char *start = p++;
		bool right = *p == '.';
		p += right;
		int width = (int)strtol(p, (char **)&p, 10);
		const struct step_field *f = *p ? field_of(*p) : NULL;
		if (!f) {
			p += *p != '\0';
			fwrite(start, 1, (size_t)(p - start), out);
			continue;
		}
		p++;
		if (l)
			f->value(l, now, buf, sizeof(buf));
		/* Slurm hands %b a NULL string: glibc prints nothing for it
		 * below six characters left-justified */
		if (l && f->letter == 'b' && !right && width > 0 && width < 6)
			buf[0] = '\0';
		sq_print_str(out, l ? buf : f->header, width, right,
			     l ? f->cut : f->head_cut);
	}
	fputc('\n', out);
}

static bool selected(const json_t *sel, const struct line *l)
{
	size_t i;
	const json_t *e;
	const struct cli_job *j = l->job;
	if (!sel)
		return true;
	if (!l->step) /* "ID.batch" reads as step 0 in Slurm: none names it */
		return false;
	json_array_foreach(sel, i, e)
	{
		int64_t id = json_integer_value(json_array_get(e, 0));
		int64_t task = json_integer_value(json_array_get(e, 1));
		bool job = task >= 0 ? j->array_job_id == id && j->array_task_id == task
				     : j->job_id == id;
		if (job && json_integer_value(json_array_get(e, 2)) == l->step->step_id)
			return true;
	}
	return false;
}

/* Slurm's default step sort, "P,i": partition, job id, step id, the batch
 * step (Slurm's highest step id) last. */
static int by_partition_id(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	int c = strcmp(x->job->partition, y->job->partition);
	if (c)
		return c;
	if (x->job->job_id != y->job->job_id)
		return x->job->job_id < y->job->job_id ? -1 : 1;
	if (!x->step || !y->step)
		return !x->step - !y->step;
	return (x->step->step_id > y->step->step_id) -
	       (x->step->step_id < y->step->step_id);
}

/* The running steps sel selects, sorted; *n their count. */
static struct line *collect(const json_t *sel, const struct cli_job *jobs, size_t n,
			    size_t *count)
{
	size_t max = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		max += jobs[i].n_steps + 1;
	struct line *v = calloc(max + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct cli_job *j = &jobs[i];
		if (strcmp(j->state, "RUNNING"))
			continue;
		for (size_t s = 0; s < j->n_steps; s++) {
			v[k] = (struct line){j, &j->steps[s]};
			if (!strcmp(j->steps[s].state, "RUNNING") && selected(sel, &v[k]))
				k++;
		}
		v[k] = (struct line){j, NULL};
		if (*j->batch_host && !j->interactive && selected(sel, &v[k]))
			k++;
	}
	qsort(v, k, sizeof(*v), by_partition_id);
	*count = k;
	return v;
}

int sq_steps_print(const char *format, bool header, const json_t *sel,
		   const struct cli_job *jobs, size_t n, int64_t now, sq_bad_f bad,
		   FILE *out)
{
	size_t count = 0;
	struct line *lines = collect(sel, jobs, n, &count);
	const char *spec = format ? format : SQ_STEP_FORMAT;
	if (!lines)
		return -ENOMEM;
	report_bad(spec, bad);
	if (header)
		print_line(spec, NULL, now, out);
	for (size_t i = 0; i < count; i++)
		print_line(spec, &lines[i], now, out);
	free(lines);
	return 0;
}
