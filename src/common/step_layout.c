/* step_layout.c — spreads a step's tasks over its nodes (block, cyclic,
 * plane) as Slurm does, and writes the compressed tasks-per-node string.
 * It decides nothing about whether the nodes may run that many tasks: the
 * caller checks CPUs and overcommit; this only says where each task goes. */
#include "common/step_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for tasks on node n before Slurm would oversubscribe it. */
static uint32_t room(const struct step_layout_req *r, uint32_t n)
{
	uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
	uint32_t v = r->cpus ? r->cpus[n] / cpt : UINT32_MAX;

	if (r->tasks_per_node_max && r->tasks_per_node_max < v)
		v = r->tasks_per_node_max;
	return v;
}

/* Block and cyclic counts: one task per node per round, to nodes with room;
 * once a round places nothing, CPUs stop counting (the cap still does). */
static void count_rounds(const struct step_layout_req *r, uint32_t *tasks)
{
	uint32_t placed = 0;
	bool over = false;

	while (placed < r->ntasks) {
		uint32_t before = placed;
		for (uint32_t n = 0; n < r->n_nodes && placed < r->ntasks; n++) {
			bool capped =
			    r->tasks_per_node_max && tasks[n] >= r->tasks_per_node_max;
			if (!capped && (over || tasks[n] < room(r, n))) {
				tasks[n]++;
				placed++;
			}
		}
		if (placed == before)
			over = true;
	}
}

static void number_block(const struct step_layout_req *r, struct step_layout *l)
{
	uint32_t id = 0;

	for (uint32_t n = 0; n < r->n_nodes; n++)
		for (uint32_t k = 0; k < l->tasks[n]; k++)
			l->tids[n][k] = id++;
}

static void number_cyclic(const struct step_layout_req *r, struct step_layout *l)
{
	uint32_t id = 0;

	for (uint32_t k = 0; id < r->ntasks; k++)
		for (uint32_t n = 0; n < r->n_nodes; n++)
			if (k < l->tasks[n])
				l->tids[n][k] = id++;
}

/* Plane: blocks of plane_size consecutive ids to each node in turn. The
 * counts come from the same walk, so this runs twice: once to count (tids
 * NULL), once to number. */
static void deal_planes(const struct step_layout_req *r, uint32_t *tasks, uint32_t **tids)
{
	uint32_t id = 0;
	uint32_t *fill = tids ? calloc(r->n_nodes, sizeof(*fill)) : tasks;

	if (!fill)
		return;
	while (id < r->ntasks)
		for (uint32_t n = 0; n < r->n_nodes && id < r->ntasks; n++)
			for (uint32_t k = 0; k < r->plane_size && id < r->ntasks; k++) {
				if (tids)
					tids[n][fill[n]] = id;
				fill[n]++;
				id++;
			}
	if (tids)
		free(fill);
}

static int check(const struct step_layout_req *r, struct drv_error *err)
{
	if (r->n_nodes == 0 || r->ntasks == 0)
		return drv_error_set(err, EINVAL,
				     "a step needs at least one node and one task");
	if (r->dist == DIST_ARBITRARY)
		return drv_error_set(err, EINVAL,
				     "arbitrary distribution needs a task list");
	if (r->dist == DIST_PLANE && r->plane_size == 0)
		return drv_error_set(err, EINVAL,
				     "Invalid plane size or size not specified");
	if (r->tasks_per_node_max &&
	    (uint64_t)r->tasks_per_node_max * r->n_nodes < r->ntasks)
		return drv_error_set(err, ENOSPC,
				     "Requested node configuration is not available");
	return 0;
}

static int alloc_tids(struct step_layout *l)
{
	l->tids = calloc(l->n_nodes, sizeof(*l->tids));
	if (!l->tids)
		return -ENOMEM;
	for (uint32_t n = 0; n < l->n_nodes; n++) {
		l->tids[n] = calloc(l->tasks[n] ? l->tasks[n] : 1, sizeof(**l->tids));
		if (!l->tids[n])
			return -ENOMEM;
	}
	return 0;
}

int step_layout_compute(const struct step_layout_req *req, struct step_layout *out,
			struct drv_error *err)
{
	struct step_layout l = {.n_nodes = req->n_nodes, .ntasks = req->ntasks};
	int rc = check(req, err);

	if (rc < 0)
		return rc;
	l.tasks = calloc(req->n_nodes, sizeof(*l.tasks));
	if (!l.tasks)
		return drv_error_set(err, ENOMEM, "out of memory");
	if (req->dist == DIST_PLANE)
		deal_planes(req, l.tasks, NULL);
	else
		count_rounds(req, l.tasks);
	if (alloc_tids(&l) < 0) {
		step_layout_fini(&l);
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	if (req->dist == DIST_PLANE)
		deal_planes(req, l.tasks, l.tids);
	else if (req->dist == DIST_CYCLIC)
		number_cyclic(req, &l);
	else
		number_block(req, &l);
	*out = l;
	return 0;
}

void step_layout_fini(struct step_layout *l)
{
	if (!l)
		return;
	for (uint32_t n = 0; l->tids && n < l->n_nodes; n++)
		free(l->tids[n]);
	free(l->tids);
	free(l->tasks);
	memset(l, 0, sizeof(*l));
}

int step_layout_compress(const uint32_t *counts, uint32_t n, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (uint32_t i = 0; i < n;) {
		uint32_t run = 1;
		while (i + run < n && counts[i + run] == counts[i])
			run++;
		char part[40];
		int k = run > 1 ? snprintf(part, sizeof(part), "%s%u(x%u)", i ? "," : "",
					   counts[i], run)
				: snprintf(part, sizeof(part), "%s%u", i ? "," : "",
					   counts[i]);
		if (len + (size_t)k < size)
			memcpy(buf + len, part, (size_t)k + 1);
		else if (len < size)
			buf[len] = '\0';
		len += (size_t)k;
		i += run;
	}
	return (int)len;
}
