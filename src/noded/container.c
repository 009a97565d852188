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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/job_container_clean.h"
#include "common/job_container_conf.h"
#include "common/log.h"
#include "noded/noded.h"

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
	char note[PATH_MAX + 16];
	snprintf(note, sizeof(note), "%s/job_container", nd->spool_dir);
	unlink(note); /* an earlier config's; written again below when in use */
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
	/* for drover down, which removes what the jobs it kills leave */
	char text[PATH_MAX + 2];
	int n = snprintf(text, sizeof(text), "%s\n", nd->jc_base);
	drv_write_file_replace(nd->spool_dir, "job_container", text, (size_t)n, 0644);
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

static void remove_job(const char *base, int64_t job_id)
{
	char why[PATH_MAX + 128];
	int rc = drv_jc_remove_job(base, job_id, why, sizeof(why));
	if (rc < 0)
		log_warn("job=%lld: %s", (long long)job_id, why);
	else if (rc > 0)
		log_debug("job=%lld: removed its private dirs in %s", (long long)job_id,
			  base);
}

void noded_container_forget(const struct noded *nd, int64_t job_id)
{
	if (nd->jc_base)
		remove_job(nd->jc_base, job_id);
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
		if (!drv_jc_job_name(de->d_name, &job_id) || jobs_find(nd, job_id) ||
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
