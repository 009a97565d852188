/* rpc_job.c — client requests about existing jobs: query, cancel, hold,
 * release, requeue and update. State changes go through job_state.c. */
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/cpuset.h"
#include "common/jsonw.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job_fields.h"
#include "ctld/job_policy.h"
#include "ctld/perm.h"
#include "ctld/prio.h"
#include "ctld/rpc_handlers.h"
#include "ctld/step.h"

static bool in_ids(const uint32_t *ids, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == v)
			return true;
	return false;
}

static bool in_str_list(const char *const *list, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (v && !strcmp(list[i], v))
			return true;
	return false;
}

static bool state_wanted(const char *const *states, size_t n, const struct job *j)
{
	/* a completing job is COMPLETING (-t CG), not yet its final state
	 * (nor PENDING, when requeued) */
	bool cg = j->completing;
	/* a suspended job is SUSPENDED (-t S), not RUNNING */
	bool sus = !cg && j->state == JOB_RUNNING && j->suspended;
	for (size_t i = 0; i < n; i++)
		if (cg ? !strcasecmp(states[i], "COMPLETING") ||
			     !strcasecmp(states[i], "CG")
		    : sus ? !strcasecmp(states[i], "SUSPENDED") ||
				!strcasecmp(states[i], "S")
			  : job_state_parse(states[i]) == (int)j->state)
			return true;
	return false;
}

static bool job_wanted(const struct drv_job_query *m, const struct job *j)
{
	if (m->active && job_state_final(j->state) && !j->completing)
		return false; /* squeue's default listing: ended jobs stay here */
	/* an array's id names all its tasks, as in Slurm */
	return (!m->has_job_ids || in_ids(m->job_ids, m->n_job_ids, j->id) ||
		(j->array_job_id && in_ids(m->job_ids, m->n_job_ids, j->array_job_id))) &&
	       (!m->has_users || in_str_list(m->users, m->n_users, j->user)) &&
	       (!m->has_states || state_wanted(m->states, m->n_states, j));
}

/* scontrol show job -d's per-node lines: each node the job holds, its CPU
 * ids, memory and GPUs (the store's allocation entries, in the open). */
static json_t *node_detail(const struct ctld *c, const struct job *j)
{
	json_t *out = json_array();
	for (uint32_t i = 0; i < j->n_alloc; i++) {
		const struct job_alloc *a = &j->alloc[i];
		char ids[4096] = "";
		if (a->cpu_ids)
			drv_cpuset_format(a->cpu_ids, a->cpu_bits, ids, sizeof(ids));
		struct drv_rec_job_alloc d = {
		    .node = c->nodes.names[a->node],
		    .cpus = a->cpus,
		    .tasks = a->tasks,
		    .mem = a->mem,
		    .gpus = (int64_t)a->gpus,
		    .cpu_ids = a->cpu_ids ? ids : NULL,
		};
		json_array_append_new(out, drv_rec_job_alloc_encode(&d));
	}
	return out;
}

/* Whole records, for scontrol show job. */
static void query_records(struct rpc_req *r, const struct perm_scope *see)
{
	json_t *out = json_array();
	for (struct job *j = r->c->jobs.head; j; j = j->next) {
		if (!job_wanted(r->msg, j) ||
		    !perm_scope_has(see, j->uid, j->req.account))
			continue;
		json_t *rec = job_to_record(j);
		/* scontrol shows JobState=COMPLETING while its node cleans up */
		json_object_set_new(rec,
				    drv_shape_rec_job.fields[DRV_REC_JOB__STATE].name,
				    json_string(job_shown_state(j)));
		if (j->n_alloc)
			json_object_set_new(
			    rec, drv_shape_rec_job.fields[DRV_REC_JOB__NODE_DETAIL].name,
			    node_detail(r->c, j));
		json_array_append_new(out, rec);
	}
	/* the records are trees already: they go in by the declared name */
	struct drv_job_query_reply reply = {.now = time(NULL)};
	json_t *body = drv_job_query_reply_encode(&reply);
	json_object_set_new(
	    body, drv_shape_job_query_reply.fields[DRV_JOB_QUERY_REPLY__JOBS].name, out);
	rpc_reply(r, 0, NULL, body);
}

