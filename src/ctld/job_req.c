/* job_req.c — turning sbatch's resource options into a request the
 * scheduler places, with Slurm's defaults: one task per node, one CPU per
 * task, DefMemPerCPU / DefMemPerNode / the whole node for memory. */
#include "ctld/job_req.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/proto.h"
#include "ctld/dep_parse.h"

/* The memory defaults that apply: the partition's DefMemPerNode or
 * DefMemPerCPU when it sets one (Slurm copies the cluster's into a
 * partition that sets neither), else the cluster's. */
static void mem_defaults(const struct drv_conf *conf, const struct drv_part_conf *part,
			 uint64_t *per_cpu, uint64_t *per_node)
{
	*per_cpu = conf->def_mem_per_cpu;
	*per_node = conf->def_mem_per_node;
	if (part && part->def_mem_per_node) {
		*per_cpu = 0;
		*per_node = part->def_mem_per_node;
	} else if (part && part->def_mem_per_cpu) {
		*per_cpu = part->def_mem_per_cpu;
		*per_node = 0;
	}
}

static void apply_memory(struct job_req *req, const struct drv_job_submit *m,
			 const struct drv_conf *conf, const struct drv_part_conf *part)
{
	struct sched_req *r = &req->sched;
	uint64_t def_cpu, def_node;
	mem_defaults(conf, part, &def_cpu, &def_node);
	req->mem_given = m->has_mem_per_node || m->has_mem_per_cpu;
	if (m->has_mem_per_node) {
		req->mem = (uint64_t)m->mem_per_node;
		r->mem_per_node = req->mem ? req->mem : SCHED_MEM_WHOLE;
	} else if (m->has_mem_per_cpu) {
		req->mem = (uint64_t)m->mem_per_cpu;
		req->mem_is_per_cpu = true;
		r->mem_per_cpu = req->mem;
	} else if (def_cpu) {
		req->mem = def_cpu;
		req->mem_is_per_cpu = true;
		r->mem_per_cpu = req->mem;
	} else if (def_node) {
		req->mem = def_node;
		r->mem_per_node = req->mem;
	} else {
		r->mem_per_node = SCHED_MEM_WHOLE; /* Slurm: DefMemPerNode=UNLIMITED */
	}
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : a;
}

/* DefCpuPerGPU and DefMemPerGPU (the partition's, else the cluster's) for
 * a job that asks for GPUs: without -c, each node's tasks get that many
 * CPUs per GPU between them; without a memory option, each node that much
 * memory per GPU, before DefMemPerCPU/DefMemPerNode. MinNodes= is the
 * node count of a job that gave no -N, as in Slurm. */
static void apply_part_defaults(struct job_req *req, const struct drv_job_submit *m,
				const struct drv_conf *conf,
				const struct drv_part_conf *part)
{
	struct sched_req *r = &req->sched;
	if (part && !m->has_nodes && part->min_nodes > r->min_nodes)
		r->min_nodes = part->min_nodes;
	uint64_t gpus =
	    r->gpus_per_node ? r->gpus_per_node : div_up(r->gpus_total, r->min_nodes);
	if (!gpus)
		return;
	uint64_t cpu_per_gpu =
	    part && part->def_cpu_per_gpu ? part->def_cpu_per_gpu : conf->def_cpu_per_gpu;
	uint64_t mem_per_gpu =
	    part && part->def_mem_per_gpu ? part->def_mem_per_gpu : conf->def_mem_per_gpu;
	if (cpu_per_gpu && !req->cpt_given) {
		uint64_t tasks = r->ntasks_per_node ? r->ntasks_per_node
				 : r->ntasks	    ? div_up(r->ntasks, r->min_nodes)
						    : 1;
		uint64_t cpt = div_up(gpus * cpu_per_gpu, tasks);
		r->cpus_per_task = cpt > 100000 ? 100000 : cpt ? (uint32_t)cpt : 1;
	}
	if (mem_per_gpu && !req->mem_given) {
		req->mem = gpus * mem_per_gpu;
		req->mem_is_per_cpu = false;
		r->mem_per_cpu = 0;
		r->mem_per_node = req->mem;
	}
}

/* --dependency: the grammar is dep_parse.c's; whether the ids exist is
 * judged later, as Slurm does. */
static int parse_dependency(struct job_req *req, const char *dep, struct drv_error *err)
{
	int rc = dep_parse(dep, &req->deps);
	if (rc == -ENOTSUP)
		return drv_error_set(err, ENOTSUP,
				     "Requested operation not supported on this system");
	if (rc < 0)
		return drv_error_set(err, EINVAL, "Job dependency problem");
	return 0;
}

