/* rpc_stats.c — stats.query (sdiag): ctld's counters (stats.h) under
 * Slurm's names, with the figures only the moment knows (connections
 * being served, queues, the jobs pending and running) read now. A reset
 * is an administrator's (Slurm: an operator's), and answers with the
 * zeroed figures as Slurm does.
 *
 * Drover's message types are named in sdiag's table by the Slurm RPC that
 * does the same work, so that scripts reading sdiag find the names they
 * know; a type Slurm's slurmctld has no counterpart for keeps its own name
 * with id 0. */
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/rpc_handlers.h"

static const struct {
	const char *type, *slurm;
	int id;
} slurm_rpcs[] = {
    {"node.register", "MESSAGE_NODE_REGISTRATION_STATUS", 1002},
    {"ctld.ping", "REQUEST_PING", 1008},
    {"lic.query", "REQUEST_LICENSE_INFO", 1021},
    {"conf.query", "REQUEST_BUILD_INFO", 2001},
    {"job.query", "REQUEST_JOB_INFO", 2003},
    {"node.query", "REQUEST_NODE_INFO", 2007},
    {"part.query", "REQUEST_PARTITION_INFO", 2009},
    {"prio.query", "REQUEST_PRIORITY_FACTORS", 2026},
    {"stats.query", "REQUEST_STATS_INFO", 2035},
    {"job.script", "REQUEST_BATCH_SCRIPT", 2051},
    {"job.update", "REQUEST_UPDATE_JOB", 3001},
    {"job.hold", "REQUEST_UPDATE_JOB", 3001},
    {"job.release", "REQUEST_UPDATE_JOB", 3001},
    {"node.update", "REQUEST_UPDATE_NODE", 3002},
    {"part.update", "REQUEST_UPDATE_PARTITION", 3005},
    {"part.delete", "REQUEST_DELETE_PARTITION", 3004},
    {"job.submit", "REQUEST_SUBMIT_BATCH_JOB", 4003},
    {"job.notify", "REQUEST_JOB_NOTIFY", 4022},
    {"step.create", "REQUEST_JOB_STEP_CREATE", 5001},
    {"step.complete", "REQUEST_STEP_COMPLETE", 5016},
    {"alloc.complete", "REQUEST_COMPLETE_JOB_ALLOCATION", 5017},
    {"job.complete", "REQUEST_COMPLETE_BATCH_SCRIPT", 5018},
    {"job.requeue", "REQUEST_JOB_REQUEUE", 5023},
    {"job.cancel", "REQUEST_KILL_JOB", 5032},
    {"job.top", "REQUEST_TOP_JOB", 5038},
    {"bcast.block", "REQUEST_FILE_BCAST", 6014},
};

static void slurm_name(const char *type, const char **name, int *id)
{
	*name = type;
	*id = 0;
	for (size_t i = 0; i < sizeof(slurm_rpcs) / sizeof(slurm_rpcs[0]); i++)
		if (!strcmp(slurm_rpcs[i].type, type)) {
			*name = slurm_rpcs[i].slurm;
			*id = slurm_rpcs[i].id;
			return;
		}
}

/* Several Drover types may share one Slurm name: one row each name. */
static json_t *rpc_types(const struct ctld_stats *s)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < s->n_rpcs; i++) {
		const char *name;
		int id;
		slurm_name(s->rpcs[i].type, &name, &id);
		json_t *row = NULL;
		size_t k;
		json_t *x;
		json_array_foreach(rows, k,
				   x) if (!strcmp(json_string_value(json_array_get(x, 0)),
						  name)) row = x;
		if (!row) {
			row = json_pack("[siII]", name, id, (json_int_t)0, (json_int_t)0);
			json_array_append_new(rows, row);
		}
		json_array_set_new(
		    row, 2,
		    json_integer(json_integer_value(json_array_get(row, 2)) +
				 s->rpcs[i].count));
		json_array_set_new(
		    row, 3,
		    json_integer(json_integer_value(json_array_get(row, 3)) +
				 (json_int_t)s->rpcs[i].usec));
	}
	return rows;
}

static json_t *rpc_users(const struct ctld_stats *s)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < s->n_users; i++)
		json_array_append_new(rows,
				      json_pack("[III]", (json_int_t)s->users[i].uid,
						(json_int_t)s->users[i].count,
						(json_int_t)s->users[i].usec));
	return rows;
}

/* Slurm's "Latency for 1000 calls to gettimeofday()". */
static int64_t gettimeofday_latency(void)
{
	struct timespec t0, t1;
	struct timeval tv;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1000; i++)
		gettimeofday(&tv, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
}

