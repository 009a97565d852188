/* step_create.c — step.create: lay a step's tasks out over its job's
 * allocation, record it, and send every node its share at once (fan-out:
 * the sends go out together on the nodes' own connections once the step is
 * durable, so launch time does not grow node after node).
 *
 * Layout, as Slurm does it within an allocation: the nodes are the job's
 * (or those of -w, less -x), as many as -N asks, else as many as there are
 * tasks up to all of them; tasks are spread evenly with the first nodes
 * taking the extra ones (or --ntasks-per-node each), and numbered by node
 * (block), round robin (cyclic) or in planes. A step without --exact holds
 * every CPU the job has on its nodes, so a second such step waits for it
 * (Requested nodes are busy) unless it asks for --overlap. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cpuset.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/step_layout.h"
#include "common/stepio.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/job_req.h"
#include "ctld/job_tres.h"
#include "ctld/rpc_handlers.h"
#include "ctld/step_internal.h"

struct layout {
	uint32_t n;	     /* step nodes */
	uint32_t *slot;	     /* the job's alloc slot of each */
	uint32_t *tasks;     /* tasks on each */
	uint32_t *cpus;	     /* CPUs held on each (0 with --overlap) */
	uint64_t *gpus;	     /* GPUs (mask) the step gets on each */
	bool gpus_held;	     /* asked with --gpus/--gpus-per-node: its own */
	uint32_t **task_ids; /* global task ids on each */
	uint32_t ntasks, cpt;
	enum step_dist dist;
};

static void layout_free(struct layout *l)
{
	for (uint32_t k = 0; l->task_ids && k < l->n; k++)
		free(l->task_ids[k]);
	free(l->task_ids);
	free(l->slot);
	free(l->tasks);
	free(l->cpus);
	free(l->gpus);
}