/* Compact rows of just the fields asked for (what squeue and scancel poll),
 * written as text: {"fields":[...],"now":N,"rows":[[...],...]}, the keys
 * in sorted order as the text is its own digest's input. */
static void query_rows(struct rpc_req *r, const struct perm_scope *see)
{
	const struct drv_job_query *m = r->msg;
	const struct drv_field *f = drv_shape_job_query_reply.fields;
	size_t n = m->n_fields;
	const struct job_field **want = calloc(n ? n : 1, sizeof(*want));
	if (!want) {
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
		return;
	}
	for (size_t i = 0; i < n; i++)
		want[i] = job_field_find(m->fields[i]);
	struct drv_jw w;
	drv_jw_init(&w);
	rpc_jw_key(&w, "{", &f[DRV_JOB_QUERY_REPLY__FIELDS]);
	rpc_jw_strs(&w, m->fields, n);
	rpc_jw_key(&w, ",", &f[DRV_JOB_QUERY_REPLY__NOW]);
	drv_jw_int(&w, (int64_t)time(NULL));
	rpc_jw_key(&w, ",", &f[DRV_JOB_QUERY_REPLY__ROWS]);
	drv_jw_lit(&w, "[");
	bool first = true;
	for (struct job *j = r->c->jobs.head; j; j = j->next) {
		if (!job_wanted(m, j) || !perm_scope_has(see, j->uid, j->req.account))
			continue;
		if (!first)
			drv_jw_lit(&w, ",");
		first = false;
		job_row_write(&w, j, want, n);
	}
	drv_jw_lit(&w, "]}");
	if (w.oom)
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
	else
		rpc_reply_text(r, w.buf, w.len);
	drv_jw_fini(&w);
	free(want);
}

/* With PrivateData=jobs a caller sees only the jobs perm.c lets it see: a
 * hidden job is as absent as one that never was (Slurm's "Invalid job id
 * specified"), whoever asks and however. */
void rpc_job_query(struct rpc_req *r)
{
	const struct drv_job_query *m = r->msg;
	struct perm p;
	struct perm_scope see;
	perm_of_req(r, &p);
	if (perm_job_scope(&p, &see) < 0) {
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
		return;
	}
	if (m->has_fields)
		query_rows(r, &see);
	else
		query_records(r, &see);
	perm_scope_fini(&see);
}

/* One request's results, one entry per id, as its reply declares them. */
struct results {
	struct drv_rec_result *v;
	size_t n, cap;
};

/* id: the array_tasks or steps entry as given (borrowed), or NULL. */
static void result_add(struct results *res, uint32_t job_id, const char *id, int rc)
{
	if (res->n == res->cap) {
		res->cap = res->cap ? 2 * res->cap : 8;
		res->v = realloc(res->v, res->cap * sizeof(*res->v));
		if (!res->v)
			abort();
	}
	res->v[res->n++] = (struct drv_rec_result){
	    .job_id = job_id, .rc = rc, .error = rc ? drv_rc_text(rc) : "", .id = id};
}

/* Every request answered with results has a reply of that one field. */
static void results_reply(struct rpc_req *r, struct results *res)
{
	struct drv_job_cancel_reply reply = {.results = res->v, .n_results = res->n};
	json_t *body = drv_shape_encode(drv_msg_decl_find(r->type)->reply, &reply, 0);
	free(res->v);
	rpc_reply_durable(r, 0, NULL, body);
}

typedef int (*job_op_f)(struct rpc_req *r, struct job *j, int64_t now);

