/* demo_jobs.c — the demo's pipeline: three ordinary Slurm batch scripts and
 * their submission with the real sbatch.
 *
 * The scripts are what a user would write for Slurm (#SBATCH directives,
 * relative paths under the submit dir); the chain is built with
 * --dependency=afterok on sbatch's command line, as a user would. Nothing
 * here talks to ctld directly or waits for a job (demo_watch.c does). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/fileio.h"
#include "drover/demo.h"

/* Data preparation: a CPU job that writes a small labelled dataset. */
static const char prep_script[] =
    "#!/bin/bash\n"
    "#SBATCH -J prep\n"
    "#SBATCH -c 2\n"
    "#SBATCH --mem=500\n"
    "#SBATCH -o prep-%%j.out\n"
    "# Data preparation: a CPU job that writes a small labelled dataset.\n"
    "set -euo pipefail\n"
    "echo \"prep: job $SLURM_JOB_ID on $SLURMD_NODENAME,"
    " ${SLURM_CPUS_PER_TASK:-1} CPUs\"\n"
    "mkdir -p data\n"
    "for i in $(seq 1 %d); do\n"
    "  echo \"$i,$(( (i * 7919) %% 100 )),$(( i %% 2 ))\"\n"
    "done > data/dataset.tmp\n"
    "mv data/dataset.tmp data/dataset.csv\n"
    "echo \"prep: wrote data/dataset.csv ($(wc -l < data/dataset.csv) samples)\"\n";

/* "Fine-tuning": two GPUs, one checkpoint per epoch, written atomically so
 * that whoever counts them never sees half a file. */
static const char train_script[] =
    "#!/bin/bash\n"
    "#SBATCH -J train\n"
    "#SBATCH --gres=gpu:2\n"
    "#SBATCH -o train-%%j.out\n"
    "# Fine-tuning: takes two GPUs and writes a checkpoint after every epoch.\n"
    "set -euo pipefail\n"
    "echo \"train: job $SLURM_JOB_ID on $SLURMD_NODENAME,"
    " CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}\"\n"
    "IFS=, read -ra gpus <<< \"${CUDA_VISIBLE_DEVICES:-}\"\n"
    "if [ \"${#gpus[@]}\" -ne 2 ]; then\n"
    "  echo \"train: expected 2 GPUs, got ${#gpus[@]}\" >&2; exit 1\n"
    "fi\n"
    "samples=$(wc -l < data/dataset.csv)\n"
    "mkdir -p ckpt\n"
    "for epoch in $(seq 1 %d); do\n"
    "  sleep %d.%03d\n"
    "  loss=$(awk -v e=\"$epoch\" 'BEGIN { printf \"%%.3f\", 2.3 / (1 + e) }')\n"
    "  printf 'epoch=%%d loss=%%s samples=%%d gpus=%%s\\n' \\\n"
    "    \"$epoch\" \"$loss\" \"$samples\" \"$CUDA_VISIBLE_DEVICES\" "
    "> \"ckpt/checkpoint-$epoch.tmp\"\n"
    "  mv \"ckpt/checkpoint-$epoch.tmp\" \"ckpt/checkpoint-$epoch\"\n"
    "  echo \"train: epoch $epoch/%d loss $loss -> ckpt/checkpoint-$epoch\"\n"
    "done\n";

/* Evaluation: reads the last checkpoint and reports a score. */
static const char eval_script[] =
    "#!/bin/bash\n"
    "#SBATCH -J eval\n"
    "#SBATCH -o eval-%%j.out\n"
    "# Evaluation: reads the last checkpoint the training job wrote.\n"
    "set -euo pipefail\n"
    "last=ckpt/checkpoint-%d\n"
    "if [ ! -s \"$last\" ]; then echo \"eval: $last is missing\" >&2; exit 1; fi\n"
    "echo \"eval: job $SLURM_JOB_ID on $SLURMD_NODENAME reads $last: $(cat \"$last\")\"\n"
    "loss=$(sed -n 's/.*loss=\\([0-9.]*\\).*/\\1/p' \"$last\")\n"
    "acc=$(awk -v l=\"$loss\" 'BEGIN { printf \"%%.1f\", 100 * (1 - l / 2.3) }')\n"
    "echo \"eval: accuracy $acc%% on the held-out split\"\n"
    "echo \"$acc\" > eval-accuracy.txt\n";

