/* rpc_prio.c — the requests about priority: prio.query (sprio: each
 * pending job's factors per candidate partition), job.top (scontrol top,
 * Slurm 22.05's _set_top), and the fair-share figures added to
 * assoc.query's reply (sshare). Reads ctld's tables; job.top changes
 * priorities and nice values, committed with the turn. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "common/proto_gen.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"
#include "ctld/part.h"
#include "ctld/prio_calc.h"
#include "ctld/prio_internal.h"
#include "ctld/rpc_handlers.h"

/* --- prio.query ------------------------------------------------------------ */

static bool has_u32(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool has_str(const char *const *v, size_t n, const char *x)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], x))
			return true;
	return false;
}

/* Whether sprio shows j, as Slurm's priority_p_get_priority_factors_list:
 * pending (or running with CALCULATE_RUNNING), eligible by now (by its
 * submit time with ACCRUE_ALWAYS), not held, and of the ids and users
 * asked for. */
static bool shown(const struct ctld *c, const struct job *j,
		  const struct drv_prio_query *m, int64_t now)
{
	unsigned flags = c->conf->prio.flags;
	if (j->state != JOB_PENDING && !(j->state == JOB_RUNNING && !j->completing &&
					 (flags & DRV_PRIO_CALCULATE_RUNNING)))
		return false;
	int64_t since =
	    flags & DRV_PRIO_ACCRUE_ALWAYS ? j->submit_time : j->eligible_time;
	if (!since || since > now || j->hold)
		return false;
	if (m->has_job_ids && !has_u32(m->job_ids, m->n_job_ids, j->id))
		return false;
	return !m->has_uids || has_u32(m->uids, m->n_uids, (uint32_t)j->uid);
}

/* The TRES factors sprio shows (those with a weight), in Slurm's order of
 * TRES ids: cpu, mem, node, billing, gres/gpu. */
static size_t tres_of(const struct ctld *c, const struct sched_prio_factors *f,
		      struct drv_rec_prio_tres *out)
{
	static const struct {
		int sched;
		const char *name;
	} order[] = {{SCHED_TRES_CPU, "cpu"},
		     {SCHED_TRES_MEM, "mem"},
		     {SCHED_TRES_NODE, "node"},
		     {SCHED_TRES_BILLING, "billing"},
		     {SCHED_TRES_GPU, "gres/gpu"}};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (c->prio->w.tres[order[i].sched] == 0.0)
			continue;
		out[n++] = (struct drv_rec_prio_tres){
		    order[i].name, prio_fixed(f->tres[order[i].sched], PRIO_BILLIONTHS)};
	}
	return n;
}

static bool part_wanted(const struct ctld *c, const struct drv_prio_query *m,
			uint32_t part)
{
	return !m->has_partitions ||
	       has_str(m->partitions, m->n_partitions, c->parts[part].conf->name);
}

struct rows {
	struct drv_rec_prio_row *v;
	struct drv_rec_prio_tres *tres; /* SCHED_TRES_COUNT per row */
	size_t n, cap;
};

