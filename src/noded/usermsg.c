/* usermsg.c — job.notify (scontrol notify): appends Slurm's
 * "slurmstepd: error: MSG" line to a running batch job's stderr.
 *
 * The shepherd wrote the file's absolute path into SPOOL/job.N/stderr_path
 * when it started the script. The file is the user's, so when noded runs as
 * root a short-lived child takes the job's uid and gid before opening it
 * (O_NOFOLLOW: a link the user planted cannot point noded elsewhere). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

/* Opens path for appending and writes line; 0 or -errno. */
static int append_line(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(line);
	ssize_t w = write(fd, line, len);
	int rc = w == (ssize_t)len ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

/* As the job's user when we are root (in a child), else directly. */
static int append_as(uid_t uid, gid_t gid, const char *path, const char *line)
{
	if (geteuid() != 0 || uid == 0)
		return append_line(path, line);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(EPERM);
		_exit(-append_line(path, line));
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
}

/* The first line of DIR/name, without its newline, into buf. */
static int read_line(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int rc = fgets(buf, (int)size, f) ? 0 : -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return rc == 0 && *buf ? 0 : -EIO;
}

int usermsg_deliver(struct noded *nd, const struct drv_job_notify *m,
		    struct drv_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX], script[PATH_MAX];
	struct stat st;
	int rc = spool_job_dir(nd, m->job_id, dir, sizeof(dir));
	if (rc == 0)
		rc = read_line(dir, "stderr_path", path, sizeof(path));
	/* the script file is chowned to the job's user by its shepherd */
	if (rc == 0 &&
	    (snprintf(script, sizeof(script), "%s/script", dir) >= (int)sizeof(script) ||
	     stat(script, &st) < 0))
		rc = -ENOENT;
	if (rc < 0) {
		drv_error_set(err, -rc, "job %u does not run here", m->job_id);
		return DRV_RC_INVALID_JOB_ID;
	}
	char *line = NULL;
	if (asprintf(&line, "slurmstepd: error: %s\n", m->message) < 0)
		return DRV_RC_ERROR;
	rc = append_as(st.st_uid, st.st_gid, path, line);
	free(line);
	if (rc < 0) {
		log_warn("job=%u notify: cannot append to %s: %s", m->job_id, path,
			 strerror(-rc));
		drv_error_set(err, -rc, "cannot write to %s: %s", path, strerror(-rc));
		return DRV_RC_ERROR;
	}
	log_info("job=%u notify written to its stderr", m->job_id);
	return 0;
}
