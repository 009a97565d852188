/* place.c — where one request fits at one time: how many tasks each node
 * can take over the job's window (CPUs, memory, GPUs, the partition's
 * MaxCPUsPerNode and MaxMemPerNode), which nodes it gets (-w first, then
 * each "feature*N" of -C, then the lowest Weight, in the partition's
 * order), how its tasks spread over them as Slurm spreads them, and which
 * CPU ids (the lowest free) and GPU devices (the lowest free of the type)
 * each gives. Pure: reads the profile, never changes it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

static bool in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool gpu_matches(const struct sched_node *n, uint32_t d, const char *type)
{
	if (!type)
		return true;
	const char *has = n->gpus[d].type;
	return has == type || (has && !strcmp(has, type));
}

static uint32_t free_gpus(const struct sched_node *n, const uint8_t *busy,
			  const char *type)
{
	uint32_t k = 0;
	for (uint32_t d = 0; d < n->n_gpus; d++)
		k += !busy[d] && gpu_matches(n, d, type);
	return k;
}

/* Could node, empty, give a job of s what it needs of one node? */
static bool could_ever(const struct pass *c, const struct shape *s,
		       const struct sched_node *n, uint32_t node)
{
	const struct sched_part *p = &c->snap->parts[s->part];
	struct node_need need;
	place_node_need(c, s, node, &need);
	if (need.cpus > n->n_cpus ||
	    (p->max_cpus_per_node && need.cpus > p->max_cpus_per_node))
		return false;
	if (n->mem && need.mem > n->mem)
		return false;
	uint32_t typed = 0;
	for (uint32_t d = 0; s->gpus_node && d < n->n_gpus; d++)
		typed += gpu_matches(n, d, s->req->gpu_type);
	return typed >= s->gpus_node;
}

bool place_node_allowed(const struct pass *c, const struct shape *s, uint32_t node,
			int alt)
{
	const struct sched_node *n = &c->snap->nodes[node];
	const struct sched_req *r = s->req;
	if (!c->idle && !n->up)
		return false;
	if (in_list(r->exc_nodes, r->n_exc_nodes, node))
		return false;
	if (r->min_tmp && n->tmp_disk < r->min_tmp)
		return false;
	if (r->min_cpus && n->n_cpus < r->min_cpus)
		return false;
	if (!could_ever(c, s, n, node))
		return false;
	const struct sched_constraint *con = r->constraint;
	if (alt == -2 && con && con->match_or) {
		for (uint32_t a = 0; a < con->n_terms; a++)
			if (sched_constraint_match(con, n->features, (int)a))
				return true;
		return false;
	}
	return sched_constraint_match(con, n->features, alt < 0 ? -1 : alt);
}

/* The memory part of a node's room: tasks it allows (cap at most). */
static uint32_t mem_cap(const struct pass *c, const struct shape *s,
			const struct sched_node *n, const struct node_free *f,
			uint32_t cap)
{
	const struct sched_req *r = s->req;
	uint64_t mmpn = c->snap->parts[s->part].max_mem_per_node;
	if (!n->mem)
		return cap;
	if (r->mem_per_cpu) {
		uint64_t per_task = r->mem_per_cpu * s->cpt;
		if (f->mem / per_task < cap)
			cap = (uint32_t)(f->mem / per_task);
		if (mmpn && mmpn / per_task < cap)
			cap = (uint32_t)(mmpn / per_task);
		return cap;
	}
	if (r->mem_per_node == SCHED_MEM_WHOLE)
		return f->mem < n->mem ? 0 : cap;
	if (r->mem_per_node > f->mem || (mmpn && r->mem_per_node > mmpn))
		return 0;
	return cap;
}

