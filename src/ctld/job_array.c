/* job_array.c — job arrays in ctld. A submitted array is one meta record
 * whose pending tasks are a bitmap (a pending array of 100,000 tasks is one
 * record of about 12 KiB); a task becomes a record of its own, with a new
 * job id, only when the scheduler starts it, and the meta record becomes
 * the last task, as in Slurm. This file owns the array fields of struct
 * job; state transitions stay in job_state.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"

/* The record's view of the pending set: a range string while several wait,
 * the single task's id while one does (Slurm shows "123_7" then). */
void job_array_refresh(struct job *j)
{
	if (!j->array)
		return;
	free(j->array_task_str);
	j->array_task_str = NULL;
	if (j->array->count == 1) {
		j->array_task_id = drv_array_first(j->array);
		return;
	}
	j->array_task_id = -1;
	j->array_task_str = drv_array_format(j->array, j->array_max_tasks);
	if (!j->array_task_str)
		abort();
}

int job_array_init(struct job *j, const char *spec, uint32_t max_size)
{
	struct drv_array *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	int rc = drv_array_parse(spec, max_size, a);
	if (rc < 0) {
		free(a);
		return rc;
	}
	j->array = a;
	j->array_max_tasks = a->throttle;
	j->array_count = a->count;
	j->array_min = a->min;
	j->array_max = a->max;
	j->array_step = a->step;
	job_array_refresh(j);
	return 0;
}

uint32_t job_array_running(const struct ctld *c, const struct job *meta)
{
	uint32_t n = 0;
	/* tasks are issued their ids after their array's, so in the table's
	 * order (the order ids were issued) they all follow it */
	for (const struct job *t = meta->next; t; t = t->next)
		if (t->array_job_id == meta->id &&
		    (t->state == JOB_RUNNING || t->completing))
			n++;
	return n;
}

uint32_t job_array_room(const struct ctld *c, const struct job *meta)
{
	uint32_t pending = meta->array ? meta->array->count : 0;
	if (!meta->array_max_tasks)
		return pending;
	uint32_t running = job_array_running(c, meta);
	uint32_t room =
	    running < meta->array_max_tasks ? meta->array_max_tasks - running : 0;
	return room < pending ? room : pending;
}

/* A deep copy of meta as a new record (through its store encoding, which
 * carries every field), with no pending set of its own. */
static struct job *copy_task(const struct job *meta)
{
	json_t *rec = job_to_store(meta, NULL);
	struct drv_rec_job r;
	struct drv_error err;
	struct job *t = NULL;
	if (drv_rec_job_decode(rec, &r, &err) == 0) {
		r.array_pending = NULL; /* the pending set stays the meta job's */
		t = job_from_store(&r);
		drv_rec_job_free(&r);
	}
	json_decref(rec);
	if (!t)
		abort(); /* our own record: only ENOMEM can fail it */
	return t;
}

struct job *job_array_split(struct ctld *c, struct job *meta)
{
	int64_t task = drv_array_first(meta->array);
	if (meta->array->count <= 1) {
		/* the last task runs as the meta record, with the array's id */
		drv_array_fini(meta->array);
		free(meta->array);
		meta->array = NULL;
		free(meta->array_task_str);
		meta->array_task_str = NULL;
		meta->array_task_id = task;
		commit_job(c, meta);
		return meta;
	}
	uint32_t id;
	if (ctld_job_id_new(c, &id) < 0)
		return NULL; /* the task waits for an id to come free */
	struct job *t = copy_task(meta);
	t->id = id;
	commit_meta(c);
	t->array_task_id = task;
	free(t->array_task_str);
	t->array_task_str = NULL;
	drv_array_clear(meta->array, (uint32_t)task);
	c->jobs.tasks--; /* the task moves to t's record, added below */
	job_array_refresh(meta);
	job_table_add(&c->jobs, t);
	commit_job(c, t);
	commit_job(c, meta);
	log_info("job=%u is task %lld of array %u", t->id, (long long)task, meta->id);
	return t;
}