/* path = ctx->work/name; -ENAMETOOLONG when it does not fit. */
static int work_path(const struct demo_ctx *ctx, const char *name, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", ctx->work, name);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int write_script(const struct demo_ctx *ctx, const char *name, const char *text,
			struct drv_error *err)
{
	int rc = drv_write_file_atomic(ctx->work, name, text, strlen(text), 0755);
	if (rc < 0)
		return drv_error_set(err, -rc, "cannot write %s/%s: %s", ctx->work, name,
				     strerror(-rc));
	return 0;
}

int demo_write_scripts(const struct demo_ctx *ctx, struct drv_error *err)
{
	char text[4096];
	int rc = drv_mkdir_p(ctx->work, 0755);
	if (rc < 0)
		return drv_error_set(err, -rc, "cannot create %s: %s", ctx->work,
				     strerror(-rc));
	snprintf(text, sizeof(text), prep_script, 1000);
	rc = write_script(ctx, "prep.sh", text, err);
	snprintf(text, sizeof(text), train_script, ctx->steps, ctx->step_ms / 1000,
		 ctx->step_ms % 1000, ctx->steps);
	if (rc == 0)
		rc = write_script(ctx, "train.sh", text, err);
	snprintf(text, sizeof(text), eval_script, ctx->steps);
	if (rc == 0)
		rc = write_script(ctx, "eval.sh", text, err);
	return rc;
}

/* Runs argv (argv[0] a full path) in ctx->work with stdout read into out;
 * stderr goes through. Returns the exit status, or -errno. */
static int capture(const struct demo_ctx *ctx, char *const argv[], char *out, size_t len)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if (chdir(ctx->work) == 0)
			execv(argv[0], argv);
		fprintf(stderr, "drover demo: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t n;
	while ((n = read(fds[0], out + got, len - 1 - got)) > 0 ||
	       (n < 0 && errno == EINTR))
		got += n > 0 ? (size_t)n : 0;
	out[got] = '\0';
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* sbatch --parsable [--dependency=afterok:AFTER] SCRIPT; sets *id. */
static int submit_one(const struct demo_ctx *ctx, const char *script, long after,
		      long *id, struct drv_error *err)
{
	char sbatch[PATH_MAX], dep[64], out[256];
	snprintf(sbatch, sizeof(sbatch), "%s/sbatch", ctx->bindir);
	snprintf(dep, sizeof(dep), "--dependency=afterok:%ld", after);
	char *argv[] = {sbatch, "--parsable", after ? dep : (char *)script,
			after ? (char *)script : NULL, NULL};
	int rc = capture(ctx, argv, out, sizeof(out));
	if (rc < 0)
		return drv_error_set(err, -rc, "cannot run %s: %s", sbatch,
				     strerror(-rc));
	char *end = NULL;
	long v = strtol(out, &end, 10);
	if (rc != 0 || v <= 0 || end == out || (*end && *end != ';' && *end != '\n'))
		return drv_error_set(err, EPROTO, "sbatch %s%s%s failed (exit %d)",
				     after ? dep : "", after ? " " : "", script, rc);
	*id = v;
	return 0;
}

int demo_submit(struct demo_ctx *ctx, struct drv_error *err)
{
	static const char *const scripts[DEMO_N_JOBS] = {"prep.sh", "train.sh",
							 "eval.sh"};
	long prev = 0;
	for (size_t i = 0; i < DEMO_N_JOBS; i++) {
		int rc = submit_one(ctx, scripts[i], prev, &ctx->jobs[i].id, err);
		if (rc < 0)
			return rc;
		prev = ctx->jobs[i].id;
		if (i == 0)
			printf("  sbatch %-38s -> job %ld\n", scripts[i], prev);
		else
			printf("  sbatch --dependency=afterok:%-6ld %-10s -> job %ld\n",
			       ctx->jobs[i - 1].id, scripts[i], prev);
		fflush(stdout);
	}
	return 0;
}

int demo_checkpoints(const struct demo_ctx *ctx)
{
	int n = 0;
	for (int i = 1; i <= ctx->steps; i++) {
		char name[64], path[PATH_MAX];
		snprintf(name, sizeof(name), "ckpt/checkpoint-%d", i);
		if (work_path(ctx, name, path, sizeof(path)) == 0 &&
		    access(path, F_OK) == 0)
			n = i;
	}
	return n;
}
