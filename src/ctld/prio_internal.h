/* prio_internal.h — what prio.c, prio_usage.c and rpc_prio.c share: the
 * state of priority/multifactor (c->prio). Nothing else includes it. */
#ifndef CTLD_PRIO_INTERNAL_H
#define CTLD_PRIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctld/prio.h"
#include "sched/sched.h"

/* An association whose usage has a record in the store, with the value
 * written last (so that an unchanged one is not written again). */
struct prio_stored {
	uint32_t id;
	int64_t milli;
};

struct prio {
	/* The weights and what factors are relative to (cluster totals, the
	 * highest PriorityJobFactor and QOS Priority, each partition's
	 * TRES): built again after a change of the tables (acct_gen) or of
	 * the partitions (prio_changed). */
	bool weights_ok;
	uint64_t weights_gen;
	struct sched_prio_weights w;
	struct sched_tres_vec *part_tres; /* per partition index */
	size_t n_part_tres;
	/* Fair share over the policy's tree (sched_policy_get): fs[i] is its
	 * association i's; by_id orders them by association id. Computed each
	 * period, and again when the tables changed (acct_gen). */
	bool fs_ok;
	uint64_t fs_gen;
	struct sched_fs *fs;
	uint32_t *ids;	 /* association id of fs[i] */
	uint32_t *by_id; /* indices into fs, sorted by id */
	uint32_t n_fs;
	/* Usage: when it was last decayed (and the running jobs' usage
	 * added), the last reset and the next one. */
	int64_t last_ran, last_reset, next_reset;
	bool reset_now_done; /* PriorityUsageResetPeriod=NOW, once a start */
	/* The time every priority is computed at: the last period's, so
	 * that sprio's factors and the priorities agree until the next. */
	int64_t calc_time;
	struct prio_stored *stored; /* sorted by id */
	size_t n_stored;
};

/* --- prio_usage.c ----------------------------------------------------------- */
/* Loads the usage records into the tables' associations. 0 or -errno. */
int prio_usage_load(struct ctld *c, struct drv_error *err);
/* The period's usage work at now: reset, decay, running jobs, records. */
void prio_usage_period(struct ctld *c, int64_t now);
/* Fair share as the tables and usage stand, when stale. 0 or -ENOMEM. */
int prio_fs_refresh(struct ctld *c);
/* The fair-share factor of the policy's association index (SCHED_NONE:
 * none), 0 when unknown. */
double prio_fs_factor(struct ctld *c, uint32_t assoc);
void prio_usage_fini(struct prio *p);

#endif
