/* state.h — Slurm's job state names: long ("PENDING") and compact ("PD"),
 * which states squeue shows by default, and their order when sorting.
 * Pure lookups on static tables; returned strings are static. */
#ifndef DRV_CLI_STATE_H
#define DRV_CLI_STATE_H

#include <stdbool.h>

/* Compact name of a long state name ("RUNNING" -> "R"); unknown names are
 * returned unchanged. */
const char *cli_state_compact(const char *long_name);

/* Parses a state a user typed (-t): long or compact, any case. Returns the
 * long name, or NULL when it is not a job state. */
const char *cli_state_parse(const char *name);

/* True for states squeue shows without -t: pending, running, suspended,
 * completing and their variants; false for finished jobs. */
bool cli_state_is_active(const char *long_name);

/* Sort key as squeue's "t" sort: Slurm's numeric base state (PENDING 0,
 * RUNNING 1, SUSPENDED 2, COMPLETED 3, ...). Unknown names sort last. */
int cli_state_rank(const char *long_name);

/* Every long name, in Slurm's order, joined by commas (for error text). */
const char *cli_state_all_names(void);

#endif
