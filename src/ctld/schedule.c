/* schedule.c — glue between ctld's tables and the pure scheduler: builds the
 * snapshot, calls sched_run(), applies the verdicts. Runs at the end of any
 * turn that asked for it (submit, end, node up, release, resume) and on the
 * periodic tick. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "sched/sched.h"

static void run(evutil_socket_t fd, short what, void *arg);

void sched_init(struct ctld *c)
{
	c->sched_ev = event_new(c->base, -1, 0, run, c);
	event_priority_set(c->sched_ev, PRIO_SCHED);
}

void sched_request(struct ctld *c)
{
	if (c->sched_ev && !event_pending(c->sched_ev, EV_TIMEOUT, NULL))
		event_active(c->sched_ev, EV_TIMEOUT, 0);
}

static int part_index(const struct ctld *c, const char *name)
{
	for (size_t i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].conf->name, name))
			return (int)i;
	return -1;
}

/* The pending jobs the scheduler may consider; held ones keep their reason. */
static size_t collect_jobs(struct ctld *c, struct sched_job *out, struct job **map)
{
	size_t n = 0;
	for (struct job *j = c->jobs.head; j; j = j->next) {
		if (j->state != JOB_PENDING || j->hold != HOLD_NONE)
			continue;
		int p = part_index(c, j->partition);
		if (p < 0) {
			j->reason = "PartitionDown";
			continue;
		}
		out[n] = (struct sched_job){.job_id = j->id,
					    .priority = j->priority,
					    .part = (uint32_t)p,
					    .num_nodes = j->num_nodes};
		map[n++] = j;
	}
	return n;
}

static struct job *map_find(struct job **map, size_t n, uint32_t id)
{
	/* map is in id order: binary search */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (map[mid]->id == id)
			return map[mid];
		if (map[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void apply(struct ctld *c, struct sched_input *in, const uint32_t *alloc,
		  struct job **map, size_t n)
{
	int64_t now = time(NULL);
	for (size_t i = 0; i < in->n_jobs; i++) {
		struct sched_job *sj = &in->jobs[i];
		struct job *j = map_find(map, n, sj->job_id);
		if (!j)
			continue;
		if (sj->verdict == SCHED_START)
			job_start(c, j, &alloc[sj->alloc_off], sj->num_nodes, now);
		else
			job_set_reason(j, sched_verdict_reason(sj->verdict));
	}
}

static void run(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	size_t cap = c->jobs.count ? c->jobs.count : 1;
	struct sched_job *jobs = calloc(cap, sizeof(*jobs));
	struct job **map = calloc(cap, sizeof(*map));
	struct sched_node *nodes = calloc(c->nodes.n ? c->nodes.n : 1, sizeof(*nodes));
	struct sched_part *parts = calloc(c->n_parts ? c->n_parts : 1, sizeof(*parts));
	uint32_t *alloc = calloc(c->nodes.n ? c->nodes.n : 1, sizeof(*alloc));
	if (!jobs || !map || !nodes || !parts || !alloc)
		goto out;
	size_t n = collect_jobs(c, jobs, map);
	for (size_t i = 0; i < c->nodes.n; i++)
		nodes[i].free = node_usable(&c->nodes.nodes[i]) && !c->nodes.nodes[i].job;
	for (size_t i = 0; i < c->n_parts; i++)
		parts[i] = (struct sched_part){c->parts[i].node_idx, c->parts[i].n_nodes,
					       c->parts[i].up};
	struct sched_input in = {nodes, c->nodes.n, parts, c->n_parts, jobs, n};
	if (n && sched_run(&in, alloc, c->nodes.n) >= 0)
		apply(c, &in, alloc, map, n);
out:
	free(jobs);
	free(map);
	free(nodes);
	free(parts);
	free(alloc);
}