bool job_array_has_task(const struct job *j, uint32_t array_id,
			const struct drv_array *set)
{
	if (j->array_job_id != array_id)
		return false;
	return j->array_task_id >= 0 && drv_array_test(set, (uint32_t)j->array_task_id);
}

struct job *job_array_split_set(struct ctld *c, struct job *meta,
				const struct drv_array *set, uint32_t *taken)
{
	*taken = 0;
	if (!meta->array || meta->state != JOB_PENDING)
		return NULL;
	struct drv_array hit;
	uint32_t weight = job_weight(meta);
	if (drv_array_take(meta->array, set, &hit) < 0)
		abort(); /* a bitmap of meta's size: only ENOMEM fails it */
	*taken = hit.count;
	/* the tasks taken leave meta's count; t's record, when added, brings
	 * them back (or meta keeps them all, below) */
	c->jobs.tasks -= weight - (meta->array->count ? job_weight(meta) : 0);
	if (hit.count == 0) {
		drv_array_fini(&hit);
		return NULL;
	}
	if (meta->array->count == 0) { /* every pending one: meta is the record */
		drv_array_fini(meta->array);
		*meta->array = hit;
		c->jobs.tasks += job_weight(meta);
		job_array_refresh(meta);
		return meta;
	}
	uint32_t id;
	if (ctld_job_id_new(c, &id) < 0) { /* they go unrecorded, as in Slurm 22.05 */
		drv_array_fini(&hit);
		job_array_refresh(meta);
		commit_job(c, meta);
		return NULL;
	}
	struct job *t = copy_task(meta);
	t->id = id;
	commit_meta(c);
	if (!(t->array = malloc(sizeof(*t->array))))
		abort();
	*t->array = hit;
	job_array_refresh(t);
	job_array_refresh(meta);
	job_table_add(&c->jobs, t);
	commit_job(c, t);
	commit_job(c, meta);
	log_info("job=%u holds %u pending tasks of array %u", t->id, t->array->count,
		 meta->id);
	return t;
}

void job_array_summary(const struct ctld *c, uint32_t array_id,
		       struct job_array_summary *out)
{
	memset(out, 0, sizeof(*out));
	const struct job *meta = job_table_find(&c->jobs, array_id);
	if (!meta || meta->array_job_id != array_id)
		return;
	out->found = true;
	for (const struct job *t = meta; t; t = t->next) {
		if (t->array_job_id != array_id)
			continue;
		if (t->array && t->state == JOB_PENDING) /* the meta record */
			out->pending += t->array->count;
		else if (t->state == JOB_PENDING)
			out->pending++;
		else if (t->state == JOB_RUNNING || t->completing)
			out->running++;
		else if (t->state == JOB_COMPLETED)
			out->completed++;
		else
			out->failed++;
	}
}

/* --- the store's encoding ---------------------------------------------- */

char *job_array_to_store(const struct job *j, struct drv_rec_job *r)
{
	if (!j->array_job_id)
		return NULL;
	r->array_count = j->array_count;
	r->array_min = j->array_min;
	r->array_max = j->array_max;
	r->array_step = j->array_step;
	if (!j->array)
		return NULL;
	char *s = drv_array_format(j->array, 0);
	r->array_pending = s ? s : "";
	return s;
}

int job_array_from_store(struct job *j, const struct drv_rec_job *r)
{
	j->array_job_id = r->array_job_id;
	j->array_task_id = r->array_task_id;
	j->array_task_str = r->array_task_str ? strdup(r->array_task_str) : NULL;
	j->array_max_tasks = r->array_max_tasks;
	j->array_count = r->array_count;
	j->array_min = r->array_min;
	j->array_max = r->array_max;
	j->array_step = r->array_step;
	if (!r->array_pending || !*r->array_pending)
		return 0;
	j->array = calloc(1, sizeof(*j->array));
	if (!j->array || drv_array_parse(r->array_pending, 0, j->array) < 0) {
		free(j->array);
		j->array = NULL;
		return -EINVAL;
	}
	return 0;
}