/* -C: parsed once here; the text is kept as given for display. */
static int set_features(struct job_req *req, char *text)
{
	req->features = text;
	if (!text)
		return 0;
	req->constraint = calloc(1, sizeof(*req->constraint));
	if (!req->constraint)
		return -ENOMEM;
	if (sched_constraint_parse(text, req->constraint) < 0)
		return -EINVAL;
	req->sched.constraint = req->constraint;
	return 0;
}

/* The placement and --signal fields of a job.submit body. */
static int placement_from_submit(struct job_req *req, const struct drv_job_submit *m)
{
	struct sched_req *r = &req->sched;
	r->min_cpus = m->min_cpus;
	r->min_tmp = (uint64_t)m->tmp;
	req->req_nodes = drv_strdup_or_null(m->req_nodes);
	req->exc_nodes = drv_strdup_or_null(m->exc_nodes);
	req->warn_signal = m->signal;
	req->warn_time = m->has_signal_time ? m->signal_time : 60;
	req->warn_batch = m->signal_batch;
	req->time_min = m->time_min;
	return set_features(req, drv_strdup_or_null(m->features));
}

/* The totals the fields make together, which the schema cannot bound one
 * field at a time, so that every later product (CPUs, GPUs, memory) fits.
 * 0, or a Slurm rc with its text in err. */
static int check_totals(const struct sched_req *r, struct drv_error *err)
{
	uint64_t per_node = r->ntasks_per_node ? r->ntasks_per_node : 1;
	uint64_t tasks = r->ntasks ? r->ntasks : per_node * r->min_nodes;
	uint64_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
	int rc = 0;
	if (tasks > 1000000) /* as many as -n may ask for (proto_schema.c) */
		rc = DRV_RC_BAD_TASK_COUNT;
	else if (tasks * cpt > UINT32_MAX)
		rc = DRV_RC_TOO_MANY_CPUS;
	else if ((uint64_t)r->gpus_per_node * r->min_nodes > UINT32_MAX)
		rc = DRV_RC_INVALID_GRES;
	if (rc)
		drv_error_set(err, EINVAL, "%s", drv_rc_text(rc));
	return rc;
}

int job_req_from_submit(struct job_req *req, const struct drv_job_submit *m,
			const struct drv_conf *conf, const struct drv_part_conf *part,
			struct drv_error *err)
{
	struct sched_req *r = &req->sched;
	memset(req, 0, sizeof(*req));
	/* -N N means exactly N nodes, -N MIN-MAX a range, no -N as many as the
	 * tasks need (at least one). */
	r->min_nodes = m->has_nodes ? m->nodes : 1;
	r->max_nodes = m->has_nodes_max ? m->nodes_max : m->has_nodes ? r->min_nodes : 0;
	req->ntasks_given = m->has_ntasks;
	r->ntasks = m->ntasks;
	req->cpt_given = m->has_cpus_per_task;
	r->cpus_per_task = m->has_cpus_per_task ? m->cpus_per_task : 1;
	r->ntasks_per_node = m->ntasks_per_node;
	r->gpus_per_node = m->gpus_per_node;
	r->gpus_total = m->gpus;
	r->exclusive = m->exclusive;
	r->oversubscribe = m->oversubscribe;
	req->gpu_type = drv_strdup_or_null(m->gpu_type);
	r->gpu_type = req->gpu_type;
	apply_memory(req, m, conf, part);
	apply_part_defaults(req, m, conf, part);
	req->account = drv_strdup_or_null(m->account);
	req->qos = drv_strdup_or_null(m->qos);
	req->nice = m->nice;
	req->open_mode = drv_strdup_or_null(m->open_mode);
	req->stdin_pat = drv_strdup_or_null(m->stdin);
	req->dependency = drv_strdup_or_null(m->dependency);
	req->requeue = m->has_requeue ? m->requeue : conf->job_requeue != 0;
	int rc = placement_from_submit(req, m);
	if (rc < 0) {
		drv_error_set(err, -rc, "%s", drv_rc_text(DRV_RC_INVALID_FEATURE));
		job_req_free(req);
		return rc == -ENOMEM ? DRV_RC_ERROR : DRV_RC_INVALID_FEATURE;
	}
	req->kill_invalid_dep = m->has_kill_invalid_dep ? m->kill_invalid_dep : -1;
	req->begin_time = m->begin;
	req->deadline = m->deadline;
	rc = 0;
	if (r->max_nodes && r->max_nodes < r->min_nodes)
		rc = drv_error_set(err, EINVAL, "%s",
				   drv_rc_text(DRV_RC_NODE_CONFIG_UNAVAIL));
	else if (r->ntasks && r->ntasks < r->min_nodes)
		rc = drv_error_set(err, EINVAL, "%s",
				   drv_rc_text(DRV_RC_NODE_CONFIG_UNAVAIL));
	else if (req->dependency &&
		 (rc = parse_dependency(req, req->dependency, err)) < 0)
		rc = rc == -ENOTSUP ? DRV_RC_NOT_SUPPORTED : DRV_RC_DEPENDENCY;
	if (rc == -EINVAL)
		rc = DRV_RC_NODE_CONFIG_UNAVAIL;
	if (rc == 0)
		rc = check_totals(r, err);
	if (rc) /* the sched pointers go with the request */
		job_req_free(req);
	return rc;
}

