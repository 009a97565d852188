/* demo.h — `drover demo`'s internal interface, shared by the demo*.c files
 * only.
 *
 * demo.c owns the run as a whole (options, the cluster's life, the exit
 * status); demo_jobs.c writes the pipeline's scripts and submits them with
 * the real sbatch; demo_watch.c follows the jobs through ctld and prints the
 * live status line and the final table. */
#ifndef DROVER_DEMO_H
#define DROVER_DEMO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"

#define DEMO_N_JOBS 3

/* The subcommand (argv[0] is "demo"). Returns the exit status. */
int cmd_demo(int argc, char **argv);

/* One job of the pipeline, as last seen in ctld's job record. */
struct demo_job {
	const char *name; /* "prep", "train", "eval" (static) */
	long id;	  /* 0 until submitted */
	char state[32];	  /* Slurm's long name, "" until seen */
	char reason[64];  /* pending reason, "None" otherwise */
	char node[64];	  /* batch host, "" while pending */
	char gpus[64];	  /* e.g. "2 (0,1)", "" for none */
	long elapsed;	  /* seconds run so far, 0 while pending */
	int exit_code, exit_signal;
};

/* Everything one demo run works with. Strings are malloc'd by demo.c. */
struct demo_ctx {
	char *dir;	 /* the cluster directory, absolute */
	char *conf_path; /* dir/drover.conf */
	char *bindir;	 /* where drover, sbatch and the daemons live */
	char *work;	 /* dir/pipeline: scripts, data, checkpoints, outputs */
	int steps;	 /* checkpoints the training job writes */
	int step_ms;	 /* milliseconds per training step */
	int timeout_s;	 /* deadline for the whole pipeline */
	bool live;	 /* stderr is a terminal: redraw one status line */
	const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM */
	struct demo_job jobs[DEMO_N_JOBS];
};

/* The "user interrupted" exit status used throughout. */
#define DEMO_INTERRUPTED 130

/* --- demo_jobs.c --------------------------------------------------------- */

/* Writes the three job scripts into ctx->work (and its data/ and ckpt/
 * subdirectories). 0 or -errno with err. */
int demo_write_scripts(const struct demo_ctx *ctx, struct drv_error *err);

/* Submits prep, then train (afterok prep), then eval (afterok train) with
 * BINDIR/sbatch run in ctx->work, filling in each job's id. sbatch's own
 * errors reach stderr. 0 or -errno with err. */
int demo_submit(struct demo_ctx *ctx, struct drv_error *err);

/* Checkpoints the training job has written so far (0..steps). */
int demo_checkpoints(const struct demo_ctx *ctx);

/* --- demo_watch.c -------------------------------------------------------- */

/* Polls ctld until every job has ended, one ended without completing, the
 * deadline passes or *ctx->stop is set; shows progress on stderr meanwhile.
 * Returns 0 when every job COMPLETED, 1 when one did not, -ETIMEDOUT,
 * -EINTR, or another -errno when ctld could not be asked (err says why). */
int demo_wait(struct demo_ctx *ctx, const struct drv_conf *conf, struct drv_error *err);

/* Prints the per-job table on stdout. */
void demo_print_table(const struct demo_ctx *ctx);

#endif