static uint32_t cap_of(struct pass *c, const struct shape *s, uint32_t node, int64_t t,
		       uint32_t *gfree, struct spare *spare)
{
	const struct sched_node *n = &c->snap->nodes[node];
	const struct sched_req *r = s->req;
	struct node_free f;
	*gfree = 0;
	if (!c->idle && !n->up)
		return 0;
	prof_window(&c->prof, node, t, s->len, &s->view, c->cpu_free, c->gpu_busy, &f);
	if (f.blocked || (s->view.excl && f.busy))
		return 0;
	/* a whole node is all its CPUs, which its partition must allow */
	if (s->view.excl && f.part_room < n->n_cpus)
		return 0;
	uint32_t cpus = f.n_cpus < f.part_room ? f.n_cpus : f.part_room;
	if (cpus < r->min_cpus)
		return 0;
	uint32_t cap = mem_cap(c, s, n, &f, cpus / s->cpt);
	*gfree = free_gpus(n, c->gpu_busy, s->view.excl ? NULL : r->gpu_type);
	if (*gfree < s->gpus_node)
		return 0;
	if (r->ntasks_per_node)
		cap = cap >= r->ntasks_per_node ? r->ntasks_per_node : 0;
	else if (cap < s->node_min)
		cap = 0;
	if (cap && spare) {
		struct node_need need;
		place_node_need(c, s, node, &need);
		uint64_t mem = n->mem ? f.mem - need.mem : UINT32_MAX;
		bool whole =
		    s->view.excl || (n->mem && r->mem_per_node == SCHED_MEM_WHOLE);
		*spare = (struct spare){
		    .cpus = whole ? 0 : cpus - need.cpus,
		    .gpus = whole ? 0 : *gfree - need.gpus,
		    .mem = whole	      ? 0
			   : mem > UINT32_MAX ? UINT32_MAX
					      : (uint32_t)mem,
		};
	}
	return cap;
}

uint32_t place_node_cap(struct pass *c, const struct shape *s, uint32_t node, int64_t t,
			struct spare *spare)
{
	uint32_t gfree;
	return cap_of(c, s, node, t, &gfree, spare);
}

struct chooser {
	struct pass *c;
	struct shape *s;
	uint32_t t;
	int alt; /* the [a|b] alternative tried, or -1 */
	struct pick *picks;
	uint32_t n, n_pre, sum, max, gpus;
};

/* Adds node when it is allowed, not picked yet and has room (known: its
 * cap when the caller knows it, else 0). */
static bool try_add(struct chooser *ch, uint32_t node, uint32_t known)
{
	if (ch->n >= ch->max || !place_node_allowed(ch->c, ch->s, node, ch->alt))
		return false;
	for (uint32_t k = 0; k < ch->n_pre; k++)
		if (ch->picks[k].node == node)
			return false;
	uint32_t gfree = 0, cap = known;
	if (!cap || (ch->s->req->gpus_total && !ch->s->req->gpus_per_node))
		cap = cap_of(ch->c, ch->s, node, ch->c->prof.now + ch->t, &gfree, NULL);
	if (cap == 0)
		return false;
	ch->picks[ch->n++] = (struct pick){node, cap, 0};
	ch->sum += cap;
	ch->gpus += gfree;
	return true;
}

/* -w nodes first (all of them or nothing), in the partition's order. */
static bool pick_listed(struct chooser *ch)
{
	const struct sched_req *r = ch->s->req;
	if (!r->n_req_nodes)
		return true;
	for (uint32_t i = 0; i < ch->s->m; i++)
		if (in_list(r->req_nodes, r->n_req_nodes, ch->s->order[i]) &&
		    !try_add(ch, ch->s->order[i], 0))
			return false;
	return ch->n == r->n_req_nodes; /* else a -w node outside the partition */
}

