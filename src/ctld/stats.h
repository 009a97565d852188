/* stats.h — ctld's counters for sdiag (Slurm's slurmctld_diag_stats): jobs
 * submitted, started and ended, the scheduler's passes, and every RPC by
 * message type and by user with the time its handler took. Plain data that
 * hangs off struct ctld; nothing here reads a clock but its callers. */
#ifndef CTLD_STATS_H
#define CTLD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_rpc {
	const char *type; /* the message type (static: the handler table's) */
	uint32_t count;
	uint64_t usec; /* total */
};

struct stats_user {
	uint32_t uid;
	uint32_t count;
	uint64_t usec;
};

/* One kind of scheduler pass: the main (quick) one or backfill. */
struct stats_pass {
	uint32_t count, last_usec, max_usec;
	uint64_t sum_usec;
	uint32_t last_depth, last_queue_len, last_table_size;
	uint64_t depth_sum, queue_len_sum, table_size_sum;
	int64_t last_when;	/* epoch s of the last pass's end, 0 none */
	uint32_t started;	/* jobs its passes started since the reset */
	uint32_t started_total; /* since ctld started (backfill's "since start") */
};

enum stats_end { STATS_END_COMPLETED, STATS_END_CANCELED, STATS_END_FAILED };

struct ctld_stats {
	int64_t since; /* epoch s: ctld's start or the last reset */
	uint32_t jobs_submitted, jobs_started, jobs_completed, jobs_canceled, jobs_failed;
	struct stats_pass main, backfill;
	struct stats_rpc *rpcs;
	size_t n_rpcs, cap_rpcs;
	struct stats_user *users;
	size_t n_users, cap_users;
};

void stats_init(struct ctld_stats *s, int64_t now);
void stats_fini(struct ctld_stats *s);
/* sdiag -r: every counter to 0 and since to now, as Slurm's reset_stats(1)
 * with its RPC tables. */
void stats_reset(struct ctld_stats *s, int64_t now);
/* One handled request: type is borrowed and must outlive s (a string
 * literal of the handler table). Out of memory only loses the sample. */
void stats_rpc(struct ctld_stats *s, const char *type, uint32_t uid, uint64_t usec);
void stats_job_end(struct ctld_stats *s, enum stats_end how);
/* One scheduler pass: how long it took, how many jobs it tried (depth),
 * how many were pending (queue), how many it started and planned. */
void stats_pass(struct stats_pass *p, uint64_t usec, uint32_t depth, uint32_t queue_len,
		uint32_t started, uint32_t planned, int64_t now);

#endif