/* Applies op to every id of the request; one result per id. A job the
 * caller may not act on gets denied: Slurm's job update (hold, release,
 * update) says "Invalid user id", its requeue "Access/permission denied". */
static void for_each_job(struct rpc_req *r, const uint32_t *ids, size_t n, job_op_f op,
			 int denied)
{
	struct results res = {0};
	int64_t now = time(NULL);
	for (size_t i = 0; i < n; i++) {
		struct job *j = job_table_find(&r->c->jobs, ids[i]);
		int rc = !j			 ? DRV_RC_INVALID_JOB_ID
			 : !rpc_may_act_on(r, j) ? denied
						 : op(r, j, now);
		result_add(&res, ids[i], NULL, rc);
	}
	results_reply(r, &res);
}

static int cancel_record(struct rpc_req *r, struct job *j, int64_t now)
{
	const struct drv_job_cancel *m = r->msg;
	int sig = m->signal;
	if (job_state_final(j->state))
		return DRV_RC_ALREADY_DONE;
	if (sig == 0)
		return job_cancel(r->c, j, r->cred.uid, now);
	bool batch = m->batch_only, full = m->full;
	/* Without -b or -f Slurm signals the job's steps but not the batch
	 * step. */
	if (!batch && !full && sig != SIGKILL && j->state == JOB_RUNNING) {
		steps_signal(r->c, j, sig);
		return 0;
	}
	return job_signal(r->c, j, sig, batch && !full);
}

/* An array's id cancels (or signals) the whole array: its pending rest and
 * every task; the answer is the array record's, or 0 when that one is over
 * but some task was still there to act on. With records_only (scancel's
 * filters chose the records) only the record itself. */
static int cancel_one(struct rpc_req *r, struct job *j, int64_t now)
{
	const struct drv_job_cancel *m = r->msg;
	int rc = cancel_record(r, j, now);
	if (j->array_job_id != j->id || m->records_only)
		return rc;
	for (struct job *t = j->next; t; t = t->next)
		if (t->array_job_id == j->id && cancel_record(r, t, now) == 0 && rc)
			rc = 0;
	return rc;
}

/* "123_7" or "123_[1-5]": the array's id and its index set; 0 or -EINVAL. */
static int parse_task_arg(const char *arg, uint32_t *array_id, struct drv_array *set)
{
	char *end = NULL;
	unsigned long id = strtoul(arg, &end, 10);
	if (end == arg || *end != '_' || id == 0 || id > UINT32_MAX)
		return -EINVAL;
	char spec[64];
	snprintf(spec, sizeof(spec), "%s", end + 1);
	size_t len = strlen(spec);
	const char *p = spec;
	if (spec[0] == '[' && len > 1 && spec[len - 1] == ']') {
		spec[len - 1] = '\0';
		p = spec + 1;
	}
	if (strchr(p, '%'))
		return -EINVAL;
	*array_id = (uint32_t)id;
	return drv_array_parse(p, 0, set) < 0 ? -EINVAL : 0;
}

/* The tasks of array array_id still held, from first on: the array's record
 * may be gone already (it ran as the last task to start and ended more than
 * MinJobAge ago) while earlier tasks run on; they still answer to its id. */
static int cancel_members(struct rpc_req *r, struct job *first, uint32_t array_id,
			  const struct drv_array *set, int rc, int64_t now)
{
	for (struct job *t = first; t; t = t->next) {
		if (t->array_job_id != array_id ||
		    (set && !job_array_has_task(t, array_id, set)))
			continue;
		int one = rpc_may_act_on(r, t) ? cancel_record(r, t, now)
					       : DRV_RC_ACCESS_DENIED;
		rc = rc == 0 ? 0 : one;
	}
	return rc;
}

/* Cancels (or signals) the tasks of one "N_T"/"N_[spec]" argument: running
 * ones are their own records; the pending ones named leave the array's
 * record for one of their own, cancelled, so that they are kept. */
