/* fileio.c — durable, atomic file writes shared by noded and the shepherd. */
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int drv_write_control(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t w;
	do
		w = write(fd, text, len);
	while (w < 0 && errno == EINTR);
	int e = w < 0 ? errno : (size_t)w == len ? 0 : EIO;
	close(fd);
	return -e;
}

int drv_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static int write_replace(const char *dir, const char *name, const void *data, size_t len,
			 mode_t mode, bool durable)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	int rc = drv_write_all(fd, data, len);
	if (rc == 0 && durable && fsync(fd) < 0)
		rc = -errno;
	close(fd);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		return rc;
	}
	int dfd = durable ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int drv_write_file_atomic(const char *dir, const char *name, const void *data, size_t len,
			  mode_t mode)
{
	return write_replace(dir, name, data, len, mode, true);
}

int drv_write_file_replace(const char *dir, const char *name, const void *data,
			   size_t len, mode_t mode)
{
	return write_replace(dir, name, data, len, mode, false);
}
