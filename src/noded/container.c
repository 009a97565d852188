/* container.c — job_container/tmpfs on noded's side (each job's own /tmp
 * and /dev/shm; the shepherd's container.c makes and joins the namespace).
 *
 * Reads job_container.conf with drover.conf (a bad file stops noded before
 * it starts, with "file:line: what"), readies BasePath at start-up (made
 * when AutoBasePath says so), says once in the log when jobs run without
 * it (not root, BasePath=none), tells each shepherd in its spec, and
 * removes BASE/JOB at the job's end: the namespace's anchor unmounted,
 * the user's files removed without following a link or leaving the file
 * system, the job's private mount and directory gone. At start-up it
 * removes what jobs the node no longer holds left behind (a noded or
 * shepherd that was killed). */
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

#include "common/daemon.h"
#include "common/job_container_conf.h"
#include "common/log.h"
#include "noded/noded.h"

#define TREE_DEPTH_MAX 128 /* deeper than this a job's files are left, and logged */

int noded_container_load(struct noded *nd, struct drv_error *err)
{
	const char *type = nd->conf->job_container_type;
	if (!type || strcmp(type, "job_container/tmpfs") != 0)
		return 0;
	char *path = NULL;
	if (asprintf(&path, "%s/%s", nd->conf->dir, DRV_JC_FILE) < 0)
		return drv_error_set(err, ENOMEM, "out of memory");
	int rc = drv_jc_conf_load(path, nd->name, &nd->jc, err);
	free(path);
	nd->jc_wanted = rc == 0;
	return rc;
}

/* A job's files must not hide the spool, where its script is. */
static int check_spool(const struct noded *nd, struct drv_error *err)
{
	for (size_t i = 0; i < nd->jc.n_dirs; i++)
		if (drv_jc_path_under(nd->spool_dir, nd->jc.dirs[i]))
			return drv_error_set(
			    err, EINVAL,
			    "job_container/tmpfs: SlurmdSpoolDir %s lies in "
			    "%s, which jobs get their own of: they would "
			    "not find their scripts",
			    nd->spool_dir, nd->jc.dirs[i]);
	return 0;
}

int noded_container_init(struct noded *nd, struct drv_error *err)
{
	if (!nd->jc_wanted)
		return 0;
	if (!nd->jc.base_path) {
		log_info("node=%s: job_container.conf: BasePath=none: jobs see the "
			 "node's /tmp and /dev/shm",
			 nd->name);
		return 0;
	}
	if (geteuid() != 0) {
		log_info("node=%s: job_container/tmpfs needs root: jobs run without "
			 "their own /tmp and /dev/shm",
			 nd->name);
		return 0;
	}
	char *base = drv_conf_node_path(nd->jc.base_path, nd->name, nd->node->hostname);
	char real[PATH_MAX];
	int rc = base ? 0 : -ENOMEM;
	if (rc == 0 && nd->jc.auto_base_path)
		rc = drv_mkdir_p(base, 0755);
	if (rc == 0 && !realpath(base, real))
		rc = -errno;
	if (rc < 0) {
		drv_error_set(err, -rc, "job_container/tmpfs: BasePath %s: %s%s",
			      base ? base : "?", strerror(-rc),
			      rc == -ENOENT && !nd->jc.auto_base_path
				  ? " (make it, or set AutoBasePath=true)"
				  : "");
		free(base);
		return rc;
	}
	free(base);
	if ((rc = check_spool(nd, err)) < 0 || !(nd->jc_base = strdup(real)))
		return rc < 0 ? rc : drv_error_set(err, ENOMEM, "out of memory");
	log_info("node=%s: job_container/tmpfs: each job gets its own %s%s under %s",
		 nd->name, nd->jc.dirs[0],
		 nd->jc.n_dirs > 1 ? " (and the rest of Dirs)" : "", nd->jc_base);
	return 0;
}

bool noded_container_spec(const struct noded *nd, struct drv_rec_job_container *jc)
{
	if (!nd->jc_base)
		return false;
	*jc = (struct drv_rec_job_container){
	    .base_path = nd->jc_base,
	    .dirs = (const char **)nd->jc.dirs,
	    .n_dirs = nd->jc.n_dirs,
	};
	return true;
}

/* Removes what dir (an open directory of file system dev) holds; the count
 * of what is left. Never follows a link nor enters another file system. */
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

static void remove_job(const char *base, int64_t job_id)
{
	char dir[PATH_MAX], ns[PATH_MAX + 8];
	snprintf(dir, sizeof(dir), "%s/%lld", base, (long long)job_id);
	snprintf(ns, sizeof(ns), "%s/.ns", dir);
	/* the namespace ends once its last process has (the anchor first) */
	if (umount2(ns, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		log_warn("job=%lld: cannot unmount %s: %s", (long long)job_id, ns,
			 strerror(errno));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			log_warn("job=%lld: cannot open %s: %s", (long long)job_id, dir,
				 strerror(errno));
		return;
	}
	struct stat st;
	int left = fstat(fd, &st) == 0 ? remove_tree(fd, st.st_dev, 0) : 1;
	close(fd);
	/* its private mount of itself, more than one after a failed start */
	for (int i = 0; i < 8 && umount2(dir, MNT_DETACH) == 0; i++)
		;
	if (left || rmdir(dir) < 0)
		log_warn("job=%lld: cannot remove all of %s (%d left): %s",
			 (long long)job_id, dir, left,
			 left ? "see above" : strerror(errno));
	else
		log_debug("job=%lld: removed its private dirs %s", (long long)job_id,
			  dir);
}

void noded_container_forget(const struct noded *nd, int64_t job_id)
{
	if (nd->jc_base)
		remove_job(nd->jc_base, job_id);
}

static bool job_name(const char *name, int64_t *job_id)
{
	char *end;
	long long v = strtoll(name, &end, 10);
	if (end == name || *end || v <= 0 || name[0] == '+' || name[0] == '-')
		return false;
	*job_id = v;
	return true;
}

void noded_container_sweep(struct noded *nd)
{
	if (!nd->jc_base)
		return;
	DIR *d = opendir(nd->jc_base);
	if (!d)
		return;
	struct dirent *de;
	int64_t job_id;
	while ((de = readdir(d))) {
		if (!job_name(de->d_name, &job_id) || jobs_find(nd, job_id) ||
		    steps_of_job(nd, job_id))
			continue;
		log_info("job=%lld: removing the private dirs it left in %s",
			 (long long)job_id, nd->jc_base);
		remove_job(nd->jc_base, job_id);
	}
	closedir(d);
}

void noded_container_fini(struct noded *nd)
{
	drv_jc_conf_fini(&nd->jc);
	free(nd->jc_base);
	nd->jc_base = NULL;
}
