/* depend.c — a pending job's dependencies, judged as Slurm 22.05's
 * slurmctld judges them: an entry that is met leaves the list, one that can
 * never be met stays marked "(failed)"; with '?' one met entry clears the
 * list. A target ctld no longer holds (never existed, or ended longer than
 * MinJobAge ago) lifts its entry, as Slurm does ("job is gone"); one
 * never held is refused at submit (rpc_submit.c).
 * The state of a target comes from target_state() alone, arrays
 * included. Changes to the list are committed with the job. */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "ctld/ctld.h"

enum target { TGT_GONE, TGT_PENDING, TGT_RUNNING, TGT_OK, TGT_NOTOK };

static enum target one_job(const struct job *d, int64_t *since)
{
	*since = d->start_time ? d->start_time : d->end_time;
	if (d->state == JOB_PENDING)
		return TGT_PENDING;
	if (d->state == JOB_RUNNING || d->completing)
		return TGT_RUNNING;
	return d->state == JOB_COMPLETED ? TGT_OK : TGT_NOTOK;
}

/* "ID_TASK" of an array: the record that ran it, or its array's pending
 * remainder. */
static enum target one_task(const struct job *meta, uint32_t task, int64_t *since)
{
	for (const struct job *t = meta; t; t = t->next)
		if (t->array_job_id == meta->id && t->array_task_id == (int64_t)task)
			return one_job(t, since);
	if (meta->array && drv_array_test(meta->array, task))
		return TGT_PENDING;
	return TGT_GONE;
}

/* A whole array ("ID", "ID_*"): pending while a task waits, running while
 * one runs, then OK only when every task completed (Slurm's afterok on an
 * array); *since is when its first task started. */
static enum target whole_array(const struct ctld *c, const struct job *meta,
			       int64_t *since)
{
	struct job_array_summary s;
	job_array_summary(c, meta->id, &s);
	*since = 0;
	for (const struct job *t = meta; t; t = t->next)
		if (t->array_job_id == meta->id && t->start_time &&
		    (!*since || t->start_time < *since))
			*since = t->start_time;
	if (s.pending)
		return s.running || s.completed || s.failed ? TGT_RUNNING : TGT_PENDING;
	if (s.running)
		return TGT_RUNNING;
	return s.failed ? TGT_NOTOK : TGT_OK;
}

/* What an entry's target looks like now; *since is when it started (or
 * ended, if it never started). Arrays answer as a whole, or by task for
 * "ID_TASK". Tasks that left memory after MinJobAge no longer count. */
static enum target target_state(const struct ctld *c, const struct dep_item *it,
				int64_t *since)
{
	const struct job *d = job_table_find(&c->jobs, it->job_id);
	if (!d)
		return TGT_GONE;
	if (d->array_job_id != d->id) /* not an array's record */
		return one_job(d, since);
	if (it->task != DEP_TASK_NONE && it->task != DEP_TASK_ALL)
		return one_task(d, it->task, since);
	return whole_array(c, d, since);
}

static bool has_singleton(const struct job *j)
{
	for (uint32_t i = 0; i < j->req.deps.n; i++)
		if (j->req.deps.items[i].kind == DEP_SINGLETON)
			return true;
	return false;
}

/* singleton: no other job of the same user and name may be running, nor
 * pending without a singleton dependency of its own (Slurm counts those
 * too: a held job of the same name keeps a singleton job waiting). A met
 * entry leaves the list, so of two pending singleton jobs the first one
 * judged (the lower id) goes and then holds the other back. */
static bool singleton_free(const struct ctld *c, const struct job *j)
{
	for (const struct job *o = c->jobs.head; o; o = o->next) {
		if (o == j || o->uid != j->uid ||
		    strcmp(o->name ? o->name : "", j->name ? j->name : ""))
			continue;
		if (o->state == JOB_RUNNING || o->completing)
			return false;
		if (o->state == JOB_PENDING && !has_singleton(o))
			return false;
	}
	return true;
}

enum outcome { OUT_WAIT, OUT_MET, OUT_FAILED };

/* An after: entry waits for its target to start, not for a time. */
#define WAKE_AT_START INT64_MIN

/* Whether the entry is met; *wake is set for an after: entry that waits
 * (the time it will be met, or WAKE_AT_START) and left alone otherwise. */
