/* anomaly.h — the anomaly freeze, ctld's half (docs/anomaly.md): a job
 * frozen for the policy is suspended as by `scontrol suspend`, with reason
 * MemoryAnomaly (its node saw its memory run away and froze it there:
 * job.anomaly) or SecurityViolation (its processes were refused for
 * permission AnomalyDeniedLimit times within AnomalyDeniedWindow seconds;
 * the credential names the job a request came from). An operator's
 * `scontrol resume` thaws it and clears the reason; scancel ends it. */
#ifndef CTLD_ANOMALY_H
#define CTLD_ANOMALY_H

#include <jansson.h>
#include <stdint.h>

struct ctld;
struct job;
struct rpc_req;

/* One job's recent refusals. */
struct anomaly_denials {
	uint32_t job_id;
	uint32_t count; /* refusals since first */
	int64_t first;	/* epoch s of the first of them */
};

/* What hangs off struct ctld: the refusal counts of the jobs that were
 * refused lately, and how many jobs each rule froze since ctld started
 * (sdiag). */
struct anomaly_state {
	struct anomaly_denials *v; /* owned */
	size_t n, cap;
	uint32_t frozen_memory, frozen_security;
};

void anomaly_fini(struct anomaly_state *a);

/* Freezes j (running, not suspended) for the policy: job_suspend, then
 * reason (a static string: "MemoryAnomaly" or "SecurityViolation"), one
 * log line with what (borrowed) and the count. 0, or job_suspend's Slurm
 * rc (then nothing changed). */
int anomaly_freeze(struct ctld *c, struct job *j, const char *reason, const char *what,
		   int64_t now);

/* From rpc_reply: a reply to a client that refuses for permission (rc, or
 * a result of body's "results", borrowed) counts against the job the
 * credential names, when AnomalyDeniedLimit is set; the refusal that
 * reaches the limit freezes the job. */
void anomaly_note_reply(const struct rpc_req *r, int rc, json_t *body);

/* An operator's resume: a job frozen for the policy loses its reason, and
 * its thaw tells its nodes to leave it alone (job.freeze's
 * anomaly_cleared). */
void anomaly_resumed(struct job *j);

/* The policy's reason named by text (a stored record's), as the static
 * string a job holds, or NULL when text names none. */
const char *anomaly_reason(const char *text);

/* sdiag's counters: the keys only when some anomaly rule is on. */
void anomaly_stats(const struct ctld *c, json_t *counters);

#endif