static int row_add(struct ctld *c, struct rows *rs, struct job *j, uint32_t part)
{
	struct sched_prio_factors f;
	if (prio_job_factors(c, j, part, &f) < 0)
		return 0;
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct drv_rec_prio_row *v = realloc(rs->v, cap * sizeof(*v));
		if (v)
			rs->v = v;
		struct drv_rec_prio_tres *t =
		    realloc(rs->tres, cap * SCHED_TRES_COUNT * sizeof(*t));
		if (t)
			rs->tres = t;
		if (!v || !t)
			return -ENOMEM;
		rs->cap = cap;
	}
	size_t k = rs->n++;
	rs->v[k] = (struct drv_rec_prio_row){
	    .job_id = j->id,
	    .user = j->user,
	    .uid = (uint32_t)j->uid,
	    .account = j->req.account,
	    .qos = j->req.qos ? j->req.qos : "normal",
	    .partition = c->parts[part].conf->name,
	    .age = prio_fixed(f.age, PRIO_BILLIONTHS),
	    .assoc = prio_fixed(f.assoc, PRIO_BILLIONTHS),
	    .fairshare = prio_fixed(f.fairshare, PRIO_BILLIONTHS),
	    .job_size = prio_fixed(f.job_size, PRIO_BILLIONTHS),
	    .part_factor = prio_fixed(f.partition, PRIO_BILLIONTHS),
	    .qos_factor = prio_fixed(f.qos, PRIO_BILLIONTHS),
	    .nice = j->req.nice,
	    .direct_prio = j->priority_set ? (uint32_t)j->priority : 0,
	};
	rs->v[k].n_tres = tres_of(c, &f, &rs->tres[k * SCHED_TRES_COUNT]);
	return 0;
}

void rpc_prio_query(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_prio_query *m = r->msg;
	if (!c->prio || !c->conf->prio.multifactor) {
		rpc_reply(r, DRV_RC_NOT_SUPPORTED,
			  "You are not running a supported priority plugin "
			  "(priority/basic)",
			  NULL);
		return;
	}
	struct rows rs = {0};
	int64_t now = time(NULL);
	struct perm who;
	struct perm_scope see = {0}; /* PrivateData=jobs hides others' jobs here too */
	perm_of_req(r, &who);
	int rc = perm_job_scope(&who, &see) < 0 ? DRV_RC_ERROR : 0;
	for (struct job *j = c->jobs.head; j && rc == 0; j = j->next) {
		if (!shown(c, j, m, now) || !perm_scope_has(&see, j->uid, j->req.account))
			continue;
		int p = j->state == JOB_RUNNING ? ctld_part_index(c, j->partition) : -1;
		if (p >= 0) { /* CALCULATE_RUNNING: where it runs */
			rc = part_wanted(c, m, (uint32_t)p)
				 ? row_add(c, &rs, j, (uint32_t)p)
				 : 0;
			continue;
		}
		uint32_t n = 0;
		const uint32_t *cand = part_job_candidates(c, j, &n);
		for (uint32_t i = 0; i < n && rc == 0; i++)
			if (part_wanted(c, m, cand[i]))
				rc = row_add(c, &rs, j, cand[i]);
	}
	perm_scope_fini(&see);
	for (size_t k = 0; rc == 0 && k < rs.n; k++)
		rs.v[k].tres = &rs.tres[k * SCHED_TRES_COUNT];
	struct drv_prio_query_reply reply = {rs.v, rs.n};
	json_t *body = rc == 0 ? drv_prio_query_reply_encode(&reply) : NULL;
	free(rs.v);
	free(rs.tres);
	if (!body)
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
	else
		rpc_reply(r, 0, NULL, body);
}

/* --- assoc.query's figures ----------------------------------------------------- */

static void set_int(json_t *o, int field, int64_t v)
{
	json_object_set_new(o, drv_shape_rec_acct_assoc.fields[field].name,
			    json_integer(v));
}

