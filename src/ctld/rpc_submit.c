/* rpc_submit.c — job.submit: who may submit, the bounds on what it may
 * make ctld hold (MaxJobCount, max_script_size), which partitions (-p a,b:
 * every name must exist; part_check.c says which the job may use), its
 * licenses, whether the request can ever run there (refused at submit as
 * Slurm does), then the job is created and acknowledged once committed. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/jsonw.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/sched_snap.h"
#include "ctld/job_id.h"
#include "ctld/job_policy.h"
#include "ctld/job_req.h"
#include "ctld/lic.h"
#include "ctld/prio.h"
#include "ctld/rpc_handlers.h"

#define NAME_BAD_LEN 96 /* the unknown partition a refusal names */

/* env and argv as the store keeps them: a JSON array's text. */
static char *strs_text(const char *const *v, size_t n)
{
	struct drv_jw w;
	drv_jw_init(&w);
	rpc_jw_strs(&w, v, n);
	if (!w.oom)
		return w.buf; /* the buffer is ours now */
	drv_jw_fini(&w);
	return NULL;
}

/* Multi-user mode runs each job as its submitter; local mode runs every
 * job as ctld's user, so only that user may submit there. */
static int check_submitter(const struct rpc_req *r, char *msg, size_t len)
{
	if (r->c->multi_user || r->cred.uid == r->c->owner_uid)
		return 0;
	struct passwd *pw = getpwuid(r->c->owner_uid);
	snprintf(msg, len,
		 "Access/permission denied: this local-mode cluster runs as user %s "
		 "(uid %u) and accepts jobs from that user only (you are uid %u)",
		 pw ? pw->pw_name : "?", (unsigned)r->c->owner_uid,
		 (unsigned)r->cred.uid);
	return -1;
}

static void fill_job(struct job *j, const struct rpc_req *r,
		     const struct drv_job_submit *m, const struct part *p)
{
	j->name = drv_strdup_or_null(m->name);
	j->workdir = drv_strdup_or_null(m->workdir);
	j->submit_dir = drv_strdup_or_null(m->submit_dir);
	j->stdout_pat = drv_strdup_or_null(m->stdout);
	j->stderr_pat = drv_strdup_or_null(m->stderr);
	j->comment = drv_strdup_or_null(m->comment);
	j->submit_host = drv_strdup_or_null(m->submit_host);
	j->command = drv_strdup_or_null(m->command);
	j->export_env = drv_strdup_or_null(m->export);
	/* A pending job should cost well under 1 KiB: the common values are not
	 * stored twice (NULL stands for "same as workdir" and "ALL"). */
	if (j->submit_dir && j->workdir && !strcmp(j->submit_dir, j->workdir)) {
		free(j->submit_dir);
		j->submit_dir = NULL;
	}
	if (j->export_env && !strcmp(j->export_env, "ALL")) {
		free(j->export_env);
		j->export_env = NULL;
	}
	j->num_nodes = j->req.sched.min_nodes;
	if (m->has_time_limit) /* -t 0: no limit, as in Slurm */
		j->time_limit = m->time_limit ? m->time_limit : DRV_INFINITE;
	else if (p->conf->default_time != DRV_NO_VAL)
		j->time_limit = p->conf->default_time;
	else
		j->time_limit = p->conf->max_time;
	j->hold = m->hold ? HOLD_USER : HOLD_NONE;
	if (j->req.deadline && j->time_limit == DRV_INFINITE && !j->req.time_min)
		j->req.time_min = 60; /* Slurm shows TimeMin=00:01:00 then */
}

/* GPUs of a type no node of the partition has: Slurm's gres error. */
static bool gpu_type_known(const struct ctld *c, const struct part *p, const char *type)
{
	for (uint32_t i = 0; i < p->n_nodes; i++) {
		const struct node *n = &c->nodes.nodes[p->node_idx[i]];
		for (uint32_t g = 0; g < n->n_gpus; g++)
			if (n->gpu_type[g] && !strcmp(n->gpu_type[g], type))
				return true;
	}
	return false;
}