/* Then enough nodes for each "feature*N" of -C. */
static bool pick_counted(struct chooser *ch)
{
	const struct sched_constraint *con = ch->s->req->constraint;
	ch->n_pre = ch->n;
	for (uint32_t k = 0; con && !con->match_or && k < con->n_terms; k++) {
		const char *name = con->terms[k].name;
		uint32_t have = 0;
		for (uint32_t i = 0; i < ch->n; i++)
			have += sched_node_has_feature(
			    ch->c->snap->nodes[ch->picks[i].node].features, name);
		uint32_t cap;
		for (uint32_t pos = shape_next(ch->c, ch->s, ch->t, 0, &cap);
		     pos != POS_NONE && have < con->terms[k].count;
		     pos = shape_next(ch->c, ch->s, ch->t, pos + 1, &cap)) {
			uint32_t node = ch->s->order[pos];
			if (sched_node_has_feature(ch->c->snap->nodes[node].features,
						   name) &&
			    try_add(ch, node, cap))
				ch->n_pre = ch->n, have++;
		}
		if (have < con->terms[k].count)
			return false;
	}
	return true;
}

/* Spreads tasks over the picks as Slurm does: with a node count, evenly
 * (extra tasks to the first nodes); without, filling each node in turn. */
static bool spread(struct pick *picks, uint32_t n, uint32_t tasks, bool even)
{
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
	return left == 0;
}

/* The node count bounds and the task count of a request in a partition;
 * false when they cannot be met (a count that overflows). */
static bool bounds(const struct shape *s, const struct sched_part *p, uint32_t *min,
		   uint32_t *max, uint32_t *tasks)
{
	const struct sched_req *r = s->req;
	*min = r->min_nodes ? r->min_nodes : 1;
	if (*min < r->n_req_nodes)
		*min = r->n_req_nodes; /* -w nodes count toward -N */
	for (uint32_t t = 0; r->constraint && t < r->constraint->n_terms; t++)
		if (*min < r->constraint->terms[t].count)
			*min = r->constraint->terms[t].count;
	*tasks = r->ntasks ? r->ntasks : *min;
	/* -w or -C can raise min past what the schema bounds: a product that
	 * does not fit is more tasks than any node set can take */
	if (!r->ntasks && r->ntasks_per_node &&
	    __builtin_mul_overflow(r->ntasks_per_node, *min, tasks))
		return false;
	uint32_t per = r->ntasks_per_node;
	if (per && *min < *tasks / per + (*tasks % per != 0))
		*min = *tasks / per + (*tasks % per != 0);
	*max = r->max_nodes ? r->max_nodes : s->m;
	if (r->gpus_total && !r->gpus_per_node && r->min_nodes <= 1)
		*max = 1; /* --gpus on one node: that node holds them all */
	if (*max<*min && * min> r->min_nodes)
		*max = *min; /* raised by -w or a count: that many it must be */
	if (p->max_nodes && *max > p->max_nodes)
		*max = p->max_nodes;
	return true;
}

/* The sum of the k largest caps of v[from..n) for each from, into suf
 * (k >= 1; a min-heap of the k largest as the scan goes back). */
static void suffix_top(const struct pick *v, uint32_t n, uint32_t k, uint64_t *suf,
		       uint32_t *heap)
{
	uint32_t size = 0;
	uint64_t sum = 0;
	suf[n] = 0;
	for (uint32_t i = n; i-- > 0;) {
		uint32_t x = v[i].cap;
		if (size < k) {
			uint32_t j = size++;
			for (; j && heap[(j - 1) / 2] > x; j = (j - 1) / 2)
				heap[j] = heap[(j - 1) / 2];
			heap[j] = x;
			sum += x;
		} else if (x > heap[0]) {
			sum += x - heap[0];
			uint32_t j = 0;
			for (;;) { /* sift x down from the root */
				uint32_t l = 2 * j + 1,
					 m = l + 1 < size && heap[l + 1] < heap[l] ? l + 1
										   : l;
				if (l >= size || heap[m] >= x)
					break;
				heap[j] = heap[m];
				j = m;
			}
			heap[j] = x;
		}
		suf[i] = sum;
	}
}

/* When the nodes taken in order reach the job's node count before its
 * tasks fit: the first node set in order (as a sequence of positions)
 * that holds them. It is what taking nodes in order gives whenever that
 * works, and it exists exactly when the largest caps hold the tasks, so a
 * job fits or not whatever the order, and fewer free nodes never make it
 * fit earlier. v: every node that fits, in order; the picks in picks. */
