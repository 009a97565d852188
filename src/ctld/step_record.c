/* step_record.c — a job's steps as data: the list, and its JSON in the
 * job record and in the store. No I/O, nothing of ctld's loop. */
#include <stdlib.h>
#include <string.h>

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

static json_t *u32_array(const uint32_t *v, uint32_t n)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *step_to_json(const struct job_step *s, bool store)
{
	json_t *o = json_pack(
	    "{s:I,s:s,s:s,s:i,s:i,s:I,s:I,s:s,s:I,s:I,s:I,s:I,s:s,s:s,s:s}", "step_id",
	    (json_int_t)s->id, "name", s->name ? s->name : "", "state",
	    job_state_name(s->state), "exit_code", s->exit_code, "exit_signal",
	    s->exit_signal, "start_time", (json_int_t)s->start_time, "end_time",
	    (json_int_t)s->end_time, "nodelist", s->nodelist ? s->nodelist : "",
	    "num_nodes", (json_int_t)s->num_nodes, "ntasks", (json_int_t)s->ntasks,
	    "cpus", (json_int_t)s->cpus, "cancel_uid",
	    s->cancel_uid == (uid_t)-1 ? (json_int_t)-1 : (json_int_t)s->cancel_uid,
	    "alloc_tres", s->alloc_tres ? s->alloc_tres : "", "tasks_per_node",
	    s->tasks_per_node ? s->tasks_per_node : "", "distribution",
	    dist_names[s->dist]);
	usage_set_fields(&s->usage, o, store);
	if (store && s->state == JOB_RUNNING && s->alloc_idx) {
		json_object_set_new(o, "node_idx", u32_array(s->node_idx, s->num_nodes));
		json_object_set_new(o, "alloc_idx",
				    u32_array(s->alloc_idx, s->num_nodes));
		json_object_set_new(o, "job_ended", json_boolean(s->job_ended));
		json_object_set_new(o, "timed_out", json_boolean(s->timed_out));
		json_object_set_new(o, "give_up", json_integer(s->give_up));
		json_object_set_new(o, "node_cpus",
				    u32_array(s->node_cpus, s->num_nodes));
		json_t *gpus = json_array();
		for (uint32_t k = 0; s->node_gpus && k < s->num_nodes; k++)
			json_array_append_new(gpus,
					      json_integer((json_int_t)s->node_gpus[k]));
		json_object_set_new(o, "node_gpus", gpus);
		json_t *done = json_array();
		for (uint32_t k = 0; k < s->num_nodes; k++)
			json_array_append_new(done, json_boolean(s->node_done[k]));
		json_object_set_new(o, "node_done", done);
		json_object_set_new(o, "overlap", json_boolean(s->overlap));
		json_object_set_new(o, "cancelled", json_boolean(s->cancelled));
	}
	return o;
}

json_t *steps_to_json(const struct job *j, bool store)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < j->n_steps; i++)
		json_array_append_new(a, step_to_json(&j->steps[i], store));
	return a;
}

static char *dup_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? strdup(s) : NULL;
}

static uint32_t *u32_from(json_t *a, uint32_t n)
{
	uint32_t *v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		abort();
	for (uint32_t k = 0; k < n; k++)
		v[k] = (uint32_t)json_integer_value(json_array_get(a, k));
	return v;
}

void steps_from_json(struct job *j, json_t *arr)
{
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o)
	{
		int state =
		    job_state_parse(json_string_value(json_object_get(o, "state")) ?: "");
		if (state < 0)
			continue;
		struct job_step *s = step_append(j);
		s->id = (uint32_t)json_integer_value(json_object_get(o, "step_id"));
		s->state = (enum job_state)state;
		s->name = dup_str(o, "name");
		s->nodelist = dup_str(o, "nodelist");
		s->tasks_per_node = dup_str(o, "tasks_per_node");
		s->alloc_tres = dup_str(o, "alloc_tres");
		s->start_time = json_integer_value(json_object_get(o, "start_time"));
		s->end_time = json_integer_value(json_object_get(o, "end_time"));
		s->exit_code = (int)json_integer_value(json_object_get(o, "exit_code"));
		s->exit_signal =
		    (int)json_integer_value(json_object_get(o, "exit_signal"));
		s->num_nodes =
		    (uint32_t)json_integer_value(json_object_get(o, "num_nodes"));
		s->ntasks = (uint32_t)json_integer_value(json_object_get(o, "ntasks"));
		s->cpus = (uint32_t)json_integer_value(json_object_get(o, "cpus"));
		s->cancel_uid =
		    (uid_t)json_integer_value(json_object_get(o, "cancel_uid"));
		const char *dist = json_string_value(json_object_get(o, "distribution"));
		for (int d = 0; dist && d < 4; d++)
			if (!strcmp(dist, dist_names[d]))
				s->dist = (enum step_dist)d;
		s->overlap = json_is_true(json_object_get(o, "overlap"));
		s->cancelled = json_is_true(json_object_get(o, "cancelled"));
		usage_from_json(&s->usage, o);
		json_t *idx = json_object_get(o, "alloc_idx");
		json_t *nidx = json_object_get(o, "node_idx");
		if (s->state == JOB_RUNNING && json_array_size(idx) == s->num_nodes &&
		    json_array_size(nidx) == s->num_nodes) {
			s->alloc_idx = u32_from(idx, s->num_nodes);
			s->node_idx = u32_from(nidx, s->num_nodes);
			s->job_ended = json_is_true(json_object_get(o, "job_ended"));
			s->timed_out = json_is_true(json_object_get(o, "timed_out"));
			s->give_up = json_integer_value(json_object_get(o, "give_up"));
			s->node_cpus =
			    u32_from(json_object_get(o, "node_cpus"), s->num_nodes);
			s->node_gpus =
			    calloc(s->num_nodes ? s->num_nodes : 1, sizeof(uint64_t));
			if (!s->node_gpus)
				abort();
			for (uint32_t k = 0; k < s->num_nodes; k++)
				s->node_gpus[k] = (uint64_t)json_integer_value(
				    json_array_get(json_object_get(o, "node_gpus"), k));
			s->node_done =
			    calloc(s->num_nodes ? s->num_nodes : 1, sizeof(bool));
			if (!s->node_done)
				abort();
			json_t *done = json_object_get(o, "node_done");
			for (uint32_t k = 0; k < s->num_nodes; k++)
				s->node_done[k] = json_is_true(json_array_get(done, k));
		} else if (s->state == JOB_RUNNING) {
			s->num_nodes = 0; /* nothing to wait for: the job's end ends it */
		}
	}
}
