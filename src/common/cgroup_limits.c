/* cgroup_limits.c — what each controller of a step's cgroups is told:
 * memory and swap (on the step), cpuset (job and step), pids (job) and
 * devices (job: v1 devices.deny/allow, v2 a BPF device program).
 *
 * cgroup.c makes the directories (v1 cpusets get their cpus as they are
 * made: a cpuset takes no process before); this file writes the limits.
 * No logging: a limit the host cannot hold sets its bit in c->missing for
 * the caller to say so. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/cgroup_internal.h"

#define MAX_DEV_RULES 80

static int fail(char *err, size_t errlen, const char *what, const char *dir, int rc)
{
	snprintf(err, errlen, "cannot set %s of %s: %s", what, dir, strerror(-rc));
	return rc;
}

static void mib_text(char *buf, size_t len, int64_t mib)
{
	snprintf(buf, len, "%" PRId64, mib * 1024 * 1024);
}

static int set_memory(struct cg_step *c, const struct cg_limits *lim, char *err,
		      size_t errlen)
{
	char v[32];
	bool plain = c->lay.plain_dirs;
	if (lim->mem_mib <= 0)
		return 0;
	mib_text(v, sizeof(v), lim->mem_mib);
	int rc;
	if (c->lay.version == CG_V2) {
		if ((rc = cg_write_in(c->mem, "memory.max", v, plain)) < 0)
			return fail(err, errlen, "memory.max", c->mem, rc);
		/* absent without swap accounting: then there is no swap to limit */
		if (lim->memsw_mib >= lim->mem_mib) {
			mib_text(v, sizeof(v), lim->memsw_mib - lim->mem_mib);
			cg_write_in(c->mem, "memory.swap.max", v, plain);
		}
		return 0;
	}
	if ((rc = cg_write_in(c->mem, "memory.limit_in_bytes", v, plain)) < 0)
		return fail(err, errlen, "memory.limit_in_bytes", c->mem, rc);
	if (lim->memsw_mib >= lim->mem_mib && c->lay.memsw) {
		mib_text(v, sizeof(v), lim->memsw_mib);
		if ((rc = cg_write_in(c->mem, "memory.memsw.limit_in_bytes", v, plain)) <
		    0)
			return fail(err, errlen, "memory.memsw.limit_in_bytes", c->mem,
				    rc);
	}
	return 0;
}

/* v2 only: v1 cpusets got their cpus as cgroup.c made them. */
static int set_cpus(struct cg_step *c, const struct cg_limits *lim, char *err,
		    size_t errlen)
{
	if (!lim->cpus || c->lay.version != CG_V2)
		return 0;
	if (!(c->lay.v2_ctls >> CG_CPUSET & 1)) {
		c->missing |= 1u << CG_CPUSET;
		return 0;
	}
	const char *dirs[] = {c->mem_job, c->mem};
	for (int i = 0; i < 2; i++) {
		int rc =
		    cg_write_in(dirs[i], "cpuset.cpus", lim->cpus, c->lay.plain_dirs);
		if (rc < 0)
			return fail(err, errlen, "cpuset.cpus", dirs[i], rc);
	}
	return 0;
}

static int set_pids(struct cg_step *c, const struct cg_limits *lim, char *err,
		    size_t errlen)
{
	if (!lim->pids_max)
		return 0;
	const char *dir = c->lay.version == CG_V2 ? c->mem_job : c->ctl_job[CG_PIDS];
	if (c->lay.version == CG_V2 && !(c->lay.v2_ctls >> CG_PIDS & 1))
		dir = "";
	if (!dir[0]) {
		c->missing |= 1u << CG_PIDS;
		return 0;
	}
	char v[16];
	snprintf(v, sizeof(v), "%" PRIu32, lim->pids_max);
	int rc = cg_write_in(dir, "pids.max", v, c->lay.plain_dirs);
	return rc < 0 ? fail(err, errlen, "pids.max", dir, rc) : 0;
}