/* Every feature -C names is on some node of the cluster (Slurm's "Invalid
 * feature specification" otherwise). */
static bool features_known(const struct ctld *c, const struct sched_constraint *k)
{
	for (uint32_t t = 0; k && t < k->n_terms; t++) {
		bool found = false;
		for (size_t i = 0; i < c->nodes.n && !found; i++)
			found = sched_node_has_feature(c->nodes.nodes[i].conf->features,
						       k->terms[t].name);
		if (!found)
			return false;
	}
	return true;
}

/* --mincpus and --tmp over what every node of p has: slurmctld says which
 * before its refusal (the first line sbatch prints). */
static const char *per_node_limits(const struct ctld *c, const struct part *p,
				   const struct sched_req *r)
{
	uint64_t tmp = 0;
	uint32_t cpus = 0;
	for (uint32_t i = 0; i < p->n_nodes; i++) {
		const struct drv_node_conf *nc = c->nodes.nodes[p->node_idx[i]].conf;
		if (nc->tmp_disk > tmp)
			tmp = nc->tmp_disk;
		if ((uint32_t)nc->cpus > cpus)
			cpus = (uint32_t)nc->cpus;
	}
	if (r->min_cpus > cpus)
		return "CPU count per node can not be satisfied";
	if (r->min_tmp > tmp)
		return "Temporary disk specification can not be satisfied";
	return NULL;
}

/* Whether the memory r asks of each node is over p's MaxMemPerNode, as
 * Slurm judges it at submit: a whole node's memory is the partition's
 * largest node's, memory per CPU counts the CPUs of one node's tasks. */
static bool over_max_mem(const struct ctld *c, const struct part *p,
			 const struct sched_req *r)
{
	uint64_t max = p->conf->max_mem_per_node, want = r->mem_per_node;
	if (!max || !c->conf->cr_memory)
		return false;
	if (r->mem_per_cpu) {
		uint32_t tasks = r->ntasks_per_node ? r->ntasks_per_node : 1;
		want = r->mem_per_cpu * (r->cpus_per_task ? r->cpus_per_task : 1) * tasks;
	} else if (want == SCHED_MEM_WHOLE) {
		want = 0;
		for (uint32_t i = 0; i < p->n_nodes; i++)
			if (c->nodes.nodes[p->node_idx[i]].conf->real_memory > want)
				want = c->nodes.nodes[p->node_idx[i]].conf->real_memory;
	}
	return want > max;
}

/* Could the request ever run in p? Slurm refuses it at submit if not; a
 * refusal slurmctld explains first comes back as "why\nrc text". */
static int check_request(struct ctld *c, const struct part *p, struct job *j,
			 struct drv_error *msg)
{
	struct job_req *q = &j->req;
	int rc = ctld_resolve_nodes(c, q);
	if (rc)
		return rc;
	struct sched_req *r = &q->sched;
	if (r->n_req_nodes > r->min_nodes) { /* -w nodes count toward -N */
		r->min_nodes = r->n_req_nodes;
		if (r->max_nodes && r->max_nodes < r->min_nodes)
			r->max_nodes = r->min_nodes;
		j->num_nodes = r->min_nodes;
	}
	if (!features_known(c, q->constraint))
		return DRV_RC_INVALID_FEATURE;
	const char *why = per_node_limits(c, p, &q->sched);
	if (why) {
		drv_error_set(msg, EINVAL, "%s\n%s", why,
			      drv_rc_text(DRV_RC_NODE_CONFIG_UNAVAIL));
		return DRV_RC_NODE_CONFIG_UNAVAIL;
	}
	if (q->gpu_type && !gpu_type_known(c, p, q->gpu_type))
		return DRV_RC_INVALID_GRES;
	if (over_max_mem(c, p, &q->sched))
		return DRV_RC_INVALID_TASK_MEMORY;
	struct sched_node *nodes = calloc(c->nodes.n ? c->nodes.n : 1, sizeof(*nodes));
	if (!nodes)
		return DRV_RC_ERROR;
	ctld_sched_nodes(c, nodes);
	struct sched_part sp;
	ctld_sched_part(c, (size_t)(p - c->parts), &sp);
	rc = sched_fits_config(nodes, (uint32_t)c->nodes.n, &sp, &q->sched);
	free(nodes);
	return rc < 0 ? DRV_RC_NODE_CONFIG_UNAVAIL : 0;
}