static int cancel_tasks(struct rpc_req *r, const char *arg, int64_t now)
{
	uint32_t array_id;
	struct drv_array set = {0};
	if (parse_task_arg(arg, &array_id, &set) < 0)
		return DRV_RC_INVALID_JOB_ID;
	struct job *meta = job_table_find(&r->c->jobs, array_id);
	int rc = DRV_RC_INVALID_JOB_ID;
	bool sig = ((const struct drv_job_cancel *)r->msg)->signal != 0;
	if (meta && !rpc_may_act_on(r, meta))
		rc = DRV_RC_ACCESS_DENIED;
	else if (!meta || meta->array_job_id == array_id) {
		uint32_t taken = 0;
		struct job *rest =
		    meta && !sig ? job_array_split_set(r->c, meta, &set, &taken) : NULL;
		if (taken)
			rc = rest ? cancel_record(r, rest, now) : 0;
		rc = cancel_members(r, meta ? meta : r->c->jobs.head, array_id, &set, rc,
				    now);
	}
	drv_array_fini(&set);
	return rc;
}

static int cancel_id(struct rpc_req *r, uint32_t id, int64_t now)
{
	const struct drv_job_cancel *m = r->msg;
	struct job *j = job_table_find(&r->c->jobs, id);
	if (j)
		return rpc_may_act_on(r, j) ? cancel_one(r, j, now)
					    : DRV_RC_ACCESS_DENIED;
	if (m->records_only)
		return DRV_RC_INVALID_JOB_ID;
	return cancel_members(r, r->c->jobs.head, id, NULL, DRV_RC_INVALID_JOB_ID, now);
}

/* "N.S": cancels (or signals) step S of job N. */
static int cancel_step(struct rpc_req *r, const char *arg)
{
	char *end = NULL;
	unsigned long id = strtoul(arg, &end, 10);
	if (end == arg || *end != '.' || id == 0 || id > UINT32_MAX)
		return DRV_RC_INVALID_JOB_ID;
	char *send = NULL;
	unsigned long sid = strtoul(end + 1, &send, 10);
	if (send == end + 1 || *send || sid > INT32_MAX)
		return DRV_RC_INVALID_JOB_ID;
	struct job *j = job_table_find(&r->c->jobs, (uint32_t)id);
	if (!j)
		return DRV_RC_INVALID_JOB_ID;
	if (!rpc_may_act_on(r, j))
		return DRV_RC_ACCESS_DENIED;
	if (job_state_final(j->state))
		return DRV_RC_ALREADY_DONE;
	if (j->state == JOB_PENDING)
		return 0; /* Slurm 22.05: no step yet, nothing to do, no error */
	int sig = ((const struct drv_job_cancel *)r->msg)->signal;
	int rc = step_cancel(r->c, j, (uint32_t)sid, sig, r->cred.uid);
	/* Slurm forgets a step once it ended: a cancel of it, as of one that
	 * never was, is slurmctld's "invalid job id" for a live job; a signal
	 * to either is accepted and reaches nothing. */
	if (rc == DRV_RC_ALREADY_DONE || rc == DRV_RC_INVALID_STEP)
		return sig ? 0 : DRV_RC_INVALID_STEP;
	return rc;
}

/* The job id an "N_T" or "N.S" argument starts with; 0 when it names none
 * a job may have. */
static uint32_t arg_job_id(const char *arg)
{
	unsigned long id = strtoul(arg, NULL, 10);
	return id <= UINT32_MAX - 1 ? (uint32_t)id : 0;
}

/* Job ids first, then the task arguments, then the steps (each answered
 * with its text). */
