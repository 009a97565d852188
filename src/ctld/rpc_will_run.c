/* rpc_will_run.c — sbatch --test-only: when and where a job would start,
 * were it submitted now. The job built from the request joins a backfill
 * pass over everything pending (with the window stretched to a year, every
 * job tested, no time bound), so the answer counts the jobs that would go
 * before it, not only the running ones as Slurm's will-run test does. The
 * pass is only read: nothing starts, nothing is planned or stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/part.h"
#include "ctld/rpc_handlers.h"
#include "ctld/sched_snap.h"

#define WILL_RUN_WINDOW (365 * 24 * 3600)

/* The test job's decision in r, or NULL. */
static const struct sched_decision *find(const struct sched_result *r, uint32_t index)
{
	for (uint32_t i = 0; i < r->n_decisions; i++)
		if (r->decisions[i].index == index)
			return &r->decisions[i];
	return NULL;
}

static void reply_decision(struct rpc_req *r, const struct job *j,
			   const struct sched_result *res, const struct sched_decision *d)
{
	struct ctld *c = r->c;
	uint32_t *idx = calloc(d->alloc_n + 1, sizeof(*idx));
	uint32_t procs = 0;
	for (uint32_t k = 0; idx && k < d->alloc_n; k++) {
		idx[k] = res->allocs[d->alloc_off + k].node;
		procs += res->allocs[d->alloc_off + k].cpus;
	}
	char *nodes = idx ? ctld_alloc_hostlist(c, idx, d->alloc_n) : NULL;
	free(idx);
	struct drv_job_submit_reply reply = {
	    .job_id = j->id,
	    .has_start_time = true,
	    .start_time = d->start,
	    .has_procs = true,
	    .procs = procs,
	    .nodes = nodes ? nodes : "",
	    .partition = c->parts[d->part].conf->name,
	};
	rpc_reply(r, 0, NULL, drv_job_submit_reply_encode(&reply));
	free(nodes);
}

void rpc_job_will_run(struct rpc_req *r, struct job *j)
{
	struct ctld *c = r->c;
	int64_t now = time(NULL);
	struct snap s;
	struct sched_result res = {0};
	int rc = snap_begin(c, &s, now);
	if (rc == 0)
		rc = sched_collect(c, &s, false, now);
	uint32_t index = (uint32_t)s.n_pending, n_cand = 0;
	const uint32_t *cand = part_job_candidates(c, j, &n_cand);
	if (rc == 0)
		rc = snap_add_pending(c, &s, j, cand,
				      n_cand < SCHED_MAX_CANDS ? n_cand : SCHED_MAX_CANDS,
				      1);
	if (rc == 0) {
		snap_end(&s, NULL);
		struct sched_params p = {
		    .kind = SCHED_PASS_BACKFILL,
		    .default_queue_depth = c->conf->sched.default_queue_depth,
		    .bf_max_job_test = (uint32_t)s.n_pending,
		    .bf_window = WILL_RUN_WINDOW,
		    .bf_resolution = c->conf->sched.bf_resolution,
		};
		rc = sched_run(&s.s, &p, &res);
	}
	const struct sched_decision *d = rc == 0 ? find(&res, index) : NULL;
	if (d && (d->verdict == SCHED_START || (d->start && d->alloc_n))) {
		reply_decision(r, j, &res, d);
	} else {
		char msg[160];
		snprintf(msg, sizeof(msg),
			 "Job would not start within a year (Reason=%s)",
			 d ? sched_reason_name(d->reason) : "Resources");
		rpc_reply(r, DRV_RC_NODE_CONFIG_UNAVAIL, msg, NULL);
	}
	sched_result_free(&res);
	snap_free(&s);
	job_free(j);
}
