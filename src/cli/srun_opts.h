/* srun_opts.h — the options of srun and salloc, parsed and checked as
 * Slurm 22.05's are. Allocation options shared with sbatch land in the
 * embedded struct sbatch_opts, so sbatch_res_from_opts(), sbatch_res_to_json()
 * and sbatch_place_to_json() check and encode them; the step and launch
 * options are checked here. Pure but for printing Slurm's messages on
 * stderr (cli_error); no network, no files. */
#ifndef DRV_CLI_SRUN_OPTS_H
#define DRV_CLI_SRUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/sbatch_opts.h"
#include "common/step_layout.h"

/* What -i/--input names. */
enum srun_input { SRUN_IN_ALL = 0, SRUN_IN_NONE, SRUN_IN_TASK, SRUN_IN_FILE };

/* Strings are borrowed from argv or the environment. Numbers are -1 when
 * not given, except verbose (a count) and jobid (0: not given). */
struct srun_opts {
	struct sbatch_opts
	    job; /* -N -n -c -p -t -J -A -q --mem* --gpus* -w -x -C -D ... */
	/* step I/O (srun only; salloc has no -o/-e/-i) */
	const char *output, *error, *input;
	enum srun_input input_mode; /* from input; SRUN_IN_FILE: input is a pattern */
	int input_task;		    /* SRUN_IN_TASK: the task id */
	bool label, unbuffered, multi_prog, exact, overlap, preserve_env, pty;
	bool quit_on_interrupt;
	int kill_on_bad_exit; /* -K[0|1]: 0 or 1; -1 unset */
	int wait_secs;	      /* -W/--wait; -1 unset */
	int64_t jobid;	      /* --jobid; 0 unset */
	const char
	    *env_jobid; /* SLURM_JOB_ID / SLURM_JOBID: the allocation srun runs in */
	const char *distribution; /* -m as given */
	enum drv_dist dist;  /* its node level; DIST_UNSET: Slurm's default (block) */
	uint32_t plane_size; /* DIST_PLANE */
	const char *cpu_bind, *gpu_bind, *mpi, *propagate, *cpu_freq;
	const char *gpus_per_task; /* "[type:]N" as given */
	int64_t gpus_per_task_n;   /* its count; -1 unset */
	int64_t ntasks_per_gpu;	   /* -1 unset */
	int immediate;		   /* -I[secs]: secs, 1 without; -1 unset */
	int verbose;		   /* -v count */
	bool quiet, overcommit;
	/* salloc only */
	bool no_shell;
	const char *kill_command; /* -K/--kill-command[=signal]; "TERM" without */
};

/* Sets every field to "not given". */
void srun_opts_init(struct srun_opts *o);

/* Applies the input variables of srun(1) (salloc: salloc(1)) for the
 * options above: SLURM_PARTITION, SLURM_TIMELIMIT, SLURM_ACCOUNT,
 * SLURM_LABELIO, SLURM_DISTRIBUTION, SLURM_CPU_BIND, SLURM_STDOUTMODE, ...
 * (salloc: SALLOC_PARTITION, SALLOC_TIMELIMIT, SALLOC_ACCOUNT, ...). srun
 * also sets env_jobid from SLURM_JOB_ID, else SLURM_JOBID. SLURM_NTASKS,
 * SLURM_NNODES and SLURM_NTASKS_PER_NODE describe the allocation inside a
 * job and are not read (the caller decides what to inherit). Strings stay
 * as given: srun_opts_parse() checks distribution, cpu/gpu bind and input
 * whatever their source, so call this first. Flags are on when empty,
 * "yes" or a non-zero number; a bad number is ignored. */
void srun_opts_from_env(struct srun_opts *o, bool salloc);

/* Parses argv[1..argc) into *o (after srun_opts_init and, usually,
 * srun_opts_from_env), stopping at the first non-option: *cmd_idx is the
 * command's index, argc when there is none. Uses salloc's option set when
 * salloc is true. Prints Slurm's message for a bad option. Returns 0;
 * -EDOM after getopt's message for an unknown option or a message Slurm's
 * option parser gives with exit status 255 (bad -m, --gpu-bind); -EINVAL
 * after a message for a bad value Slurm exits 1 on (--wait, --jobid,
 * --cpu-bind, ...) or an option Drover refuses. The caller exits 255 on
 * -EDOM, 1 on -EINVAL. argv[0] must be the program name. */
int srun_opts_parse(int argc, char **argv, struct srun_opts *o, int *cmd_idx,
		    bool salloc);

/* -m/--distribution: "block|cyclic|arbitrary|plane=N|*" then up to two
 * ":block|cyclic|fcyclic|*" levels, then ",Pack" or ",NoPack". Returns 0
 * with *dist and *plane (0 unless plane) or -EINVAL. */
int srun_dist_parse(const char *s, enum drv_dist *dist, uint32_t *plane);

/* Prints srun's (salloc's) help text on stdout. */
void srun_usage(bool salloc);

#endif