void prio_assoc_reply(struct ctld *c, json_t *body)
{
	if (!c->prio || !c->conf->prio.multifactor || !body)
		return;
	const char *key =
	    drv_shape_assoc_query_reply.fields[DRV_ASSOC_QUERY_REPLY__ASSOCS].name;
	json_t *assocs = json_object_get(body, key), *a;
	size_t i;
	json_array_foreach(assocs, i, a)
	{
		json_t *id = json_object_get(
		    a, drv_shape_rec_acct_assoc.fields[DRV_REC_ACCT_ASSOC__ID].name);
		const struct sched_fs *fs =
		    prio_assoc_fs(c, (uint32_t)json_integer_value(id));
		if (!fs)
			continue;
		/* sshare's RawUsage is the subtree's */
		set_int(a, DRV_REC_ACCT_ASSOC__RAW_USAGE, (int64_t)fs->raw_usage);
		set_int(a, DRV_REC_ACCT_ASSOC__NORM_SHARES,
			prio_fixed(fs->norm_shares, PRIO_BILLIONTHS));
		set_int(a, DRV_REC_ACCT_ASSOC__NORM_USAGE,
			prio_fixed(fs->norm_usage, PRIO_BILLIONTHS));
		set_int(a, DRV_REC_ACCT_ASSOC__EFF_USAGE,
			prio_fixed(fs->eff_usage, PRIO_BILLIONTHS));
		set_int(a, DRV_REC_ACCT_ASSOC__FAIRSHARE,
			prio_fixed(fs->factor, PRIO_BILLIONTHS));
		if (fs->level_fs > 1e300) /* infinity: no usage */
			json_object_set_new(a,
					    drv_shape_rec_acct_assoc
						.fields[DRV_REC_ACCT_ASSOC__LEVEL_FS_INF]
						.name,
					    json_true());
		else
			set_int(a, DRV_REC_ACCT_ASSOC__LEVEL_FS,
				prio_fixed(fs->level_fs, PRIO_BILLIONTHS));
	}
}

/* --- job.top ----------------------------------------------------------------------- */

/* The job an argument names ("N", "N_*": the record with that id; "N_T":
 * task T of array N, which may still wait in the array's record); NULL
 * with *rc set when none. */
static struct job *top_arg(struct ctld *c, const char *arg, int *rc)
{
	char *end;
	long id = strtol(arg, &end, 10);
	*rc = DRV_RC_INVALID_JOB_ID;
	if (id <= 0 || id > (long)UINT32_MAX || (*end && *end != '_'))
		return NULL;
	if (!*end || !strcmp(end, "_*"))
		return job_table_find(&c->jobs, (uint32_t)id);
	long task = strtol(end + 1, &end, 10);
	if (*end || task < 0 || end == arg)
		return NULL;
	for (struct job *j = c->jobs.head; j; j = j->next) {
		if (j->array_job_id != (uint32_t)id)
			continue;
		if (j->array_task_id == task ||
		    (j->array && drv_array_test(j->array, (uint32_t)task)))
			return j;
	}
	return NULL;
}

static bool user_top_enabled(const struct ctld *c)
{
	for (size_t i = 0; i < c->conf->n_other; i++)
		if (!strcasecmp(c->conf->other[i].key, "SchedulerParameters") &&
		    strstr(c->conf->other[i].value, "enable_user_top"))
			return true;
	return false;
}

struct top {
	struct job **jobs; /* the named ones, then the others of the same kind */
	size_t n_top, n;
	uint64_t *prio; /* all their priorities, highest first */
};

static bool in_list(const struct top *t, const struct job *j)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->jobs[i] == j)
			return true;
	return false;
}

static int desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int32_t nice_add(int32_t nice, int64_t delta)
{
	int64_t v = (int64_t)nice + delta;
	return v > 2147483645 ? 2147483645 : v < -2147483645 ? -2147483645 : (int32_t)v;
}

/* Slurm's _set_top: the named jobs take the highest priorities among them
 * and the caller's other pending jobs of the same association, partition
 * and QOS, in the order named; each one's nice moves by what its priority
 * moved, and the others' the other way, so that recalculation keeps the
 * order. */