void rpc_job_cancel(struct rpc_req *r)
{
	const struct drv_job_cancel *m = r->msg;
	struct results res = {0};
	int64_t now = time(NULL);
	for (size_t i = 0; i < m->n_job_ids; i++)
		result_add(&res, m->job_ids[i], NULL, cancel_id(r, m->job_ids[i], now));
	for (size_t i = 0; i < m->n_array_tasks; i++) {
		const char *arg = m->array_tasks[i];
		result_add(&res, arg_job_id(arg), arg, cancel_tasks(r, arg, now));
	}
	for (size_t i = 0; i < m->n_steps; i++) {
		const char *arg = m->steps[i];
		result_add(&res, arg_job_id(arg), arg, cancel_step(r, arg));
	}
	results_reply(r, &res);
}

/* Slurm 22.05: holding or releasing a running job is accepted and changes
 * nothing; a finished one is refused. An admin hold is an operator's to
 * lift (Slurm's "privileged": a coordinator is not). */
static int release_one(struct rpc_req *r, struct job *j, int64_t now)
{
	if (job_state_final(j->state))
		return DRV_RC_JOB_FINISHED;
	if (j->state != JOB_PENDING)
		return 0;
	if (j->hold == HOLD_ADMIN && !rpc_is_operator(r))
		return DRV_RC_ACCESS_DENIED;
	return job_set_hold(r->c, j, HOLD_NONE);
}

void rpc_job_release(struct rpc_req *r)
{
	const struct drv_job_release *m = r->msg;
	for_each_job(r, m->job_ids, m->n_job_ids, release_one, DRV_RC_USER_ID_MISSING);
}

static int hold_one(struct rpc_req *r, struct job *j, int64_t now)
{
	if (job_state_final(j->state))
		return DRV_RC_JOB_FINISHED;
	if (j->state != JOB_PENDING)
		return 0;
	/* a user may not turn an admin hold into one of their own to lift */
	bool op = rpc_is_operator(r);
	if (j->hold == HOLD_ADMIN && !op)
		return DRV_RC_ACCESS_DENIED;
	bool user = ((const struct drv_job_hold *)r->msg)->user || !op;
	return job_set_hold(r->c, j, user ? HOLD_USER : HOLD_ADMIN);
}

void rpc_job_hold(struct rpc_req *r)
{
	const struct drv_job_hold *m = r->msg;
	for_each_job(r, m->job_ids, m->n_job_ids, hold_one, DRV_RC_USER_ID_MISSING);
}

/* Dependency=: a new list replaces the old one, "" clears it. A list that
 * names the job itself is refused, one that closes a cycle too, as Slurm
 * does. */
static int update_dependency(struct ctld *c, struct job *j, const char *text, int64_t now)
{
	struct dep_list l = {0};
	if (*text && dep_parse(text, &l) < 0)
		return DRV_RC_DEPENDENCY;
	for (uint32_t i = 0; i < l.n; i++) /* itself, or a job ctld does not hold */
		if (l.items[i].job_id == j->id ||
		    (l.items[i].job_id && !job_table_find(&c->jobs, l.items[i].job_id))) {
			dep_list_free(&l);
			return DRV_RC_DEPENDENCY;
		}
	if (depend_circular(c, j->id, &l)) {
		dep_list_free(&l);
		return DRV_RC_CIRCULAR_DEPENDENCY;
	}
	char *copy = *text ? strdup(text) : NULL;
	if (*text && !copy) {
		dep_list_free(&l);
		return DRV_RC_ERROR;
	}
	dep_list_free(&j->req.deps);
	j->req.deps = l;
	free(j->req.dependency);
	j->req.dependency = copy;
	if (l.n)
		j->eligible_time = 0;
	else if (!j->eligible_time && j->hold == HOLD_NONE)
		j->eligible_time = now > j->req.begin_time ? now : j->req.begin_time;
	if (j->hold == HOLD_NONE)
		j->reason = l.n ? "Dependency" : "None";
	return 0;
}

