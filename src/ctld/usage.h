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

struct step_usage {
	bool has; /* a node reported usage; false: the fields are 0 */
	int64_t user_usec, sys_usec;
	int64_t max_rss_kib, ave_rss_kib, max_rss_task;
	int64_t ntasks; /* tasks averaged into ave_rss_kib */
	char max_rss_node[64];
};

/* Adds one node's report (a "usage" object, borrowed; ignored when not an
 * object) from node (borrowed). */
void usage_add_report(struct step_usage *u, const json_t *report, const char *node);
/* Sets the usage fields on o (a step entry) when u has usage; with store,
 * also what usage_from_json needs to keep averaging. */
void usage_set_fields(const struct step_usage *u, json_t *o, bool store);
/* The usage as one object (new reference), or JSON null without usage. */
json_t *usage_to_object(const struct step_usage *u);
/* Reads what usage_set_fields or usage_to_object wrote (o borrowed, may be
 * NULL: no usage). */
void usage_from_json(struct step_usage *u, const json_t *o);

#endif
