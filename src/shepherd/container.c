/* container.c — job_container/tmpfs on the shepherd's side: every task (the
 * batch script, each srun task, TaskEpilog) enters its job's mount
 * namespace before it becomes the user, so that /tmp and /dev/shm (Dirs)
 * are the job's own there and the same for all its steps on this node.
 *
 * The first task of a job on the node makes the namespace, under the lock
 * BASE/JOB/.lock: BASE/JOB becomes a private mount of its own (so that what
 * is mounted in it propagates nowhere), BASE/JOB/.tmp (one per Dirs entry)
 * is made for the user, mode 0700, and a helper process unshares, makes
 * its mounts private, binds those over /tmp (a fresh tmpfs on /dev/shm),
 * and waits while its namespace is bound onto BASE/JOB/.ns, which keeps the
 * namespace alive with no process in it. Later tasks find .ns and join.
 * noded (src/noded/container.c) removes it all at the job's end.
 *
 * Nothing here runs unless noded put a job_container object in the spec;
 * it runs as root in a forked task, which exits when this fails. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/job_container_conf.h"
#include "shepherd/shepherd.h"

#define NSFS_MAGIC_NUMBER 0x6e736673 /* linux/magic.h's NSFS_MAGIC */

static int fail(char *err, size_t len, const char *what, const char *path, int e)
{
	snprintf(err, len, "job_container/tmpfs: %s %s: %s", what, path, strerror(e));
	return -e;
}

/* Whether path holds a namespace (a bind of /proc/PID/ns/mnt). */
static bool ns_bound(const char *path)
{
	struct statfs f;
	return statfs(path, &f) == 0 && f.f_type == NSFS_MAGIC_NUMBER;
}

/* BASE/JOB/NAME for each Dirs entry but /dev/shm: the user's, mode 0700. */
static int make_user_dirs(const struct drv_rec_job_container *jc, const char *job_dir,
			  uid_t uid, gid_t gid, char *err, size_t len)
{
	for (size_t i = 0; i < jc->n_dirs; i++) {
		char name[256], path[PATH_MAX];
		if (!strcmp(jc->dirs[i], "/dev/shm"))
			continue;
		if (drv_jc_dir_name(jc->dirs[i], name, sizeof(name)) < 0 ||
		    snprintf(path, sizeof(path), "%s/%s", job_dir, name) >=
			(int)sizeof(path))
			return fail(err, len, "path too long for", jc->dirs[i],
				    ENAMETOOLONG);
		struct stat st;
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return fail(err, len, "cannot make", path, errno);
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			return fail(err, len, "not a directory:", path, ENOTDIR);
		if (chown(path, uid, gid) < 0 || chmod(path, 0700) < 0)
			return fail(err, len, "cannot give the job", path, errno);
	}
	return 0;
}

/* The helper's mounts, in its new namespace. 0, or -1 with err. */
static int mount_private_dirs(const struct drv_rec_job_container *jc, const char *job_dir,
			      char *err, size_t len)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return fail(err, len, "cannot make private", "/", errno);
	for (size_t i = 0; i < jc->n_dirs; i++) {
		const char *d = jc->dirs[i];
		char name[256], src[PATH_MAX];
		if (!strcmp(d, "/dev/shm")) {
			if (mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV,
				  "mode=1777") < 0)
				return fail(err, len, "cannot mount a tmpfs on", d,
					    errno);
			continue;
		}
		drv_jc_dir_name(d, name, sizeof(name));
		snprintf(src, sizeof(src), "%s/%s", job_dir, name);
		if (mount(src, d, NULL, MS_BIND, NULL) < 0)
			return fail(err, len, "cannot bind the job's own over", d, errno);
	}
	/* the job sees its dirs, not BASE/JOB itself */
	if (umount2(job_dir, MNT_DETACH) < 0)
		return fail(err, len, "cannot hide", job_dir, errno);
	return 0;
}

/* The helper: a new namespace set up, "ok" (or why not) on ready, then it
 * lives until go is closed, so that its namespace can be bound. */
