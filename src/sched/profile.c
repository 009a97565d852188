/* profile.c — the resource-time profile: for each node, the reservations
 * (running jobs, jobs started and planned by this pass) that hold its CPU
 * ids, memory and GPU units over time; for each license, its use as steps
 * over time; and the set of candidate start times their ends make. It
 * answers "what does this node have free for this job over [t, t + len)"
 * exactly: CPU ids and GPU devices are free over a window when nobody holds
 * them at any instant of it, memory is the node's less the largest sum held
 * at one instant. Pure; it knows nothing of requests or policy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

int64_t add_sat(int64_t t, int64_t len)
{
	if (len >= INT64_MAX - t)
		return INT64_MAX;
	return t + len;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t prof_quant(const struct prof *p, int64_t e)
{
	if (e <= p->now)
		return p->now;
	if (e > INT64_MAX - p->res)
		return INT64_MAX;
	return floor_div(e + p->res - 1, p->res) * p->res;
}

/* The slot of candidate time q (now or a grid point after it). */
static uint32_t slot_of(const struct prof *p, int64_t q)
{
	if (q <= p->now)
		return 0;
	return (uint32_t)((q - p->g1) / p->res + 1);
}

void prof_mark_end(struct prof *p, int64_t end)
{
	int64_t q = prof_quant(p, end);
	if (q <= p->now || q - p->now > p->window)
		return;
	uint32_t s = slot_of(p, q);
	if (s < p->n_slots)
		p->slots[s / 64] |= 1ULL << (s % 64);
}

int64_t prof_next_event(const struct prof *p, int64_t t)
{
	uint32_t s = t < p->g1 ? 1 : (uint32_t)((t - p->g1) / p->res + 2);
	for (uint32_t w = s / 64; s < p->n_slots; w++, s = w * 64) {
		uint64_t bits = p->slots[w] >> (s % 64);
		if (bits) {
			s += (uint32_t)__builtin_ctzll(bits);
			return s < p->n_slots ? p->g1 + (int64_t)(s - 1) * p->res
					      : INT64_MAX;
		}
	}
	return INT64_MAX;
}