static void set_top(struct ctld *c, struct top *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->prio[i] = t->jobs[i]->priority;
	qsort(t->prio, t->n, sizeof(*t->prio), desc);
	uint64_t last = 0;
	int64_t total = 0;
	size_t next = 0;
	for (size_t i = 0; i < t->n_top; i++) {
		struct job *j = t->jobs[i];
		uint64_t p = t->prio[next++];
		if (i > 0 && p == last && last > 2)
			p = last - 1; /* never below 1 */
		last = p;
		int64_t delta = (int64_t)p - (int64_t)j->priority;
		total += delta;
		j->priority = p;
		j->req.nice = nice_add(j->req.nice, -delta);
		commit_job(c, j);
	}
	size_t others = t->n - t->n_top;
	for (size_t i = t->n_top; i < t->n; i++, others--) {
		struct job *j = t->jobs[i];
		int64_t delta = total / (int64_t)others;
		int64_t p = (int64_t)j->priority - delta;
		if (p >= (int64_t)last) {
			p = (int64_t)last - 1;
			delta = (int64_t)j->priority - p;
		}
		j->priority = (uint64_t)(p > 1 ? p : 1);
		j->req.nice = nice_add(j->req.nice, delta);
		total -= delta;
		commit_job(c, j);
	}
	sched_request(c);
}

static bool same_kind(const struct job *a, const struct job *b)
{
	return a->uid == b->uid && !a->req.partitions && a->partition && b->partition &&
	       !strcmp(a->partition, b->partition) &&
	       !strcmp(a->req.account ? a->req.account : "",
		       b->req.account ? b->req.account : "") &&
	       !strcmp(a->req.qos ? a->req.qos : "normal",
		       b->req.qos ? b->req.qos : "normal");
}

/* The named jobs that may move (rc: a refusal of the whole request; rc2:
 * why a named one was left out), then the others they move past. */
static int top_collect(struct rpc_req *r, const struct drv_job_top *m, struct top *t,
		       int *rc2)
{
	struct ctld *c = r->c;
	for (size_t i = 0; i < m->n_jobs; i++) {
		int rc;
		struct job *j = top_arg(c, m->jobs[i], &rc);
		if (!j)
			return rc;
		/* Slurm's job_set_top: an operator's, or the owner's own */
		if (j->uid != r->cred.uid && !rpc_is_operator(r))
			return DRV_RC_ACCESS_DENIED;
		if (j->state != JOB_PENDING) {
			*rc2 = DRV_RC_JOB_NOT_PENDING;
			continue;
		}
		if (j->req.partitions)
			return DRV_RC_PART_CONFIG_UNAVAIL;
		if (j->hold) {
			*rc2 = DRV_RC_JOB_HELD;
			continue;
		}
		if (!in_list(t, j))
			t->jobs[t->n++] = j;
	}
	t->n_top = t->n;
	if (!t->n)
		return 0;
	for (struct job *j = c->jobs.head; j; j = j->next)
		if (j->state == JOB_PENDING && !j->hold && j->priority > 1 &&
		    !in_list(t, j) && same_kind(j, t->jobs[0]))
			t->jobs[t->n++] = j;
	return 0;
}

void rpc_job_top(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_job_top *m = r->msg;
	if (!rpc_is_operator(r) && !user_top_enabled(c)) {
		rpc_reply(r, DRV_RC_ACCESS_DENIED, drv_rc_text(DRV_RC_ACCESS_DENIED),
			  NULL);
		return;
	}
	struct top t = {0};
	size_t cap = m->n_jobs + c->jobs.count + 1;
	t.jobs = calloc(cap, sizeof(*t.jobs));
	t.prio = calloc(cap, sizeof(*t.prio));
	int rc2 = 0;
	int rc = t.jobs && t.prio ? top_collect(r, m, &t, &rc2) : DRV_RC_ERROR;
	if (rc == 0 && !t.n_top)
		rc = rc2 ? rc2 : DRV_RC_INVALID_JOB_ID;
	if (rc == 0) {
		set_top(c, &t);
		log_info("job=%u moved to the top by uid=%u (%zu jobs adjusted)",
			 t.jobs[0]->id, (unsigned)r->cred.uid, t.n);
		rpc_reply_durable(r, 0, NULL, NULL);
	} else {
		rpc_reply(r, rc, drv_rc_text(rc), NULL);
	}
	free(t.jobs);
	free(t.prio);
}