static void set(json_t *o, const char *key, int64_t v)
{
	json_object_set_new(o, key, json_integer((json_int_t)v));
}

/* One kind of pass under Slurm's names: "schedule" or "bf". */
static void add_pass(json_t *o, const char *pre, const struct stats_pass *p)
{
	char key[64];
#define PASS_KEY(suffix, v)                                                              \
	do {                                                                             \
		snprintf(key, sizeof(key), "%s_%s", pre, suffix);                        \
		set(o, key, (int64_t)(v));                                               \
	} while (0)
	PASS_KEY("cycle_counter", p->count);
	PASS_KEY("cycle_sum", p->sum_usec);
	PASS_KEY("cycle_last", p->last_usec);
	PASS_KEY("cycle_max", p->max_usec);
	PASS_KEY(strcmp(pre, "bf") ? "cycle_depth" : "depth_sum", p->depth_sum);
	PASS_KEY("queue_len", p->last_queue_len);
#undef PASS_KEY
}

/* The moment's figures: connections served, queues, pending and running. */
static void add_now(json_t *o, const struct ctld *c, int64_t now)
{
	uint32_t clients = 0, pending = 0, running = 0;
	for (const struct peer *p = c->peers; p; p = p->next)
		clients += !p->daemon;
	for (const struct job *j = c->jobs.head; j; j = j->next) {
		pending += j->state == JOB_PENDING;
		running += j->state == JOB_RUNNING;
	}
	set(o, "req_time", now);
	set(o, "req_time_start", c->stats.since);
	set(o, "server_thread_count", clients);
	set(o, "agent_queue_size", (int64_t)commit_queued_effects(c));
	set(o, "agent_count", (int64_t)link_pending_launches(c));
	set(o, "agent_thread_count", c->commit_in_flight ? 1 : 0);
	set(o, "dbd_agent_queue_size", (int64_t)commit_dirty_jobs(c));
	set(o, "job_states_ts", now);
	set(o, "jobs_pending", pending);
	set(o, "jobs_running", running);
	set(o, "gettimeofday_latency", gettimeofday_latency());
}

static json_t *counters(const struct ctld *c, int64_t now)
{
	const struct ctld_stats *s = &c->stats;
	const struct stats_pass *bf = &s->backfill;
	json_t *o = json_object();
	add_now(o, c, now);
	set(o, "jobs_submitted", s->jobs_submitted);
	set(o, "jobs_started", s->jobs_started);
	set(o, "jobs_completed", s->jobs_completed);
	set(o, "jobs_canceled", s->jobs_canceled);
	set(o, "jobs_failed", s->jobs_failed);
	add_pass(o, "schedule", &s->main);
	add_pass(o, "bf", bf);
	set(o, "bf_backfilled_jobs", bf->started_total);
	set(o, "bf_last_backfilled_jobs", bf->started);
	set(o, "bf_when_last_cycle", bf->last_when);
	set(o, "bf_last_depth", bf->last_depth);
	set(o, "bf_last_depth_try", bf->last_depth);
	set(o, "bf_depth_try_sum", (int64_t)bf->depth_sum);
	set(o, "bf_queue_len_sum", (int64_t)bf->queue_len_sum);
	set(o, "bf_table_size", bf->last_table_size);
	set(o, "bf_table_size_sum", (int64_t)bf->table_size_sum);
	anomaly_stats(c, o); /* Drover's own: jobs the anomaly policy froze */
	return o;
}

void rpc_stats_query(struct rpc_req *r)
{
	const struct drv_stats_query *m = r->msg;
	int64_t now = time(NULL);
	if (m->reset) {
		if (!rpc_is_operator(r)) { /* Slurm's validate_operator */
			log_warn("sdiag reset refused to uid=%u", (unsigned)r->cred.uid);
			rpc_reply(r, DRV_RC_ACCESS_DENIED, NULL, NULL);
			return;
		}
		stats_reset(&r->c->stats, now);
		log_info("sdiag statistics reset by uid=%u", (unsigned)r->cred.uid);
	}
	struct drv_stats_query_reply out = {.counters = counters(r->c, now),
					    .rpc_types = rpc_types(&r->c->stats),
					    .rpc_users = rpc_users(&r->c->stats)};
	json_t *body = drv_stats_query_reply_encode(&out);
	json_decref(out.counters);
	json_decref(out.rpc_types);
	json_decref(out.rpc_users);
	rpc_reply(r, 0, NULL, body);
}