static uint32_t choose_first_set(struct pick *v, uint32_t n, uint32_t min, uint32_t max,
				 uint32_t tasks, struct pick *picks)
{
	uint64_t *suf = malloc((n + 1) * sizeof(*suf));
	uint32_t *heap = malloc((max + 1) * sizeof(*heap)), got = 0, from = 0;
	uint64_t need = tasks;
	while (suf && heap && (need || got < min) && got < max) {
		uint32_t left = max - got - 1; /* slots after this pick */
		if (left)
			suffix_top(v, n, left, suf, heap);
		uint32_t i = from;
		for (; i < n; i++) {
			uint64_t after = left ? suf[i + 1] : 0;
			uint32_t more = n - i - 1 < left ? n - i - 1 : left;
			if (v[i].cap + after >= need && got + 1 + more >= min)
				break;
		}
		if (i == n)
			break;
		picks[got++] = v[i];
		need -= v[i].cap < need ? v[i].cap : need;
		from = i + 1;
	}
	bool ok = suf && heap && !need && got >= min;
	free(suf);
	free(heap);
	return ok ? got : 0;
}

/* Every node that fits at t for the alternative, with its cap, in order. */
static uint32_t all_fitting(struct chooser *ch, struct pick *v)
{
	uint32_t n = 0;
	uint32_t cap;
	for (uint32_t pos = shape_next(ch->c, ch->s, ch->t, 0, &cap); pos != POS_NONE;
	     pos = shape_next(ch->c, ch->s, ch->t, pos + 1, &cap)) {
		uint32_t node = ch->s->order[pos], gfree;
		if (!place_node_allowed(ch->c, ch->s, node, ch->alt))
			continue;
		if (!cap)
			cap = cap_of(ch->c, ch->s, node, ch->c->prof.now + ch->t, &gfree,
				     NULL);
		if (cap)
			v[n++] = (struct pick){node, cap, 0};
	}
	return n;
}

void place_node_need(const struct pass *c, const struct shape *s, uint32_t node,
		     struct node_need *need)
{
	const struct sched_node *n = &c->snap->nodes[node];
	const struct sched_req *r = s->req;
	uint32_t tasks = r->ntasks_per_node ? r->ntasks_per_node : s->node_min;
	need->cpus = s->view.excl ? n->n_cpus : tasks * s->cpt;
	if (need->cpus < r->min_cpus)
		need->cpus = r->min_cpus;
	/* no more than cap_of asks: a lower bound of when it fits */
	need->gpus = s->view.excl ? 0 : s->gpus_node;
	if (r->mem_per_cpu)
		need->mem = r->mem_per_cpu * s->cpt * tasks;
	else if (r->mem_per_node == SCHED_MEM_WHOLE)
		need->mem = n->mem;
	else
		need->mem = r->mem_per_node;
}

uint32_t place_node_min(const struct pass *c, const struct shape *s)
{
	uint32_t min, max, tasks;
	if (!bounds(s, &c->snap->parts[s->part], &min, &max, &tasks))
		return 1;
	return max == 1 && tasks ? tasks : 1;
}

static uint32_t choose_alt(struct pass *c, struct shape *s, uint32_t t, int alt,
			   struct pick *picks)
{
	const struct sched_req *r = s->req;
	uint32_t min, max, tasks;
	if (!bounds(s, &c->snap->parts[s->part], &min, &max, &tasks))
		return 0;
	struct chooser ch = {c, s, t, alt, picks, 0, 0, 0, max, 0};
	if (!pick_listed(&ch) || !pick_counted(&ch))
		return 0;
	uint32_t cap;
	for (uint32_t pos = shape_next(c, s, t, 0, &cap);
	     pos != POS_NONE && ch.n < max && (ch.n < min || ch.sum < tasks);
	     pos = shape_next(c, s, t, pos + 1, &cap))
		try_add(&ch, s->order[pos], cap);
	if (ch.n == max && ch.sum < tasks && !s->generic) {
		struct pick *v = malloc((s->m + 1) * sizeof(*v));
		uint32_t n = v ? all_fitting(&ch, v) : 0;
		ch.n = choose_first_set(v, n, min, max, tasks, picks);
		ch.sum = ch.gpus = 0;
		for (uint32_t i = 0; i < ch.n; i++) {
			uint32_t gfree;
			ch.sum += picks[i].cap;
			cap_of(c, s, picks[i].node, c->prof.now + t, &gfree, NULL);
			ch.gpus += gfree;
		}
		free(v);
	}
	if (ch.n < min || ch.sum < tasks || tasks < ch.n)
		return 0;
	if (r->gpus_total && !r->gpus_per_node && !s->view.excl &&
	    ch.gpus < r->gpus_total)
		return 0;
	bool even = min > 1 || r->max_nodes || r->ntasks_per_node;
	return spread(picks, ch.n, tasks, even) ? ch.n : 0;
}

