/* schedule.c — glue between ctld's tables and the pure scheduler: decides
 * which pending jobs are eligible (holds, dependencies, partition limits),
 * builds the snapshot, calls sched_run(), applies the verdicts. Runs at the
 * end of any turn that asked for it (submit, end, node up, release, resume)
 * and on the periodic tick. */
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

int ctld_part_index(const struct ctld *c, const char *name)
{
	for (size_t i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].conf->name, name))
			return (int)i;
	return -1;
}

/* afterok: drops the dependencies that completed; a dependency that ended
 * any other way can never be satisfied. Returns true while the job waits. */
static bool waits_for_dependency(struct ctld *c, struct job *j)
{
	struct job_req *q = &j->req;
	uint32_t keep = 0;
	for (uint32_t i = 0; i < q->n_deps; i++) {
		const struct job *d = job_table_find(&c->jobs, q->deps[i]);
		if (!d || d->state == JOB_COMPLETED)
			continue; /* done (a purged job had ended long ago) */
		if (job_state_final(d->state))
			q->dep_failed = true;
		q->deps[keep++] = q->deps[i];
	}
	if (keep != q->n_deps) {
		q->n_deps = keep;
		commit_job(c, j);
	}
	if (q->dep_failed)
		j->reason = "DependencyNeverSatisfied";
	else if (q->n_deps)
		j->reason = "Dependency";
	return q->n_deps > 0;
}

static bool over_part_time(const struct part *p, const struct job *j)
{
	int64_t max = p->conf->max_time;
	return max != DRV_INFINITE &&
	       (j->time_limit == DRV_INFINITE || j->time_limit > max);
}

/* The pending jobs the scheduler may consider; the others get their reason. */
static size_t collect_jobs(struct ctld *c, struct sched_job *out, struct job **map)
{
	size_t n = 0;
	for (struct job *j = c->jobs.head; j; j = j->next) {
		if (j->state != JOB_PENDING || j->hold != HOLD_NONE)
			continue;
		if (j->req.n_deps && waits_for_dependency(c, j))
			continue;
		int p = ctld_part_index(c, j->partition);
		if (p < 0) {
			j->reason = "PartitionDown";
			continue;
		}
		if (over_part_time(&c->parts[p], j)) {
			j->reason = "PartitionTimeLimit";
			continue;
		}
		out[n] = (struct sched_job){.job_id = j->id,
					    .priority = j->priority,
					    .part = (uint32_t)p,
					    .req = &j->req.sched};
		map[n++] = j;
	}
	return n;
}

static struct job *map_find(struct job **map, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n; /* map is in id order */
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

static void apply(struct ctld *c, struct sched_input *in, const struct sched_alloc *alloc,
		  struct job **map, size_t n)
{
	int64_t now = time(NULL);
	for (size_t i = 0; i < in->n_jobs; i++) {
		struct sched_job *sj = &in->jobs[i];
		struct job *j = map_find(map, n, sj->job_id);
		if (!j)
			continue;
		if (sj->verdict == SCHED_START)
			job_start(c, j, &alloc[sj->alloc_off], sj->alloc_n, now);
		else
			job_set_reason(j, sched_verdict_reason(sj->verdict));
	}
}

void ctld_sched_nodes(const struct ctld *c, struct sched_node *out)
{
	for (size_t i = 0; i < c->nodes.n; i++) {
		const struct node *n = &c->nodes.nodes[i];
		out[i] = (struct sched_node){
		    .up = node_usable(n),
		    .cpus_total = (uint32_t)n->conf->cpus,
		    .cpus_used = n->cpus_alloc,
		    .mem_total = c->conf->cr_memory ? n->conf->real_memory : 0,
		    .mem_used = c->conf->cr_memory ? n->mem_alloc : 0,
		    .n_gpus = n->n_gpus,
		    .gpus_used = n->gpus_alloc,
		    .gpu_type = (const char *const *)n->gpu_type,
		};
	}
}

void ctld_sched_parts(const struct ctld *c, struct sched_part *out)
{
	for (size_t i = 0; i < c->n_parts; i++)
		out[i] = (struct sched_part){c->parts[i].node_idx, c->parts[i].n_nodes,
					     c->parts[i].up};
}

static void run(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	size_t cap = c->jobs.count ? c->jobs.count : 1, nn = c->nodes.n ? c->nodes.n : 1;
	struct sched_job *jobs = calloc(cap, sizeof(*jobs));
	struct job **map = calloc(cap, sizeof(*map));
	struct sched_node *nodes = calloc(nn, sizeof(*nodes));
	struct sched_part *parts = calloc(c->n_parts ? c->n_parts : 1, sizeof(*parts));
	size_t alloc_cap = 1; /* a started job takes at least one CPU per node */
	for (size_t i = 0; i < c->nodes.n; i++)
		alloc_cap += (size_t)c->nodes.nodes[i].conf->cpus;
	struct sched_alloc *alloc = calloc(alloc_cap, sizeof(*alloc));
	if (!jobs || !map || !nodes || !parts || !alloc)
		goto out;
	size_t n = collect_jobs(c, jobs, map);
	ctld_sched_nodes(c, nodes);
	ctld_sched_parts(c, parts);
	struct sched_input in = {nodes, c->nodes.n, parts, c->n_parts, jobs, n};
	if (n && sched_run(&in, alloc, alloc_cap) >= 0)
		apply(c, &in, alloc, map, n);
out:
	free(jobs);
	free(map);
	free(nodes);
	free(parts);
	free(alloc);
}
