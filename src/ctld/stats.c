/* stats.c — the counters sdiag prints (stats.h). Pure bookkeeping: the
 * callers measure (rpc.c, schedule.c, job_state.c, rpc_submit.c) and the
 * stats.query handler (rpc_stats.c) reads. */
#include <stdlib.h>
#include <string.h>

#include "ctld/stats.h"

void stats_init(struct ctld_stats *s, int64_t now)
{
	memset(s, 0, sizeof(*s));
	s->since = now;
}

void stats_fini(struct ctld_stats *s)
{
	free(s->rpcs);
	free(s->users);
	memset(s, 0, sizeof(*s));
}

static void pass_reset(struct stats_pass *p)
{
	uint32_t total = p->started_total;
	memset(p, 0, sizeof(*p));
	p->started_total = total;
}

void stats_reset(struct ctld_stats *s, int64_t now)
{
	s->since = now;
	s->jobs_submitted = s->jobs_started = 0;
	s->jobs_completed = s->jobs_canceled = s->jobs_failed = 0;
	pass_reset(&s->main);
	pass_reset(&s->backfill);
	s->backfill.started_total = 0; /* an explicit reset clears it too */
	s->n_rpcs = s->n_users = 0;
}

/* Grows *v (of *cap elements of size sz) to hold one more; false on ENOMEM. */
static bool room(void **v, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 32;
	void *nv = realloc(*v, ncap * sz);
	if (!nv)
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}

void stats_rpc(struct ctld_stats *s, const char *type, uint32_t uid, uint64_t usec)
{
	size_t i = 0;
	while (i < s->n_rpcs && strcmp(s->rpcs[i].type, type))
		i++;
	if (i == s->n_rpcs) {
		if (!room((void **)&s->rpcs, s->n_rpcs, &s->cap_rpcs, sizeof(*s->rpcs)))
			return;
		s->rpcs[s->n_rpcs++] = (struct stats_rpc){.type = type};
	}
	s->rpcs[i].count++;
	s->rpcs[i].usec += usec;
	size_t u = 0;
	while (u < s->n_users && s->users[u].uid != uid)
		u++;
	if (u == s->n_users) {
		if (!room((void **)&s->users, s->n_users, &s->cap_users,
			  sizeof(*s->users)))
			return;
		s->users[s->n_users++] = (struct stats_user){.uid = uid};
	}
	s->users[u].count++;
	s->users[u].usec += usec;
}

void stats_job_end(struct ctld_stats *s, enum stats_end how)
{
	if (how == STATS_END_COMPLETED)
		s->jobs_completed++;
	else if (how == STATS_END_CANCELED)
		s->jobs_canceled++;
	else
		s->jobs_failed++;
}

void stats_pass(struct stats_pass *p, uint64_t usec, uint32_t depth, uint32_t queue_len,
		uint32_t started, uint32_t planned, int64_t now)
{
	uint32_t us = usec > UINT32_MAX ? UINT32_MAX : (uint32_t)usec;
	p->count++;
	p->last_usec = us;
	if (us > p->max_usec)
		p->max_usec = us;
	p->sum_usec += usec;
	p->last_depth = depth;
	p->depth_sum += depth;
	p->last_queue_len = queue_len;
	p->queue_len_sum += queue_len;
	p->last_table_size = planned;
	p->table_size_sum += planned;
	p->last_when = now;
	p->started += started;
	p->started_total += started;
}
