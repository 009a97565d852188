/* sacct_select.h — which jobs sacct lists and which rows each gets, by
 * Slurm 22.05's rules: the default time window (midnight today, or now
 * with -s), the state-in-window meaning of -s, the users a caller sees,
 * and -j's whole jobs versus single steps. Pure functions of the options
 * and the records. */
#ifndef DRV_CLI_SACCT_SELECT_H
#define DRV_CLI_SACCT_SELECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cli/jobrec.h"
#include "cli/sacct_opts.h"

/* The time window a query covers; 0 = open on that side. */
struct sacct_window {
	time_t start, end;
	bool states; /* -s given: the window applies per state */
};

/* The window Slurm derives from -S, -E, -s and -j at time now. Fails (-EINVAL)
 * when the start is after the end, with *start and *end set to the times
 * Slurm's message names. */
int sacct_window(const struct sacct_opts *o, time_t now, struct sacct_window *w,
		 time_t *start, time_t *end);

/* The uids whose jobs are listed (a new array), or NULL for all users:
 * -u as given; everyone with -a, -j or for root; else the caller. */
json_t *sacct_user_filter(const struct sacct_opts *o, uid_t me);

/* Whether job j is listed (uids as sacct_user_filter returned). */
bool sacct_job_selected(const struct sacct_opts *o, const struct sacct_window *w,
			const json_t *uids, const char *cluster, const struct cli_job *j);

/* Which rows a listed job gets: its own and its batch step's. */
void sacct_job_rows(const struct sacct_opts *o, const struct cli_job *j, bool *job_row,
		    bool *batch_row);

/* Whether a listed job's srun step s gets a row: all of them with the
 * job, one with ID.N, none with -X. -s does not apply to steps (as in
 * Slurm, it picks jobs). */
bool sacct_step_row(const struct sacct_opts *o, const struct cli_job *j,
		    const struct cli_step *s);

#endif