/* Could the request ever run in one of its candidates? The first one's
 * refusal is the one given when none could. */
static int check_fits(struct ctld *c, const uint32_t *cand, uint32_t n, struct job *j,
		      struct drv_error *msg)
{
	int first = check_request(c, &c->parts[cand[0]], j, msg);
	for (uint32_t i = 1; first && i < n; i++) {
		struct drv_error other = {{0}};
		if (check_request(c, &c->parts[cand[i]], j, &other) == 0) {
			msg->text[0] = '\0';
			return 0;
		}
	}
	return first;
}

/* -L: every license one the cluster has, no more of it than it has. */
static int check_licenses(struct ctld *c, struct job *j, const char *text)
{
	if (!text)
		return 0;
	j->req.licenses = strdup(text);
	if (!j->req.licenses)
		return DRV_RC_ERROR;
	int rc = lic_job_parse(c, text, &j->req.lics, &j->req.n_lics);
	j->req.lics_resolved = rc == 0;
	return rc;
}

/* --array: Slurm refuses a malformed spec, or an index at or above
 * MaxArraySize, with ESLURM_INVALID_ARRAY. */
static int check_array(const struct ctld *c, struct job *j, const char *spec)
{
	if (!spec)
		return 0;
	if (c->conf->max_array_size <= 0) /* MaxArraySize=0: no arrays */
		return DRV_RC_INVALID_ARRAY;
	int rc = job_array_init(j, spec, (uint32_t)c->conf->max_array_size);
	return rc == 0 ? 0 : rc == -EINVAL ? DRV_RC_INVALID_ARRAY : DRV_RC_ERROR;
}

/* Every job a dependency names must be one ctld holds, as current Slurm
 * checks at submit ("Job dependency problem"); Slurm 22.05 took an unknown
 * one as gone. A target that leaves later is lifted (depend.c). */
static int check_dependency_targets(const struct ctld *c, const struct job *j)
{
	const struct dep_list *l = &j->req.deps;
	for (uint32_t i = 0; i < l->n; i++)
		if (l->items[i].job_id && !job_table_find(&c->jobs, l->items[i].job_id))
			return DRV_RC_DEPENDENCY;
	return 0;
}

/* The job's identity and partitions: its candidates without those that
 * take no new jobs (the job's partition text follows). */
static int start_job(struct rpc_req *r, struct job *j, uint32_t *cand, uint32_t *n)
{
	j->uid = r->cred.uid;
	j->gid = r->cred.gid;
	j->user = identity_user_name(r->cred.uid);
	if (!j->user)
		return DRV_RC_ERROR;
	return part_check_state(r->c, j, cand, n);
}

/* The checks after the request is built, in Slurm's order. */
static int check_job(struct rpc_req *r, const struct drv_job_submit *m, struct job *j,
		     const uint32_t *cand, uint32_t n, struct drv_error *msg)
{
	char why[64] = "";
	/* the array first: its tasks count against submit limits; then the
	 * account and QOS (filled in when not given), which the partitions'
	 * access lists read */
	int rc = check_array(r->c, j, m->array);
	if (rc == 0)
		rc = acct_submit_check(r->c, j, m->has_time_limit, why, sizeof(why));
	if (rc && rc != DRV_RC_INVALID_ARRAY && why[0]) /* the limit first */
		drv_error_set(msg, EINVAL, "%s\n%s", why, drv_rc_text(rc));
	if (rc == 0)
		rc = part_check_access(r->c, j, cand, n);
	if (rc == 0)
		rc = check_fits(r->c, cand, n, j, msg);
	if (rc == 0)
		rc = check_licenses(r->c, j, m->licenses);
	if (rc == 0)
		rc = check_dependency_targets(r->c, j);
	return rc;
}

