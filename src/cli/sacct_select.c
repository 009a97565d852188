/* sacct_select.c — the job and row selection rules of Slurm 22.05's sacct
 * (its option defaults and its accounting database's query), applied to
 * job records. ctld may pre-filter; applying the rules again here keeps
 * the output right whatever it did. */
#include "cli/sacct_select.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "cli/sacct_time.h"

int sacct_window(const struct sacct_opts *o, time_t now, struct sacct_window *w,
		 time_t *start, time_t *end)
{
	bool states = json_array_size(o->states) > 0;
	time_t s = o->start;
	if (!s && !o->n_sel)
		s = states ? now : sacct_time_midnight(now);
	w->start = s;
	w->end = o->end;
	w->states = states;
	if (s) {
		time_t e = o->end ? o->end : states ? s : now;
		if (s > e) {
			*start = s;
			*end = e;
			return -EINVAL;
		}
		if (!o->end)
			w->end = states ? s : now;
	}
	return 0;
}

json_t *sacct_user_filter(const struct sacct_opts *o, uid_t me)
{
	json_t *uids;
	if (o->all_users)
		return NULL;
	if (json_array_size(o->uids))
		return json_incref(o->uids);
	if (o->n_sel || me == 0)
		return NULL;
	uids = json_array();
	json_array_append_new(uids, json_integer(me));
	return uids;
}

static bool has_int(const json_t *list, int64_t v)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x)
	{
		if (json_integer_value(x) == v)
			return true;
	}
	return false;
}

/* Names compare as Slurm's database (MySQL's default collation) does: in
 * any case. */
static bool has_str(const json_t *list, const char *v)
{
	size_t i;
	json_t *x;
	if (!v)
		return false;
	json_array_foreach(list, i, x)
	{
		const char *s = json_string_value(x);
		if (!strcasecmp(s, v))
			return true;
	}
	return false;
}

static bool in_window(const struct sacct_window *w, const struct cli_job *j)
{
	if (w->start)
		return j->eligible_time > 0 && j->eligible_time < w->end &&
		       (j->end_time == 0 || j->end_time >= w->start);
	if (w->end)
		return j->eligible_time > 0 && j->eligible_time < w->end;
	return true;
}

/* -s: a job matches a state when it was in it during the window: pending
 * or running at some time in it, or ended in that state within it. Without
 * a window (-j alone), "running" means it ever ran. */
static bool state_matches(const struct sacct_window *w, const char *st,
			  const struct cli_job *j)
{
	bool window = w->start || w->end;
	bool open_at_start = !w->start || j->end_time == 0 || j->end_time >= w->start;
	if (!strcmp(st, "PENDING"))
		return !strcmp(j->state, st) && j->eligible_time > 0 &&
		       (!window || (j->eligible_time < w->end && open_at_start));
	if (!strcmp(st, "RUNNING"))
		return j->start_time > 0 &&
		       (!window || (j->start_time <= w->end && open_at_start));
	return !strcmp(j->state, st) && j->end_time > 0 &&
	       (!window || (j->end_time >= w->start && j->end_time <= w->end));
}

static bool states_match(const struct sacct_opts *o, const struct sacct_window *w,
			 const struct cli_job *j)
{
	size_t i;
	json_t *x;
	json_array_foreach(o->states, i, x)
	{
		if (state_matches(w, json_string_value(x), j))
			return true;
	}
	return false;
}

/* As Slurm: an id names its job and, for an array, all its tasks; ID_I
 * names one task. Drover has no het jobs: ID+N names none. */
static bool sel_matches(const struct sacct_sel *s, const struct cli_job *j)
{
	if (s->het >= 0)
		return false;
	if (s->task >= 0)
		return j->array_job_id == s->job_id && j->array_task_id == s->task &&
		       !j->array_task_str;
	return s->job_id == j->job_id ||
	       (j->array_job_id > 0 && s->job_id == j->array_job_id);
}

static bool id_selected(const struct sacct_opts *o, const struct cli_job *j)
{
	for (size_t i = 0; i < o->n_sel; i++)
		if (sel_matches(&o->sel[i], j))
			return true;
	return o->n_sel == 0;
}

bool sacct_job_selected(const struct sacct_opts *o, const struct sacct_window *w,
			const json_t *uids, const char *cluster, const struct cli_job *j)
{
	if (o->clusters && !has_str(o->clusters, cluster))
		return false;
	if (!id_selected(o, j))
		return false;
	if ((uids && !has_int(uids, j->uid)) || (o->gids && !has_int(o->gids, j->gid)))
		return false;
	if ((o->accounts && !has_str(o->accounts, j->account)) ||
	    (o->names && !has_str(o->names, j->name)) ||
	    (o->partitions && !has_str(o->partitions, j->partition)) ||
	    (o->qos && !has_str(o->qos, j->qos)))
		return false;
	return w->states ? states_match(o, w, j) : in_window(w, j);
}

void sacct_job_rows(const struct sacct_opts *o, const struct cli_job *j, bool *job_row,
		    bool *batch_row)
{
	bool whole = o->n_sel == 0, batch = false;
	for (size_t i = 0; i < o->n_sel; i++) {
		if (!sel_matches(&o->sel[i], j))
			continue;
		whole |= o->sel[i].step == SACCT_STEP_WHOLE;
		batch |= o->sel[i].step == SACCT_STEP_BATCH;
	}
	/* as Slurm: with -X, a step's id shows its job's row */
	*job_row = whole || o->allocations;
	/* srun's and salloc's allocations run no batch script: no .batch step;
	 * a pending job (one requeued, too: its start_time is the planned one)
	 * has none yet, as in Slurm */
	bool pending = j->state && !strcmp(j->state, "PENDING");
	*batch_row = !o->allocations && j->start_time > 0 && !pending &&
		     !j->interactive && (whole || batch);
}

bool sacct_step_row(const struct sacct_opts *o, const struct cli_job *j,
		    const struct cli_step *s)
{
	if (o->allocations)
		return false;
	for (size_t i = 0; i < o->n_sel; i++)
		if (sel_matches(&o->sel[i], j) &&
		    (o->sel[i].step == SACCT_STEP_WHOLE || o->sel[i].step == s->step_id))
			return true;
	return o->n_sel == 0;
}
