/* demo.c — `drover demo`: a local GPU cluster and a small AI pipeline on
 * it, in one command.
 *
 * Brings a cluster up with `drover up`'s own code (2 nodes, 4 CPUs and 4
 * fake GPUs each) in a fresh directory, submits data prep -> fine-tuning ->
 * evaluation with the real sbatch (demo_jobs.c), follows them
 * (demo_watch.c), prints a table and takes the cluster down with `drover
 * down`'s code unless --keep. Exits 0 only when every job COMPLETED. It
 * refuses a directory that already holds a cluster: it would stop it. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drover/demo.h"
#include "drover/drover.h"

/* The cluster's shape: enough for the 2-GPU job and a CPU job beside it. */
#define DEMO_NODES "2"
#define DEMO_CPUS "4"
#define DEMO_GPUS "4"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct demo_opts {
	const char *dir;
	bool keep;
	bool shortened;
};

static void demo_usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: drover demo [--dir DIR] [--keep] [--short]\n\n"
	    "Brings up a local cluster with fake GPUs (2 nodes, 4 CPUs and 4 GPUs\n"
	    "each) and runs a small AI pipeline on it with sbatch: data prep\n"
	    "(-c 2 --mem=500), a 2-GPU fine-tuning job that writes checkpoints\n"
	    "(afterok:prep) and an evaluation of the last checkpoint (afterok:train).\n"
	    "Shows their progress, then a table of the jobs, and stops the cluster.\n"
	    "Exits 0 only when every job completed.\n\n"
	    "  -d, --dir DIR   a new cluster directory (default: a temporary one,\n"
	    "                  removed afterwards when all went well)\n"
	    "  -k, --keep      leave the cluster running and say how to use it\n"
	    "  -s, --short     a faster pipeline, for tests (also DROVER_DEMO_SHORT=1)\n"
	    "  -h, --help      this text\n"
	    "  -V, --version   print the version\n");
}

/* Returns 0 to go on, 1 when done (help/version), -1 on a usage error. */
static int parse_demo(int argc, char **argv, struct demo_opts *o)
{
	static const struct option longs[] = {
	    {"dir", required_argument, NULL, 'd'}, {"keep", no_argument, NULL, 'k'},
	    {"short", no_argument, NULL, 's'},	   {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},   {NULL, 0, NULL, 0}};
	const char *env = getenv("DROVER_DEMO_SHORT");
	o->shortened = env && env[0] && strcmp(env, "0");
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:ksVh", longs, NULL)) != -1) {
		if (c == 'd') {
			o->dir = optarg;
		} else if (c == 'k') {
			o->keep = true;
		} else if (c == 's') {
			o->shortened = true;
		} else if (c == 'h') {
			demo_usage(stdout);
			return 1;
		} else if (c == 'V') {
			drover_print_version();
			return 1;
		} else {
			demo_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "drover demo: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

/* A new temporary directory. Short, since authd's socket path inside it
 * must fit in sun_path. */
static char *make_temp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/drover-demo.XXXXXX",
		 tmp && tmp[0] == '/' && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(path))
		return NULL;
	return strdup(path);
}

/* Fills ctx's paths. *made is set when the directory is a new temp dir. */
static int demo_locate(struct demo_ctx *ctx, const struct demo_opts *o, bool *made)
{
	struct drv_error err = {""};
	char *tmp = o->dir ? NULL : make_temp_dir();
	if (!o->dir && !tmp) {
		fprintf(stderr, "drover demo: cannot create a temporary directory: %s\n",
			strerror(errno));
		return -1;
	}
	*made = tmp != NULL;
	int rc = cluster_locate(o->dir ? o->dir : tmp, &ctx->dir, &ctx->conf_path, &err);
	free(tmp);
	if (rc < 0) {
		fprintf(stderr, "drover demo: %s\n", err.text);
		return -1;
	}
	if (access(ctx->conf_path, F_OK) == 0) {
		fprintf(stderr,
			"drover demo: %s already holds a cluster; the demo would stop it "
			"(choose a new --dir)\n",
			ctx->dir);
		return -1;
	}
	ctx->work = join(ctx->dir, "pipeline");
	ctx->bindir = spawn_bindir();
	if (!ctx->work || !ctx->bindir) {
		fprintf(stderr, "drover demo: cannot find my directory\n");
		return -1;
	}
	return 0;
}

/* `drover up` for the demo's shape, its export lines kept off stdout. */
static int demo_up(const struct demo_ctx *ctx)
{
	char *args[] = {"up",	   "--dir",  ctx->dir,	"--nodes", DEMO_NODES,	 "--cpus",
			DEMO_CPUS, "--gpus", DEMO_GPUS, "--set",   "KillWait=2", NULL};
	printf("== A local cluster in %s: %s nodes, %s CPUs and %s GPUs each\n", ctx->dir,
	       DEMO_NODES, DEMO_CPUS, DEMO_GPUS);
	fflush(stdout);
	int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null < 0) {
		fprintf(stderr, "drover demo: %s\n", strerror(errno));
		return -1;
	}
	dup2(null, STDOUT_FILENO);
	close(null);
	int rc = cmd_up((int)(sizeof(args) / sizeof(args[0])) - 1, args);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc == 0 ? 0 : -1;
}

