/* daemon.c — pid file locks, going to the background, mkdir -p.
 *
 * The pid file is held with flock() for the daemon's whole life, so a stale
 * file left by a kill -9 never blocks a restart and `drover status` can tell
 * a live daemon from a dead one without trusting the pid inside. The
 * background fork keeps the parent waiting on a pipe until the child says it
 * is ready, so whoever started the daemon knows it listens once the command
 * returns. Nothing here logs. */
#include "common/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The write end of the pipe the waiting parent reads, in the child. */
static int ready_fd = -1;

static pid_t read_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	long v = strtol(buf, NULL, 10);
	return v > 0 ? (pid_t)v : 0;
}

int drv_pidfile_update(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0)
		return -errno;
	if (pwrite(fd, buf, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}

int drv_pidfile_lock(const char *path, struct drv_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		return drv_error_set(err, e, "cannot open pid file %s: %s", path,
				     strerror(e));
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		pid_t pid = read_pid(fd);
		close(fd);
		if (e == EWOULDBLOCK)
			return drv_error_set(err, EEXIST, "already running (pid %d)",
					     (int)pid);
		return drv_error_set(err, e, "cannot lock pid file %s: %s", path,
				     strerror(e));
	}
	int rc = drv_pidfile_update(fd);
	if (rc < 0) {
		close(fd);
		return drv_error_set(err, -rc, "cannot write pid file %s: %s", path,
				     strerror(-rc));
	}
	return fd;
}

bool drv_pidfile_alive(const char *path, pid_t *pid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool alive = false;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			alive = true;
			if (pid)
				*pid = read_pid(fd);
		}
	} else {
		flock(fd, LOCK_UN);
	}
	close(fd);
	return alive;
}

/* The parent's side: wait for the child's byte, exit 0 if it came. */
static void wait_for_child(int fd)
{
	char c;
	ssize_t n;
	do {
		n = read(fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	_exit(n == 1 ? 0 : 1);
}

int drv_daemonize(struct drv_error *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return drv_error_set(err, errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return drv_error_set(err, e, "fork: %s", strerror(e));
	}
	if (pid > 0) {
		close(p[1]);
		wait_for_child(p[0]);
	}
	close(p[0]);
	ready_fd = p[1];
	setsid();
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	return 0;
}

void drv_daemon_ready(void)
{
	if (ready_fd < 0)
		return;
	char c = 1;
	ssize_t n;
	do {
		n = write(ready_fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	close(ready_fd);
	ready_fd = -1;
}

int drv_mkdir_p(const char *path, mode_t mode)
{
	size_t len = strlen(path);
	if (len == 0)
		return -EINVAL;
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		struct stat st;
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			rc = -errno;
		} else if (stat(p, &st) < 0) {
			rc = -errno;
		} else if (!S_ISDIR(st.st_mode)) {
			rc = -ENOTDIR;
		}
		*s = saved;
		if (rc < 0 || saved == '\0')
			break;
	}
	free(p);
	return rc;
}
