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
	const json_t *accounts;	  /* [S] */
	bool all_states;	  /* -t all */
	const json_t *qos;	  /* [S] */
	const json_t *licenses;	  /* [S] -L: jobs asking for any of these licenses */
	char *const *nodes;	  /* -w: jobs holding any of these n_nodes nodes */
	size_t n_nodes;
	bool none;	     /* -R: what no Drover job has */
	const json_t *tasks; /* [[N, T]]: task T of array N, or NULL */
};

/* Slurm's rules: without -t only active jobs (pending, running, suspended,
 * completing) are shown. */
bool sq_job_matches(const struct sq_filter *f, const struct cli_job *job);

/* squeue -r (and "-j N_T"): each array record that holds several pending
 * tasks becomes one line per task, as Slurm's squeue shows them. Replaces
 * *jobs (a malloc'd array of n) and returns the new count; on ENOMEM keeps
 * it as it was. */
size_t sq_expand_arrays(struct cli_job **jobs, size_t n);

/* True when job_id is in f->job_ids. */
bool sq_filter_has_id(const struct sq_filter *f, int64_t job_id);

/* Slurm's default sort: partition, compact state (as text), priority high to
 * low. */
#define SQ_DEFAULT_SORT "P,t,-p"

/* One key of a -S spec. */
struct sq_sort_key {
	char letter;
	bool reverse;
};

/* Parses a -S spec ("P,t,-p", "-t,i", "Pt") into at most max keys, first
 * key first. Returns the number of keys, or -EINVAL with the offending
 * letter in *bad. Letters Slurm accepts without sorting (c f h n O b) are
 * dropped; "b" sets *warn_b (Slurm says "Invalid sort specification: b"). */
int sq_sort_parse(const char *spec, struct sq_sort_key *keys, int max, char *bad,
		  bool *warn_b);

/* Sorts jobs by keys (nkeys of them), ties by job id; now is ctld's clock. */
void sq_sort(struct cli_job *jobs, size_t n, const struct sq_sort_key *keys, int nkeys,
	     int64_t now);

#endif
