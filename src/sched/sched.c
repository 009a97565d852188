/* sched.c — priority order, strict per partition, whole free nodes.
 * Pure: touches only the snapshot it is given. */
#include "sched/sched.h"

#include <errno.h>
#include <stdlib.h>

static int by_priority(const void *a, const void *b)
{
	const struct sched_job *x = a, *y = b;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : (x->job_id > y->job_id);
}

static int check_snapshot(const struct sched_input *in)
{
	for (size_t p = 0; p < in->n_parts; p++)
		for (uint32_t i = 0; i < in->parts[p].n_nodes; i++)
			if (in->parts[p].nodes[i] >= in->n_nodes)
				return -EINVAL;
	for (size_t j = 0; j < in->n_jobs; j++)
		if (in->jobs[j].part >= in->n_parts)
			return -EINVAL;
	return 0;
}

/* Picks the first num_nodes free nodes of part, in config order. */
static bool try_place(struct sched_input *in, const struct sched_part *part,
		      struct sched_job *job, uint32_t *alloc, size_t cap, size_t *used)
{
	uint32_t found = 0;
	for (uint32_t i = 0; i < part->n_nodes && found < job->num_nodes; i++)
		if (in->nodes[part->nodes[i]].free)
			found++;
	if (found < job->num_nodes || *used + job->num_nodes > cap)
		return false;
	job->alloc_off = (uint32_t)*used;
	for (uint32_t i = 0, n = 0; i < part->n_nodes && n < job->num_nodes; i++) {
		uint32_t idx = part->nodes[i];
		if (!in->nodes[idx].free)
			continue;
		in->nodes[idx].free = false;
		alloc[(*used)++] = idx;
		n++;
	}
	return true;
}

int sched_run(struct sched_input *in, uint32_t *alloc, size_t alloc_cap)
{
	if (check_snapshot(in) < 0)
		return -EINVAL;
	bool *blocked = calloc(in->n_parts ? in->n_parts : 1, sizeof(*blocked));
	if (!blocked)
		return -ENOMEM;
	qsort(in->jobs, in->n_jobs, sizeof(*in->jobs), by_priority);
	size_t used = 0;
	int started = 0;
	for (size_t j = 0; j < in->n_jobs; j++) {
		struct sched_job *job = &in->jobs[j];
		const struct sched_part *part = &in->parts[job->part];
		if (!part->up)
			job->verdict = SCHED_WAIT_PART_DOWN;
		else if (job->num_nodes == 0 || job->num_nodes > part->n_nodes)
			job->verdict = SCHED_WAIT_NODE_CONFIG;
		else if (blocked[job->part])
			job->verdict = SCHED_WAIT_PRIORITY;
		else if (try_place(in, part, job, alloc, alloc_cap, &used)) {
			job->verdict = SCHED_START;
			started++;
		} else {
			job->verdict = SCHED_WAIT_RESOURCES;
			blocked[job->part] = true;
		}
	}
	free(blocked);
	return started;
}

const char *sched_verdict_reason(enum sched_verdict v)
{
	switch (v) {
	case SCHED_WAIT_PRIORITY:
		return "Priority";
	case SCHED_WAIT_RESOURCES:
		return "Resources";
	case SCHED_WAIT_PART_DOWN:
		return "PartitionDown";
	case SCHED_WAIT_NODE_CONFIG:
		return "PartitionNodeLimit";
	case SCHED_START:
		return "None";
	}
	return "None";
}