uint32_t place_choose(struct pass *c, struct shape *s, uint32_t t, struct pick *picks)
{
	const struct sched_constraint *con = s->req->constraint;
	int n_alts = con && con->match_or ? (int)con->n_terms : 1;
	for (int alt = 0; alt < n_alts; alt++) {
		uint32_t n = choose_alt(c, s, t, con && con->match_or ? alt : -1, picks);
		if (n)
			return n;
	}
	return 0;
}

/* The lowest `want` set bits of free, into ids (zeroed, words long). */
static void lowest_bits(const uint64_t *free, uint32_t words, uint32_t want,
			uint64_t *ids)
{
	for (uint32_t w = 0; w < words && want; w++)
		for (uint64_t b = free[w]; b && want; b &= b - 1, want--)
			ids[w] |= b & -b;
}

static uint64_t alloc_mem(const struct pass *c, const struct shape *s,
			  const struct sched_node *n, const struct node_free *f,
			  uint32_t cpus)
{
	const struct sched_req *r = s->req;
	uint64_t mmpn = c->snap->parts[s->part].max_mem_per_node, mem = 0;
	if (n->mem && r->mem_per_cpu)
		mem = r->mem_per_cpu * cpus;
	else if (n->mem && r->mem_per_node == SCHED_MEM_WHOLE)
		mem = mmpn && mmpn < n->mem ? mmpn : n->mem;
	else if (n->mem)
		mem = r->mem_per_node;
	return mem > f->mem ? f->mem : mem;
}

/* The GPU devices a pick gets: want of the type (any type when
 * exclusive, which takes them all), the lowest free first. */
static uint32_t take_gpus(const struct sched_node *n, const uint8_t *busy,
			  const char *type, uint32_t want, uint32_t *units)
{
	uint32_t got = 0;
	for (uint32_t d = 0; d < n->n_gpus && got < want; d++)
		if (!busy[d] && gpu_matches(n, d, type)) {
			units[d] = n->gpus[d].capacity;
			got++;
		}
	return got;
}

static int fill_one(struct pass *c, const struct shape *s, const struct pick *pk,
		    int64_t start, uint32_t *gpus_left, struct sched_alloc *a)
{
	const struct sched_node *n = &c->snap->nodes[pk->node];
	const struct sched_req *r = s->req;
	struct node_free f;
	prof_window(&c->prof, pk->node, start, s->len, &s->view, c->cpu_free, c->gpu_busy,
		    &f);
	uint32_t cpus = s->view.excl ? n->n_cpus : pk->tasks * s->cpt;
	if (cpus < r->min_cpus)
		cpus = r->min_cpus;
	uint32_t words = SCHED_WORDS(n->n_cpus);
	uint64_t *ids = arena_alloc(c->pool, words * sizeof(*ids));
	uint32_t *units =
	    n->n_gpus ? arena_alloc(c->pool, n->n_gpus * sizeof(*units)) : NULL;
	if (!ids || (n->n_gpus && !units))
		return -ENOMEM;
	lowest_bits(c->cpu_free, words, cpus, ids);
	uint32_t want = r->gpus_per_node;
	if (s->view.excl)
		want = n->n_gpus;
	else if (!want && *gpus_left) {
		uint32_t avail = free_gpus(n, c->gpu_busy, r->gpu_type);
		want = avail < *gpus_left ? avail : *gpus_left;
	}
	uint32_t got = units ? take_gpus(n, c->gpu_busy,
					 s->view.excl ? NULL : r->gpu_type, want, units)
			     : 0;
	*gpus_left -= got < *gpus_left ? got : *gpus_left;
	*a = (struct sched_alloc){
	    .node = pk->node,
	    .cpus = cpus,
	    .tasks = pk->tasks,
	    .mem = alloc_mem(c, s, n, &f, cpus),
	    .cpu_ids = ids,
	    .gpu_units = units,
	};
	return 0;
}