/* Index of the first reservation of np that ends after t. */
static uint32_t first_after(const struct node_prof *np, int64_t t)
{
	uint32_t lo = 0, hi = np->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (np->r[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Can a device of n be held by one job only? Then devices held add up. */
static bool whole_devices(const struct sched_node *n)
{
	for (uint32_t d = 0; d < n->n_gpus; d++)
		if (n->gpus[d].capacity != 1)
			return false;
	return true;
}

uint32_t prof_bound_now(const struct prof *p, uint32_t node, const struct node_need *need)
{
	const struct sched_node *n = &p->nodes[node];
	const struct node_prof *np = &p->np[node];
	if (np->overbooked) /* its counts are no bound */
		return 0;
	bool now = np->cpus_now + need->cpus <= n->n_cpus &&
		   (!n->mem || !need->mem || np->mem_now + need->mem <= n->mem) &&
		   (!whole_devices(n) || np->gpus_now + need->gpus <= n->n_gpus);
	if (now)
		return 0;
	int64_t e = prof_quant(p, np->first_end);
	return np->first_end == INT64_MAX || e - p->now > p->window
		   ? REL_INF
		   : (uint32_t)(e - p->now);
}

static uint32_t add32(uint32_t a, uint64_t b)
{
	return b >= UINT32_MAX - a ? UINT32_MAX : (uint32_t)(a + b);
}

void prof_added(const struct prof *p, uint32_t node, uint32_t version, int64_t t,
		int64_t len, struct spare *added, uint32_t *count, bool *excl)
{
	const struct node_prof *np = &p->np[node];
	const struct sched_node *n = &p->nodes[node];
	int64_t end = add_sat(t, len);
	*added = (struct spare){0};
	*excl = false;
	*count = 0;
	(void)n;
	/* versions after the first are the log's, in order */
	for (uint32_t v = version > 1 ? version - 1 : 0; v < np->n_log; v++) {
		const struct added *a = &np->log[v];
		if (a->end <= t || a->start >= end)
			continue;
		*excl |= a->excl;
		(*count)++;
		added->cpus = add32(added->cpus, a->cpus);
		added->mem = add32(added->mem, a->mem);
		added->gpus += a->gpus;
	}
}

int64_t prof_next_end(const struct prof *p, uint32_t node, int64_t t)
{
	const struct node_prof *np = &p->np[node];
	for (uint32_t i = first_after(np, t); i < np->n; i++) {
		int64_t q = prof_quant(p, np->r[i].end);
		if (q > t)
			return q;
	}
	return INT64_MAX;
}

static uint32_t devices_of(const struct sched_node *n, const struct resv *r)
{
	uint32_t k = 0;
	for (uint32_t d = 0; r->gpu_units && d < n->n_gpus; d++)
		k += r->gpu_units[d] != 0;
	return k;
}

/* Logs what np's new version added, for prof_added. */
static int log_add(const struct prof *p, struct node_prof *np, const struct resv *r)
{
	if (np->n_log == np->cap_log) {
		uint32_t cap = np->cap_log ? np->cap_log * 2 : 8;
		struct added *v = realloc(np->log, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		np->log = v;
		np->cap_log = cap;
	}
	np->log[np->n_log++] = (struct added){
	    r->start,
	    r->end,
	    r->cpus,
	    r->mem > UINT32_MAX ? UINT32_MAX : (uint32_t)r->mem,
	    devices_of(&p->nodes[np - p->np], r),
	    r->excl,
	};
	return 0;
}

/* Does r hold, at some instant, a CPU id that another reservation holds
 * then, neither of them sharing, or a GPU device another holds then? Only
 * a plan honoured after what it was planned around changed (a job above
 * it started on its CPUs) does; the node's counts (CPUs held alone,
 * devices held) then say less is free than is. */
static bool overbooks(const struct prof *p, const struct node_prof *np, uint32_t node,
		      const struct resv *r)
{
	const struct sched_node *n = &p->nodes[node];
	uint32_t words = SCHED_WORDS(n->n_cpus);
	for (uint32_t i = first_after(np, r->start); i < np->n; i++) {
		const struct resv *q = &np->r[i];
		if (q->start >= r->end)
			continue;
		for (uint32_t w = 0;
		     !r->shares && !q->shares && r->cpu_ids && q->cpu_ids && w < words;
		     w++)
			if (r->cpu_ids[w] & q->cpu_ids[w])
				return true;
		for (uint32_t d = 0; r->gpu_units && q->gpu_units && d < n->n_gpus; d++)
			if (r->gpu_units[d] && q->gpu_units[d])
				return true;
	}
	return false;
}

void resv_masks(const struct sched_node *n, struct resv *r)
{
	r->cpus64 = r->cpu_ids ? r->cpu_ids[0] : 0;
	r->gpus64 = 0;
	for (uint32_t d = 0; r->gpu_units && d < n->n_gpus && d < 64; d++)
		r->gpus64 |= (uint64_t)(r->gpu_units[d] != 0) << d;
}

int prof_add_plan(struct prof *p, uint32_t node, const struct resv *r)
{
	struct resv copy = *r;
	resv_masks(&p->nodes[node], &copy);
	p->np[node].overbooked |= overbooks(p, &p->np[node], node, &copy);
	return prof_add(p, node, r);
}

int prof_add(struct prof *p, uint32_t node, const struct resv *in)
{
	struct node_prof *np = &p->np[node];
	struct resv copy = *in, *r = &copy;
	resv_masks(&p->nodes[node], r);
	if (np->n == np->cap) {
		uint32_t cap = np->cap ? np->cap * 2 : 4;
		struct resv *v = np->r_borrowed ? malloc(cap * sizeof(*v))
						: realloc(np->r, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (np->r_borrowed)
			memcpy(v, np->r, np->n * sizeof(*v));
		np->r = v;
		np->cap = cap;
		np->r_borrowed = false;
	}
	uint32_t at = first_after(np, r->end);
	memmove(&np->r[at + 1], &np->r[at], (np->n - at) * sizeof(*r));
	np->r[at] = *r;
	np->n++;
	np->r[at].version = ++np->version;
	prof_mark_end(p, r->end);
	if (log_add(p, np, r) < 0)
		return -ENOMEM;
	uint32_t slot = r->part < p->n_parts ? p->mcpn_slot[r->part] : UINT32_MAX;
	if (slot != UINT32_MAX && !np->part_cpus)
		np->part_cpus = calloc(p->n_mcpn, sizeof(*np->part_cpus));
	if (slot != UINT32_MAX &&
	    (!np->part_cpus ||
	     steps_add(&np->part_cpus[slot], r->start, r->end, r->cpus) < 0))
		return -ENOMEM;
	uint32_t devices = 0;
	for (uint32_t d = 0; r->gpu_units && d < p->nodes[node].n_gpus; d++)
		devices += r->gpu_units[d] != 0;
	if (r->start <= p->now) {
		np->cpus_now += r->shares ? 0 : r->cpus;
		np->gpus_now += devices;
		np->mem_now += r->mem;
	}
	if (r->end < np->first_end)
		np->first_end = r->end;
	/* counts of what is held alone: two sharing holders of one CPU would
	 * count it twice, and the counts must never say less is free */
	return nsteps_add(&np->use, r->start, r->end, r->mem, r->shares ? 0 : r->cpus,
			  devices);
}

/* The earliest candidate time >= t at which no step of what node holds
 * over [t', t' + len) leaves it less than need; INT64_MAX when none is
 * within the window. One scan: a step that blocks moves t' past its end,
 * and the scan goes on from there. A step blocks when it holds more than
 * the node has less the need; memory held past the node's size (a plan
 * honoured over a start) leaves none free, and a job that needs none
 * still fits. */
static int64_t use_clear(const struct prof *p, uint32_t node, int64_t t, int64_t len,
			 const struct node_need *need)
{
	const struct sched_node *n = &p->nodes[node];
	const struct nsteps *u = &p->np[node].use;
	bool mem = n->mem && need->mem, gpus = need->gpus && whole_devices(n);
	if (need->cpus > n->n_cpus || (mem && need->mem > n->mem) ||
	    (gpus && need->gpus > n->n_gpus))
		return INT64_MAX; /* not even on the empty node */
	if (!u->s)		  /* nothing held */
		return t;
	uint32_t max_cpus = n->n_cpus - need->cpus;
	uint32_t max_gpus = gpus ? n->n_gpus - need->gpus : UINT32_MAX;
	uint64_t max_mem = mem ? n->mem - need->mem : UINT64_MAX;
	int64_t end = add_sat(t, len);
	for (uint32_t i = nsteps_at(u, t); i < u->n; i++) {
		const struct nstep *st = &u->s[i];
		if (st->t >= end)
			break;
		if (st->cpus <= max_cpus && st->mem <= max_mem && st->gpus <= max_gpus)
			continue;
		int64_t next = i + 1 < u->n ? u->s[i + 1].t : INT64_MAX;
		if (next <= t)
			continue;
		if (next == INT64_MAX)
			return INT64_MAX;
		t = prof_quant(p, next);
		if (t - p->now > p->window)
			return INT64_MAX;
		end = add_sat(t, len);
	}
	return t;
}

int64_t prof_earliest_counts(const struct prof *p, uint32_t node, int64_t t, int64_t len,
			     const struct job_view *v, const struct node_need *need)
{
	const struct node_prof *np = &p->np[node];
	uint32_t slot = v->part < p->n_parts ? p->mcpn_slot[v->part] : UINT32_MAX;
	bool part = v->part_mcpn && slot != UINT32_MAX && np->part_cpus;
	if (t - p->now > p->window)
		return INT64_MAX;
	if (np->overbooked)
		return t;
	for (;;) {
		t = use_clear(p, node, t, len, need);
		if (!part || t == INT64_MAX)
			return t;
		int64_t b = steps_last_block(&np->part_cpus[slot], v->part_mcpn,
					     need->cpus, t, add_sat(t, len));
		if (b == INT64_MIN)
			return t;
		if (b == INT64_MAX)
			return INT64_MAX;
		t = prof_quant(p, b);
		if (t - p->now > p->window)
			return INT64_MAX;
	}
}

/* --- licenses ----------------------------------------------------------------- */

int prof_add_lics(struct prof *p, const struct sched_lic_req *l, uint32_t n,
		  int64_t start, int64_t end)
{
	for (uint32_t k = 0; k < n; k++) {
		if (steps_add(&p->lp[l[k].lic], start, end, l[k].count) < 0)
			return -ENOMEM;
		if (l[k].count)
			prof_mark_end(p, end);
	}
	return 0;
}

int64_t prof_lics_earliest(const struct prof *p, const struct sched_lic_req *l,
			   uint32_t n, int64_t t, int64_t len)
{
	while (t - p->now <= p->window) {
		int64_t jump = INT64_MIN;
		for (uint32_t k = 0; k < n; k++) {
			uint64_t total = p->lics[l[k].lic].total;
			int64_t b = steps_last_block(&p->lp[l[k].lic], total, l[k].count,
						     t, add_sat(t, len));
			if (b > jump)
				jump = b;
		}
		if (jump == INT64_MIN)
			return t;
		if (jump == INT64_MAX)
			return INT64_MAX;
		t = prof_quant(p, jump);
	}
	return INT64_MAX;
}

/* --- what a node has free over a window ------------------------------------- */

/* Marks in used the CPUs that one more sharing job (of share_max) may not
 * take at instant at: each holder's partition bounds the holders too. */
static void full_at(const struct node_prof *np, uint32_t first, int64_t at,
		    uint32_t n_cpus, uint32_t share_max, uint16_t *cnt, uint16_t *cap,
		    uint64_t *used)
{
	uint16_t mine = share_max > UINT16_MAX ? UINT16_MAX : (uint16_t)share_max;
	for (uint32_t b = 0; b < n_cpus; b++)
		cnt[b] = 0, cap[b] = mine;
	for (uint32_t i = first; i < np->n; i++) {
		const struct resv *r = &np->r[i];
		if (!r->shares || !r->cpu_ids || r->start > at || r->end <= at)
			continue;
		for (uint32_t b = 0; b < n_cpus; b++)
			if (r->cpu_ids[b / 64] >> (b % 64) & 1) {
				cnt[b] += cnt[b] < UINT16_MAX;
				if (r->share_max < cap[b])
					cap[b] = (uint16_t)r->share_max;
			}
	}
	for (uint32_t b = 0; b < n_cpus; b++)
		if (cnt[b] + 1u > cap[b])
			used[b / 64] |= 1ULL << (b % 64);
}

/* CPUs a sharing job may not take over [t, end): full at some instant,
 * which is at t or where some sharing holder begins. */
static void shared_cpus(struct prof *p, const struct node_prof *np, uint32_t first,
			int64_t t, int64_t end, uint32_t n_cpus, uint32_t share_max,
			uint64_t *used)
{
	uint16_t *cnt = p->cpu_count, *cap = p->cpu_count + n_cpus;
	full_at(np, first, t, n_cpus, share_max, cnt, cap, used);
	for (uint32_t i = first; i < np->n; i++) {
		const struct resv *r = &np->r[i];
		if (r->shares && r->start > t && r->start < end)
			full_at(np, first, r->start, n_cpus, share_max, cnt, cap, used);
	}
}

void prof_window(struct prof *p, uint32_t node, int64_t t, int64_t len,
		 const struct job_view *v, uint64_t *cpu_free, uint8_t *gpu_busy,
		 struct node_free *out)
{
	const struct sched_node *n = &p->nodes[node];
	const struct node_prof *np = &p->np[node];
	uint32_t words = SCHED_WORDS(n->n_cpus);
	int64_t end = add_sat(t, len);
	uint32_t first = first_after(np, t);
	bool any_shared = false;
	memset(cpu_free, 0, words * sizeof(*cpu_free));
	memset(gpu_busy, 0, n->n_gpus);
	*out = (struct node_free){0};
	bool small = words == 1 && n->n_gpus <= 64;
	uint64_t gpus = 0;
	for (uint32_t i = first; i < np->n; i++) {
		const struct resv *r = &np->r[i];
		if (r->start >= end)
			continue;
		out->busy = true;
		out->blocked |= r->excl;
		if (v->shares && r->shares)
			any_shared = true;
		else if (small)
			cpu_free[0] |= r->cpus64;
		else
			for (uint32_t w = 0; r->cpu_ids && w < words; w++)
				cpu_free[w] |= r->cpu_ids[w];
		if (small)
			gpus |= r->gpus64;
		else
			for (uint32_t d = 0; r->gpu_units && d < n->n_gpus; d++)
				gpu_busy[d] |= r->gpu_units[d] != 0;
	}
	for (uint32_t d = 0; small && d < n->n_gpus; d++)
		gpu_busy[d] = gpus >> d & 1;
	if (any_shared)
		shared_cpus(p, np, first, t, end, n->n_cpus, v->share_max, cpu_free);
	for (uint32_t w = 0; w < words; w++) {
		cpu_free[w] = ~cpu_free[w];
		if (w == words - 1 && n->n_cpus % 64)
			cpu_free[w] &= (1ULL << (n->n_cpus % 64)) - 1;
		out->n_cpus += sched_popcount64(cpu_free[w]);
	}
	uint64_t mem = n->mem ? nsteps_max_mem(&np->use, t, end) : 0, part_cpus = 0;
	out->mem = !n->mem ? UINT64_MAX : mem >= n->mem ? 0 : n->mem - mem;
	uint32_t slot = v->part < p->n_parts ? p->mcpn_slot[v->part] : UINT32_MAX;
	if (v->part_mcpn && slot != UINT32_MAX && np->part_cpus)
		part_cpus = steps_max(&np->part_cpus[slot], t, end);
	out->part_room = !v->part_mcpn		     ? UINT32_MAX
			 : part_cpus >= v->part_mcpn ? 0
						     : v->part_mcpn - (uint32_t)part_cpus;
}

static int alloc_tables(struct prof *p)
{
	p->np = calloc(p->n_nodes ? p->n_nodes : 1, sizeof(*p->np));
	p->lp = calloc(p->n_lics ? p->n_lics : 1, sizeof(*p->lp));
	p->slots = calloc(p->n_slots / 64 + 1, sizeof(*p->slots));
	uint32_t max_cpus = 1;
	p->max_words = 1;
	p->max_gpus = 1;
	for (uint32_t i = 0; i < p->n_nodes; i++) {
		p->np[i].version = 1;
		p->np[i].first_end = INT64_MAX;
		if (p->nodes[i].n_cpus > max_cpus)
			max_cpus = p->nodes[i].n_cpus;
		if (p->nodes[i].n_gpus > p->max_gpus)
			p->max_gpus = p->nodes[i].n_gpus;
	}
	p->max_words = SCHED_WORDS(max_cpus);
	p->cpu_count = calloc(3 * (size_t)max_cpus, sizeof(*p->cpu_count));
	p->mcpn_slot = malloc((p->n_parts + 1) * sizeof(*p->mcpn_slot));
	if (!p->np || !p->lp || !p->slots || !p->cpu_count || !p->mcpn_slot)
		return -ENOMEM;
	for (uint32_t k = 0; k < p->n_parts; k++)
		p->mcpn_slot[k] =
		    p->parts[k].max_cpus_per_node ? p->n_mcpn++ : UINT32_MAX;
	return 0;
}

int prof_init(struct prof *p, const struct sched_snapshot *snap, int64_t res,
	      int64_t window, bool idle)
{
	*p = (struct prof){
	    .nodes = snap->nodes,
	    .n_nodes = snap->n_nodes,
	    .lics = snap->lics,
	    .n_lics = snap->n_lics,
	    .parts = snap->parts,
	    .n_parts = snap->n_parts,
	    .now = snap->now,
	    .res = res > 0 ? res : 1,
	    .window = window > 0 ? window : 0,
	};
	p->g1 = (floor_div(p->now, p->res) + 1) * p->res;
	p->n_slots = 1;
	if (p->now + p->window >= p->g1)
		p->n_slots += (uint32_t)((p->now + p->window - p->g1) / p->res + 1);
	int rc = alloc_tables(p);
	if (rc == 0 && !idle)
		rc = prof_build_running(p, snap);
	if (rc < 0)
		prof_fini(p);
	return rc;
}

void prof_fini(struct prof *p)
{
	for (uint32_t i = 0; p->np && i < p->n_nodes; i++) {
		if (!p->np[i].r_borrowed)
			free(p->np[i].r);
		nsteps_fini(&p->np[i].use);
		free(p->np[i].log);
		for (uint32_t k = 0; p->np[i].part_cpus && k < p->n_mcpn; k++)
			steps_fini(&p->np[i].part_cpus[k]);
		free(p->np[i].part_cpus);
	}
	for (uint32_t k = 0; p->lp && k < p->n_lics; k++)
		steps_fini(&p->lp[k]);
	free(p->mcpn_slot);
	arena_free(&p->arena);
	free(p->np);
	free(p->lp);
	free(p->slots);
	free(p->cpu_count);
	*p = (struct prof){0};
}
