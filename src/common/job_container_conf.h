/* job_container_conf.h — job_container.conf, Slurm's settings of
 * job_container/tmpfs (a private /tmp and /dev/shm per job), read by noded
 * when drover.conf says JobContainerType=job_container/tmpfs.
 *
 * The file lives beside drover.conf. Lines are Key=Value pairs; a line that
 * starts with NodeName=HOSTLIST applies to those nodes only and overrides
 * the lines without one. Errors name "file:line: what", as drover.conf's
 * do; a key Drover would not honour is refused, never ignored. */
#ifndef DRV_JOB_CONTAINER_CONF_H
#define DRV_JOB_CONTAINER_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define DRV_JC_DIRS_MAX 16
#define DRV_JC_FILE "job_container.conf"

/* What job_container.conf says for one node. */
struct drv_jc_conf {
	char *base_path; /* as written (may hold %n, %h); NULL: BasePath=none here */
	bool auto_base_path;
	char *dirs[DRV_JC_DIRS_MAX]; /* absolute, normalized; default /tmp, /dev/shm */
	size_t n_dirs;
};

/* Reads path for node (its NodeName lines are the ones that match). On
 * success *out is filled (release with drv_jc_conf_fini). On failure
 * returns -errno, err says "file:line: what" (or "file: what" for what no
 * one line holds) and *out is untouched. */
int drv_jc_conf_load(const char *path, const char *node, struct drv_jc_conf *out,
		     struct drv_error *err);
void drv_jc_conf_fini(struct drv_jc_conf *c); /* frees what c owns; c may be empty */

/* The name of dir's private directory inside a job's directory: "/tmp" is
 * ".tmp", "/var/tmp" ".var_tmp". 0, or -ENAMETOOLONG. */
int drv_jc_dir_name(const char *dir, char *buf, size_t len);

/* Whether path is dir or lies under it (both absolute, normalized). */
bool drv_jc_path_under(const char *path, const char *dir);

#endif
