/* conf_cgroup.c — cgroup.conf: its key table, the percentages it takes,
 * and the cgroup keys drover.conf held before cgroup.conf existed (still
 * read there, with a warning naming their new home).
 *
 * conf.c reads the file (same syntax and errors as drover.conf); this file
 * knows what each key means. Like Slurm, cgroup.conf lives in the
 * directory of drover.conf and is optional. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"

#define FIELD(type, field) offsetof(struct type, field)
#define OTHER(key)                                                                       \
	{                                                                                \
		.name = key, .type = CONF_OTHER, .reload = true                          \
	}

static const char *const cgroup_plugins[] = {"autodetect", "cgroup/v1", "cgroup/v2",
					     "disabled", NULL};

/* A percentage as Slurm writes them ("100", "99.5"), 0 to 100. */
static int apply_percent(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err)
{
	(void)p;
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (end == value || *end || errno || !(v >= 0 && v <= 100))
		return drv_error_set(err, EINVAL,
				     "%s: '%.60s' is not a percentage (0-100)", k->name,
				     value);
	*(double *)(void *)((char *)target + k->off) = v;
	return 0;
}

/* Slurm's cgroup.conf keys and Drover's own (PidsLimit, GpuDeviceFiles). */
/* clang-format off */
const struct conf_key conf_cgroup_keys[] = {
	{"CgroupPlugin", CONF_ENUM, FIELD(drv_cgroup_conf, plugin), "autodetect", 0, 0, cgroup_plugins, false, NULL},
	{"CgroupMountpoint", CONF_PATH, FIELD(drv_cgroup_conf, mountpoint), "/sys/fs/cgroup", 0, 0, NULL, false, NULL},
	{"ConstrainCores", CONF_BOOL, FIELD(drv_cgroup_conf, constrain_cores), "NO", 0, 0, NULL, true, NULL},
	{"ConstrainRAMSpace", CONF_BOOL, FIELD(drv_cgroup_conf, constrain_ram), "YES", 0, 0, NULL, true, NULL},
	{"AllowedRAMSpace", CONF_CUSTOM, FIELD(drv_cgroup_conf, allowed_ram), "100", 0, 0, NULL, true, apply_percent},
	{"MaxRAMPercent", CONF_CUSTOM, FIELD(drv_cgroup_conf, max_ram_percent), "100", 0, 0, NULL, true, apply_percent},
	{"ConstrainSwapSpace", CONF_BOOL, FIELD(drv_cgroup_conf, constrain_swap), "NO", 0, 0, NULL, true, NULL},
	{"AllowedSwapSpace", CONF_CUSTOM, FIELD(drv_cgroup_conf, allowed_swap), "0", 0, 0, NULL, true, apply_percent},
	{"ConstrainDevices", CONF_BOOL, FIELD(drv_cgroup_conf, constrain_devices), "NO", 0, 0, NULL, true, NULL},
	/* Drover's own: the most processes (tasks) a job may hold; 0 none */
	{"PidsLimit", CONF_U32, FIELD(drv_cgroup_conf, pids_limit), "0", 0, 4194304, NULL, true, NULL},
	/* Drover's own, gres.conf's File= for the node's GPUs: GPU i is the
	 * i-th file of the list ("/dev/nvidia[0-3]") */
	{"GpuDeviceFiles", CONF_STR, FIELD(drv_cgroup_conf, gpu_device_files), NULL, 0, 0, NULL, true, NULL},
	/* Slurm's keys that are harmless under Drover */
	OTHER("AllowedKmemSpace"), OTHER("CgroupAutomount"), OTHER("CgroupReleaseAgentDir"),
	OTHER("ConstrainKmemSpace"), OTHER("EnableControllers"), OTHER("IgnoreSystemd"),
	OTHER("IgnoreSystemdOnFailure"), OTHER("MaxKmemPercent"), OTHER("MaxSwapPercent"),
	OTHER("MemorySwappiness"), OTHER("MinKmemSpace"), OTHER("MinRAMSpace"),
	OTHER("SignalChildrenProcesses"), OTHER("SystemdTimeout"), OTHER("TaskAffinity"),
	{0},
};
/* clang-format on */

int conf_apply_cgroup_legacy(struct conf_parser *p, const struct conf_key *k,
			     void *target, const char *value, struct drv_error *err)
{
	(void)target;
	const struct conf_key *row = conf_key_find(conf_cgroup_keys, k->name);
	int rc = row ? conf_key_apply(p, row, &p->conf->cgroup, value, err) : -EINVAL;
	if (rc == 0 && p->warn) {
		char msg[300];
		snprintf(msg, sizeof(msg),
			 "%s:%d: %s belongs in cgroup.conf (in the directory of "
			 "drover.conf); drover.conf's is read, cgroup.conf's wins",
			 p->file, p->line, k->name);
		p->warn(msg, p->warn_arg);
	}
	return rc;
}

char *conf_cgroup_path(const char *dir)
{
	return conf_resolve(dir, "cgroup.conf");
}

int conf_cgroup_copy(struct drv_cgroup_conf *to, const struct drv_cgroup_conf *from)
{
	struct drv_cgroup_conf c = *from;
	c.path = NULL;
	int rc = conf_keys_dup(conf_cgroup_keys, &c);
	if (rc == 0 && from->path && !(c.path = strdup(from->path)))
		rc = -ENOMEM;
	if (rc < 0) {
		conf_cgroup_free(&c);
		return rc;
	}
	conf_cgroup_free(to);
	*to = c;
	return 0;
}

void conf_cgroup_free(struct drv_cgroup_conf *c)
{
	conf_keys_free(conf_cgroup_keys, c);
	free(c->path);
	c->path = NULL;
}