static bool name_in(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The job's alloc slots the step may use, in allocation order. */
static int candidate_slots(struct ctld *c, const struct job *j,
			   const struct drv_step_create *m, uint32_t *slots, uint32_t *n,
			   bool *listed, struct drv_error *err)
{
	char **want = NULL, **skip = NULL;
	size_t n_want = 0, n_skip = 0;
	const char *w = m->nodelist, *x = m->exclude;
	if ((w && drv_hostlist_expand(w, &want, &n_want, err) < 0) ||
	    (x && drv_hostlist_expand(x, &skip, &n_skip, err) < 0)) {
		drv_strv_free(want, n_want);
		return DRV_RC_INVALID_NODE_NAME;
	}
	*n = 0;
	for (uint32_t k = 0; k < j->n_alloc; k++) {
		const char *name = c->nodes.names[j->alloc[k].node];
		if ((w && !name_in(want, n_want, name)) ||
		    (x && name_in(skip, n_skip, name)))
			continue;
		slots[(*n)++] = k;
	}
	int rc = 0;
	if (w && *n != n_want) /* a -w node outside the allocation */
		rc = DRV_RC_NODE_CONFIG_UNAVAIL;
	*listed = w != NULL;
	drv_strv_free(want, n_want);
	drv_strv_free(skip, n_skip);
	return rc;
}

static uint32_t popcount64(uint64_t v)
{
	return (uint32_t)__builtin_popcountll(v);
}

/* The lowest n GPUs of mask. */
static uint64_t first_gpus(uint64_t mask, uint32_t n)
{
	uint64_t out = 0;
	for (uint32_t g = 0; g < 64 && n; g++)
		if (mask >> g & 1) {
			out |= 1ULL << g;
			n--;
		}
	return out;
}

/* --gpus N (spread over the step's nodes, the first ones taking the rest)
 * or --gpus-per-node N: that many of the job's GPUs on each node, ones no
 * other such step holds. Without either a step sees every GPU the job has
 * on its nodes and holds none, as CPUs are what keep default steps apart. */
static int carve_gpus(const struct job *j, const struct drv_step_create *m,
		      struct layout *l, bool overlap)
{
	int64_t total = m->gpus, per_node = m->gpus_per_node;
	l->gpus = calloc(l->n, sizeof(*l->gpus));
	if (!l->gpus)
		abort();
	l->gpus_held = (total || per_node) && !overlap;
	for (uint32_t k = 0; k < l->n; k++) {
		uint64_t job_gpus = j->alloc[l->slot[k]].gpus;
		if (!total && !per_node) {
			l->gpus[k] = job_gpus;
			continue;
		}
		uint32_t want =
		    per_node
			? (uint32_t)per_node
			: (uint32_t)(total / l->n + ((int64_t)k < total % l->n ? 1 : 0));
		if (want > popcount64(job_gpus))
			return DRV_RC_INVALID_GRES;
		uint64_t free_gpus =
		    job_gpus & ~(overlap ? 0 : step_gpus_busy(j, l->slot[k]));
		if (want > popcount64(free_gpus))
			return DRV_RC_NODES_BUSY;
		l->gpus[k] = first_gpus(free_gpus, want);
	}
	return 0;
}

static int lay_out(struct ctld *c, const struct job *j, const struct drv_step_create *m,
		   struct layout *l, struct drv_error *err)
{
	uint32_t *slots = calloc(j->n_alloc, sizeof(*slots)), n_cand = 0;
	if (!slots)
		abort();
	bool listed = false;
	int rc = candidate_slots(c, j, m, slots, &n_cand, &listed, err);
	int64_t nodes = m->nodes, ntasks = m->ntasks, ntpn = m->ntasks_per_node;
	if (!rc && (n_cand == 0 || nodes > n_cand))
		rc = DRV_RC_NODE_CONFIG_UNAVAIL;
	if (rc) {
		free(slots);
		return rc;
	}
	int64_t per_gpu = m->ntasks_per_gpu;
	if (per_gpu && !ntasks) { /* --ntasks-per-gpu: that many for each GPU */
		int64_t gpus = m->gpus;
		for (uint32_t k = 0; !gpus && k < n_cand; k++)
			gpus += popcount64(j->alloc[slots[k]].gpus);
		ntasks = per_gpu * (gpus ? gpus : 1);
	}
	if (!nodes)
		nodes = listed		 ? n_cand
			: ntasks && ntpn ? (ntasks + ntpn - 1) / ntpn
			: ntasks	 ? ntasks
					 : n_cand;
	if (nodes > n_cand)
		nodes = n_cand;
	if (!ntasks)
		ntasks = ntpn ? ntpn * nodes : nodes;
	if (ntasks < nodes)
		nodes = ntasks; /* Slurm: -n below -N runs on -n nodes */
	l->n = (uint32_t)nodes;
	l->ntasks = (uint32_t)ntasks;
	l->cpt = m->cpus_per_task;
	const char *dist = m->distribution;
	l->dist = !strcmp(dist, "block")    ? STEP_DIST_BLOCK
		  : !strcmp(dist, "cyclic") ? STEP_DIST_CYCLIC
		  : !strcmp(dist, "plane")  ? STEP_DIST_PLANE
					    : STEP_DIST_ARBITRARY;
	l->slot = calloc(l->n, sizeof(*l->slot));
	l->cpus = calloc(l->n, sizeof(*l->cpus));
	if (!l->slot || !l->cpus)
		abort();
	for (uint32_t k = 0; k < l->n; k++) {
		l->slot[k] = slots[k];
		l->cpus[k] = j->alloc[slots[k]].cpus;
	}
	free(slots);
	static const enum drv_dist dists[] = {DIST_BLOCK, DIST_CYCLIC, DIST_PLANE,
					      DIST_ARBITRARY};
	struct step_layout_req req = {
	    .n_nodes = l->n,
	    .ntasks = l->ntasks,
	    .tasks_per_node_max = (uint32_t)ntpn,
	    .cpus = l->cpus,
	    .cpus_per_task = l->cpt,
	    .dist = dists[l->dist == STEP_DIST_ARBITRARY ? STEP_DIST_BLOCK : l->dist],
	    .plane_size = m->plane_size,
	};
	struct step_layout out;
	rc = step_layout_compute(&req, &out, err);
	if (rc < 0)
		return rc == -ENOSPC ? DRV_RC_BAD_TASK_COUNT : DRV_RC_ERROR;
	l->tasks = out.tasks; /* the layout's arrays are ours now */
	l->task_ids = out.tids;
	for (uint32_t k = 0; k < l->n; k++) {
		uint32_t have = j->alloc[l->slot[k]].cpus;
		uint64_t need = (uint64_t)l->tasks[k] * l->cpt;
		if (need > have && !m->overcommit)
			return DRV_RC_TOO_MANY_CPUS;
		l->cpus[k] = m->exact ? (uint32_t)(need < have ? need : have) : have;
		if (!m->overlap && step_cpus_busy(j, l->slot[k]) + l->cpus[k] > have)
			return DRV_RC_NODES_BUSY;
		if (m->overlap)
			l->cpus[k] = 0;
	}
	return carve_gpus(j, m, l, m->overlap);
}

/* --- the step's environment, the same on every node ------------------------ */

struct env {
	char **v;
	size_t n, cap;
};

static void env_add(struct env *env, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void env_add(struct env *env, const char *name, const char *fmt, ...)
{
	char value[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (env->n == env->cap) {
		env->cap = env->cap ? 2 * env->cap : 32;
		env->v = realloc(env->v, env->cap * sizeof(*env->v));
		if (!env->v)
			abort();
	}
	if (asprintf(&env->v[env->n++], "%s=%s", name, value) < 0)
		abort();
}

static void step_env(struct ctld *c, const struct job *j, const struct job_step *s,
		     const struct layout *l, const struct drv_step_create *m,
		     struct env *e)
{
	env_add(e, "SLURM_JOB_ID", "%u", j->id);
	env_add(e, "SLURM_JOBID", "%u", j->id);
	env_add(e, "SLURM_JOB_NAME", "%s", j->name ? j->name : "");
	env_add(e, "SLURM_JOB_PARTITION", "%s", j->partition ? j->partition : "");
	env_add(e, "SLURM_JOB_NODELIST", "%s", j->nodelist ? j->nodelist : "");
	env_add(e, "SLURM_JOB_NUM_NODES", "%u", j->n_alloc);
	env_add(e, "SLURM_JOB_CPUS_PER_NODE", "%s",
		j->cpus_per_node ? j->cpus_per_node : "");
	env_add(e, "SLURM_JOB_USER", "%s", j->user ? j->user : "");
	env_add(e, "SLURM_JOB_UID", "%u", (unsigned)j->uid);
	env_add(e, "SLURM_JOB_GID", "%u", (unsigned)j->gid);
	env_add(e, "SLURM_CLUSTER_NAME", "%s", c->conf->cluster_name);
	env_add(e, "SLURM_JOB_QOS", "%s", j->req.qos ? j->req.qos : "normal");
	if (j->req.account)
		env_add(e, "SLURM_JOB_ACCOUNT", "%s", j->req.account);
	if (j->submit_dir || j->workdir)
		env_add(e, "SLURM_SUBMIT_DIR", "%s",
			j->submit_dir ? j->submit_dir : j->workdir);
	if (j->submit_host)
		env_add(e, "SLURM_SUBMIT_HOST", "%s", j->submit_host);
	if (j->req.mem)
		env_add(
		    e, j->req.mem_is_per_cpu ? "SLURM_MEM_PER_CPU" : "SLURM_MEM_PER_NODE",
		    "%llu", (unsigned long long)j->req.mem);
	env_add(e, "SLURM_STEP_ID", "%u", s->id);
	env_add(e, "SLURM_STEPID", "%u", s->id);
	env_add(e, "SLURM_STEP_NODELIST", "%s", s->nodelist);
	env_add(e, "SLURM_STEP_NUM_NODES", "%u", s->num_nodes);
	env_add(e, "SLURM_STEP_NUM_TASKS", "%u", s->ntasks);
	env_add(e, "SLURM_STEP_TASKS_PER_NODE", "%s", s->tasks_per_node);
	/* the step's counts in these, but the job's node list, as Slurm's srun */
	env_add(e, "SLURM_NODELIST", "%s", j->nodelist ? j->nodelist : "");
	env_add(e, "SLURM_NNODES", "%u", s->num_nodes);
	env_add(e, "SLURM_NTASKS", "%u", s->ntasks);
	env_add(e, "SLURM_NPROCS", "%u", s->ntasks);
	env_add(e, "SLURM_TASKS_PER_NODE", "%s", s->tasks_per_node);
	static const char *const dist[] = {"block", "cyclic", "plane", "arbitrary"};
	env_add(e, "SLURM_DISTRIBUTION", "%s", dist[l->dist]);
	if (m->cpt_given || j->req.cpt_given)
		env_add(e, "SLURM_CPUS_PER_TASK", "%u", l->cpt);
	if (j->req.sched.ntasks_per_node || m->has_ntasks_per_node)
		env_add(e, "SLURM_NTASKS_PER_NODE", "%u",
			m->has_ntasks_per_node ? m->ntasks_per_node
					       : j->req.sched.ntasks_per_node);
}

/* --- launch ------------------------------------------------------------------ */

struct launch_fanout {
	uint32_t job_id, step_id;
	json_t **bodies; /* one per step node, sent after the commit */
	uint32_t *nodes; /* node table index of each */
	uint32_t n;
};

static void fanout_after_commit(struct ctld *c, void *arg)
{
	struct launch_fanout *f = arg;
	struct job *j = job_table_find(&c->jobs, f->job_id);
	struct job_step *s = j ? step_find(j, f->step_id) : NULL;
	for (uint32_t k = 0; k < f->n; k++) {
		struct node *n = &c->nodes.nodes[f->nodes[k]];
		if (s && s->state == JOB_RUNNING && n->peer) {
			json_t *req = drv_request_new("step.launch", ctld_next_msg_id(c),
						      f->bodies[k]);
			peer_send(c, n->peer, req);
			json_decref(req);
		} else {
			json_decref(f->bodies[k]);
		}
	}
	free(f->bodies);
	free(f->nodes);
	free(f);
}

/* What every node's step.launch has in common: the request's fields, the
 * step's environment, the user's groups, the layout for PMIx. */
static void launch_common(struct ctld *c, const struct job *j, const struct job_step *s,
			  const struct drv_step_create *m, struct drv_step_launch *o)
{
	*o = (struct drv_step_launch){
	    .job_id = j->id,
	    .step_id = s->id,
	    .user = j->user ? j->user : "",
	    .uid = j->uid,
	    .gid = j->gid,
	    .has_gids = true,
	    .argv = m->argv,
	    .n_argv = m->n_argv,
	    .env = m->env,
	    .n_env = m->n_env,
	    .cwd = m->cwd,
	    .io_host = m->io_host,
	    .io_port = m->io_port,
	    .io_key = m->io_key,
	    .has_cpus_on_node = true,
	    .has_gpus = true,
	    .gpus_per_task = m->gpus_per_task,
	    .has_gpus_per_task = m->has_gpus_per_task,
	    .gpu_bind = m->gpu_bind,
	    .cpu_bind = m->cpu_bind,
	    .cpus_per_task = m->cpus_per_task,
	    .has_cpus_per_task = true,
	    .task_argv = m->task_argv,
	    .stdin_all = m->stdin_all,
	    .stdin_task = m->stdin_task,
	    .unbuffered = m->unbuffered,
	    .pty = m->pty,
	    .kill_wait = c->conf->kill_wait,
	    .has_kill_wait = true,
	};
	/* one group lookup for the step, shared by every node's body */
	o->gids = identity_groups(j->user, j->gid, &o->n_gids);
}

/* Node k's share: its tasks, CPUs, GPUs and memory. */
static json_t *node_body(const struct job *j, const struct layout *l, uint32_t k,
			 const struct drv_step_create *m, struct drv_step_launch *o)
{
	const struct job_alloc *a = &j->alloc[l->slot[k]];
	uint32_t gpus[DRV_MAX_NODE_GPUS];
	o->n_gpus = 0;
	for (uint32_t g = 0; g < DRV_MAX_NODE_GPUS; g++)
		if (l->gpus[k] >> g & 1)
			gpus[o->n_gpus++] = g;
	o->gpus = gpus;
	o->tasks = l->task_ids[k];
	o->n_tasks = l->tasks[k];
	o->node_id = k;
	o->cpus_on_node = a->cpus;
	/* the job's memory on this node bounds this node's share of the step
	 * (the shepherd's cgroup limit); only when the job asked for memory */
	int64_t want = m->has_mem ? m->mem : 0; /* srun --mem: MiB per node */
	o->mem = want;
	if (j->req.mem && a->mem && !(want && (uint64_t)want < a->mem))
		o->mem = (int64_t)a->mem;
	o->has_mem = o->mem != 0;
	/* the job's CPUs there: the step's cgroup is a child of the job's */
	char cpu_ids[4096] = "";
	if (a->cpu_ids &&
	    drv_cpuset_format(a->cpu_ids, a->cpu_bits, cpu_ids, sizeof(cpu_ids)) <
		sizeof(cpu_ids) &&
	    cpu_ids[0])
		o->cpu_ids = cpu_ids;
	json_t *body = drv_step_launch_encode(o);
	o->cpu_ids = NULL;
	return body;
}

/* The step's nodes (borrowed names, freed by the caller) and which tasks
 * each runs (a new reference). */
static const char **step_shape(const struct ctld *c, const struct job *j,
			       const struct layout *l, json_t **ids)
{
	const char **names = calloc(l->n ? l->n : 1, sizeof(*names));
	if (!names)
		abort();
	*ids = json_array();
	for (uint32_t k = 0; k < l->n; k++) {
		names[k] = c->nodes.names[j->alloc[l->slot[k]].node];
		json_t *mine = json_array();
		for (uint32_t t = 0; t < l->tasks[k]; t++)
			json_array_append_new(mine, json_integer(l->task_ids[k][t]));
		json_array_append_new(*ids, mine);
	}
	return names;
}

/* --mpi=pmix: every shepherd's PMIx server describes the whole step, so each
 * node gets "mpi" and the step's shape as JSON text ("mpi_layout"). Returns
 * that text (caller frees), or NULL without pmix. */
static char *mpi_layout(const struct ctld *c, const struct job *j, const struct layout *l,
			const struct drv_step_create *m)
{
	if (!m->mpi || strcmp(m->mpi, "pmix"))
		return NULL;
	struct drv_rec_mpi_layout shape;
	shape.nodes = step_shape(c, j, l, &shape.tasks);
	shape.n_nodes = l->n;
	json_t *o = drv_rec_mpi_layout_encode(&shape);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	json_decref(shape.tasks);
	free(shape.nodes);
	return text;
}

static void queue_launch(struct ctld *c, const struct job *j, const struct job_step *s,
			 const struct layout *l, const struct drv_step_create *m)
{
	struct launch_fanout *f = calloc(1, sizeof(*f));
	if (!f)
		abort();
	f->job_id = j->id;
	f->step_id = s->id;
	f->n = l->n;
	f->bodies = calloc(l->n, sizeof(*f->bodies));
	f->nodes = calloc(l->n, sizeof(*f->nodes));
	if (!f->bodies || !f->nodes)
		abort();
	struct env env = {0};
	step_env(c, j, s, l, m, &env);
	struct drv_step_launch o;
	launch_common(c, j, s, m, &o);
	o.step_env = (const char **)env.v;
	o.n_step_env = env.n;
	char *layout = mpi_layout(c, j, l, m);
	if (layout) {
		o.mpi = m->mpi;
		o.mpi_layout = layout;
	}
	for (uint32_t k = 0; k < l->n; k++) {
		f->bodies[k] = node_body(j, l, k, m, &o);
		f->nodes[k] = j->alloc[l->slot[k]].node;
	}
	free(layout);
	free(o.gids);
	drv_strv_free(env.v, env.n);
	commit_defer(c, fanout_after_commit, f);
}

/* --- the request ----------------------------------------------------------- */

static char *step_tres(const struct job *j, const struct layout *l, uint32_t cpus)
{
	char *text;
	uint64_t mem = 0;
	for (uint32_t k = 0; k < l->n; k++)
		mem += j->alloc[l->slot[k]].mem;
	char memtext[32] = "";
	if (mem)
		job_mem_fmt(mem, memtext, sizeof(memtext));
	if (asprintf(&text, "cpu=%u%s%s,node=%u", cpus, mem ? ",mem=" : "", memtext,
		     l->n) < 0)
		abort();
	return text;
}

static struct job_step *record_step(struct ctld *c, struct job *j, const struct layout *l,
				    const struct drv_step_create *m)
{
	struct job_step *s = step_append(j);
	s->id = j->next_step_id++;
	s->state = JOB_RUNNING;
	s->start_time = time(NULL);
	s->name = strdup(*m->name ? m->name : "srun");
	s->ntasks = l->ntasks;
	s->num_nodes = l->n;
	s->dist = l->dist;
	s->overlap = m->overlap;
	s->node_idx = calloc(l->n, sizeof(uint32_t));
	s->alloc_idx = calloc(l->n, sizeof(uint32_t));
	s->node_cpus = calloc(l->n, sizeof(uint32_t));
	s->node_gpus = calloc(l->n, sizeof(uint64_t));
	s->node_done = calloc(l->n, sizeof(bool));
	uint32_t *idx = calloc(l->n, sizeof(uint32_t));
	if (!s->node_idx || !s->alloc_idx || !s->node_cpus || !s->node_gpus ||
	    !s->node_done || !idx)
		abort();
	uint32_t cpus = 0;
	for (uint32_t k = 0; k < l->n; k++) {
		s->alloc_idx[k] = l->slot[k];
		s->node_idx[k] = j->alloc[l->slot[k]].node;
		s->node_cpus[k] = l->cpus[k];
		s->node_gpus[k] = l->gpus_held ? l->gpus[k] : 0;
		idx[k] = j->alloc[l->slot[k]].node;
		/* sacct's AllocCPUS: what the step may use, overlap or not */
		cpus += l->cpus[k] ? l->cpus[k] : j->alloc[l->slot[k]].cpus;
	}
	s->cpus = cpus;
	s->nodelist = ctld_alloc_hostlist(c, idx, l->n);
	s->tasks_per_node = job_counts_string(l->tasks, l->n);
	s->alloc_tres = step_tres(j, l, cpus);
	free(idx);
	return s;
}

/* The step's shape for srun: its nodes and which tasks each runs. */
static json_t *create_reply(const struct ctld *c, const struct job *j,
			    const struct job_step *s, const struct layout *l)
{
	struct drv_step_create_reply o = {
	    .job_id = j->id,
	    .step_id = s->id,
	    .nodelist = s->nodelist,
	    .num_nodes = s->num_nodes,
	    .ntasks = s->ntasks,
	    .tasks_per_node = s->tasks_per_node,
	    .n_node_names = l->n,
	};
	o.node_names = step_shape(c, j, l, &o.node_task_ids);
	json_t *body = drv_step_create_reply_encode(&o);
	json_decref(o.node_task_ids);
	free(o.node_names);
	return body;
}

void rpc_step_create(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_step_create *m = r->msg;
	struct job *j = job_table_find(&c->jobs, m->job_id);
	int rc = !j					    ? DRV_RC_INVALID_JOB_ID
		 : !rpc_may_run_as(r, j)		    ? DRV_RC_ACCESS_DENIED
		 : j->state == JOB_PENDING		    ? DRV_RC_JOB_PENDING
		 : j->state != JOB_RUNNING || j->completing ? DRV_RC_ALREADY_DONE
		 : j->suspended ? DRV_RC_DISABLED /* Slurm's, while suspended */
		 : !j->n_alloc	? DRV_RC_JOB_PENDING
				: 0;
	struct layout l = {0};
	struct drv_error err = {""};
	if (!rc)
		rc = lay_out(c, j, m, &l, &err);
	if (rc) {
		layout_free(&l);
		rpc_reply(r, rc, err.text[0] ? err.text : drv_rc_text(rc), NULL);
		return;
	}
	struct job_step *s = record_step(c, j, &l, m);
	s->io_host = strdup(m->io_host);
	s->io_port = m->io_port;
	stepio_attach_key(m->io_key, s->attach_key);
	free(step_shape(c, j, &l, &s->task_ids));
	commit_job(c, j);
	queue_launch(c, j, s, &l, m);
	log_info("step=%u.%u created on %s: %u tasks", j->id, s->id, s->nodelist,
		 s->ntasks);
	rpc_reply_durable(r, 0, NULL, create_reply(c, j, s, &l));
	layout_free(&l);
}
