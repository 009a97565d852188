/* sacct_opts.h — sacct's command line, parsed as Slurm 22.05's sacct
 * parses it: the same options, defaults, messages and exit codes.
 * sacct_opts_parse() prints its own messages; the caller only exits. */
#ifndef DRV_CLI_SACCT_OPTS_H
#define DRV_CLI_SACCT_OPTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cli/sacct_format.h"

enum sacct_help { SACCT_NO_HELP, SACCT_HELP, SACCT_HELPFORMAT, SACCT_USAGE };

/* What -j selected: a whole job, its batch step, or a numbered step. */
#define SACCT_STEP_WHOLE (-2)
#define SACCT_STEP_BATCH (-3)
#define SACCT_STEP_EXTERN (-4)

struct sacct_sel {
	int64_t job_id;
	int64_t task; /* array index after '_', -1 none */
	int64_t het;  /* het component after '+', -1 none */
	int64_t step; /* SACCT_STEP_* or a step number */
};

struct sacct_opts {
	bool all_users, allocations, brief, long_fmt, json, duplicates;
	bool all_clusters, header;
	enum sacct_parsable parsable;
	const char *delim;     /* --delimiter, or NULL */
	char *field_list;      /* "a,b," as Slurm collects -o/-b/-l/SACCT_FORMAT */
	struct sacct_sel *sel; /* -j entries; NULL/0 when none */
	size_t n_sel;
	json_t *uids, *gids;					/* [N] or NULL */
	json_t *accounts, *names, *partitions, *qos, *clusters; /* [S] or NULL */
	json_t *states;	   /* [S] long names, or NULL */
	time_t start, end; /* as given (0: not given) */
	enum sacct_help help;
	struct sacct_format fmt; /* the columns, parsed */
};

/* Parses argv (argv[0] names the program in getopt's messages, as Slurm).
 * Returns 0, 1 when sacct should exit 0 now (--version printed), or -1
 * after printing the error (exit 1). now is the time -S/-E are relative
 * to. Free o with sacct_opts_fini() whatever the result. */
int sacct_opts_parse(int argc, char **argv, time_t now, struct sacct_opts *o);
void sacct_opts_fini(struct sacct_opts *o);

/* The -j selection as job ids (a new array, or NULL without -j). */
json_t *sacct_sel_job_ids(const struct sacct_opts *o);

#endif
