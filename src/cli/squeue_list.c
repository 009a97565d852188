/* squeue_list.c — squeue's local filtering and its -S sort: every key of
 * Slurm's sort letters, compared as Slurm's squeue compares them (states as
 * text, pending jobs after the others by start time, ...). */
#include "cli/squeue_list.h"

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/squeue_fields.h"
#include "cli/state.h"
#include "common/array_spec.h"
#include "common/hostlist.h"

static bool has_str(const json_t *list, const char *s, bool nocase)
{
	const json_t *v;
	size_t i;

	json_array_foreach(list, i, v)
	{
		const char *t = json_string_value(v);
		if (t && (nocase ? !strcasecmp(t, s) : !strcmp(t, s)))
			return true;
	}
	return false;
}

bool sq_filter_has_id(const struct sq_filter *f, int64_t job_id)
{
	const json_t *v;
	size_t i;

	json_array_foreach(f->job_ids, i, v)
	{
		if (json_integer_value(v) == job_id)
			return true;
	}
	return false;
}

static bool task_given(const struct sq_filter *f, const struct cli_job *job)
{
	const json_t *v;
	size_t i;

	json_array_foreach(f->tasks, i, v)
	{
		if (json_integer_value(json_array_get(v, 0)) == job->array_job_id &&
		    json_integer_value(json_array_get(v, 1)) == job->array_task_id &&
		    !job->array_task_str)
			return true;
	}
	return false;
}

/* -j: the job's own id, its array's id (all the tasks), or "N_T". */
static bool id_given(const struct sq_filter *f, const struct cli_job *job)
{
	return sq_filter_has_id(f, job->job_id) ||
	       (job->array_job_id > 0 && sq_filter_has_id(f, job->array_job_id)) ||
	       (f->tasks && task_given(f, job));
}

size_t sq_expand_arrays(struct cli_job **jobs, size_t n)
{
	size_t total = 0;
	struct drv_array *sets = calloc(n ? n : 1, sizeof(*sets));
	struct cli_job *out;

	if (!sets)
		return n;
	for (size_t i = 0; i < n; i++) {
		const char *rest = (*jobs)[i].array_task_str;
		total +=
		    rest && drv_array_parse(rest, 0, &sets[i]) == 0 ? sets[i].count : 1;
	}
	out = calloc(total ? total : 1, sizeof(*out));
	total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!out) {
			drv_array_fini(&sets[i]);
			continue;
		}
		if (!sets[i].count) {
			out[total++] = (*jobs)[i];
			continue;
		}
		for (uint32_t t = sets[i].min; t <= sets[i].max; t++)
			if (drv_array_test(&sets[i], t)) {
				out[total] = (*jobs)[i];
				out[total].array_task_id = t;
				out[total++].array_task_str = NULL;
			}
		drv_array_fini(&sets[i]);
	}
	free(sets);
	if (!out)
		return n;
	free(*jobs);
	*jobs = out;
	return total;
}

static bool holds_any(const char *held, char *const *nodes, size_t n)
{
	char **h = NULL;
	size_t nh = 0;
	bool hit = false;

	if (!held || !*held || drv_hostlist_expand(held, &h, &nh, NULL) < 0)
		return false;
	for (size_t i = 0; i < nh && !hit; i++)
		for (size_t k = 0; k < n && !hit; k++)
			hit = !strcmp(h[i], nodes[k]);
	drv_strv_free(h, nh);
	return hit;
}

