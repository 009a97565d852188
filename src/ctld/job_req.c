/* job_req.c — turning sbatch's resource options into a request the
 * scheduler places, with Slurm's defaults: one task per node, one CPU per
 * task, DefMemPerCPU / DefMemPerNode / the whole node for memory. */
#include "ctld/job_req.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "ctld/dep_parse.h"

static int64_t get_int(json_t *o, const char *key, int64_t def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

static char *get_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? strdup(s) : NULL;
}

static void apply_memory(struct job_req *req, const struct drv_job_submit *m,
			 const struct drv_conf *conf)
{
	struct sched_req *r = &req->sched;
	req->mem_given = m->has_mem_per_node || m->has_mem_per_cpu;
	if (m->has_mem_per_node) {
		req->mem = (uint64_t)m->mem_per_node;
		r->mem_per_node = req->mem ? req->mem : SCHED_MEM_WHOLE;
	} else if (m->has_mem_per_cpu) {
		req->mem = (uint64_t)m->mem_per_cpu;
		req->mem_is_per_cpu = true;
		r->mem_per_cpu = req->mem;
	} else if (conf->def_mem_per_cpu) {
		req->mem = conf->def_mem_per_cpu;
		req->mem_is_per_cpu = true;
		r->mem_per_cpu = req->mem;
	} else if (conf->def_mem_per_node) {
		req->mem = conf->def_mem_per_node;
		r->mem_per_node = req->mem;
	} else {
		r->mem_per_node = SCHED_MEM_WHOLE; /* Slurm: DefMemPerNode=UNLIMITED */
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

/* The placement and --signal fields: the same keys in a job.submit body
 * and in the stored request. */
static int placement_from(struct job_req *req, json_t *o)
{
	struct sched_req *r = &req->sched;
	r->min_cpus = (uint32_t)get_int(o, "min_cpus", 0);
	r->min_tmp = (uint64_t)get_int(o, "tmp", 0);
	req->req_nodes = get_str(o, "req_nodes");
	req->exc_nodes = get_str(o, "exc_nodes");
	req->warn_signal = (int32_t)get_int(o, "signal", 0);
	req->warn_time = (int32_t)get_int(o, "signal_time", 60);
	req->warn_batch = json_is_true(json_object_get(o, "signal_batch"));
	req->time_min = get_int(o, "time_min", 0);
	return set_features(req, get_str(o, "features"));
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The placement and --signal fields of a job.submit body. */
static int placement_from_submit(struct job_req *req, const struct drv_job_submit *m)
{
	struct sched_req *r = &req->sched;
	r->min_cpus = m->min_cpus;
	r->min_tmp = (uint64_t)m->tmp;
	req->req_nodes = dup_or_null(m->req_nodes);
	req->exc_nodes = dup_or_null(m->exc_nodes);
	req->warn_signal = m->signal;
	req->warn_time = m->has_signal_time ? m->signal_time : 60;
	req->warn_batch = m->signal_batch;
	req->time_min = m->time_min;
	return set_features(req, dup_or_null(m->features));
}

static void placement_to(const struct job_req *req, json_t *o)
{
	const struct sched_req *r = &req->sched;
	if (r->min_cpus)
		json_object_set_new(o, "min_cpus", json_integer(r->min_cpus));
	if (r->min_tmp)
		json_object_set_new(o, "tmp", json_integer((json_int_t)r->min_tmp));
	if (req->req_nodes)
		json_object_set_new(o, "req_nodes", json_string(req->req_nodes));
	if (req->exc_nodes)
		json_object_set_new(o, "exc_nodes", json_string(req->exc_nodes));
	if (req->features)
		json_object_set_new(o, "features", json_string(req->features));
	if (req->warn_signal) {
		json_object_set_new(o, "signal", json_integer(req->warn_signal));
		json_object_set_new(o, "signal_time", json_integer(req->warn_time));
		json_object_set_new(o, "signal_batch", json_boolean(req->warn_batch));
	}
	if (req->time_min)
		json_object_set_new(o, "time_min", json_integer(req->time_min));
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
			const struct drv_conf *conf, struct drv_error *err)
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
	req->gpu_type = dup_or_null(m->gpu_type);
	r->gpu_type = req->gpu_type;
	apply_memory(req, m, conf);
	req->account = dup_or_null(m->account);
	req->qos = dup_or_null(m->qos);
	req->nice = m->nice;
	req->open_mode = dup_or_null(m->open_mode);
	req->stdin_pat = dup_or_null(m->stdin);
	req->dependency = dup_or_null(m->dependency);
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
	memset(req, 0, sizeof(*req));
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *job_req_to_json(const struct job_req *req)
{
	const struct sched_req *r = &req->sched;
	json_t *o = json_pack(
	    "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:b,s:b,s:b,s:b,s:I,s:o,s:o,s:o,s:"
	    "o,"
	    "s:o,s:b,s:I,s:o,s:o}",
	    "min_nodes", (json_int_t)r->min_nodes, "max_nodes", (json_int_t)r->max_nodes,
	    "ntasks", (json_int_t)r->ntasks, "cpus_per_task",
	    (json_int_t)r->cpus_per_task, "ntasks_per_node",
	    (json_int_t)r->ntasks_per_node, "mem_per_node",
	    (json_int_t)(r->mem_per_node == SCHED_MEM_WHOLE
			     ? -1
			     : (json_int_t)r->mem_per_node),
	    "mem_per_cpu", (json_int_t)r->mem_per_cpu, "gpus_per_node",
	    (json_int_t)r->gpus_per_node, "gpus_total", (json_int_t)r->gpus_total,
	    "exclusive", r->exclusive, "ntasks_given", req->ntasks_given, "cpt_given",
	    req->cpt_given, "mem_given", req->mem_given, "mem_is_per_cpu",
	    req->mem_is_per_cpu, "mem", (json_int_t)req->mem, "gpu_type",
	    str_or_null(req->gpu_type), "account", str_or_null(req->account), "qos",
	    str_or_null(req->qos), "dependency", str_or_null(req->dependency), "deps",
	    dep_to_json(&req->deps), "deps_any", req->deps.any, "nice",
	    (json_int_t)req->nice, "open_mode", str_or_null(req->open_mode), "stdin",
	    str_or_null(req->stdin_pat));
	placement_to(req, o);
	json_object_set_new(o, "kill_invalid_dep", json_integer(req->kill_invalid_dep));
	json_object_set_new(o, "begin_time", json_integer(req->begin_time));
	json_object_set_new(o, "deadline", json_integer(req->deadline));
	json_object_set_new(o, "requeue", json_boolean(req->requeue));
	return o;
}

int job_req_from_json(struct job_req *req, json_t *o)
{
	struct sched_req *r = &req->sched;
	memset(req, 0, sizeof(*req));
	if (!json_is_object(o))
		return -EINVAL;
	r->min_nodes = (uint32_t)get_int(o, "min_nodes", 1);
	r->max_nodes = (uint32_t)get_int(o, "max_nodes", 0);
	r->ntasks = (uint32_t)get_int(o, "ntasks", 0);
	r->cpus_per_task = (uint32_t)get_int(o, "cpus_per_task", 1);
	r->ntasks_per_node = (uint32_t)get_int(o, "ntasks_per_node", 0);
	int64_t mpn = get_int(o, "mem_per_node", 0);
	r->mem_per_node = mpn < 0 ? SCHED_MEM_WHOLE : (uint64_t)mpn;
	r->mem_per_cpu = (uint64_t)get_int(o, "mem_per_cpu", 0);
	r->gpus_per_node = (uint32_t)get_int(o, "gpus_per_node", 0);
	r->gpus_total = (uint32_t)get_int(o, "gpus_total", 0);
	r->exclusive = json_is_true(json_object_get(o, "exclusive"));
	req->ntasks_given = json_is_true(json_object_get(o, "ntasks_given"));
	req->cpt_given = json_is_true(json_object_get(o, "cpt_given"));
	req->mem_given = json_is_true(json_object_get(o, "mem_given"));
	req->mem_is_per_cpu = json_is_true(json_object_get(o, "mem_is_per_cpu"));
	req->mem = (uint64_t)get_int(o, "mem", 0);
	req->gpu_type = get_str(o, "gpu_type");
	r->gpu_type = req->gpu_type;
	req->account = get_str(o, "account");
	req->qos = get_str(o, "qos");
	req->dependency = get_str(o, "dependency");
	if (dep_from_json(&req->deps, json_object_get(o, "deps"),
			  json_is_true(json_object_get(o, "deps_any")),
			  json_is_true(json_object_get(o, "dep_failed"))) < 0)
		return -ENOMEM;
	req->kill_invalid_dep = (int)get_int(o, "kill_invalid_dep", -1);
	req->begin_time = get_int(o, "begin_time", 0);
	req->deadline = get_int(o, "deadline", 0);
	req->nice = (int32_t)get_int(o, "nice", 0);
	req->open_mode = get_str(o, "open_mode");
	req->stdin_pat = get_str(o, "stdin");
	json_t *rq = json_object_get(o, "requeue");
	req->requeue = rq ? json_is_true(rq) : true;
	placement_from(req, o); /* a stored -C parsed once already */
	return 0;
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

bool job_req_past_deadline(const struct job_req *req, int64_t time_limit, int64_t now)
{
	if (!req->deadline)
		return false;
	int64_t need = req->time_min ? req->time_min : time_limit;
	if (need == DRV_INFINITE || need <= 0)
		need = 60; /* Slurm's one minute for an UNLIMITED job */
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
