/* job_container_clean.c — removes a job's BASE/JOB (job_container_clean.h).
 *
 * The files are the job's user's: the walk opens every directory relative
 * to its parent with O_NOFOLLOW, never crosses into another file system
 * and goes no deeper than TREE_DEPTH_MAX (one fd a level), so that nothing
 * a user made can send root's removal elsewhere. */
#include "common/job_container_clean.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_DEPTH_MAX 128 /* deeper than this a job's files are left */

/* Removes what dir (an open directory of file system dev) holds; the count
 * of what is left. */
static int remove_tree(int dir, dev_t dev, int depth)
{
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	int left = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		struct stat st;
		if (!strcmp(name, ".") || !strcmp(name, "..") ||
		    fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub =
			    st.st_dev == dev && depth < TREE_DEPTH_MAX
				? openat(dir, name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				: -1;
			left += sub >= 0 ? remove_tree(sub, dev, depth + 1) : 1;
			if (sub >= 0)
				close(sub);
			if (unlinkat(dir, name, AT_REMOVEDIR) < 0)
				left++;
		} else if (unlinkat(dir, name, 0) < 0) {
			left++;
		}
	}
	closedir(d);
	return left;
}

int drv_jc_remove_job(const char *base, int64_t job_id, char *why, size_t len)
{
	char dir[PATH_MAX], ns[PATH_MAX + 8];
	if (snprintf(dir, sizeof(dir), "%s/%lld", base, (long long)job_id) >=
	    (int)sizeof(dir)) {
		snprintf(why, len, "%s/%lld: path too long", base, (long long)job_id);
		return -ENAMETOOLONG;
	}
	snprintf(ns, sizeof(ns), "%s/.ns", dir);
	/* the anchor first: the namespace ends once its last process has */
	umount2(ns, MNT_DETACH);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, len, "cannot open %s: %s", dir, strerror(e));
		return e == ENOENT ? 0 : -e;
	}
	struct stat st;
	int left = fstat(fd, &st) == 0 ? remove_tree(fd, st.st_dev, 0) : 1;
	close(fd);
	/* its private mount of itself (more than one after a failed start) */
	for (int i = 0; i < 8 && umount2(dir, MNT_DETACH) == 0; i++)
		;
	if (left) {
		snprintf(why, len, "cannot remove all of %s: %d entries left", dir, left);
		return -ENOTEMPTY;
	}
	if (rmdir(dir) < 0) {
		int e = errno;
		snprintf(why, len, "cannot remove %s: %s", dir, strerror(e));
		return -e;
	}
	return 1;
}

bool drv_jc_job_name(const char *name, int64_t *job_id)
{
	char *end;
	if (name[0] < '1' || name[0] > '9')
		return false;
	long long v = strtoll(name, &end, 10);
	if (*end || v <= 0)
		return false;
	*job_id = v;
	return true;
}