static enum outcome judge(const struct ctld *c, const struct job *j,
			  const struct dep_item *it, int64_t now, int64_t *wake)
{
	int64_t since = 0;
	if (it->kind == DEP_SINGLETON)
		return singleton_free(c, j) ? OUT_MET : OUT_WAIT;
	enum target t = target_state(c, it, &since);
	if (t == TGT_GONE)
		return OUT_MET;
	switch (it->kind) {
	case DEP_AFTER:
		if (t != TGT_PENDING && now >= since + (int64_t)it->minutes * 60)
			return OUT_MET;
		*wake =
		    t == TGT_PENDING ? WAKE_AT_START : since + (int64_t)it->minutes * 60;
		return OUT_WAIT;
	case DEP_AFTERANY:
	case DEP_AFTERBURSTBUFFER:
		return t == TGT_OK || t == TGT_NOTOK ? OUT_MET : OUT_WAIT;
	case DEP_AFTEROK:
	case DEP_AFTERCORR:
		return t == TGT_OK ? OUT_MET : t == TGT_NOTOK ? OUT_FAILED : OUT_WAIT;
	case DEP_AFTERNOTOK:
		return t == TGT_NOTOK ? OUT_MET : t == TGT_OK ? OUT_FAILED : OUT_WAIT;
	case DEP_SINGLETON:
		break;
	}
	return OUT_WAIT;
}

/* Nothing but time meets a waiting after: entry, so it asks for a wake-up:
 * a scheduler pass once its target starts (depend_started), or at the
 * minutes past that start. */
static void await_time(struct ctld *c, const struct dep_item *it, int64_t wake)
{
	if (wake != WAKE_AT_START) {
		timed_sched_wake(c, wake);
		return;
	}
	struct job *d = job_table_find(&c->jobs, it->job_id);
	if (d)
		d->start_awaited = true;
}

void depend_started(struct ctld *c, struct job *j)
{
	struct job *meta = j->array_job_id && j->array_job_id != j->id
			       ? job_table_find(&c->jobs, j->array_job_id)
			       : NULL;
	bool awaited = j->start_awaited || (meta && meta->start_awaited);
	j->start_awaited = false;
	if (meta)
		meta->start_awaited = false;
	if (awaited)
		sched_request(c);
}

enum depend_verdict depend_check(struct ctld *c, struct job *j, int64_t now)
{
	struct dep_list *l = &j->req.deps;
	bool changed = false, met_one = false;
	uint32_t failed = 0;
	for (uint32_t i = 0; i < l->n;) {
		struct dep_item *it = &l->items[i];
		int64_t wake = 0;
		enum outcome o =
		    it->state == DEP_FAILED ? OUT_FAILED : judge(c, j, it, now, &wake);
		if (o == OUT_WAIT && wake)
			await_time(c, it, wake);
		if (o == OUT_MET) {
			met_one = true;
			dep_list_remove(l, i);
			changed = true;
			continue;
		}
		if (o == OUT_FAILED) {
			changed |= it->state != DEP_FAILED;
			it->state = DEP_FAILED;
			failed++;
		}
		i++;
	}
	if (l->any && met_one)
		dep_list_free(l);
	if (changed) {
		if (!l->n && !j->eligible_time && j->hold == HOLD_NONE)
			j->eligible_time =
			    now > j->req.begin_time ? now : j->req.begin_time;
		commit_job(c, j);
	}
	if (!l->n)
		return DEPEND_MET;
	return (l->any ? failed == l->n : failed > 0) ? DEPEND_NEVER : DEPEND_WAIT;
}

bool depend_kill_invalid(const struct ctld *c, const struct job *j)
{
	if (j->req.kill_invalid_dep >= 0)
		return j->req.kill_invalid_dep == 1;
	return c->conf->sched.kill_invalid_depend; /* SchedulerParameters= */
}

/* Walks the jobs l waits for, and the jobs they wait for, looking for self;
 * the walk is bounded (a list that deep is refused as circular too). */
bool depend_circular(const struct ctld *c, uint32_t self, const struct dep_list *l)
{
	enum { MAX_SEEN = 4096 };
	uint32_t *todo = malloc(MAX_SEEN * sizeof(*todo));
	size_t n = 0, seen = 0;
	bool found = false;
	if (!todo)
		return true;
	for (uint32_t i = 0; i < l->n && n < MAX_SEEN; i++)
		if (l->items[i].kind != DEP_SINGLETON)
			todo[n++] = l->items[i].job_id;
	while (n && !found) {
		uint32_t id = todo[--n];
		const struct job *d = job_table_find(&c->jobs, id);
		if (id == self || ++seen > MAX_SEEN) {
			found = true;
			break;
		}
		for (uint32_t i = 0; d && i < d->req.deps.n; i++) {
			if (d->req.deps.items[i].kind == DEP_SINGLETON)
				continue;
			if (n == MAX_SEEN) {
				found = true;
				break;
			}
			todo[n++] = d->req.deps.items[i].job_id;
		}
	}
	free(todo);
	return found;
}