/* Builds the job; returns NULL and sets *rc and msg when it is refused. */
static struct job *build_job(struct rpc_req *r, const struct drv_job_submit *m,
			     uint32_t *cand, uint32_t n, int *rc, struct drv_error *msg)
{
	struct job *j = job_new();
	if (!j) {
		*rc = DRV_RC_ERROR;
		return NULL;
	}
	*rc = start_job(r, j, cand, &n);
	const struct part *p = &r->c->parts[cand[0]];
	if (*rc == 0)
		*rc = job_req_from_submit(&j->req, m, r->c->conf, p->conf, msg);
	if (*rc == 0 && n > 1 && !(j->req.partitions = strdup(j->partition)))
		*rc = DRV_RC_ERROR; /* the candidates, once it runs in one */
	j->interactive = m->interactive;
	if (*rc == 0 && !j->interactive && !m->script) {
		*rc = DRV_RC_PROTOCOL;
		snprintf(msg->text, sizeof(msg->text),
			 "job.submit: field 'script': required");
	}
	if (*rc == 0 && j->interactive && m->array)
		*rc = DRV_RC_INVALID_ARRAY;
	if (j->interactive)
		j->req.requeue =
		    false; /* an allocation its client holds is not requeued */
	if (*rc == 0) {
		fill_job(j, r, m, p);
		*rc = check_job(r, m, j, cand, n, msg);
	}
	if (*rc && !msg->text[0])
		snprintf(msg->text, sizeof(msg->text), "%s", drv_rc_text(*rc));
	if (*rc) {
		job_free(j);
		return NULL;
	}
	return j;
}

/* The smallest id in lo..hi without a record: the store finds the first
 * id without a history row, memory may still hold it (accepted this turn,
 * not yet committed). */
static int unused_in(uint32_t lo, uint32_t hi, void *arg, uint32_t *out)
{
	struct ctld *c = arg;
	for (uint32_t id = lo;;) {
		uint32_t s = 0;
		int rc = store_first_unused_id(c->store, id, hi, &s);
		if (rc < 0 || s == 0 || !job_table_find(&c->jobs, s)) {
			*out = rc < 0 ? 0 : s;
			return rc;
		}
		if (s == hi) {
			*out = 0;
			return 0;
		}
		id = s + 1;
	}
}

int ctld_job_id_new(struct ctld *c, uint32_t *id)
{
	int rc =
	    job_id_pick((uint32_t)c->conf->first_job_id, (uint32_t)c->conf->max_job_id,
			&c->jobs.next_id, unused_in, c, id);
	if (rc == -ENOSPC)
		log_error("no job id left: every id from FirstJobId=%d below "
			  "MaxJobId=%d has a record",
			  c->conf->first_job_id, c->conf->max_job_id);
	else if (rc < 0)
		log_error("cannot choose a job id: %s", strerror(-rc));
	return rc;
}

/* The bounds on what submits may make ctld hold, checked first as Slurm
 * does: MaxJobCount (each task of an array counts, as Slurm counts them;
 * the jobs kept for MinJobAge after they end count too), then the batch
 * script's size (SchedulerParameters=max_script_size). */
static int check_limits(const struct ctld *c, const struct drv_job_submit *m)
{
	uint64_t want = 1;
	struct drv_array a;
	if (m->array && c->conf->max_array_size > 0 &&
	    drv_array_parse(m->array, (uint32_t)c->conf->max_array_size, &a) == 0) {
		want = a.count ? a.count : 1;
		drv_array_fini(&a);
	} /* a bad spec is refused later, in Slurm's words for it */
	if (c->jobs.tasks + want > (uint64_t)c->conf->max_job_count) {
		log_error("job_allocate: MaxJobCount limit from slurm.conf reached (%d)",
			  c->conf->max_job_count);
		return DRV_RC_MAX_JOB_COUNT;
	}
	size_t len = m->script ? strlen(m->script) : 0;
	if ((int64_t)len > c->conf->sched.max_script_size) {
		log_info("job_create_request: strlen(script) too big (%zu > %lld)", len,
			 (long long)c->conf->sched.max_script_size);
		return DRV_RC_PATHNAME_TOO_LONG;
	}
	return 0;
}

