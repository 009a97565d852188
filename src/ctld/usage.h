/* usage.h — what a step's tasks used (CPU time and peak RSS), summed over
 * the nodes that reported it: the srun steps' and the batch script's.
 *
 * Nodes report the usage of their share in step.complete and job.complete
 * ("usage", docs/protocol.md); the record keeps the sums, the highest peak
 * with the node and task that had it, and the average peak over tasks. */
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
};

/* Adds one node's report from node (borrowed). */
void usage_add(struct step_usage *u, const struct drv_rec_usage *r, const char *node);
/* Sets the usage fields of a step record when u has usage (borrowing u's
 * node name); the store's usage_ntasks keeps the averaging right. */
void usage_to_step(const struct step_usage *u, struct drv_rec_step *s);
/* Reads what usage_to_step set. */
void usage_from_step(struct step_usage *u, const struct drv_rec_step *s);
/* The usage as one object (new reference), or JSON null without usage. */
json_t *usage_to_object(const struct step_usage *u);
/* Reads usage_to_object's object back (t NULL: no usage). */
void usage_from_total(struct step_usage *u, const struct drv_rec_usage_total *t);

#endif