void job_req_free(struct job_req *req)
{
	free(req->gpu_type);
	free(req->account);
	free(req->qos);
	free(req->dependency);
	dep_list_free(&req->deps);
	free(req->open_mode);
	free(req->stdin_pat);
	free(req->req_nodes);
	free(req->exc_nodes);
	free(req->features);
	free(req->constraint);
	free(req->req_idx);
	free(req->exc_idx);
	free(req->partitions);
	free(req->part_idx);
	free(req->licenses);
	free(req->lics);
	memset(req, 0, sizeof(*req));
}

/* The request's placement and --signal fields (those job.submit names
 * alike) into the store's object. */
static void placement_to_rec(const struct job_req *req, struct drv_rec_job_req *o)
{
	o->min_cpus = req->sched.min_cpus;
	o->tmp = req->sched.min_tmp;
	o->req_nodes = req->req_nodes;
	o->exc_nodes = req->exc_nodes;
	o->features = req->features;
	if (req->warn_signal) {
		o->signal = req->warn_signal;
		o->signal_time = req->warn_time;
		o->signal_batch = req->warn_batch;
	}
	o->time_min = req->time_min;
}

json_t *job_req_to_json(const struct job_req *req)
{
	const struct sched_req *r = &req->sched;
	struct drv_rec_job_req o = {
	    .min_nodes = r->min_nodes,
	    .max_nodes = r->max_nodes,
	    .ntasks = r->ntasks,
	    .cpus_per_task = r->cpus_per_task,
	    .ntasks_per_node = r->ntasks_per_node,
	    .mem_per_node =
		r->mem_per_node == SCHED_MEM_WHOLE ? -1 : (int64_t)r->mem_per_node,
	    .mem_per_cpu = r->mem_per_cpu,
	    .gpus_per_node = r->gpus_per_node,
	    .gpus_total = r->gpus_total,
	    .exclusive = r->exclusive,
	    .oversubscribe = r->oversubscribe,
	    .ntasks_given = req->ntasks_given,
	    .cpt_given = req->cpt_given,
	    .mem_given = req->mem_given,
	    .mem_is_per_cpu = req->mem_is_per_cpu,
	    .mem = req->mem,
	    .gpu_type = req->gpu_type,
	    .account = req->account,
	    .qos = req->qos,
	    .dependency = req->dependency,
	    .deps = dep_to_json(&req->deps),
	    .deps_any = req->deps.any,
	    .nice = req->nice,
	    .open_mode = req->open_mode,
	    .stdin = req->stdin_pat,
	    .signal_time = 60,
	    .kill_invalid_dep = req->kill_invalid_dep,
	    .begin_time = req->begin_time,
	    .deadline = req->deadline,
	    .requeue = req->requeue,
	    .partitions = req->partitions,
	};
	placement_to_rec(req, &o);
	json_t *out = drv_rec_job_req_encode(&o);
	json_decref(o.deps);
	return out;
}

