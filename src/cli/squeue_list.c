/* squeue_list.c — squeue's local filtering and default sort. */
#include "cli/squeue_list.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/state.h"

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

bool sq_job_matches(const struct sq_filter *f, const struct cli_job *job)
{
	if (f->job_ids && !sq_filter_has_id(f, job->job_id))
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
	if (f->names && !has_str(f->names, job->name, true))
		return false;
	return true;
}

static int compare(const void *pa, const void *pb)
{
	const struct cli_job *a = pa, *b = pb;
	int c = strcmp(a->partition, b->partition);

	if (c)
		return c;
	c = cli_state_rank(a->state) - cli_state_rank(b->state);
	if (c)
		return c;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return (a->job_id > b->job_id) - (a->job_id < b->job_id);
}

void sq_sort(struct cli_job *jobs, size_t n)
{
	if (n > 1)
		qsort(jobs, n, sizeof(*jobs), compare);
}