static void __attribute__((noreturn))
helper(const struct drv_rec_job_container *jc, const char *job_dir, int ready, int go)
{
	char err[256] = "ok";
	if (unshare(CLONE_NEWNS) < 0)
		fail(err, sizeof(err), "cannot unshare the mount namespace for", job_dir,
		     errno);
	else
		mount_private_dirs(jc, job_dir, err, sizeof(err));
	ssize_t w = write(ready, err, strlen(err));
	(void)w;
	char byte;
	while (read(go, &byte, 1) < 0 && errno == EINTR)
		;
	_exit(strcmp(err, "ok") != 0);
}

/* Binds the helper's namespace onto ns_path once it says it is ready. */
static int bind_helper_ns(pid_t pid, int ready, const char *ns_path, char *err,
			  size_t len)
{
	char buf[256], proc[64];
	ssize_t n;
	do
		n = read(ready, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(buf, "ok") != 0) {
		snprintf(err, len, "%s",
			 n > 0 ? buf : "job_container/tmpfs: helper died");
		return -EIO;
	}
	snprintf(proc, sizeof(proc), "/proc/%d/ns/mnt", (int)pid);
	if (mount(proc, ns_path, NULL, MS_BIND, NULL) < 0)
		return fail(err, len, "cannot keep the namespace at", ns_path, errno);
	return 0;
}

/* Makes the job's namespace and binds it onto ns_path. 0 or -errno. */
static int create_ns(const struct drv_rec_job_container *jc, const char *job_dir,
		     const char *ns_path, uid_t uid, gid_t gid, char *err, size_t len)
{
	if (mount(job_dir, job_dir, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, job_dir, NULL, MS_PRIVATE | MS_REC, NULL) < 0)
		return fail(err, len, "cannot make a private mount of", job_dir, errno);
	int fd = open(ns_path, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return fail(err, len, "cannot make", ns_path, errno);
	close(fd);
	int rc = make_user_dirs(jc, job_dir, uid, gid, err, len);
	int ready[2], go[2];
	if (rc < 0)
		return rc;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return fail(err, len, "pipe for", job_dir, errno);
	if (pipe2(go, O_CLOEXEC) < 0) {
		close(ready[0]);
		close(ready[1]);
		return fail(err, len, "pipe for", job_dir, errno);
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		helper(jc, job_dir, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	rc = pid < 0 ? fail(err, len, "cannot fork a helper for", job_dir, errno)
		     : bind_helper_ns(pid, ready[0], ns_path, err, len);
	close(ready[0]);
	close(go[1]); /* the helper exits */
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return rc;
}

static int lock_job(const char *job_dir, char *err, size_t len)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/.lock", job_dir);
	if (mkdir(job_dir, 0700) < 0 && errno != EEXIST)
		return fail(err, len, "cannot make", job_dir, errno);
	int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return fail(err, len, "cannot open", path, errno);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			return fail(err, len, "cannot lock", path, e);
		}
	}
	return fd;
}

int container_join(const struct drv_rec_node_spec *ns, int64_t job_id, uid_t uid,
		   gid_t gid, char *err, size_t len)
{
	if (!ns->has_job_container)
		return 0;
	const struct drv_rec_job_container *jc = &ns->job_container;
	char job_dir[PATH_MAX], ns_path[PATH_MAX + 8];
	if (snprintf(job_dir, sizeof(job_dir), "%s/%lld", jc->base_path,
		     (long long)job_id) >= (int)sizeof(job_dir))
		return fail(err, len, "path too long:", jc->base_path, ENAMETOOLONG);
	snprintf(ns_path, sizeof(ns_path), "%s/.ns", job_dir);
	int lock = lock_job(job_dir, err, len);
	if (lock < 0)
		return lock;
	int rc =
	    ns_bound(ns_path) ? 0 : create_ns(jc, job_dir, ns_path, uid, gid, err, len);
	int fd = rc == 0 ? open(ns_path, O_RDONLY | O_CLOEXEC) : -1;
	if (rc == 0 && (fd < 0 || setns(fd, CLONE_NEWNS) < 0))
		rc = fail(err, len, "cannot enter the namespace at", ns_path, errno);
	if (fd >= 0)
		close(fd);
	close(lock);
	return rc;
}
