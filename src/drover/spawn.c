/* spawn.c — starting, signalling and stopping a cluster's processes.
 *
 * Liveness is always judged by the lock a daemon holds on its pid file (or a
 * shepherd on its job's lock file), never by a pid alone: a pid can be
 * reused, a lock dies with its holder. Nothing here is signalled unless its
 * lock is held. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/daemon.h"
#include "drover/drover.h"

char *spawn_bindir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return strdup(buf[0] ? buf : "/");
}

off_t spawn_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(void)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

/* Reads what was appended to path since offset from (at most 64 KiB, the
 * end of it). Returns a malloc'd string or NULL. */
static char *read_since(const char *path, off_t from)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	off_t size = lseek(fd, 0, SEEK_END);
	if (size - from > 65536)
		from = size - 65536;
	if (from < 0 || size < from)
		from = 0;
	size_t len = (size_t)(size - from);
	char *buf = malloc(len + 1);
	ssize_t got = buf ? pread(fd, buf, len, from) : -1;
	close(fd);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	return buf;
}

static void print_tail(const char *path, off_t from, int max_lines)
{
	char *text = read_since(path, from);
	if (!text || !text[0]) {
		fprintf(stderr, "drover: (nothing in %s)\n", path);
		free(text);
		return;
	}
	const char *start = text + strlen(text);
	int lines = 0;
	while (start > text && lines <= max_lines) {
		start--;
		if (*start == '\n' && start[1] != '\0')
			lines++;
	}
	if (*start == '\n')
		start++;
	size_t len = strlen(start);
	fprintf(stderr, "drover: last lines of %s:\n%s%s", path, start,
		len && start[len - 1] == '\n' ? "" : "\n");
	free(text);
}

bool spawn_log_says_in_use(const char *logfile, off_t from)
{
	char *text = read_since(logfile, from);
	bool in_use = text && strstr(text, "in use");
	free(text);
	return in_use;
}

static void child_exec(const char *path, char *const argv[], int out,
		       const struct run_as *as)
{
	run_as_become(as);
	int null = open("/dev/null", O_RDONLY);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	execv(path, argv);
	fprintf(stderr, "drover: cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

/* Waits for pid with a deadline; kills it when the deadline passes. */
static int wait_exit(pid_t pid, int timeout_s)
{
	double deadline = now_s() + timeout_s;
	int status = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (now_s() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
		nap();
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return -ECHILD;
}

int spawn_daemon(const char *bindir, const char *prog, char *const args[],
		 const char *logfile, const struct run_as *as, int timeout_s,
		 struct drv_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", bindir, prog);
	char *argv[32];
	size_t n = 0;
	argv[n++] = path;
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;

	off_t from = spawn_file_size(logfile);
	int out = open(logfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out < 0)
		return drv_error_set(err, errno, "cannot open %s: %s", logfile,
				     strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(out);
		return drv_error_set(err, errno, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		child_exec(path, argv, out, as);
	close(out);
	int rc = wait_exit(pid, timeout_s);
	if (rc == 0)
		return 0;
	drv_error_set(err, -rc, "%s %s", prog,
		      rc == -ETIMEDOUT ? "did not become ready in time"
				       : "failed to start");
	print_tail(logfile, from, 15);
	return rc;
}

bool spawn_lock_held(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd); /* releases our lock if we got it */
	return held;
}

int spawn_signal(const char *pidfile, int sig)
{
	pid_t pid = 0;
	if (!pidfile || !drv_pidfile_alive(pidfile, &pid) || pid <= 1)
		return -ESRCH;
	return kill(pid, sig) < 0 ? -errno : 0;
}

static bool wait_unlocked(const char *pidfile, double deadline)
{
	while (drv_pidfile_alive(pidfile, NULL)) {
		if (now_s() > deadline)
			return false;
		nap();
	}
	return true;
}

int spawn_wait_stopped(const char *label, const char *pidfile, int timeout_s)
{
	if (!pidfile)
		return 0;
	if (wait_unlocked(pidfile, now_s() + timeout_s))
		return 0;
	fprintf(stderr, "drover: %s did not stop within %d s; killing it\n", label,
		timeout_s);
	spawn_signal(pidfile, SIGKILL);
	if (wait_unlocked(pidfile, now_s() + 5))
		return 0;
	fprintf(stderr, "drover: %s is still running\n", label);
	return -ETIMEDOUT;
}

int spawn_stop(const char *label, const char *pidfile, int timeout_s)
{
	if (spawn_signal(pidfile, SIGTERM) < 0)
		return 0;
	return spawn_wait_stopped(label, pidfile, timeout_s);
}

int spawn_read_int(const char *path, long *out)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	long v = 0;
	int n = fscanf(f, "%ld", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*out = v;
	return 0;
}
