/* rate_limit.c — the per-uid token buckets of SlurmctldParameters=rl_enable
 * (rate_limit.h). Slurm's semantics: a uid seen for the first time starts
 * with a full bucket less the request's token; tokens come back
 * rl_refill_rate at a time for every rl_refill_period boundary crossed
 * (time counted in whole periods), never above rl_bucket_size; a request
 * finding the bucket empty is refused and takes nothing. The table is open
 * addressing on uid % size and never grows: a uid that finds it full goes
 * unlimited (logged), as in Slurm. Owns only the table; no I/O. */
#include "ctld/rate_limit.h"

#include <errno.h>
#include <stdlib.h>

struct bucket {
	uint32_t uid; /* 0: a free slot (root is never limited) */
	uint32_t tokens;
	int64_t period;	     /* the refill period (now / rl_refill_period) last seen */
	int64_t last_logged; /* when its last refusal was logged; 0: never */
};

struct rate_limit {
	struct bucket *table;
	uint32_t size; /* slots in table; 0 before the first use */
	bool full_logged;
	uint64_t refused;
};

struct rate_limit *rate_limit_new(void)
{
	return calloc(1, sizeof(struct rate_limit));
}

void rate_limit_free(struct rate_limit *rl)
{
	if (!rl)
		return;
	free(rl->table);
	free(rl);
}

uint64_t rate_limit_refused(const struct rate_limit *rl)
{
	return rl->refused;
}

/* uid's slot, claimed when it had none; NULL when the table is full. */
static struct bucket *find_slot(struct rate_limit *rl, uint32_t uid, bool *fresh)
{
	uint32_t start = uid % rl->size, i = start;
	do {
		struct bucket *b = &rl->table[i];
		if (b->uid == uid || !b->uid) {
			*fresh = !b->uid;
			return b;
		}
		i = i + 1 == rl->size ? 0 : i + 1;
	} while (i != start);
	return NULL;
}

/* The table at cfg's size: a new one when the size changed. */
static int ensure_table(struct rate_limit *rl, const struct drv_rl_conf *cfg)
{
	if (rl->size == cfg->table_size && rl->table)
		return 0;
	struct bucket *t = calloc(cfg->table_size, sizeof(*t));
	if (!t)
		return -ENOMEM;
	free(rl->table);
	rl->table = t;
	rl->size = cfg->table_size;
	rl->full_logged = false;
	return 0;
}

static bool due_log(struct bucket *b, const struct drv_rl_conf *cfg, int64_t now)
{
	if (cfg->log_freq < 0 || (b->last_logged && b->last_logged + cfg->log_freq > now))
		return false;
	b->last_logged = now;
	return true;
}

enum rate_verdict rate_limit_check(struct rate_limit *rl, const struct drv_rl_conf *cfg,
				   uint32_t uid, int64_t now, bool *log_now)
{
	*log_now = false;
	if (!cfg->enable || !uid)
		return RATE_OK;
	if (ensure_table(rl, cfg) < 0)
		return RATE_UNTRACKED;
	bool fresh = false;
	struct bucket *b = find_slot(rl, uid, &fresh);
	if (!b) {
		*log_now = !rl->full_logged;
		rl->full_logged = true;
		return RATE_UNTRACKED;
	}
	int64_t period = now / (int64_t)cfg->refill_period;
	if (fresh) {
		*b = (struct bucket){
		    .uid = uid, .tokens = cfg->bucket_size - 1, .period = period};
		return RATE_OK;
	}
	if (period > b->period) {
		uint64_t add = (uint64_t)(period - b->period) * cfg->refill_rate;
		uint64_t t = b->tokens + add;
		b->tokens = t > cfg->bucket_size ? cfg->bucket_size : (uint32_t)t;
	}
	b->period = period;		  /* a clock stepped back does not refill */
	if (b->tokens > cfg->bucket_size) /* rl_bucket_size lowered live */
		b->tokens = cfg->bucket_size;
	if (b->tokens) {
		b->tokens--;
		return RATE_OK;
	}
	rl->refused++;
	*log_now = due_log(b, cfg, now);
	return RATE_LIMITED;
}