int place_fill(struct pass *c, const struct shape *s, const struct pick *picks,
	       uint32_t n, int64_t start, struct sched_alloc *a)
{
	uint32_t gpus_left = s->req->gpus_total;
	for (uint32_t i = 0; i < n; i++)
		if (fill_one(c, s, &picks[i], start, &gpus_left, &a[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* What the job needs of one node at least: CPUs, memory, GPUs. */
static void per_node_need(const struct shape *s, uint32_t *cpus, uint64_t *mem)
{
	const struct sched_req *r = s->req;
	uint32_t tasks = r->ntasks_per_node ? r->ntasks_per_node : 1;
	*cpus = tasks * s->cpt;
	if (*cpus < r->min_cpus)
		*cpus = r->min_cpus;
	*mem = r->mem_per_cpu			    ? r->mem_per_cpu * *cpus
	       : r->mem_per_node == SCHED_MEM_WHOLE ? 1
						    : r->mem_per_node;
}

uint32_t place_lacks(struct pass *c, const struct shape *s)
{
	const struct sched_req *r = s->req;
	uint32_t need_cpus, ok_cpu = 0, ok_mem = 0, ok_gpu = 0, ok_all = 0;
	uint32_t nodes = r->min_nodes ? r->min_nodes : 1;
	uint64_t need_mem, free_cpus = 0, free_gpus_all = 0;
	struct sched_tres_vec total;
	limits_req_tres(r, &total);
	per_node_need(s, &need_cpus, &need_mem);
	for (uint32_t i = 0; i < s->m; i++) {
		uint32_t node = s->order[i];
		const struct sched_node *n = &c->snap->nodes[node];
		struct node_free f;
		if (!place_node_allowed(c, s, node, -2))
			continue;
		prof_window(&c->prof, node, c->prof.now, s->len, &s->view, c->cpu_free,
			    c->gpu_busy, &f);
		bool whole = !(f.blocked || (s->view.excl && f.busy));
		uint32_t cpus = f.n_cpus < f.part_room ? f.n_cpus : f.part_room;
		bool cpu = whole && cpus >= need_cpus;
		bool mem = whole && (!n->mem || f.mem >= need_mem);
		uint32_t gpus = free_gpus(n, c->gpu_busy, r->gpu_type);
		bool gpu = whole && gpus >= s->gpus_node;
		free_cpus += whole ? cpus : 0;
		free_gpus_all += whole ? gpus : 0;
		ok_cpu += cpu;
		ok_mem += mem;
		ok_gpu += gpu;
		ok_all += cpu && mem && gpu;
	}
	uint32_t lacks = 0;
	if (ok_cpu < nodes || free_cpus < total.v[SCHED_TRES_CPU])
		lacks |= 1u << SCHED_TRES_CPU;
	if (ok_mem < nodes)
		lacks |= 1u << SCHED_TRES_MEM;
	if (s->gpus_node && (ok_gpu < nodes || free_gpus_all < total.v[SCHED_TRES_GPU]))
		lacks |= 1u << SCHED_TRES_GPU;
	if (!lacks && ok_all < nodes)
		lacks |= 1u << SCHED_TRES_NODE;
	return lacks ? lacks : 1u << SCHED_TRES_NODE;
}