/* Whether job's -L ("name[:count]", comma-separated) names one of want. */
static bool asks_license(const json_t *want, const char *licenses)
{
	for (const char *p = licenses; p && *p;) {
		size_t n = strcspn(p, ",:@");
		char name[128];
		snprintf(name, sizeof(name), "%.*s",
			 (int)(n < sizeof(name) ? n : sizeof(name) - 1), p);
		if (*name && has_str(want, name, false))
			return true;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return false;
}

bool sq_job_matches(const struct sq_filter *f, const struct cli_job *job)
{
	if (f->job_ids && !id_given(f, job))
		return false;
	if (f->states) {
		if (!has_str(f->states, job->state, true))
			return false;
	} else if (!f->all_states && !cli_state_is_active(job->state)) {
		return false;
	}
	if (f->users && !has_str(f->users, job->user, false))
		return false;
	if (f->partitions && !has_str(f->partitions, job->partition, false))
		return false;
	if (f->names && !has_str(f->names, job->name, false))
		return false;
	if (f->accounts && !has_str(f->accounts, job->account ? job->account : "", true))
		return false;
	if (f->qos && !has_str(f->qos, job->qos ? job->qos : "normal", true))
		return false;
	if (f->licenses && !asks_license(f->licenses, job->licenses))
		return false;
	return !f->none && (!f->nodes || holds_any(job->nodelist, f->nodes, f->n_nodes));
}

int sq_sort_parse(const char *spec, struct sq_sort_key *keys, int max, char *bad,
		  bool *warn_b)
{
	static const char known[] = "BCdDeEgGHiIjJlLmMNpPQStTuUvVz";
	static const char ignored[] = "cfhnOb";
	int n = 0;

	for (size_t i = 0; spec[i]; i++) {
		char c = spec[i];
		if (c == ',' || c == '+' || c == '-')
			continue;
		if (c == 'b')
			*warn_b = true;
		if (strchr(ignored, c))
			continue;
		if (!strchr(known, c)) {
			*bad = c;
			return -EINVAL;
		}
		if (n < max)
			keys[n++] = (struct sq_sort_key){c, i > 0 && spec[i - 1] == '-'};
	}
	return n;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const char *a, const char *b)
{
	int c = strcmp(a ? a : "", b ? b : "");
	return (c > 0) - (c < 0);
}

/* Limits as Slurm's uint32 minutes compare them: unlimited is the largest. */
static int64_t limit_key(const struct cli_job *j)
{
	return j->time_limit < 0 ? INT64_MAX : j->time_limit;
}

static int64_t left_key(const struct cli_job *j, int64_t now)
{
	return j->time_limit < 0 ? INT64_MAX : j->time_limit - cli_job_elapsed(j, now);
}

static const char *group_name(const struct cli_job *j)
{
	const struct group *g = getgrgid((gid_t)j->gid);
	return g ? g->gr_name : "";
}

static int cmp_group(const struct cli_job *a, const struct cli_job *b)
{
	char ga[256];

	snprintf(ga, sizeof(ga), "%s", group_name(a)); /* getgrgid reuses its buffer */
	return cmp_str(ga, group_name(b));
}

/* One key, before reversal; 'S' handles its own direction (see below). */
static int cmp_key(char k, const struct cli_job *a, const struct cli_job *b, int64_t now)
{
	switch (k) {
	case 'B':
		return cmp_str(a->batch_host, b->batch_host);
	case 'C':
		return cmp_i64(a->cpus, b->cpus);
	case 'D':
		return cmp_i64(a->num_nodes, b->num_nodes);
	case 'e':
		return cmp_i64(sq_job_end(a), sq_job_end(b));
	case 'g':
		return cmp_group(a, b);
	case 'G':
		return cmp_i64(a->gid, b->gid);
	case 'i':
		return cmp_i64(a->job_id, b->job_id);
	case 'j':
		return cmp_str(a->name, b->name);
	case 'l':
		return cmp_i64(limit_key(a), limit_key(b));
	case 'L':
		return cmp_i64(left_key(a, now), left_key(b, now));
	case 'm':
		return cmp_i64(a->min_memory, b->min_memory);
	case 'M':
		return cmp_i64(cli_job_elapsed(a, now), cli_job_elapsed(b, now));
	case 'N':
		return cmp_str(a->nodelist, b->nodelist);
	case 'p':
	case 'Q':
		return cmp_i64(a->priority, b->priority);
	case 'P':
		return cmp_str(a->partition, b->partition);
	case 't':
		return cmp_str(cli_state_compact(a->state), cli_state_compact(b->state));
	case 'T':
		return cmp_str(a->state, b->state);
	case 'u':
		return cmp_str(a->user, b->user);
	case 'U':
		return cmp_i64(a->uid, b->uid);
	case 'V':
		return cmp_i64(a->submit_time, b->submit_time);
	default:
		return 0; /* d E H I J v z: the same for every Drover job */
	}
}

/* Slurm 22.05 puts pending jobs after the others whichever way start time
 * is sorted (observed with -S S and -S -S). */
static int cmp_start(const struct cli_job *a, const struct cli_job *b, bool reverse)
{
	bool pa = !strcmp(a->state, "PENDING"), pb = !strcmp(b->state, "PENDING");
	int c;

	if (pa || pb)
		return pa - pb;
	c = cmp_i64(sq_job_start(a), sq_job_start(b));
	return reverse ? -c : c;
}

struct sort_ctx {
	const struct sq_sort_key *keys;
	int nkeys;
	int64_t now;
};

static int compare(const struct cli_job *a, const struct cli_job *b,
		   const struct sort_ctx *ctx)
{
	for (int i = 0; i < ctx->nkeys; i++) {
		const struct sq_sort_key *k = &ctx->keys[i];
		int c = k->letter == 'S' ? cmp_start(a, b, k->reverse)
					 : cmp_key(k->letter, a, b, ctx->now);
		if (c)
			return k->letter == 'S' || !k->reverse ? c : -c;
	}
	return cmp_i64(a->job_id, b->job_id);
}

static int compare_r(const void *pa, const void *pb, void *arg)
{
	const struct cli_job *const *a = pa, *const *b = pb;
	return compare(*a, *b, arg);
}

/* Sorts pointers, then moves each record once: a record is large, and the
 * merge sort would otherwise copy each one log(n) times. */
void sq_sort(struct cli_job *jobs, size_t n, const struct sq_sort_key *keys, int nkeys,
	     int64_t now)
{
	struct sort_ctx ctx = {keys, nkeys, now};
	struct cli_job **order, *sorted;

	if (n < 2)
		return;
	order = malloc(n * sizeof(*order));
	sorted = malloc(n * sizeof(*sorted));
	if (!order || !sorted) { /* out of memory: sort in place, slowly */
		free(order);
		free(sorted);
		for (size_t i = 1; i < n; i++)
			for (size_t k = i;
			     k > 0 && compare(&jobs[k - 1], &jobs[k], &ctx) > 0; k--) {
				struct cli_job t = jobs[k];
				jobs[k] = jobs[k - 1];
				jobs[k - 1] = t;
			}
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &jobs[i];
	qsort_r(order, n, sizeof(*order), compare_r, &ctx);
	for (size_t i = 0; i < n; i++)
		sorted[i] = *order[i];
	memcpy(jobs, sorted, n * sizeof(*jobs));
	free(order);
	free(sorted);
}
