/* sacct_values.h — what each sacct field prints for a job row and for the
 * job's batch step row, derived from a job record (cli_job) the way Slurm
 * 22.05's sacct prints a job that has no usage samples.
 *
 * Every value function returns the text to print, borrowed from the record,
 * a static string or buf (the caller's, at least SACCT_VALUE_MAX bytes), or
 * NULL for "no value" (printed blank). */
#ifndef DRV_CLI_SACCT_VALUES_H
#define DRV_CLI_SACCT_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/jobrec.h"

#define SACCT_VALUE_MAX 512

/* What a row is printed from; everything borrowed. */
struct sacct_ctx {
	int64_t now;		 /* ctld's clock */
	const char *cluster;	 /* ClusterName */
	const char *time_format; /* SLURM_TIME_FORMAT, or NULL */
	bool contain;		 /* PrologFlags=Contain: jobs have ID.extern */
};

struct sacct_row {
	const struct cli_job *job;
	bool step;		     /* a step's row (ID.batch, or ID.N with srun) */
	const struct cli_step *srun; /* the ID.N row's step; NULL otherwise */
};

typedef const char *(*sacct_value_f)(const struct sacct_row *r, const struct sacct_ctx *c,
				     char *buf);

/* sacct_extern.c: with c->contain, true and *s filled as j's ID.extern
 * step (step_id SACCT_STEP_EXTERN; strings borrowed from j and from tres,
 * SACCT_VALUE_MAX bytes the caller owns) when j has one. */
bool sacct_extern_step(const struct sacct_ctx *c, const struct cli_job *j,
		       struct cli_step *s, char *tres);

/* Facts about a record that the text and JSON outputs share. */
bool sacct_job_started(const struct cli_job *j);
int64_t sacct_job_elapsed(const struct cli_job *j, int64_t now);
int64_t sacct_batch_cpus(const struct cli_job *j);
int64_t sacct_batch_gpus(const struct cli_job *j); /* -1 when unknown */
const char *sacct_step_state(const struct cli_job *j);
/* Exit code and signal as sacct shows them for the job or its batch step. */
void sacct_exit_code(const struct cli_job *j, bool step, int *code, int *sig);
/* The job's DerivedExitCode: once it ended, the highest exit status of
 * its steps. */
void sacct_derived_exit(const struct cli_job *j, int *code, int *sig);
/* A step's State as sacct prints it ("CANCELLED by UID"), into buf. */
const char *sacct_srun_state(const struct cli_step *s, char *buf, size_t len);
/* Seconds a step ran (until now while it runs). */
int64_t sacct_srun_elapsed(const struct cli_step *s, int64_t now);
/* The Reason column: Slurm shows the reason the job had before it ended
 * (None once it ran; why it waited, for one cancelled while pending). */
const char *sacct_job_reason(const struct cli_job *j);
/* Seconds the job waited eligible (Slurm's Reserved, v0.0.42's "planned"). */
int64_t sacct_job_reserved(const struct cli_job *j, int64_t now);
/* Priority as sacct shows it: 0 while held. */
int64_t sacct_job_priority(const struct cli_job *j);

/* sacct_usage.c: KiB as MaxRSS and AveRSS print them ("1234K", "60M":
 * a larger unit only for exact multiples), into buf. */
const char *sacct_fmt_rss(int64_t kib, char *buf, size_t len);

/* clang-format off */
#define SACCT_VALUES(X) \
	X(account) X(blank) X(alloc_cpus) X(alloc_nodes) X(alloc_tres) \
	X(step_zero) X(cluster) X(comment) X(constraints) X(energy) X(cputime) X(cputime_raw) \
	X(derived_ec) X(elapsed) X(elapsed_raw) X(eligible) X(end) X(exitcode) \
	X(flags) X(gid) X(group) X(jobid) X(jobidraw) X(dbindex) X(jobname) X(layout) X(nnodes) \
	X(nodelist) X(ntasks) X(partition) X(priority) X(qos) X(reason) \
	X(cpufreq) X(req_cpus) X(req_mem) X(req_nodes) X(req_tres) X(reserved) \
	X(resv_cpu) X(resv_cpu_raw) X(start) X(state) X(submit) X(zero_time) X(suspended) \
	X(timelimit) X(timelimit_raw) X(usage_energy) X(uid) X(user) \
	X(wckeyid) X(workdir) X(restarts) \
	X(total_cpu) X(user_cpu) X(sys_cpu) X(max_rss) X(max_rss_node) X(max_rss_task) \
	X(ave_rss) X(ave_cpu) X(ave_vsize) X(max_vsize) X(max_vsize_node) X(max_vsize_task) \
	X(min_cpu) X(min_cpu_node) X(min_cpu_task) X(tres_in_ave) X(tres_in_max) \
	X(tres_in_max_node) X(tres_in_max_task) X(tres_in_min) X(tres_in_min_node) \
	X(tres_in_min_task) X(tres_in_tot)
/* clang-format on */

#define SACCT_DECLARE(name)                                                              \
	const char *sacct_v_##name(const struct sacct_row *r, const struct sacct_ctx *c, \
				   char *buf);
SACCT_VALUES(SACCT_DECLARE)
#undef SACCT_DECLARE

#endif
