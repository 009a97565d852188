/* usage.h — what a step's tasks used (CPU time and peak RSS), summed over
 * the nodes that reported it: the srun steps' and the batch script's.
 *
 * Nodes report the usage of their share in step.complete and job.complete
 * ("usage", docs/protocol.md); the record keeps the sums, the highest peaks
 * (RSS, virtual size) with the node and task that had them, the least CPU
 * time with its node and task, and the average peaks over tasks. sstat's
 * answers (rpc_sstat.c) add up the nodes' latest samples the same way. */
#ifndef CTLD_USAGE_H
#define CTLD_USAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/proto_gen.h"

struct step_usage {
	bool has; /* a node reported usage; false: the fields are 0 */
	int64_t user_usec, sys_usec;
	int64_t max_rss_kib, ave_rss_kib, max_rss_task;
	int64_t ntasks; /* tasks averaged into ave_rss_kib */
	char max_rss_node[64];
	/* from the nodes' samples (0 when none were taken) */
	int64_t max_vsize_kib, ave_vsize_kib, max_vsize_task;
	int64_t min_cpu_usec, min_cpu_task, max_cpu_usec, max_cpu_task;
	char max_vsize_node[64], min_cpu_node[64], max_cpu_node[64];
};

/* Adds one node's report from node (borrowed). */
void usage_add(struct step_usage *u, const struct drv_rec_usage *r, const char *node);
/* Sets the usage fields of a step record when u has usage (borrowing u's
 * node name); the store's usage_ntasks keeps the averaging right. */
void usage_to_step(const struct step_usage *u, struct drv_rec_step *s);
/* Reads what usage_to_step set. */
void usage_from_step(struct step_usage *u, const struct drv_rec_step *s);
/* The usage as a usage_total (borrowing u's node names). */
void usage_to_total(const struct step_usage *u, struct drv_rec_usage_total *t);
/* The usage as one object (new reference), or JSON null without usage. */
json_t *usage_to_object(const struct step_usage *u);
/* Reads usage_to_object's object back (t NULL: no usage). */
void usage_from_total(struct step_usage *u, const struct drv_rec_usage_total *t);

#endif
