/* child.c — the forked child's last steps before an admin's program. */
#include "common/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The child's side of both spawns: out_fd (or /dev/null when -1) becomes
 * stdout and stderr. */
static void __attribute__((noreturn))
exec_child(const char *path, char **envp, const sigset_t *oldmask, int out_fd)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &dfl, NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	setpgid(0, 0);
	int null = open("/dev/null", O_RDWR);
	int out = out_fd >= 0 ? out_fd : null;
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
	}
	if (null > STDERR_FILENO)
		close(null);
	syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	if (chdir("/") < 0)
		_exit(126);
	char *argv[] = {(char *)path, NULL};
	execve(path, argv, envp);
	_exit(127);
}

void drv_child_exec_quiet(const char *path, char **envp, const sigset_t *oldmask)
{
	exec_child(path, envp, oldmask, -1);
}

static pid_t spawn(const char *path, char **envp, int out_fd)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t pid = fork();
	if (pid == 0)
		exec_child(path, envp, &old, out_fd);
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -e;
	setpgid(pid, pid);
	return pid;
}

pid_t drv_child_spawn_quiet(const char *path, char **envp)
{
	return spawn(path, envp, -1);
}

pid_t drv_child_spawn_output(const char *path, char **envp, int *out_rd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	/* the child's end blocks, as a program's stdout expects */
	fcntl(p[1], F_SETFL, 0);
	pid_t pid = spawn(path, envp, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return pid;
	}
	*out_rd = p[0];
	return pid;
}
