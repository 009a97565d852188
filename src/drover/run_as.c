/* run_as.c — root's `drover up` with SlurmUser naming an ordinary account:
 * the controller's files (its store directory and what is in it, its log,
 * its pid file, the cluster key) are handed to that account, and ctld is
 * started as it, so that the controller runs without root while node
 * daemons stay root and run jobs as their users. Nothing happens when
 * drover runs as someone else or SlurmUser is root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drover/drover.h"

int run_as_slurm_user(const struct drv_conf *conf, struct run_as *as,
		      struct drv_error *err)
{
	uid_t uid;
	*as = (struct run_as){0};
	if (geteuid() != 0)
		return 0;
	int rc = drv_conf_slurm_uid(conf, &uid, err);
	if (rc < 0 || uid == 0)
		return rc;
	struct passwd *pw = getpwuid(uid);
	if (!pw)
		return drv_error_set(err, ENOENT, "SlurmUser %s has no passwd entry",
				     conf->slurm_user);
	snprintf(as->name, sizeof(as->name), "%s", pw->pw_name);
	as->uid = pw->pw_uid;
	as->gid = pw->pw_gid;
	as->active = true;
	return 0;
}

/* Makes path (a file, created empty when missing) the account's. */
static int give_file(const char *path, const struct run_as *as, struct drv_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || fchown(fd, as->uid, as->gid) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return drv_error_set(err, e, "cannot give %s to SlurmUser %s: %s", path,
				     as->name, strerror(e));
	}
	close(fd);
	return 0;
}

/* The store directory and the entries in it (the store keeps no subdirs). */
static int give_dir(const char *dir, const struct run_as *as, struct drv_error *err)
{
	if (chown(dir, as->uid, as->gid) < 0)
		return drv_error_set(err, errno, "cannot give %s to SlurmUser %s: %s",
				     dir, as->name, strerror(errno));
	DIR *d = opendir(dir);
	if (!d)
		return drv_error_set(err, errno, "cannot read %s: %s", dir,
				     strerror(errno));
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..")))
			if (fchownat(dirfd(d), e->d_name, as->uid, as->gid,
				     AT_SYMLINK_NOFOLLOW) < 0)
				rc = drv_error_set(err, errno,
						   "cannot give %s/%s to %s: %s", dir,
						   e->d_name, as->name, strerror(errno));
	closedir(d);
	return rc;
}

int run_as_give_ctld_files(const struct drv_conf *conf, const char *ctld_log,
			   const struct run_as *as, struct drv_error *err)
{
	if (!as->active)
		return 0;
	int rc = give_dir(conf->state_save_location, as, err);
	if (rc == 0)
		rc = give_file(ctld_log, as, err);
	if (rc == 0 && conf->ctld_pid_file)
		rc = give_file(conf->ctld_pid_file, as, err);
	if (rc == 0 && chown(conf->auth_key, as->uid, as->gid) < 0)
		rc = drv_error_set(err, errno, "cannot give key %s to SlurmUser %s: %s",
				   conf->auth_key, as->name, strerror(errno));
	return rc;
}

void run_as_become(const struct run_as *as)
{
	if (!as || !as->active)
		return;
	if (initgroups(as->name, as->gid) < 0 || setgid(as->gid) < 0 ||
	    setuid(as->uid) < 0) {
		fprintf(stderr, "drover: cannot become SlurmUser %s: %s\n", as->name,
			strerror(errno));
		_exit(127);
	}
}
