/* prio.h — priority/multifactor in ctld: each job's priority from Slurm's
 * formula (sched_priority), the fair-share factor of each association
 * (sched_fairshare over the tree and its usage), and the usage itself:
 * billed TRES-seconds of running jobs, decayed by PriorityDecayHalfLife,
 * reset by PriorityUsageResetPeriod, stored through the store's objects.
 *
 * With priority/basic (the default) a job's priority is fixed at submit
 * (job_submit_priority) and nothing here runs on a clock.
 *
 * Files: prio.c (weights, a job's priority, recalculation, the period),
 * prio_usage.c (usage, its records, fair share), prio_calc.c (the pure
 * arithmetic), rpc_prio.c (sprio's prio.query, scontrol top, sshare's
 * figures). The state hangs off struct ctld (c->prio); nothing is global. */
#ifndef CTLD_PRIO_H
#define CTLD_PRIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "sched/sched.h"

struct ctld;
struct job;
struct drv_error;

/* After recovery and acct_start: loads the stored usage, recalculates
 * every job's priority and arms the PriorityCalcPeriod timer (with
 * multifactor). 0 or -errno with err. */
int prio_init(struct ctld *c, struct drv_error *err);
void prio_fini(struct ctld *c); /* accepts a ctld without it */

/* Sets a pending (or, with CALCULATE_RUNNING, running) job's priority as
 * it stands now: priority/basic's at submit, multifactor's the highest of
 * its candidate partitions'; a priority an administrator set stays. Does
 * not commit j (priorities are recalculated after recovery). Returns
 * whether it changed. */
bool prio_job_update(struct ctld *c, struct job *j);

/* Something every job's priority reads changed (a partition, a QOS, an
 * association): recalculated now, a scheduler pass asked when one moved. */
void prio_changed(struct ctld *c);

/* The PriorityCalcPeriod timer fired (timed.c): reset, decay, the running
 * jobs' usage, the records, fair share, every priority. Re-arms itself. */
void prio_period(struct ctld *c, int64_t now);

/* j stops running at now (ended, cancelled, requeued): its usage since the
 * last period is added and its association's record written. */
void prio_job_stop(struct ctld *c, struct job *j, int64_t now);

/* j's factors in partition index part, as its priority was computed
 * (sprio). -ENOENT without multifactor. */
int prio_job_factors(struct ctld *c, struct job *j, uint32_t part,
		     struct sched_prio_factors *out);

/* The fair-share figures of the association with id assoc_id (sshare);
 * NULL without multifactor or when it is not in the tree. Borrowed until
 * the next change of the tables or of usage. */
const struct sched_fs *prio_assoc_fs(struct ctld *c, uint32_t assoc_id);

/* --- rpc_prio.c ---------------------------------------------------------- */
struct rpc_req;
void rpc_prio_query(struct rpc_req *r);
void rpc_job_top(struct rpc_req *r);
/* Adds the fair-share figures (and subtree RawUsage) to assoc.query's reply
 * body (borrowed). */
void prio_assoc_reply(struct ctld *c, json_t *body);

#endif
