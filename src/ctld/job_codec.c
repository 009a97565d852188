/* job_codec.c — a job as JSON: the store record recovery reads back, which
 * is the protocol's job record (job_fields.c) with the fields records.schema
 * flags "stored private". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/cpuset.h"
#include "common/hostlist.h"
#include "ctld/ctld.h"
#include "ctld/job.h"
#include "ctld/step.h"
#include "ctld/job_fields.h"
#include "ctld/job_req.h"
#include "ctld/job_tres.h"

/* The record's value of field i (a declared name) set to v. */
static void set_field(json_t *r, unsigned i, json_t *v)
{
	json_object_set_new(r, drv_shape_rec_job.fields[i].name, v);
}

/* The store's own fields (those flagged private) of j into s; returns the
 * allocation entries s borrows (the caller frees them). */
static struct drv_rec_job_alloc *
store_fields(const struct job *j, char *const *node_names, struct drv_rec_job *s)
{
	s->submit_dir = j->submit_dir ? j->submit_dir : j->workdir ? j->workdir : "";
	s->export = j->export_env;
	s->launch_acked = j->launch_acked;
	s->completing = j->completing;
	s->prolog_pending = j->prolog_pending;
	struct drv_rec_job_alloc *alloc =
	    calloc(j->n_alloc ? j->n_alloc : 1, sizeof(*alloc));
	for (uint32_t i = 0; alloc && node_names && i < j->n_alloc; i++) {
		const struct job_alloc *a = &j->alloc[i];
		alloc[i] = (struct drv_rec_job_alloc){
		    node_names[a->node], a->cpus, a->tasks, a->mem,
		    (int64_t)a->gpus,	 NULL};
		if (a->cpu_ids) {
			size_t len = drv_cpuset_format(a->cpu_ids, a->cpu_bits, NULL, 0);
			char *text = malloc(len + 1);
			if (!text)
				abort();
			drv_cpuset_format(a->cpu_ids, a->cpu_bits, text, len + 1);
			alloc[i].cpu_ids = text; /* freed by free_alloc */
		}
		s->n_alloc++;
	}
	s->alloc = alloc;
	s->alloc_cpus_total = j->alloc_cpus_total;
	/* the record shows 0 while held; recovery needs the real one */
	s->base_priority = (int64_t)j->priority;
	s->has_base_priority = true;
	s->priority_set = j->priority_set;
	s->next_step_id = j->next_step_id;
	return alloc;
}

static void free_alloc(struct drv_rec_job_alloc *alloc, size_t n)
{
	for (size_t i = 0; alloc && i < n; i++)
		free((char *)alloc[i].cpu_ids);
	free(alloc);
}

json_t *job_to_store(const struct job *j, char *const *node_names)
{
	json_t *r = job_to_record(j);
	struct drv_rec_job s = {0};
	struct drv_rec_job_alloc *alloc = store_fields(j, node_names, &s);
	char *pending = job_array_to_store(j, &s);
	json_t *extra = drv_shape_encode(&drv_shape_rec_job, &s, DRV_FL_PRIVATE);
	json_object_update(r, extra);
	json_decref(extra);
	free(pending);
	free_alloc(alloc, s.n_alloc);
	set_field(r, DRV_REC_JOB__REQ, job_req_to_json(&j->req));
	set_field(r, DRV_REC_JOB__STEPS, steps_to_json(j, true));
	return r;
}

static void decode_strings(struct job *j, const struct drv_rec_job *r)
{
	j->name = drv_strdup_or_null(r->name);
	j->user = drv_strdup_or_null(r->user);
	j->partition = drv_strdup_or_null(r->partition);
	j->workdir = drv_strdup_or_null(r->workdir);
	j->submit_dir = drv_strdup_or_null(r->submit_dir);
	j->stdout_pat = drv_strdup_or_null(r->stdout);
	j->stderr_pat = drv_strdup_or_null(r->stderr);
	j->comment = drv_strdup_or_null(r->comment);
	j->submit_host = drv_strdup_or_null(r->submit_host);
	j->command = drv_strdup_or_null(r->command);
	j->export_env = drv_strdup_or_null(r->export);
	j->nodelist = drv_strdup_or_null(r->nodelist);
	j->batch_host = drv_strdup_or_null(r->batch_host);
	j->tasks_per_node = drv_strdup_or_null(r->tasks_per_node);
	j->cpus_per_node = drv_strdup_or_null(r->cpus_per_node);
	j->alloc_gpus = drv_strdup_or_null(r->alloc_gpus);
	j->req_tres = drv_strdup_or_null(r->req_tres);
	j->alloc_tres = drv_strdup_or_null(r->alloc_tres);
}

static void decode_numbers(struct job *j, const struct drv_rec_job *r)
{
	j->id = r->job_id;
	j->uid = (uid_t)r->uid;
	j->gid = (gid_t)r->gid;
	j->num_nodes = r->num_nodes;
	j->time_limit = r->time_limit;
	j->submit_time = r->submit_time;
	j->eligible_time = r->eligible_time;
	/* a pending job's record shows its begin time as start_time */
	j->start_time = j->state == JOB_PENDING ? 0 : r->start_time;
	j->end_time = r->end_time;
	j->exit_code = r->exit_code;
	j->exit_signal = r->exit_signal;
	j->priority = (uint64_t)(r->has_base_priority ? r->base_priority : r->priority);
	j->priority_set = r->priority_set;
	j->restart_count = r->restart_count;
	j->cancel_uid = (uid_t)r->cancel_uid;
	j->alloc_cpus_total = r->alloc_cpus_total;
	j->next_step_id = r->next_step_id;
	j->suspend_time = r->suspend_time;
	j->pre_sus_time = r->pre_sus_time;
	j->suspended_secs = r->suspended_secs;
}

struct job *job_from_store(const struct drv_rec_job *r)
{
	/* a suspended job is a RUNNING one that is frozen (job_suspend.c) */
	bool suspended = !strcmp(r->state, "SUSPENDED");
	int state = suspended ? JOB_RUNNING : job_state_parse(r->state);
	if (state < 0 || !r->has_req)
		return NULL;
	struct job *j = job_new();
	if (!j)
		return NULL;
	j->state = (enum job_state)state;
	j->suspended = suspended;
	decode_strings(j, r);
	decode_numbers(j, r);
	j->hold = !r->hold		      ? HOLD_NONE
		  : !strcmp(r->hold, "admin") ? HOLD_ADMIN
					      : HOLD_USER;
	j->launch_acked = r->launch_acked;
	j->completing = r->completing;
	j->prolog_pending = r->prolog_pending;
	if (job_req_from_rec(&j->req, &r->req) < 0 || job_array_from_store(j, r) < 0) {
		job_free(j);
		return NULL;
	}
	j->req.licenses = drv_strdup_or_null(r->licenses); /* resolved when needed */
	j->interactive = r->interactive;
	steps_from_store(j, r->steps, r->n_steps);
	usage_from_total(&j->batch_usage, r->has_batch_usage ? &r->batch_usage : NULL);
	if (!j->req_tres) /* a record from before ReqTRES was kept */
		j->req_tres = job_tres_requested(j);
	return j;
}
