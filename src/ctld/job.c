/* job.c — job records: the table (hash by id + id-ordered list) and their
 * JSON encodings for clients and for the store. No state transitions here. */
#include "ctld/job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "ctld/job_req.h"
#include "ctld/step.h"

static const struct {
	const char *name, *compact;
} state_names[JOB_STATE_COUNT] = {
    [JOB_PENDING] = {"PENDING", "PD"},	   [JOB_RUNNING] = {"RUNNING", "R"},
    [JOB_COMPLETED] = {"COMPLETED", "CD"}, [JOB_FAILED] = {"FAILED", "F"},
    [JOB_CANCELLED] = {"CANCELLED", "CA"}, [JOB_TIMEOUT] = {"TIMEOUT", "TO"},
    [JOB_NODE_FAIL] = {"NODE_FAIL", "NF"}, [JOB_DEADLINE] = {"DEADLINE", "DL"},
    [JOB_REQUEUED] = {"REQUEUED", "RQ"},   [JOB_OUT_OF_MEMORY] = {"OUT_OF_MEMORY", "OOM"},
};

const char *job_state_name(enum job_state s)
{
	return s < JOB_STATE_COUNT ? state_names[s].name : "UNKNOWN";
}

const char *job_shown_state(const struct job *j)
{
	/* (a requeued job whose run is still being killed too, as Slurm) */
	return j->completing ? "COMPLETING" : job_record_state(j);
}

const char *job_record_state(const struct job *j)
{
	return j->state == JOB_RUNNING && j->suspended ? "SUSPENDED"
						       : job_state_name(j->state);
}

bool job_state_final(enum job_state s)
{
	return s != JOB_PENDING && s != JOB_RUNNING;
}

int job_state_parse(const char *name)
{
	for (int s = 0; s < JOB_STATE_COUNT; s++)
		if (!strcasecmp(name, state_names[s].name) ||
		    !strcasecmp(name, state_names[s].compact))
			return s;
	return -1;
}

struct job *job_new(void)
{
	struct job *j = calloc(1, sizeof(*j));
	if (j) {
		j->reason = "None";
		j->array_task_id = -1;
	}
	return j;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	char **strs[] = {&j->name,	  &j->user,	      &j->partition,
			 &j->workdir,	  &j->submit_dir,     &j->stdout_pat,
			 &j->stderr_pat,  &j->comment,	      &j->submit_host,
			 &j->command,	  &j->export_env,     &j->nodelist,
			 &j->batch_host,  &j->tasks_per_node, &j->cpus_per_node,
			 &j->alloc_gpus,  &j->req_tres,	      &j->alloc_tres,
			 &j->reason_desc, &j->array_task_str, &j->plan_nodes};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	job_req_free(&j->req);
	steps_free(j);
	if (j->array)
		drv_array_fini(j->array);
	free(j->array);
	job_alloc_clear(j);
	free(j);
}

void job_alloc_clear(struct job *j)
{
	for (uint32_t i = 0; i < j->n_alloc; i++)
		free(j->alloc[i].cpu_ids);
	free(j->alloc);
	j->alloc = NULL;
	j->n_alloc = 0;
}

/* --- the table ------------------------------------------------------------ */

int job_table_init(struct job_table *t)
{
	memset(t, 0, sizeof(*t));
	t->n_buckets = 1024;
	t->buckets = calloc(t->n_buckets, sizeof(*t->buckets));
	t->next_id = 1;
	return t->buckets ? 0 : -ENOMEM;
}

void job_table_fini(struct job_table *t)
{
	struct job *j = t->head;
	while (j) {
		struct job *next = j->next;
		job_free(j);
		j = next;
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

static void rehash(struct job_table *t)
{
	size_t n = t->n_buckets * 2;
	struct job **b = calloc(n, sizeof(*b));
	if (!b)
		return; /* keep the old size: slower, still correct */
	for (struct job *j = t->head; j; j = j->next) {
		j->hnext = b[j->id & (n - 1)];
		b[j->id & (n - 1)] = j;
	}
	free(t->buckets);
	t->buckets = b;
	t->n_buckets = n;
}

struct job *job_table_find(const struct job_table *t, uint32_t id)
{
	for (struct job *j = t->buckets[id & (t->n_buckets - 1)]; j; j = j->hnext)
		if (j->id == id)
			return j;
	return NULL;
}

void job_table_add(struct job_table *t, struct job *j)
{
	if (t->count >= t->n_buckets)
		rehash(t);
	struct job **b = &t->buckets[j->id & (t->n_buckets - 1)];
	j->hnext = *b;
	*b = j;
	j->prev = t->tail;
	j->next = NULL;
	if (t->tail)
		t->tail->next = j;
	else
		t->head = j;
	t->tail = j;
	t->count++;
	t->tasks += job_weight(j);
}

uint32_t job_weight(const struct job *j)
{
	return j->array && j->array->count > 1 ? j->array->count : 1;
}

void job_table_remove(struct job_table *t, struct job *j)
{
	struct job **b = &t->buckets[j->id & (t->n_buckets - 1)];
	while (*b && *b != j)
		b = &(*b)->hnext;
	if (*b)
		*b = j->hnext;
	if (j->prev)
		j->prev->next = j->next;
	else
		t->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		t->tail = j->prev;
	t->count--;
	t->tasks -= job_weight(j);
}
