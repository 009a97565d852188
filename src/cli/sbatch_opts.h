/* sbatch_opts.h — sbatch's options, read the same way from #SBATCH
 * directives, from SBATCH_* variables and from the command line, each later
 * source overriding the earlier. */
#ifndef DRV_CLI_SBATCH_OPTS_H
#define DRV_CLI_SBATCH_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/* Strings are borrowed from the argv/words they were parsed from. */
struct sbatch_opts {
	const char *job_name, *output, *error, *partition, *chdir, *export_spec;
	const char *comment, *wrap, *nodes, *time;
	/* resources and policy, checked by sbatch_res.c */
	const char *ntasks, *cpus_per_task, *ntasks_per_node;
	const char *mem, *mem_per_cpu, *mem_per_gpu;
	const char *gpus, *gres, *gpus_per_node, *exclusive, *nice;
	const char *account, *qos, *dependency, *open_mode, *input;
	const char *begin, *deadline, *kill_invalid_dep; /* checked by sbatch.c */
	const char *array;    /* --array / SBATCH_ARRAY_INX, checked by ctld */
	const char *clusters; /* -M: a list of names, or "all" */
	/* placement and signals, checked by sbatch_place.c */
	const char *nodelist, *nodefile, *exclude, *constraint, *mincpus, *tmp;
	const char *licenses; /* -L, checked by ctld against the cluster's */
	const char *signal, *time_min;
	bool parsable, hold, wait;
	bool quiet;
	bool oversubscribe;	  /* -s: may share CPUs where OverSubscribe=YES */
	bool test_only;		  /* --test-only: ask when and where it would start */
	bool requeue, no_requeue; /* the last of --requeue/--no-requeue given */
	bool help, version;
};

/* The getopt codes of sbatch's long-only options, shared with srun and
 * salloc (cli/srun_opts.c) so one store function serves all three. Short
 * options are their letter. */
enum sbatch_opt_code {
	SBATCH_OPT_IGNORE = 0x100,
	SBATCH_OPT_REFUSE,
	SBATCH_OPT_PARSABLE,
	SBATCH_OPT_COMMENT,
	SBATCH_OPT_WRAP,
	SBATCH_OPT_EXPORT,
	SBATCH_OPT_HELP,
	SBATCH_OPT_USAGE,
	SBATCH_OPT_MEM,
	SBATCH_OPT_MEM_PER_CPU,
	SBATCH_OPT_MEM_PER_GPU,
	SBATCH_OPT_NTASKS_PER_NODE,
	SBATCH_OPT_EXCLUSIVE,
	SBATCH_OPT_GRES,
	SBATCH_OPT_GPUS_PER_NODE,
	SBATCH_OPT_OPEN_MODE,
	SBATCH_OPT_NICE,
	SBATCH_OPT_REQUEUE,
	SBATCH_OPT_NO_REQUEUE,
	SBATCH_OPT_MINCPUS,
	SBATCH_OPT_TMP,
	SBATCH_OPT_SIGNAL,
	SBATCH_OPT_TIME_MIN,
	SBATCH_OPT_DEADLINE,
	SBATCH_OPT_KILL_DEP,
	SBATCH_OPT_TEST_ONLY,
};

/* Stores option c (a letter or an sbatch_opt_code) with its argument
 * (borrowed) into *o as sbatch does. Returns 0, or 1 when c is not an
 * option sbatch carries (the caller handles or ignores it). */
int sbatch_opts_store(struct sbatch_opts *o, int c, const char *arg);

/* An input variable's flag value: on when empty, "yes" (any case) or a
 * non-zero number. */
bool sbatch_env_flag_on(const char *v);

/* Parses argv[1..argc) into *o (fields already set are overridden). With
 * stop_at_script, parsing stops at the first non-option (the script) and
 * *script_idx is its index (argc when there is none). Prints Slurm's
 * messages for bad options. Returns 0; -EDOM after getopt's message for an
 * unknown option (sbatch exits 255, as Slurm's); -EINVAL after a message for
 * an option Drover refuses. argv[0]
 * must be the program name. */
int sbatch_opts_parse(int argc, char **argv, struct sbatch_opts *o, int *script_idx);

/* Applies the SBATCH_* input variables Slurm's sbatch reads for the options
 * above (SBATCH_JOB_NAME, SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_EXPORT,
 * SBATCH_ACCOUNT, SBATCH_QOS, SBATCH_GPUS, SBATCH_GRES, SBATCH_MEM_PER_NODE,
 * SBATCH_OUTPUT, SBATCH_CLUSTERS, SBATCH_WAIT, ...; borrowed from the
 * environment). Flags are on when the variable is empty, "yes" or a
 * non-zero number. */
void sbatch_opts_from_env(struct sbatch_opts *o);

void sbatch_usage(void);

#endif