/* StartTime=: the begin time; Slurm shows it as EligibleTime at once. */
static void update_begin(struct job *j, int64_t begin, int64_t now)
{
	j->req.begin_time = begin > now ? begin : 0;
	if (!j->req.deps.n)
		j->eligible_time = begin > now ? begin : now;
	if (j->hold == HOLD_NONE)
		j->reason = begin > now ? "BeginTime" : "None";
}

static int requeue_one(struct rpc_req *r, struct job *j, int64_t now)
{
	const struct drv_job_requeue *m = r->msg;
	return job_requeue(r->c, j, m->hold, now);
}

void rpc_job_requeue(struct rpc_req *r)
{
	const struct drv_job_requeue *m = r->msg;
	for_each_job(r, m->job_ids, m->n_job_ids, requeue_one, DRV_RC_ACCESS_DENIED);
}

/* Priority=, as Slurm 22.05's _update_job: 0 holds the job (an admin
 * hold when an operator asks); an operator's value is kept (recalculation
 * leaves it alone) and resets nice; anyone else (owner, coordinator) may
 * only lower the priority of a job, and is told that it will not last. A
 * held job keeps its 0. */
static int update_priority(struct rpc_req *r, struct job *j, int64_t want)
{
	bool admin = rpc_is_operator(r);
	uint64_t shown = j->hold ? 0 : j->priority;
	if ((uint64_t)want == shown)
		return 0;
	if (j->hold)
		return DRV_RC_JOB_HELD;
	if (!admin && (uint64_t)want > shown)
		return DRV_RC_ACCESS_DENIED;
	if (want == 0)
		return job_set_hold(r->c, j, admin ? HOLD_ADMIN : HOLD_USER);
	j->req.nice = 0;
	j->priority = (uint64_t)want;
	j->priority_set = admin;
	commit_job(r->c, j);
	sched_request(r->c);
	log_info("job=%u priority set to %lld by uid=%u", j->id, (long long)want,
		 (unsigned)r->cred.uid);
	return admin ? 0 : DRV_RC_PRIO_RESET_FAIL;
}

/* Nice=: priority/basic moves the priority by the difference, multifactor
 * computes it again; ignored on a job whose priority an administrator set,
 * as Slurm does. */
static void update_nice(struct ctld *c, struct job *j, int32_t nice)
{
	if (j->priority_set)
		return;
	if (c->conf->prio.multifactor) {
		j->req.nice = nice;
		prio_job_update(c, j);
		return;
	}
	j->priority += (uint64_t)j->req.nice;
	j->req.nice = nice;
	j->priority -= (uint64_t)j->req.nice;
}

static bool only_time_limit(const struct drv_job_update *m)
{
	return m->has_time_limit && !m->partition && !m->has_nice && !m->dependency &&
	       !m->has_begin && !m->has_priority;
}

/* TimeLimit= of a running job: anyone who may act on it may shorten it (to
 * a time already past: it ends TIMEOUT now, as in Slurm); the node's
 * shepherd keeps the limit it started with, so a longer one is refused. */
static int shorten_running(struct rpc_req *r, struct job *j, int64_t limit)
{
	if (limit == j->time_limit)
		return 0;
	if (j->time_limit != DRV_INFINITE &&
	    (limit == DRV_INFINITE || limit > j->time_limit))
		return DRV_RC_JOB_NOT_PENDING;
	j->time_limit = limit;
	commit_job(r->c, j); /* re-arms its limit timer */
	log_info("job=%u time limit lowered to %lld s by uid=%u", j->id, (long long)limit,
		 (unsigned)r->cred.uid);
	return 0;
}

