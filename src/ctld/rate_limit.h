/* rate_limit.h — SlurmctldParameters=rl_enable: each uid's requests to ctld
 * draw on a token bucket (rl_bucket_size tokens, rl_refill_rate more every
 * rl_refill_period seconds), so that one user's polling loop cannot take
 * the controller from everyone else. A request without a token is refused
 * with Slurm's SLURMCTLD_COMMUNICATIONS_BACKOFF (rc 1804) and the client
 * sleeps and sends it again (common/client.c). Whom it applies to is the
 * caller's choice (rpc.c: not root, not SlurmUser, not daemons). */
#ifndef CTLD_RATE_LIMIT_H
#define CTLD_RATE_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"

struct rate_limit;

/* An empty limiter (its table is made at first use, at cfg's
 * rl_table_size); NULL with errno on ENOMEM. The caller frees it with
 * rate_limit_free() (NULL accepted). */
struct rate_limit *rate_limit_new(void);
void rate_limit_free(struct rate_limit *rl);

/* What one request of uid (never 0: the table's empty mark) at now
 * (seconds) met under cfg (borrowed). */
enum rate_verdict {
	RATE_OK,       /* served: it took a token, or the limit is off */
	RATE_LIMITED,  /* over the limit: refuse it */
	RATE_UNTRACKED /* the table is full (or out of memory): served, unlimited */
};
/* *log_now is set when a refusal is due a log line (rl_log_freq per uid;
 * -1: never); an untracked uid's, once per table. A changed rl_table_size
 * (reconfigure) starts a new table. */
enum rate_verdict rate_limit_check(struct rate_limit *rl, const struct drv_rl_conf *cfg,
				   uint32_t uid, int64_t now, bool *log_now);

/* Requests refused since start. */
uint64_t rate_limit_refused(const struct rate_limit *rl);

#endif
