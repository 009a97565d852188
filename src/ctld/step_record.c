/* step_record.c — a job's steps as data: the list, and its JSON in the
 * job record and in the store. No I/O, nothing of ctld's loop. */
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "ctld/step_internal.h"

static const char *const dist_names[] = {"Block", "Cyclic", "Plane", "Arbitrary"};

static void step_fini(struct job_step *s)
{
	free(s->name);
	free(s->nodelist);
	free(s->tasks_per_node);
	free(s->alloc_tres);
	free(s->node_idx);
	free(s->alloc_idx);
	free(s->node_cpus);
	free(s->node_gpus);
	free(s->node_done);
	free(s->io_host);
	json_decref(s->task_ids);
}

void steps_free(struct job *j)
{
	for (uint32_t i = 0; i < j->n_steps; i++)
		step_fini(&j->steps[i]);
	free(j->steps);
	j->steps = NULL;
	j->n_steps = 0;
}

struct job_step *step_find(struct job *j, uint32_t step_id)
{
	for (uint32_t i = 0; i < j->n_steps; i++)
		if (j->steps[i].id == step_id)
			return &j->steps[i];
	return NULL;
}

struct job_step *step_append(struct job *j)
{
	struct job_step *v = realloc(j->steps, (j->n_steps + 1) * sizeof(*v));
	if (!v)
		abort();
	j->steps = v;
	struct job_step *s = &v[j->n_steps++];
	memset(s, 0, sizeof(*s));
	s->cancel_uid = (uid_t)-1;
	return s;
}

bool steps_running(const struct job *j)
{
	for (uint32_t i = 0; i < j->n_steps; i++)
		if (j->steps[i].state == JOB_RUNNING)
			return true;
	return false;
}

uint32_t step_cpus_busy(const struct job *j, uint32_t slot)
{
	uint32_t busy = 0;
	for (uint32_t i = 0; i < j->n_steps; i++) {
		const struct job_step *s = &j->steps[i];
		for (uint32_t k = 0; s->state == JOB_RUNNING && k < s->num_nodes; k++)
			if (s->alloc_idx[k] == slot)
				busy += s->node_cpus[k];
	}
	return busy;
}

uint64_t step_gpus_busy(const struct job *j, uint32_t slot)
{
	uint64_t busy = 0;
	for (uint32_t i = 0; i < j->n_steps; i++) {
		const struct job_step *s = &j->steps[i];
		for (uint32_t k = 0;
		     s->state == JOB_RUNNING && s->node_gpus && k < s->num_nodes; k++)
			if (s->alloc_idx[k] == slot)
				busy |= s->node_gpus[k];
	}
	return busy;
}

/* --- records -------------------------------------------------------------- */

/* What recovery needs to go on waiting for a running step's nodes. */
static void running_to_store(const struct job_step *s, struct drv_rec_step *r)
{
	r->node_idx = s->node_idx;
	r->alloc_idx = s->alloc_idx;
	r->node_cpus = s->node_cpus;
	r->node_gpus = (int64_t *)s->node_gpus; /* the same bits, signed on the wire */
	r->node_done = s->node_done;
	r->n_node_idx = r->n_alloc_idx = r->n_node_cpus = r->n_node_done = s->num_nodes;
	r->n_node_gpus = s->node_gpus ? s->num_nodes : 0;
	r->has_node_idx = r->has_alloc_idx = r->has_node_cpus = true;
	r->has_node_gpus = r->has_node_done = true;
	r->job_ended = s->job_ended;
	r->timed_out = s->timed_out;
	r->give_up = s->give_up;
	r->overlap = s->overlap;
	r->cancelled = s->cancelled;
}

static json_t *step_to_json(const struct job_step *s, bool store)
{
	struct drv_rec_step r = {
	    .step_id = s->id,
	    .name = s->name ? s->name : "",
	    .state = job_state_name(s->state),
	    .exit_code = s->exit_code,
	    .exit_signal = s->exit_signal,
	    .start_time = s->start_time,
	    .end_time = s->end_time,
	    .nodelist = s->nodelist ? s->nodelist : "",
	    .num_nodes = s->num_nodes,
	    .ntasks = s->ntasks,
	    .cpus = s->cpus,
	    .cancel_uid = s->cancel_uid == (uid_t)-1 ? -1 : (int64_t)s->cancel_uid,
	    .alloc_tres = s->alloc_tres ? s->alloc_tres : "",
	    .tasks_per_node = s->tasks_per_node ? s->tasks_per_node : "",
	    .distribution = dist_names[s->dist],
	};
	usage_to_step(&s->usage, &r);
	if (store && s->state == JOB_RUNNING && s->alloc_idx)
		running_to_store(s, &r);
	return drv_shape_encode(&drv_shape_rec_step, &r,
				store ? 0 : DRV_ENC_EXCEPT | DRV_FL_PRIVATE);
}

json_t *steps_to_json(const struct job *j, bool store)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < j->n_steps; i++)
		json_array_append_new(a, step_to_json(&j->steps[i], store));
	return a;
}

/* n values from v (nv of them; the rest 0). */
static void *copy_of(const void *v, size_t nv, size_t n, size_t size)
{
	void *out = calloc(n ? n : 1, size);
	if (!out)
		abort();
	if (v)
		memcpy(out, v, (nv < n ? nv : n) * size);
	return out;
}

static void running_from_store(struct job_step *s, const struct drv_rec_step *r)
{
	uint32_t n = s->num_nodes;
	s->alloc_idx = copy_of(r->alloc_idx, n, n, sizeof(uint32_t));
	s->node_idx = copy_of(r->node_idx, n, n, sizeof(uint32_t));
	s->node_cpus = copy_of(r->node_cpus, r->n_node_cpus, n, sizeof(uint32_t));
	s->node_gpus = copy_of(r->node_gpus, r->n_node_gpus, n, sizeof(uint64_t));
	s->node_done = copy_of(r->node_done, r->n_node_done, n, sizeof(bool));
	s->job_ended = r->job_ended;
	s->timed_out = r->timed_out;
	s->give_up = r->give_up;
}

static void step_from_store(struct job_step *s, const struct drv_rec_step *r,
			    enum job_state state)
{
	s->id = r->step_id;
	s->state = state;
	s->name = drv_strdup_or_null(r->name);
	s->nodelist = drv_strdup_or_null(r->nodelist);
	s->tasks_per_node = drv_strdup_or_null(r->tasks_per_node);
	s->alloc_tres = drv_strdup_or_null(r->alloc_tres);
	s->start_time = r->start_time;
	s->end_time = r->end_time;
	s->exit_code = r->exit_code;
	s->exit_signal = r->exit_signal;
	s->num_nodes = r->num_nodes;
	s->ntasks = r->ntasks;
	s->cpus = r->cpus;
	s->cancel_uid = (uid_t)r->cancel_uid;
	for (int d = 0; r->distribution && d < 4; d++)
		if (!strcmp(r->distribution, dist_names[d]))
			s->dist = (enum step_dist)d;
	s->overlap = r->overlap;
	s->cancelled = r->cancelled;
	usage_from_step(&s->usage, r);
	if (state == JOB_RUNNING && r->n_alloc_idx == s->num_nodes &&
	    r->n_node_idx == s->num_nodes)
		running_from_store(s, r);
	else if (state == JOB_RUNNING)
		s->num_nodes = 0; /* nothing to wait for: the job's end ends it */
}

void steps_from_store(struct job *j, const struct drv_rec_step *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int state = job_state_parse(v[i].state);
		if (state >= 0)
			step_from_store(step_append(j), &v[i], (enum job_state)state);
	}
}
