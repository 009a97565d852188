/* sched.c — the scheduling pass: priority order, strict per partition,
 * placement by place.c. Pure: touches only the snapshot it is given. */
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
		for (uint32_t i = 0; in->jobs[j].req && i < in->jobs[j].req->n_req_nodes;
		     i++)
			if (in->jobs[j].req->req_nodes[i] >= in->n_nodes)
				return -EINVAL;
	for (size_t i = 0; i < in->n_nodes; i++)
		if (in->nodes[i].n_gpus > SCHED_MAX_GPUS ||
		    in->nodes[i].cpus_used > in->nodes[i].cpus_total)
			return -EINVAL;
	for (size_t j = 0; j < in->n_jobs; j++)
		if (in->jobs[j].part >= in->n_parts || !in->jobs[j].req)
			return -EINVAL;
	return 0;
}

static bool req_node_down(const struct sched_node *nodes, const struct sched_req *r)
{
	for (uint32_t i = 0; i < r->n_req_nodes; i++)
		if (!nodes[r->req_nodes[i]].up)
			return true;
	return false;
}

int sched_run(struct sched_input *in, struct sched_alloc *alloc, size_t alloc_cap)
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
		uint32_t n = 0;
		if (!part->up)
			job->verdict = SCHED_WAIT_PART_DOWN;
		else if (blocked[job->part])
			job->verdict = SCHED_WAIT_PRIORITY;
		else if (sched_place(in->nodes, part, job->req, alloc + used,
				     alloc_cap - used, &n) == 0) {
			job->verdict = SCHED_START;
			job->alloc_off = (uint32_t)used;
			job->alloc_n = n;
			used += n;
			started++;
		} else if (sched_fits_config(in->nodes, in->n_nodes, part, job->req) <
			   0) {
			job->verdict = SCHED_WAIT_NODE_CONFIG;
		} else if (req_node_down(in->nodes, job->req)) {
			/* Slurm's ReqNodeNotAvail: it waits for an admin, so it
			 * holds no one else up. */
			job->verdict = SCHED_WAIT_REQ_NODE;
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
	case SCHED_WAIT_REQ_NODE:
		return "ReqNodeNotAvail";
	case SCHED_START:
		return "None";
	}
	return "None";
}
