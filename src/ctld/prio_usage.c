/* prio_usage.c — fair-share usage and fair share: each association's
 * decayed, billed usage (acct_assoc.usage, its own only; sched_fairshare
 * sums subtrees), what running jobs add to it, its decay and reset, its
 * records in the store, and the fair-share figures computed from it.
 *
 * Each period (prio_period): a reset when PriorityUsageResetPeriod says,
 * the decay of all usage since the last period (sched_decay: the exact
 * half-life), then every running job's billed TRES-seconds since the last
 * period (or its start); a job that stops between periods adds its part
 * at once (prio_job_stop). Records are written in the turn's group commit:
 * one per association (kind usage, name its id) and the times (name
 * "decay"). A restart finds usage as of the last period, and its first
 * period adds the time ctld was down, as Slurm's decay thread does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto_gen.h"
#include "ctld/acct.h"
#include "ctld/acct_tree.h"
#include "ctld/ctld.h"
#include "ctld/part.h"
#include "ctld/prio_calc.h"
#include "ctld/prio_internal.h"
#include "ctld/sched_snap.h"

#define DECAY_NAME "decay"

/* The association with id in db: its associations are kept in the order
 * they were made, ids growing, so a binary search finds it (a linear one
 * when an older store left them otherwise). */
static struct acct_assoc *assoc_by_id(const struct acct_db *db, uint32_t id)
{
	size_t lo = 0, hi = db->n_assocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t x = db->assocs[mid]->id;
		if (x == id)
			return db->assocs[mid];
		if (x < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return acct_find_assoc_id(db, id);
}

static struct prio_stored *stored_find(struct prio *p, uint32_t id)
{
	size_t lo = 0, hi = p->n_stored;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->stored[mid].id == id)
			return &p->stored[mid];
		if (p->stored[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int by_stored_id(const void *a, const void *b)
{
	uint32_t x = ((const struct prio_stored *)a)->id;
	uint32_t y = ((const struct prio_stored *)b)->id;
	return x < y ? -1 : x > y;
}

/* --- records ------------------------------------------------------------- */

struct load_ctx {
	struct ctld *c;
	int rc;
};

static void load_decay(struct prio *p, json_t *rec)
{
	struct drv_rec_prio_decay r;
	struct drv_error err;
	if (drv_rec_prio_decay_decode(rec, &r, &err) < 0) {
		log_error("store: usage decay record: %s: ignored", err.text);
		return;
	}
	p->last_ran = r.last_ran;
	p->last_reset = r.last_reset;
	drv_rec_prio_decay_free(&r);
}

static int load_assoc(struct ctld *c, const char *name, json_t *rec)
{
	struct prio *p = c->prio;
	struct drv_rec_prio_usage r;
	struct drv_error err;
	char *end;
	unsigned long id = strtoul(name, &end, 10);
	if (*end || !id || id > UINT32_MAX ||
	    drv_rec_prio_usage_decode(rec, &r, &err) < 0) {
		log_error("store: usage record %s is malformed: ignored", name);
		return 0;
	}
	struct prio_stored *v = realloc(p->stored, (p->n_stored + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->stored = v;
	/* one the tables no longer have is deleted at the next write */
	p->stored[p->n_stored++] = (struct prio_stored){(uint32_t)id, r.raw_usage_milli};
	struct acct_assoc *a = assoc_by_id(c->acct, (uint32_t)id);
	if (a)
		a->usage = (double)r.raw_usage_milli / PRIO_THOUSANDTHS;
	drv_rec_prio_usage_free(&r);
	return 0;
}

static void on_object(enum store_obj_kind kind, const char *name, const char *text,
		      void *arg)
{
	struct load_ctx *x = arg;
	if (kind != STORE_OBJ_USAGE || x->rc < 0)
		return;
	json_t *rec = json_loads(text, 0, NULL);
	if (!rec)
		log_error("store: usage record %s is not JSON: ignored", name);
	else if (!strcmp(name, DECAY_NAME))
		load_decay(x->c->prio, rec);
	else
		x->rc = load_assoc(x->c, name, rec);
	json_decref(rec);
}

int prio_usage_load(struct ctld *c, struct drv_error *err)
{
	struct load_ctx x = {c, 0};
	int rc = store_load_objects(c->store, on_object, &x, err);
	if (rc == 0 && x.rc < 0)
		rc = drv_error_set(err, -x.rc, "out of memory");
	if (rc < 0)
		return rc;
	if (c->prio->n_stored > 1)
		qsort(c->prio->stored, c->prio->n_stored, sizeof(*c->prio->stored),
		      by_stored_id);
	log_info("recovered the usage of %zu associations", c->prio->n_stored);
	return 0;
}

static void put_json(struct ctld *c, const char *name, json_t *rec)
{
	char *text = rec ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (!text)
		abort(); /* out of memory in the daemon */
	commit_object(c, STORE_OBJ_USAGE, name, text);
	free(text);
	json_decref(rec);
}

/* a's record, when its value changed since the last one written. */
static void write_assoc(struct ctld *c, const struct acct_assoc *a)
{
	struct prio *p = c->prio;
	int64_t milli = prio_fixed(a->usage, PRIO_THOUSANDTHS);
	struct prio_stored *s = stored_find(p, a->id);
	if (s ? s->milli == milli : !milli)
		return;
	if (!s) {
		struct prio_stored *v =
		    realloc(p->stored, (p->n_stored + 1) * sizeof(*v));
		if (!v)
			abort();
		p->stored = v;
		size_t at = p->n_stored;
		while (at > 0 && p->stored[at - 1].id > a->id)
			at--;
		memmove(&p->stored[at + 1], &p->stored[at],
			(p->n_stored - at) * sizeof(*p->stored));
		p->n_stored++;
		s = &p->stored[at];
		s->id = a->id;
	}
	s->milli = milli;
	struct drv_rec_prio_usage r = {.raw_usage_milli = milli};
	char name[16];
	snprintf(name, sizeof(name), "%u", a->id);
	put_json(c, name, drv_shape_encode(&drv_shape_rec_prio_usage, &r, 0));
}

/* Every association's record that changed, the records of associations
 * the tables no longer have removed, and the times. */
static void write_all(struct ctld *c)
{
	struct prio *p = c->prio;
	size_t keep = 0;
	for (size_t i = 0; i < p->n_stored; i++) {
		if (assoc_by_id(c->acct, p->stored[i].id)) {
			p->stored[keep++] = p->stored[i];
			continue;
		}
		char name[16];
		snprintf(name, sizeof(name), "%u", p->stored[i].id);
		commit_object(c, STORE_OBJ_USAGE, name, NULL);
	}
	p->n_stored = keep;
	for (size_t i = 0; i < c->acct->n_assocs; i++)
		write_assoc(c, c->acct->assocs[i]);
	struct drv_rec_prio_decay r = {.last_ran = p->last_ran,
				       .last_reset = p->last_reset};
	put_json(c, DECAY_NAME, drv_shape_encode(&drv_shape_rec_prio_decay, &r, 0));
}

/* --- what running jobs add ------------------------------------------------ */

/* The association j's usage goes to (the one it runs under), NULL when
 * none. */
static struct acct_assoc *job_assoc(struct ctld *c, const struct job *j, double *factor)
{
	uint32_t a, q;
	const struct acct_policy *ap = sched_policy_acct(c);
	const struct sched_policy *sp = sched_policy_get(c);
	*factor = 1.0;
	if (!ap || !sp)
		return NULL;
	sched_policy_job(c, j, j->partition, &a, &q);
	if (q != SCHED_NONE && q < sp->n_qos)
		*factor = sp->qos[q].usage_factor;
	if (a == SCHED_NONE || a >= ap->n_assocs)
		return NULL;
	return assoc_by_id(c->acct, ap->assocs[a].id);
}

/* What j holds, billed at its partition's TRESBillingWeights. */
static double job_billing(const struct ctld *c, const struct job *j)
{
	struct prio_held h = {.nodes = j->n_alloc};
	for (uint32_t i = 0; i < j->n_alloc; i++) {
		h.cpus += j->alloc[i].cpus;
		h.mem += j->alloc[i].mem;
		h.gpus += (uint32_t)__builtin_popcountll(j->alloc[i].gpus);
	}
	const struct part *p = part_find(c, j->partition);
	return prio_billing(p ? &p->conf->billing_weights : NULL, &h);
}

/* Adds j's usage from the last period (or its start, or its last resume)
 * to end; returns its association, NULL when it has none. */
static struct acct_assoc *accrue(struct ctld *c, const struct job *j, int64_t end)
{
	int64_t from =
	    c->prio->last_ran > j->start_time ? c->prio->last_ran : j->start_time;
	if (j->suspend_time > from) /* resumed since: suspended time is free */
		from = j->suspend_time;
	double factor;
	struct acct_assoc *a = job_assoc(c, j, &factor);
	if (!a || end <= from)
		return a;
	a->usage += prio_accrue(job_billing(c, j), end - from, factor);
	return a;
}

static bool runs(const struct job *j)
{
	/* a suspended job uses nothing (Slurm charges no usage for it) */
	return j->state == JOB_RUNNING && !j->completing && j->n_alloc && j->start_time &&
	       !j->suspended;
}

void prio_job_stop(struct ctld *c, struct job *j, int64_t now)
{
	if (!c->prio || !c->conf->prio.multifactor || !runs(j) || !c->prio->last_ran)
		return;
	struct acct_assoc *a = accrue(c, j, now);
	if (a)
		write_assoc(c, a);
}

/* --- the period --------------------------------------------------------------- */

static void reset_all(struct ctld *c, int64_t now)
{
	for (size_t i = 0; i < c->acct->n_assocs; i++)
		c->acct->assocs[i]->usage = 0;
	log_info("priority: usage reset (PriorityUsageResetPeriod)");
	(void)now;
}

/* PriorityUsageResetPeriod: NOW once a start, the others when due. */
static void maybe_reset(struct ctld *c, int64_t now)
{
	struct prio *p = c->prio;
	enum drv_prio_reset period = c->conf->prio.reset_period;
	if (!p->last_reset)
		p->last_reset = now;
	if (period == DRV_PRIO_RESET_NOW && !p->reset_now_done) {
		reset_all(c, now);
		p->reset_now_done = true;
		p->last_reset = now;
		return;
	}
	if (period < DRV_PRIO_RESET_DAILY)
		return;
	if (!p->next_reset)
		p->next_reset = prio_next_reset(period, p->last_reset, now);
	if (p->next_reset && now >= p->next_reset) {
		reset_all(c, now);
		p->last_reset = p->next_reset;
		p->next_reset = prio_next_reset(period, p->last_reset, now);
	}
}

void prio_usage_period(struct ctld *c, int64_t now)
{
	struct prio *p = c->prio;
	maybe_reset(c, now);
	if (p->last_ran && now > p->last_ran) {
		int64_t hl = c->conf->prio.decay_half_life;
		for (size_t i = 0; i < c->acct->n_assocs; i++) {
			struct acct_assoc *a = c->acct->assocs[i];
			a->usage = sched_decay(a->usage, now - p->last_ran, hl);
		}
		for (struct job *j = c->jobs.head; j; j = j->next)
			if (runs(j))
				accrue(c, j, now);
	}
	if (!p->last_ran || now > p->last_ran)
		p->last_ran = now;
	write_all(c);
}

/* --- fair share ------------------------------------------------------------------ */

static int by_id(const void *a, const void *b, void *arg)
{
	const uint32_t *ids = arg;
	uint32_t x = ids[*(const uint32_t *)a], y = ids[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

static void index_by_id(struct prio *p)
{
	for (uint32_t i = 0; i < p->n_fs; i++)
		p->by_id[i] = i;
	qsort_r(p->by_id, p->n_fs, sizeof(*p->by_id), by_id, p->ids);
}

static void fs_clear(struct prio *p)
{
	free(p->fs);
	free(p->ids);
	free(p->by_id);
	p->fs = NULL;
	p->ids = p->by_id = NULL;
	p->n_fs = 0;
	p->fs_ok = false;
}

/* The policy's tree with the usage as it is now (the policy keeps what the
 * tables held when it was built); users unknown to the passwd database
 * stay users. A new array; NULL on ENOMEM. */
static struct sched_assoc *tree_now(struct ctld *c, const struct sched_policy *sp,
				    const struct acct_policy *ap)
{
	struct sched_assoc *t = calloc(sp->n_assocs + 1, sizeof(*t));
	for (uint32_t i = 0; t && i < sp->n_assocs; i++) {
		t[i] = sp->assocs[i];
		const struct acct_assoc *a = assoc_by_id(c->acct, ap->assocs[i].id);
		t[i].usage = a && a->usage > 0 ? a->usage : 0;
		if (ap->assocs[i].user && t[i].uid == SCHED_NONE)
			t[i].uid = SCHED_NONE - 1;
	}
	return t;
}

int prio_fs_refresh(struct ctld *c)
{
	struct prio *p = c->prio;
	if (p->fs_ok && p->fs_gen == c->acct_gen)
		return 0;
	const struct sched_policy *sp = sched_policy_get(c);
	const struct acct_policy *ap = sched_policy_acct(c);
	fs_clear(p);
	if (!sp || !ap || !sp->n_assocs)
		return sp ? 0 : -ENOMEM;
	struct sched_assoc *t = tree_now(c, sp, ap);
	p->fs = calloc(sp->n_assocs, sizeof(*p->fs));
	p->ids = calloc(sp->n_assocs, sizeof(*p->ids));
	p->by_id = calloc(sp->n_assocs, sizeof(*p->by_id));
	enum sched_fs_algo algo = c->conf->prio.flags & DRV_PRIO_NO_FAIR_TREE
				      ? SCHED_FS_CLASSIC
				      : SCHED_FS_FAIR_TREE;
	int rc = t && p->fs && p->ids && p->by_id
		     ? sched_fairshare(t, sp->n_assocs, algo, p->fs)
		     : -ENOMEM;
	free(t);
	if (rc == -ENOMEM) {
		fs_clear(p);
		log_error("priority: out of memory computing fair share");
		return rc;
	}
	if (rc < 0) { /* every factor 0 until the tables change: said once */
		fs_clear(p);
		log_error("priority: the association tree is malformed: fair share 0");
		p->fs_gen = c->acct_gen;
		p->fs_ok = true;
		return 0;
	}
	p->n_fs = sp->n_assocs;
	for (uint32_t i = 0; i < p->n_fs; i++)
		p->ids[i] = ap->assocs[i].id;
	index_by_id(p);
	p->fs_gen = c->acct_gen;
	p->fs_ok = true;
	return 0;
}

double prio_fs_factor(struct ctld *c, uint32_t assoc)
{
	struct prio *p = c->prio;
	if (!p->fs_ok || assoc == SCHED_NONE || assoc >= p->n_fs)
		return 0.0;
	return p->fs[assoc].factor;
}

const struct sched_fs *prio_assoc_fs(struct ctld *c, uint32_t assoc_id)
{
	struct prio *p = c->prio;
	if (!p || !c->conf->prio.multifactor || prio_fs_refresh(c) < 0)
		return NULL;
	size_t lo = 0, hi = p->n_fs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t id = p->ids[p->by_id[mid]];
		if (id == assoc_id)
			return &p->fs[p->by_id[mid]];
		if (id < assoc_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void prio_usage_fini(struct prio *p)
{
	fs_clear(p);
	free(p->stored);
	p->stored = NULL;
	p->n_stored = 0;
}
