/* part.h — ctld's partitions: records ctld owns, built from the config's
 * PartitionName= lines, then replaced or added by what the store holds
 * (scontrol create|update made them), changed and removed live. The
 * scheduler reads them by index (c->parts[i]); a deletion renumbers them,
 * which part_gen tells the jobs' resolved candidates. */
#ifndef CTLD_PART_H
#define CTLD_PART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"
#include "common/proto_gen.h"

struct ctld;
struct job;

struct part {
	struct drv_part_conf *conf; /* owned: its settings, conf_part.c's keys */
	uint32_t *node_idx;	    /* owned: its nodes, indices into the node table */
	uint32_t n_nodes;
	bool up;      /* its jobs may start: State=UP or DRAIN (drv_part_state_sched) */
	bool blocked; /* schedule.c: a job waits for Resources here */
};

/* The config's partitions as ctld's own (copies); the node table must be
 * built. 0 or -ENOMEM with err. */
int part_table_init(struct ctld *c, struct drv_error *err);
void part_table_fini(struct ctld *c);

/* The stored partitions (STORE_OBJ_PARTITION) over the config's: a stored
 * one replaces the config's of its name, or is added. One that cannot be
 * read, or names a node the config no longer has, is logged and skipped
 * (its node) rather than stopping ctld. 0 or -errno with err. */
int part_load_stored(struct ctld *c, struct drv_error *err);

/* The partition called name (exact), NULL when none; the default one. */
struct part *part_find(const struct ctld *c, const char *name);
struct part *part_default(const struct ctld *c);

/* The partition's record: for users (stored false: the memory defaults in
 * effect, the cluster's when it sets none, and its totals) or for the
 * store (its own settings only). Strings are borrowed from p, and os (at
 * least 24 bytes) holds OverSubscribe's text. */
struct drv_rec_partition part_record(const struct ctld *c, const struct part *p,
				     bool stored, char *os);

/* Resolves pc->nodes (a hostlist or ALL, as written) against the node
 * table: fills pc->node_names and the compressed pc->nodes, and *idx (a
 * new array, the caller's) with *n. 0, -EINVAL for a name no node has, or
 * -ENOMEM; pc and *idx untouched then. */
int part_resolve_nodes(const struct ctld *c, struct drv_part_conf *pc, uint32_t **idx,
		       uint32_t *n);

/* Creates (create) or changes partition name with settings ("Key=Value",
 * conf_part.c's keys), all or nothing, and commits it (commit_object).
 * Returns 0 or a Slurm rc with err's text: DRV_RC_INVALID_PARTITION (create:
 * the name exists; else: no such partition), DRV_RC_INVALID_NODE_NAME
 * (Nodes=), DRV_RC_ERROR (a key or value refused: err says which). */
int part_update(struct ctld *c, const char *name, bool create,
		const char *const *settings, size_t n, struct drv_error *err);

/* Removes partition name and its stored record: 0,
 * DRV_RC_INVALID_PARTITION or DRV_RC_PARTITION_IN_USE (a job not yet ended
 * names it). Renumbers the partitions after it (part_gen). */
int part_delete(struct ctld *c, const char *name);

/* The partitions a -p text names ("a" or "a,b"; NULL: the default one), in
 * the order given, as a new array of indices (*n of them, the caller's).
 * 0; DRV_RC_INVALID_PARTITION with the first unknown name in bad; -ENOMEM. */
int part_candidates(const struct ctld *c, const char *text, uint32_t **idx, uint32_t *n,
		    char *bad, size_t bad_len);

/* j's candidate partitions (indices into c->parts, in the order given),
 * resolved again when partitions were renumbered since; *n is 0 when none
 * of them exists any more. Borrowed from j. This is what the scheduler's
 * struct sched_pending.parts takes. */
const uint32_t *part_job_candidates(struct ctld *c, struct job *j, uint32_t *n);

/* j starts in c->parts[part]: its partition becomes that one (Slurm shows
 * the list only while the job is pending); its candidates stay in
 * j->req.partitions. 0 or -ENOMEM. */
int part_job_started(struct ctld *c, struct job *j, uint32_t part);

/* j goes back to pending (requeue): its partition shows its candidates
 * again. */
void part_job_requeued(struct job *j);

/* --- part_check.c: what a job may do in its partitions ------------------ */

/* A new job's candidates (cand, n of them, as part_candidates gave them)
 * without those in State=DRAIN or INACTIVE, which take no new jobs; the
 * job's partition text becomes the list left, as Slurm rebuilds it (the
 * caller keeps it in j->req.partitions too when it names several).
 * Returns 0 (*n may have shrunk), DRV_RC_PARTITION_NOT_AVAIL when none is
 * left, or DRV_RC_ERROR (ENOMEM). */
int part_check_state(struct ctld *c, struct job *j, uint32_t *cand, uint32_t *n);

/* Whether the new job j (uid, gid, user, account, QOS, node counts and time
 * limit set) may use its candidates, as Slurm's slurmctld checks at submit:
 *   - AllowGroups (the user's groups; root and SlurmUser pass): one
 *     refusal refuses the job, DRV_RC_PART_GROUP;
 *   - with EnforcePartLimits, AllowAccounts/DenyAccounts
 *     (DRV_RC_INVALID_ACCOUNT), AllowQos/DenyQos (DRV_RC_INVALID_QOS),
 *     MinNodes/MaxNodes (DRV_RC_INVALID_NODE_COUNT) and MaxTime
 *     (DRV_RC_INVALID_TIME_LIMIT): ALL refuses when one candidate refuses,
 *     ANY when every one does. Without it the job is taken and waits
 *     (part_job_blocked says why).
 * Returns 0 or the rc. */
int part_check_access(const struct ctld *c, const struct job *j, const uint32_t *cand,
		      uint32_t n);

/* Why j may not start in p now, by the rules EnforcePartLimits=NO leaves
 * to the scheduler, as Slurm's reason names: "InvalidAccount",
 * "InvalidQOS", "PartitionNodeLimit", "PartitionTimeLimit"; NULL when
 * none holds it. For schedule.c, per candidate partition. */
const char *part_job_blocked(const struct ctld *c, const struct part *p,
			     const struct job *j);

#endif
