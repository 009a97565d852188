/* sched_snap.h — building the scheduler's snapshot from ctld's tables
 * (sched_snap.c), and the plans a backfill pass leaves for the quick passes
 * after it (sched_plans.c). Only schedule.c and rpc_submit.c (--test-only)
 * use these. */
#ifndef CTLD_SCHED_SNAP_H
#define CTLD_SCHED_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

struct ctld;
struct job;

/* The last backfill pass's plans, owned by ctld (deep copies). */
struct sched_plans {
	struct sched_plan *v;
	uint32_t n;
	struct sched_alloc *allocs;
	uint64_t *words;
	uint32_t *units;
	uint32_t parts_gen; /* the partitions' numbering they name (ctld.h) */
};

/* Replaces *p with the plans of result r (the waiting decisions that got a
 * planned start and nodes); with resumed (a pass that went on where the
 * last one stopped), the plans *p held for jobs r did not decide are kept.
 * 0 or -ENOMEM (*p then empty). */
int sched_plans_set(struct sched_plans *p, const struct sched_snapshot *snap,
		    const struct sched_result *r, bool resumed);
void sched_plans_clear(struct sched_plans *p);

/* The most candidate partitions (-p a,b,...) one job is tried in. */
#define SCHED_MAX_CANDS 32

/* A snapshot being built; s is what sched_run reads. jobs[k] is the record
 * of pending[k]. */
struct snap {
	struct sched_snapshot s;
	struct sched_node *nodes;
	struct sched_part *parts;
	struct sched_running *running;
	struct sched_alloc *run_allocs;
	uint32_t *units; /* the running allocations' GPU units */
	struct sched_pending *pending;
	struct job **jobs;
	uint32_t *cands; /* the pending jobs' candidate partitions, one pool */
	size_t n_cands, cap_cands;
	size_t *cand_off; /* where each pending job's candidates start in cands */
	struct sched_license *lics;
	size_t n_pending, cap_pending;
};

/* Starts s with now, the nodes, partitions and running jobs. 0 or -1 (out
 * of memory; snap_free s then). */
int snap_begin(struct ctld *c, struct snap *s, int64_t now);
/* Adds pending job j with its candidate partitions (cand, n_cand of them,
 * copied), count tasks of it when an array. 0, or -1 (no candidate, or out
 * of memory: j not added). */
int snap_add_pending(struct ctld *c, struct snap *s, struct job *j, const uint32_t *cand,
		     uint32_t n_cand, uint32_t count);
/* Finishes s once every pending job is added; plans may be NULL. */
void snap_end(struct snap *s, const struct sched_plans *plans);
void snap_free(struct snap *s);
/* sched_overbook.c: running jobs that overbook a node (after an admin
 * change) make it take no new work instead of failing the pass; a
 * license's total is at least what they use. Called by snap_begin. */
void snap_overbooked(struct ctld *c, struct snap *s);

/* --- sched_policy.c: the policy's tables as the scheduler reads them ----- */
/* The snapshot's policy, built again when the tables changed since
 * (c->acct_gen); NULL without tables (or out of memory). Borrowed from c. */
const struct sched_policy *sched_policy_get(struct ctld *c);
void sched_policy_free(struct ctld *c);
/* The association and QOS (indices into the policy) job j runs under in
 * partition; SCHED_NONE where none. */
void sched_policy_job(struct ctld *c, const struct job *j, const char *partition,
		      uint32_t *assoc, uint32_t *qos);
/* The index of QOS name, SCHED_NONE when none (or name is NULL). */
uint32_t sched_policy_qos(struct ctld *c, const char *name);
/* The tables the policy was built from, index for index (the association
 * ids and users behind sched_policy's assocs); NULL where
 * sched_policy_get is. Borrowed from c, valid as the policy is. */
struct acct_policy;
const struct acct_policy *sched_policy_acct(struct ctld *c);

/* The scheduler's view of partition i. */
void ctld_sched_part(struct ctld *c, size_t i, struct sched_part *out);

#endif