int job_req_from_rec(struct job_req *req, const struct drv_rec_job_req *o)
{
	struct sched_req *r = &req->sched;
	memset(req, 0, sizeof(*req));
	r->min_nodes = o->min_nodes;
	r->max_nodes = o->max_nodes;
	r->ntasks = o->ntasks;
	r->cpus_per_task = o->cpus_per_task;
	r->ntasks_per_node = o->ntasks_per_node;
	r->mem_per_node =
	    o->mem_per_node < 0 ? SCHED_MEM_WHOLE : (uint64_t)o->mem_per_node;
	r->mem_per_cpu = o->mem_per_cpu;
	r->gpus_per_node = o->gpus_per_node;
	r->gpus_total = o->gpus_total;
	r->exclusive = o->exclusive;
	r->oversubscribe = o->oversubscribe;
	req->ntasks_given = o->ntasks_given;
	req->cpt_given = o->cpt_given;
	req->mem_given = o->mem_given;
	req->mem_is_per_cpu = o->mem_is_per_cpu;
	req->mem = o->mem;
	req->gpu_type = drv_strdup_or_null(o->gpu_type);
	r->gpu_type = req->gpu_type;
	req->account = drv_strdup_or_null(o->account);
	req->qos = drv_strdup_or_null(o->qos);
	req->dependency = drv_strdup_or_null(o->dependency);
	if (dep_from_json(&req->deps, o->deps, o->deps_any, o->dep_failed) < 0)
		return -ENOMEM;
	req->kill_invalid_dep = o->kill_invalid_dep;
	req->begin_time = o->begin_time;
	req->deadline = o->deadline;
	req->nice = o->nice;
	req->open_mode = drv_strdup_or_null(o->open_mode);
	req->stdin_pat = drv_strdup_or_null(o->stdin);
	req->requeue = o->requeue;
	req->partitions = drv_strdup_or_null(o->partitions);
	r->min_cpus = o->min_cpus;
	r->min_tmp = o->tmp;
	req->req_nodes = drv_strdup_or_null(o->req_nodes);
	req->exc_nodes = drv_strdup_or_null(o->exc_nodes);
	req->warn_signal = o->signal;
	req->warn_time = o->signal_time;
	req->warn_batch = o->signal_batch;
	req->time_min = o->time_min;
	set_features(
	    req, drv_strdup_or_null(o->features)); /* a stored -C parsed once already */
	return 0;
}

int job_req_from_json(struct job_req *req, json_t *obj)
{
	struct drv_rec_job_req o;
	struct drv_error err;
	memset(req, 0, sizeof(*req));
	if (!json_is_object(obj) || drv_rec_job_req_decode(obj, &o, &err) < 0)
		return -EINVAL;
	int rc = job_req_from_rec(req, &o);
	drv_rec_job_req_free(&o);
	return rc;
}

char *job_counts_string(const uint32_t *v, uint32_t n)
{
	size_t cap = 16 + (size_t)n * 24, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n;) {
		uint32_t k = 1;
		while (i + k < n && v[i + k] == v[i])
			k++;
		len += (size_t)snprintf(s + len, cap - len, k > 1 ? "%s%u(x%u)" : "%s%u",
					i ? "," : "", v[i], k);
		i += k;
	}
	return s;
}

/* The run a deadline must leave room for: --time-min, else the limit. */
static int64_t deadline_need(const struct job_req *req, int64_t time_limit)
{
	int64_t need = req->time_min ? req->time_min : time_limit;
	return need == DRV_INFINITE || need <= 0 ? 60 /* Slurm's one minute */ : need;
}

bool job_req_deadline_due(const struct job_req *req, int64_t time_limit, int64_t *due)
{
	if (!req->deadline)
		return false;
	int64_t need = deadline_need(req, time_limit), end;
	/* past from the start when even a start at --begin ends too late;
	 * else from the second a start then would end after the deadline */
	if (__builtin_add_overflow(req->begin_time, need, &end) || end > req->deadline)
		*due = 0;
	else
		*due = req->deadline - need + 1;
	return true;
}

bool job_req_past_deadline(const struct job_req *req, int64_t time_limit, int64_t now)
{
	if (!req->deadline)
		return false;
	int64_t need = deadline_need(req, time_limit);
	int64_t start = now > req->begin_time ? now : req->begin_time, end;
	/* a begin time near the end of time cannot finish by any deadline */
	return __builtin_add_overflow(start, need, &end) || end > req->deadline;
}

uint32_t job_cpus(const struct job *j)
{
	uint32_t cpus = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		cpus += j->alloc[i].cpus;
	if (cpus)
		return cpus;
	if (j->alloc_cpus_total)
		return j->alloc_cpus_total;
	const struct sched_req *r = &j->req.sched;
	uint64_t tasks = r->ntasks ? r->ntasks
			 : r->ntasks_per_node
			     ? (uint64_t)r->ntasks_per_node * r->min_nodes
			     : r->min_nodes;
	uint64_t want = tasks * (r->cpus_per_task ? r->cpus_per_task : 1);
	return want > UINT32_MAX ? UINT32_MAX : (uint32_t)want; /* submit bounds it */
}