static int demo_down(const struct demo_ctx *ctx)
{
	char *args[] = {"down", "--dir", ctx->dir, NULL};
	printf("== Stopping the cluster\n");
	fflush(stdout);
	return cmd_down(3, args) == 0 ? 0 : -1;
}

/* The commands' environment: this cluster, and its programs on PATH. */
static int demo_env(const struct demo_ctx *ctx)
{
	const char *path = getenv("PATH");
	size_t n = strlen(ctx->bindir) + (path ? strlen(path) : 0) + 2;
	char *p = malloc(n);
	if (!p)
		return -ENOMEM;
	snprintf(p, n, "%s%s%s", ctx->bindir, path ? ":" : "", path ? path : "");
	int rc =
	    setenv("PATH", p, 1) == 0 && setenv("DROVER_CONF", ctx->conf_path, 1) == 0
		? 0
		: -errno;
	free(p);
	return rc;
}

/* Prints one job's output file, indented. */
static void print_output(const struct demo_ctx *ctx, const struct demo_job *j)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s-%ld.out", ctx->work, j->name, j->id);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	printf("-- %s-%ld.out\n", j->name, j->id);
	char line[512];
	while (fgets(line, sizeof(line), f))
		printf("   %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
}

/* Submits, follows and reports the pipeline. Returns the demo's exit
 * status: 0 when every job completed. */
static int run_pipeline(struct demo_ctx *ctx)
{
	struct drv_error err = {""};
	struct drv_conf *conf = NULL;
	printf("== The pipeline (scripts and outputs in %s)\n", ctx->work);
	fflush(stdout);
	if (demo_env(ctx) < 0 ||
	    cluster_load_conf(ctx->conf_path, false, &conf, &err) < 0 ||
	    demo_write_scripts(ctx, &err) < 0 || demo_submit(ctx, &err) < 0) {
		fprintf(stderr, "drover demo: %s\n",
			err.text[0] ? err.text : strerror(errno));
		drv_conf_free(conf);
		return 1;
	}
	int rc = demo_wait(ctx, conf, &err);
	drv_conf_free(conf);
	if (rc == -ETIMEDOUT)
		fprintf(stderr, "drover demo: the pipeline did not finish within %d s\n",
			ctx->timeout_s);
	else if (rc == -EINTR)
		fprintf(stderr, "drover demo: interrupted\n");
	else if (rc < 0)
		fprintf(stderr, "drover demo: cannot follow the jobs: %s\n", err.text);
	printf("== Jobs\n");
	demo_print_table(ctx);
	for (size_t i = 0; i < DEMO_N_JOBS; i++)
		print_output(ctx, &ctx->jobs[i]);
	fflush(stdout);
	if (rc == 1)
		fprintf(stderr, "drover demo: not every job completed\n");
	return rc == 0 ? 0 : rc == -EINTR ? DEMO_INTERRUPTED : 1;
}

static void print_keep(const struct demo_ctx *ctx)
{
	printf("== The cluster keeps running. To use it:\n"
	       "   eval \"$(%s/drover up --dir %s)\"\n"
	       "   squeue; sinfo; scontrol show job %ld\n"
	       "   sbatch --gpus=1 --wrap 'echo $CUDA_VISIBLE_DEVICES'\n"
	       "   %s/drover down --dir %s     # stops it\n",
	       ctx->bindir, ctx->dir, ctx->jobs[1].id, ctx->bindir, ctx->dir);
	fflush(stdout);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

static void demo_free(struct demo_ctx *ctx)
{
	free(ctx->dir);
	free(ctx->conf_path);
	free(ctx->bindir);
	free(ctx->work);
}

int cmd_demo(int argc, char **argv)
{
	struct demo_opts o = {NULL, false, false};
	int rc = parse_demo(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	struct demo_ctx ctx = {
	    .steps = o.shortened ? 3 : 5,
	    .step_ms = o.shortened ? 300 : 1000,
	    .timeout_s = o.shortened ? 60 : 120,
	    .live = isatty(STDERR_FILENO),
	    .stop = &stop_requested,
	    .jobs = {{.name = "prep"}, {.name = "train"}, {.name = "eval"}}};
	bool made = false;
	if (demo_locate(&ctx, &o, &made) < 0) {
		demo_free(&ctx);
		return 1;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	bool up = demo_up(&ctx) == 0;
	rc = !up ? 1 : stop_requested ? DEMO_INTERRUPTED : run_pipeline(&ctx);
	if (rc == 0)
		printf("== All %d jobs completed\n", DEMO_N_JOBS);
	if (o.keep && up && rc != DEMO_INTERRUPTED) {
		print_keep(&ctx);
	} else if (demo_down(&ctx) < 0) {
		rc = 1;
	}
	if (made && !o.keep && rc == 0)
		nftw(ctx.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	else if (rc != 0)
		fprintf(stderr, "drover demo: its files stay in %s (logs in log/)\n",
			ctx.dir);
	demo_free(&ctx);
	return rc;
}
