/* place.c — where one job's request fits: how many tasks each node can take
 * (CPUs, memory, GPUs), which nodes to use and what each gives. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

static bool gpu_matches(const struct sched_node *n, uint32_t i, const char *type)
{
	if (!type)
		return true;
	return n->gpu_type && n->gpu_type[i] && !strcmp(n->gpu_type[i], type);
}

static uint32_t free_gpus(const struct sched_node *n, const char *type)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n->n_gpus; i++)
		if (!(n->gpus_used >> i & 1) && gpu_matches(n, i, type))
			k++;
	return k;
}

/* GPUs each node must give: --gpus over one node is that node's count;
 * over N nodes, each needs its share rounded up. */
static uint32_t gpus_needed_per_node(const struct sched_req *r)
{
	if (r->gpus_per_node)
		return r->gpus_per_node;
	if (!r->gpus_total)
		return 0;
	uint32_t n = r->min_nodes ? r->min_nodes : 1;
	return (r->gpus_total + n - 1) / n;
}

static bool in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Node idx's fixed properties against -x, -C (alternative alt), --tmp and
 * --mincpus: whether it could ever serve the job. */
static bool node_allowed(const struct sched_node *n, uint32_t idx,
			 const struct sched_req *r, int alt)
{
	if (in_list(r->exc_nodes, r->n_exc_nodes, idx))
		return false;
	if (r->min_tmp && n->tmp_disk < r->min_tmp)
		return false;
	if (r->min_cpus && n->cpus_total < r->min_cpus)
		return false;
	return sched_constraint_match(r->constraint, n->features, alt);
}

/* How many of the job's tasks this node can take now (0: none). */
static uint32_t node_cap(const struct sched_node *n, const struct sched_req *r)
{
	if (!n->up)
		return 0;
	if (n->cpus_total - n->cpus_used < r->min_cpus)
		return 0;
	if (r->exclusive && (n->cpus_used || n->mem_used || n->gpus_used))
		return 0;
	uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
	uint32_t cap = (n->cpus_total - n->cpus_used) / cpt;
	uint64_t mem_free = n->mem_total - n->mem_used;
	if (n->mem_total && r->mem_per_cpu) {
		uint64_t per_task = r->mem_per_cpu * cpt;
		if (mem_free / per_task < cap)
			cap = (uint32_t)(mem_free / per_task);
	} else if (n->mem_total && r->mem_per_node == SCHED_MEM_WHOLE) {
		if (n->mem_used)
			return 0;
	} else if (n->mem_total && r->mem_per_node > mem_free) {
		return 0;
	}
	if (free_gpus(n, r->gpu_type) < gpus_needed_per_node(r))
		return 0;
	if (r->ntasks_per_node)
		return cap >= r->ntasks_per_node ? r->ntasks_per_node : 0;
	return cap;
}

struct pick {
	uint32_t node, cap, tasks;
};

struct chooser {
	const struct sched_node *nodes;
	const struct sched_part *p;
	const struct sched_req *r;
	int alt; /* the [a|b] alternative tried, or -1 */
	struct pick *picks;
	uint32_t n, n_pre, sum, max;
};

/* Adds part node i when it is allowed, not picked yet and has room. */
static bool try_add(struct chooser *ch, uint32_t i)
{
	uint32_t idx = ch->p->nodes[i];
	const struct sched_node *node = &ch->nodes[idx];
	if (ch->n >= ch->max || !node_allowed(node, idx, ch->r, ch->alt))
		return false;
	for (uint32_t k = 0; k < ch->n_pre; k++)
		if (ch->picks[k].node == idx)
			return false;
	uint32_t cap = node_cap(node, ch->r);
	if (cap == 0)
		return false;
	ch->picks[ch->n++] = (struct pick){idx, cap, 0};
	ch->sum += cap;
	return true;
}

/* -w nodes first (all of them or nothing), then enough nodes for each
 * "feature*N" of -C. Returns false when either cannot be had. */
