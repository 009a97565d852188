/* salloc.c — gets an allocation and runs a command (or the user's shell) in
 * it with SLURM_JOB_ID and friends set, so that srun inside launches on the
 * allocated nodes; gives the allocation back when the command ends. With
 * --no-shell it only prints the allocation and leaves it to scancel or its
 * time limit. Every salloc: line goes to stderr, as Slurm's. */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/srun_alloc.h"
#include "cli/srun_opts.h"

/* The command salloc runs without one: the user's shell. */
static const char *user_shell(void)
{
	const char *sh = getenv("SHELL");
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_shell && *pw->pw_shell)
		sh = pw->pw_shell;
	return sh && *sh ? sh : "/bin/sh";
}

/* Runs argv and waits; its exit status, 128+N when killed by signal N.
 * Ctrl-C and friends are the command's while it runs, not salloc's. */
static int run_command(char **argv)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid_t pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "salloc: error: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (pid < 0)
		return 1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

static int run(int argc, char **argv)
{
	struct srun_opts o;
	int idx = argc;
	srun_opts_init(&o);
	srun_opts_from_env(&o, true);
	int rc = srun_opts_parse(argc, argv, &o, &idx, true);
	if (rc < 0)
		return rc == -EDOM ? 255 : 1;
	if (o.job.help) {
		srun_usage(true);
		return 0;
	}
	if (o.job.version) {
		cli_print_version();
		return 0;
	}
	struct drv_conf *conf = NULL;
	if (cli_conf_load(&conf) < 0)
		return 1;
	struct srun_alloc a;
	/* Slurm's default names: "no-shell" for --no-shell, else "interactive" */
	rc = srun_alloc_create(conf, &o, o.no_shell ? "no-shell" : "interactive", true,
			       &a);
	if (rc) {
		drv_conf_free(conf);
		return rc;
	}
	if (o.no_shell) {
		srun_job_fini(&a.job);
		drv_conf_free(conf);
		return 0;
	}
	srun_alloc_setenv(conf, a.job.rec);
	char *shell[] = {(char *)user_shell(), NULL};
	rc = run_command(idx < argc ? argv + idx : shell);
	fprintf(stderr, "salloc: Relinquishing job allocation %u\n", a.job_id);
	/* Slurm's salloc may also print "Job allocation N has been revoked."
	 * when ctld's word of the end beats its exit; we never wait for it */
	srun_alloc_release(conf, &a, rc);
	drv_conf_free(conf);
	return rc;
}

int main(int argc, char **argv)
{
	cli_init("salloc");
	argv[0] = (char *)"salloc";
	return run(argc, argv);
}