/* The job m asks for (r's body, or the body the site's policy left),
 * created and acknowledged once committed; user_msg goes with the reply. */
static void submit_job(struct rpc_req *r, const struct drv_job_submit *m,
		       const char *user_msg)
{
	struct ctld *c = r->c;
	struct drv_error msg = {{0}};
	uint32_t *cand = NULL, n = 0;
	char bad[NAME_BAD_LEN];
	int rc = check_limits(c, m);
	if (rc) {
		rpc_reply(r, rc, drv_rc_text(rc), NULL);
		return;
	}
	rc = part_candidates(c, m->partition, &cand, &n, bad, sizeof(bad));
	if (rc) {
		if (*bad) /* slurmctld names the partition, sbatch prints both */
			snprintf(msg.text, sizeof(msg.text),
				 "invalid partition specified: %.80s\n%s", bad,
				 drv_rc_text(DRV_RC_INVALID_PARTITION));
		rpc_reply(r, rc < 0 ? DRV_RC_ERROR : rc,
			  *msg.text ? msg.text : drv_rc_text(DRV_RC_INVALID_PARTITION),
			  NULL);
		return;
	}
	struct job *j = build_job(r, m, cand, n, &rc, &msg);
	free(cand);
	if (!j) {
		rpc_reply(r, rc, msg.text, NULL);
		return;
	}
	if (m->test_only) { /* the id it would get; nothing is taken or stored */
		j->id = c->jobs.next_id;
		j->priority = job_submit_priority(j);
		prio_job_update(c, j);
		rpc_job_will_run(r, j);
		return;
	}
	rc = ctld_job_id_new(c, &j->id);
	if (rc < 0) {
		job_free(j);
		if (rc == -ENOSPC)
			snprintf(
			    msg.text, sizeof(msg.text),
			    "Unable to allocate a job id: every id from FirstJobId=%d "
			    "below MaxJobId=%d is still in use",
			    c->conf->first_job_id, c->conf->max_job_id);
		rpc_reply(r, DRV_RC_ERROR,
			  rc == -ENOSPC ? msg.text : "cannot read the job history", NULL);
		return;
	}
	if (j->array)
		j->array_job_id = j->id;
	commit_meta(c);
	char *env = strs_text(m->env, m->n_env);
	char *argv = strs_text(m->argv, m->n_argv);
	commit_payload(c, j->id, m->script ? m->script : "", env, argv);
	free(env);
	free(argv);
	job_accept(c, j, time(NULL));
	struct drv_job_submit_reply reply = {.job_id = j->id, .user_msg = user_msg};
	rpc_reply_durable(r, 0, NULL, drv_job_submit_reply_encode(&reply));
}

void rpc_job_submit(struct rpc_req *r)
{
	struct ctld *c = r->c;
	char denied[256];
	if (check_submitter(r, denied, sizeof(denied)) < 0) {
		log_warn("refused job.submit from uid %u: not the cluster's user",
			 r->cred.uid);
		rpc_reply(r, DRV_RC_ACCESS_DENIED, denied, NULL);
		return;
	}
	if (!c->job_submit) {
		submit_job(r, r->msg, NULL);
		return;
	}
	struct policy_submit ps;
	char *why = NULL;
	int rc = policy_submit(c, r, &ps, &why);
	if (rc) {
		rpc_reply(r, rc, why ? why : drv_rc_text(rc), NULL);
		free(why);
		return;
	}
	submit_job(r, &ps.msg, ps.user_msg);
	policy_submit_fini(&ps);
}
