/* job_submit_lua_args.c — part_list and job_rec for job_submit.lua, built
 * as plain tables from ctld's records with Slurm's names and units (time
 * in minutes, NO_VAL and INFINITE, job states as Slurm numbers them).
 * Reads ctld's state, changes nothing. */
#include "ctld/job_submit_lua_args.h"

#include <string.h>

#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/job_desc.h"
#include "ctld/job_req.h"

static void put_int(lua_State *L, const char *k, int64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, k);
}

static void put_str(lua_State *L, const char *k, const char *v)
{
	if (!v)
		return; /* nil, as Slurm pushes a NULL string */
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

/* Seconds (DRV_INFINITE, DRV_NO_VAL) as Slurm's minutes. */
static int64_t minutes(int64_t secs)
{
	if (secs == DRV_INFINITE)
		return JD_INFINITE;
	if (secs == DRV_NO_VAL || secs < 0)
		return JD_NO_VAL;
	return (secs + 59) / 60;
}

/* Slurm's state_up: PARTITION_SUBMIT (1) | PARTITION_SCHED (2). */
static int state_up(const char *state)
{
	if (!strcmp(state, "UP"))
		return 3;
	if (!strcmp(state, "DOWN"))
		return 1;
	if (!strcmp(state, "DRAIN"))
		return 2;
	return 0; /* INACTIVE */
}

static void push_part(lua_State *L, const struct ctld *c, const struct part *p)
{
	uint64_t cpus = 0;
	for (uint32_t i = 0; i < p->n_nodes; i++)
		cpus += (uint64_t)c->nodes.nodes[p->node_idx[i]].conf->cpus;
	lua_createtable(L, 0, 8);
	put_str(L, "name", p->conf->name);
	put_str(L, "nodes", p->conf->nodes);
	put_int(L, "max_time", minutes(p->conf->max_time));
	put_int(L, "default_time", minutes(p->conf->default_time));
	put_int(L, "flag_default", p->conf->is_default);
	put_int(L, "state_up", state_up(p->conf->state));
	put_int(L, "total_nodes", p->n_nodes);
	put_int(L, "total_cpus", (int64_t)cpus);
}

void jsl_push_part_list(lua_State *L, const struct ctld *c)
{
	lua_createtable(L, 0, (int)c->n_parts);
	for (size_t i = 0; i < c->n_parts; i++) {
		push_part(L, c, &c->parts[i]);
		lua_setfield(L, -2, c->parts[i].conf->name);
	}
}

/* Slurm's job_state numbers (JOB_PENDING 0 ... JOB_OOM 11); a requeued
 * run shows as pending, as Slurm's base state does. */
static int slurm_state(enum job_state s)
{
	static const int map[JOB_STATE_COUNT] = {
	    [JOB_PENDING] = 0,	     [JOB_RUNNING] = 1,	  [JOB_COMPLETED] = 3,
	    [JOB_FAILED] = 5,	     [JOB_CANCELLED] = 4, [JOB_TIMEOUT] = 6,
	    [JOB_NODE_FAIL] = 7,     [JOB_DEADLINE] = 10, [JOB_REQUEUED] = 0,
	    [JOB_OUT_OF_MEMORY] = 11};
	return s < JOB_STATE_COUNT ? map[s] : 0;
}

static void put_request(lua_State *L, const struct job *j)
{
	const struct job_req *q = &j->req;
	const struct sched_req *r = &q->sched;
	char gres[96];
	put_int(L, "min_nodes", r->min_nodes);
	put_int(L, "max_nodes", r->max_nodes ? r->max_nodes : JD_NO_VAL);
	put_int(L, "num_tasks", r->ntasks ? r->ntasks : JD_NO_VAL);
	put_int(L, "pn_min_cpus", r->min_cpus);
	put_int(L, "min_cpus", job_cpus(j));
	if (q->mem_given || q->mem)
		put_int(L, q->mem_is_per_cpu ? "min_mem_per_cpu" : "min_mem_per_node",
			(int64_t)q->mem);
	if (r->gpus_per_node) {
		snprintf(gres, sizeof(gres), "gres:gpu:%s%s%u",
			 q->gpu_type ? q->gpu_type : "", q->gpu_type ? ":" : "",
			 r->gpus_per_node);
		put_str(L, "tres_per_node", gres);
		put_str(L, "gres", gres);
	}
	put_str(L, "account", q->account);
	put_str(L, "qos", q->qos);
	put_str(L, "dependency", q->dependency);
	put_str(L, "features", q->features);
	put_str(L, "std_in", q->stdin_pat);
	put_int(L, "nice", JD_NICE_OFFSET + q->nice);
	put_int(L, "time_min", q->time_min ? minutes(q->time_min) : 0);
}

void jsl_push_job_rec(lua_State *L, const struct job *j)
{
	lua_createtable(L, 0, 40);
	put_int(L, "job_id", j->id);
	put_str(L, "name", j->name);
	put_str(L, "partition", j->partition);
	put_str(L, "comment", j->comment);
	put_int(L, "user_id", j->uid);
	put_int(L, "group_id", j->gid);
	put_str(L, "user_name", j->user);
	put_int(L, "job_state", slurm_state(j->state));
	put_int(L, "time_limit", minutes(j->time_limit));
	put_int(L, "priority", (int64_t)j->priority);
	put_str(L, "work_dir", j->workdir);
	put_str(L, "std_out", j->stdout_pat);
	put_str(L, "std_err", j->stderr_pat);
	put_int(L, "submit_time", j->submit_time);
	put_int(L, "start_time", j->start_time);
	put_int(L, "end_time", j->end_time);
	put_int(L, "array_job_id", j->array_job_id);
	put_int(L, "array_task_id", j->array_task_id < 0 ? JD_NO_VAL : j->array_task_id);
	put_str(L, "batch_host", j->batch_host);
	put_str(L, "nodes", j->nodelist && j->nodelist[0] ? j->nodelist : NULL);
	put_int(L, "restart_cnt", j->restart_count);
	put_int(L, "total_cpus", job_cpus(j));
	put_int(L, "total_nodes", j->num_nodes);
	put_request(L, j);
}