/* Applies m (the request, or what the site's policy left of it) to j. */
static int update_apply(struct rpc_req *r, struct job *j, const struct drv_job_update *m,
			int64_t now)
{
	if (job_state_final(j->state))
		return DRV_RC_JOB_FINISHED;
	if (j->state == JOB_RUNNING && only_time_limit(m))
		return shorten_running(r, j,
				       m->time_limit ? m->time_limit : DRV_INFINITE);
	if (j->state != JOB_PENDING)
		return DRV_RC_JOB_NOT_PENDING;
	struct perm p;
	perm_of_req(r, &p);
	if (m->has_nice && m->nice < 0 && !perm_is_operator(&p))
		return DRV_RC_ACCESS_DENIED;
	if (m->has_time_limit &&
	    !perm_may_set_time_limit(&p, j,
				     m->time_limit ? m->time_limit : DRV_INFINITE)) {
		log_info("job=%u: uid=%u may not raise its time limit", j->id,
			 (unsigned)r->cred.uid);
		return DRV_RC_ACCESS_DENIED;
	}
	if (m->has_priority) { /* first, as in Slurm: a refusal stops the rest */
		int rc = update_priority(r, j, m->priority);
		if (rc)
			return rc;
	}
	uint32_t *cand = NULL, n = 0;
	char bad[96];
	if (m->partition &&
	    part_candidates(r->c, m->partition, &cand, &n, bad, sizeof(bad)) != 0)
		return DRV_RC_INVALID_PARTITION;
	if (m->dependency) {
		int rc = update_dependency(r->c, j, m->dependency, now);
		if (rc) {
			free(cand);
			return rc;
		}
	}
	if (m->has_begin)
		update_begin(j, m->begin, now);
	if (m->has_time_limit)
		j->time_limit = m->time_limit ? m->time_limit : DRV_INFINITE;
	if (m->partition) { /* Partition=a,b: new candidates */
		free(j->partition);
		j->partition = strdup(m->partition);
		free(j->req.partitions);
		j->req.partitions = n > 1 ? strdup(m->partition) : NULL;
		free(j->req.part_idx);
		j->req.part_idx = cand;
		j->req.n_part_idx = n;
		j->req.part_gen = r->c->parts_gen;
	}
	if (m->has_nice)
		update_nice(r->c, j, m->nice);
	prio_job_update(r->c, j); /* multifactor: its partitions, limit, begin */
	commit_job(r->c, j);
	sched_request(r->c);
	log_info("job=%u updated by uid=%u", j->id, (unsigned)r->cred.uid);
	return 0;
}

static int update_one(struct rpc_req *r, struct job *j, int64_t now)
{
	return update_apply(r, j, r->msg, now);
}

/* With JobSubmitPlugins=lua each job's update passes slurm_job_modify
 * first; a refusal carries the script's messages in its result. */
static void update_with_policy(struct rpc_req *r, const struct drv_job_update *m)
{
	struct results res = {0};
	char **texts = calloc(m->n_job_ids ? m->n_job_ids : 1, sizeof(*texts));
	int64_t now = time(NULL);
	for (size_t i = 0; i < m->n_job_ids && texts; i++) {
		struct job *j = job_table_find(&r->c->jobs, m->job_ids[i]);
		struct policy_update pu;
		int rc = !j ? DRV_RC_INVALID_JOB_ID
			 : !rpc_may_act_on(r, j)
			     ? DRV_RC_USER_ID_MISSING
			     : policy_update(r->c, r, j, &pu, &texts[i]);
		if (j && rpc_may_act_on(r, j) && rc == 0) {
			rc = update_apply(r, j, &pu.msg, now);
			policy_update_fini(&pu);
		}
		result_add(&res, m->job_ids[i], NULL, rc);
		if (texts[i])
			res.v[res.n - 1].error = texts[i];
	}
	if (!texts)
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
	else
		results_reply(r, &res);
	for (size_t i = 0; texts && i < m->n_job_ids; i++)
		free(texts[i]);
	free(texts);
}

void rpc_job_update(struct rpc_req *r)
{
	const struct drv_job_update *m = r->msg;
	if (r->c->job_submit)
		update_with_policy(r, m);
	else
		for_each_job(r, m->job_ids, m->n_job_ids, update_one,
			     DRV_RC_USER_ID_MISSING);
}