static bool pre_pick(struct chooser *ch)
{
	const struct sched_req *r = ch->r;
	for (uint32_t i = 0; i < ch->p->n_nodes; i++)
		if (in_list(r->req_nodes, r->n_req_nodes, ch->p->nodes[i]) &&
		    !try_add(ch, i))
			return false;
	if (ch->n != r->n_req_nodes)
		return false; /* a -w node outside the partition */
	ch->n_pre = ch->n;
	const struct sched_constraint *c = r->constraint;
	for (uint32_t t = 0; c && !c->match_or && t < c->n_terms; t++) {
		const char *name = c->terms[t].name;
		uint32_t have = 0;
		for (uint32_t k = 0; k < ch->n; k++)
			have += sched_node_has_feature(
			    ch->nodes[ch->picks[k].node].features, name);
		for (uint32_t i = 0; i < ch->p->n_nodes && have < c->terms[t].count; i++)
			if (sched_node_has_feature(ch->nodes[ch->p->nodes[i]].features,
						   name) &&
			    try_add(ch, i))
				ch->n_pre = ch->n, have++;
		if (have < c->terms[t].count)
			return false;
	}
	return true;
}

/* Chooses nodes in config order and spreads the tasks over them as Slurm
 * does: with a node count, evenly (extra tasks to the first nodes); without,
 * filling each node before the next. Returns the number of nodes or 0. */
static uint32_t choose(const struct sched_node *nodes, const struct sched_part *p,
		       const struct sched_req *r, int alt, struct pick *picks)
{
	uint32_t min = r->min_nodes ? r->min_nodes : 1;
	if (min < r->n_req_nodes)
		min = r->n_req_nodes; /* -w nodes count toward -N */
	for (uint32_t t = 0; r->constraint && t < r->constraint->n_terms; t++)
		if (min < r->constraint->terms[t].count)
			min = r->constraint->terms[t].count;
	uint32_t tasks = r->ntasks ? r->ntasks : min;
	/* -w or -C can raise min past what the schema bounds: a product that
	 * does not fit is more tasks than any node set can take */
	if (!r->ntasks && r->ntasks_per_node &&
	    __builtin_mul_overflow(r->ntasks_per_node, min, &tasks))
		return 0;
	uint32_t per = r->ntasks_per_node;
	if (per && min < tasks / per + (tasks % per != 0))
		min = tasks / per + (tasks % per != 0);
	uint32_t max = r->max_nodes ? r->max_nodes : p->n_nodes;
	if (r->gpus_total && !r->gpus_per_node && r->min_nodes <= 1)
		max = 1; /* --gpus on one node: that node holds them all */
	if (max < min && min > r->min_nodes)
		max = min; /* raised by -w or a count: that many it must be */
	struct chooser ch = {nodes, p, r, alt, picks, 0, 0, 0, max};
	if (!pre_pick(&ch))
		return 0;
	for (uint32_t i = 0;
	     i < p->n_nodes && ch.n < max && (ch.n < min || ch.sum < tasks); i++)
		try_add(&ch, i);
	uint32_t n = ch.n, sum = ch.sum;
	if (n < min || sum < tasks || tasks < n)
		return 0;
	bool even = min > 1 || r->max_nodes || r->ntasks_per_node;
	uint32_t left = tasks;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t share = even ? tasks / n + (i < tasks % n) : picks[i].cap;
		uint32_t keep = n - i - 1; /* every later node needs one task */
		if (share > picks[i].cap)
			share = picks[i].cap;
		if (share > left - keep)
			share = left - keep;
		picks[i].tasks = share;
		left -= share;
	}
	for (uint32_t i = 0; i < n && left; i++) { /* uneven caps: top up in order */
		uint32_t room = picks[i].cap - picks[i].tasks;
		uint32_t add = room < left ? room : left;
		picks[i].tasks += add;
		left -= add;
	}
	return left ? 0 : n;
}