/* "c 1:3 rwm", "c 136:* rwm" */
static void rule_text(const struct cg_dev *d, char *buf, size_t len)
{
	char ma[24] = "*", mi[24] = "*";
	if (d->major >= 0)
		snprintf(ma, sizeof(ma), "%ld", d->major);
	if (d->minor >= 0)
		snprintf(mi, sizeof(mi), "%ld", d->minor);
	snprintf(buf, len, "%c %s:%s rwm", d->type, ma, mi);
}

size_t cg_dev_rules(const struct cg_limits *lim, struct cg_dev *out, size_t max)
{
	/* Linux's fixed numbers (Documentation/admin-guide/devices.txt):
	 * mem 1:3,5,7,8,9; tty 5:0, ptmx 5:2; the pty slaves, 136-143:* */
	static const struct cg_dev usual[] = {
	    {'c', 1, 3},    {'c', 1, 5},    {'c', 1, 7},    {'c', 1, 8},
	    {'c', 1, 9},    {'c', 5, 0},    {'c', 5, 2},    {'c', 136, -1},
	    {'c', 137, -1}, {'c', 138, -1}, {'c', 139, -1}, {'c', 140, -1},
	    {'c', 141, -1}, {'c', 142, -1}, {'c', 143, -1},
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(usual) / sizeof(usual[0]) && n < max; i++)
		out[n++] = usual[i];
	for (size_t i = 0; i < lim->n_dev_files && n < max; i++) {
		struct stat st;
		if (stat(lim->dev_files[i], &st) < 0 ||
		    !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			continue;
		out[n++] =
		    (struct cg_dev){S_ISCHR(st.st_mode) ? 'c' : 'b',
				    (long)major(st.st_rdev), (long)minor(st.st_rdev)};
	}
	return n;
}

int cg_v1_devices(const char *dir, const struct cg_limits *lim, bool plain)
{
	struct cg_dev rules[MAX_DEV_RULES];
	size_t n = cg_dev_rules(lim, rules, MAX_DEV_RULES);
	int rc = cg_write_in(dir, "devices.deny", "a", plain);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char text[64];
		rule_text(&rules[i], text, sizeof(text));
		if (plain) { /* a test's file keeps every rule, as devices.list would */
			char path[4096];
			FILE *f = cg_join(path, sizeof(path), dir, "devices.allow") == 0
				      ? fopen(path, i ? "a" : "w")
				      : NULL;
			rc = f && fprintf(f, "%s\n", text) > 0 ? 0 : -EIO;
			if (f)
				fclose(f);
		} else {
			rc = cg_write_in(dir, "devices.allow", text, false);
		}
	}
	return rc;
}

/* v2: a BPF program on the job's directory, once (v1: cg_v1_devices, as
 * cgroup.c made the directory). */
static int set_devices(struct cg_step *c, const struct cg_limits *lim, unsigned job_new)
{
	if (!lim->devices || c->lay.version != CG_V2 || !(job_new >> CG_NCTL & 1))
		return 0;
	struct cg_dev rules[MAX_DEV_RULES];
	size_t n = cg_dev_rules(lim, rules, MAX_DEV_RULES);
	/* a kernel without BPF device programs is a missing controller */
	if (cg_bpf_devices(c->mem_job, rules, n) < 0)
		c->missing |= 1u << CG_DEVICES;
	return 0;
}

int cg_limits_apply(struct cg_step *c, const struct cg_limits *lim, unsigned job_new,
		    char *err, size_t errlen)
{
	int rc = set_memory(c, lim, err, errlen);
	if (rc == 0)
		rc = set_cpus(c, lim, err, errlen);
	if (rc == 0)
		rc = set_pids(c, lim, err, errlen);
	if (rc == 0)
		rc = set_devices(c, lim, job_new);
	return rc;
}
