/* squeue_list.h — which jobs squeue shows and in what order. Pure. */
#ifndef DRV_CLI_SQUEUE_LIST_H
#define DRV_CLI_SQUEUE_LIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/jobrec.h"

/* Each list is a borrowed JSON array, or NULL for "no filter". */
struct sq_filter {
	const json_t *job_ids;	  /* [N] */
	const json_t *users;	  /* [S] user names */
	const json_t *states;	  /* [S] long state names */
	const json_t *partitions; /* [S] */
	const json_t *names;	  /* [S] job names */
	bool all_states;	  /* -t all */
};

/* Slurm's rules: without -t only active jobs (pending, running, suspended,
 * completing) are shown. */
bool sq_job_matches(const struct sq_filter *f, const struct cli_job *job);

/* True when job_id is in f->job_ids. */
bool sq_filter_has_id(const struct sq_filter *f, int64_t job_id);

/* Slurm's default order "P,t,-p": partition, then state, then priority
 * (highest first); the job id breaks ties so the order is stable. */
void sq_sort(struct cli_job *jobs, size_t n);

#endif