static uint64_t take_gpus(const struct sched_node *n, const char *type, uint32_t count)
{
	uint64_t mask = 0;
	for (uint32_t i = 0; i < n->n_gpus && count; i++)
		if (!(n->gpus_used >> i & 1) && gpu_matches(n, i, type)) {
			mask |= 1ULL << i;
			count--;
		}
	return mask;
}

/* The GPUs each picked node gives: per node, or --gpus spread in order. */
static int assign_gpus(const struct sched_node *nodes, const struct sched_req *r,
		       const struct pick *picks, uint32_t n, uint64_t *masks)
{
	uint32_t left = r->gpus_total;
	for (uint32_t i = 0; i < n; i++) {
		const struct sched_node *node = &nodes[picks[i].node];
		uint32_t want = r->gpus_per_node;
		if (r->exclusive)
			want = node->n_gpus;
		else if (!want && left) {
			uint32_t avail = free_gpus(node, r->gpu_type);
			want = avail < left ? avail : left;
		}
		masks[i] = take_gpus(node, r->exclusive ? NULL : r->gpu_type, want);
		left -= want < left ? want : left;
	}
	return left ? -ENOSPC : 0;
}

static void fill_alloc(struct sched_node *node, const struct sched_req *r,
		       const struct pick *pk, uint64_t gpus, struct sched_alloc *a)
{
	uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
	a->node = pk->node;
	a->tasks = pk->tasks;
	a->cpus = r->exclusive ? node->cpus_total : pk->tasks * cpt;
	if (a->cpus < r->min_cpus)
		a->cpus = r->min_cpus;
	a->mem = 0;
	if (node->mem_total && r->mem_per_cpu)
		a->mem = r->mem_per_cpu * a->cpus;
	else if (node->mem_total && r->mem_per_node == SCHED_MEM_WHOLE)
		a->mem = node->mem_total;
	else if (node->mem_total)
		a->mem = r->mem_per_node;
	if (a->mem > node->mem_total - node->mem_used)
		a->mem = node->mem_total - node->mem_used;
	a->gpus = gpus;
	node->cpus_used += a->cpus;
	node->mem_used += a->mem;
	node->gpus_used |= gpus;
}

int sched_place(struct sched_node *nodes, const struct sched_part *part,
		const struct sched_req *req, struct sched_alloc *out, size_t cap,
		uint32_t *n_out)
{
	struct pick *picks = calloc(part->n_nodes ? part->n_nodes : 1, sizeof(*picks));
	uint64_t *masks = calloc(part->n_nodes ? part->n_nodes : 1, sizeof(*masks));
	int rc = -ENOSPC;
	const struct sched_constraint *c = req->constraint;
	int n_alts = c && c->match_or ? (int)c->n_terms : 1;
	uint32_t n = 0;
	for (int alt = 0; picks && masks && alt < n_alts && !n; alt++)
		n = choose(nodes, part, req, c && c->match_or ? alt : -1, picks);
	if (n && n <= cap && assign_gpus(nodes, req, picks, n, masks) == 0) {
		for (uint32_t i = 0; i < n; i++)
			fill_alloc(&nodes[picks[i].node], req, &picks[i], masks[i],
				   &out[i]);
		*n_out = n;
		rc = 0;
	}
	free(picks);
	free(masks);
	return rc;
}

int sched_fits_config(const struct sched_node *nodes, size_t n_nodes,
		      const struct sched_part *part, const struct sched_req *req)
{
	struct sched_node *idle = calloc(n_nodes ? n_nodes : 1, sizeof(*idle));
	struct sched_alloc *out = calloc(part->n_nodes ? part->n_nodes : 1, sizeof(*out));
	int rc = -ENOMEM;
	if (idle && out) {
		for (size_t i = 0; i < n_nodes; i++) {
			idle[i] = nodes[i];
			idle[i].up = true;
			idle[i].cpus_used = 0;
			idle[i].mem_used = 0;
			idle[i].gpus_used = 0;
		}
		uint32_t n;
		rc = sched_place(idle, part, req, out, part->n_nodes, &n);
	}
	free(idle);
	free(out);
	return rc;
}
