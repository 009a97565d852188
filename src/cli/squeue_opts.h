/* squeue_opts.h — squeue's options: the command line and the SQUEUE_*
 * environment variables (the command line wins), parsed as Slurm's squeue
 * parses them, messages included. */
#ifndef DRV_CLI_SQUEUE_OPTS_H
#define DRV_CLI_SQUEUE_OPTS_H

#include <jansson.h>
#include <stdbool.h>

struct sq_opts {
	bool no_header, all_states, job_flag, array_flag, long_list, json;
	char *format, *format_long, *sort; /* owned, or NULL */
	int job_args;			   /* entries given to -j (duplicates counted) */
	json_t *query_ids;		   /* [N] every id given to -j, or NULL */
	json_t *job_ids;    /* [N] the ids a job must have to match, or NULL */
	json_t *tasks;	    /* [[N, T]] array tasks given to -j as "N_T", or NULL */
	json_t *users;	    /* [S] or NULL */
	json_t *states;	    /* [S] long names, or NULL */
	json_t *partitions; /* [S] or NULL */
	json_t *names;	    /* [S] or NULL */
	json_t *accounts;   /* [S] or NULL */
	json_t *qos;	    /* [S] or NULL */
	json_t *licenses;   /* [S] -L: license names, or NULL */
	char *nodelist;	    /* -w as given, or NULL */
	bool step_flag;	    /* -s/--steps: list steps, not jobs */
	bool start_flag;    /* --start: pending jobs' expected starts */
	json_t *steps;	    /* [[ID, TASK, STEP]] given to -s, or NULL */
	bool match_none;    /* -R: no Drover job has a reservation */
	char **argv;	    /* borrowed: the command line, for --json's meta */
	int argc;
};

/* Fills *o from argv and the environment. Returns 0, 1 (help or version
 * printed: exit 0) or -EINVAL (message printed: exit 1). Release *o with
 * sq_opts_fini, whatever the result. */
int sq_opts_parse(int argc, char **argv, struct sq_opts *o);
void sq_opts_fini(struct sq_opts *o);

#endif
