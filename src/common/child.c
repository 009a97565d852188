/* child.c — the forked child's last steps before an admin's program. */
#include "common/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

void drv_child_exec_quiet(const char *path, char **envp, const sigset_t *oldmask)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &dfl, NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	setpgid(0, 0);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	if (chdir("/") < 0)
		_exit(126);
	char *argv[] = {(char *)path, NULL};
	execve(path, argv, envp);
	_exit(127);
}

pid_t drv_child_spawn_quiet(const char *path, char **envp)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t pid = fork();
	if (pid == 0)
		drv_child_exec_quiet(path, envp, &old);
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -e;
	setpgid(pid, pid);
	return pid;
}
