/* cgroup_job.c — which Drover job a process runs in, from the cgroups the
 * kernel lists for it in /proc/PID/cgroup (cgroup.h's layout: a
 * "drover_SCOPE" directory, then "job_J"). authd asks this of the caller on
 * its socket, so that a credential names the job its request came from
 * (docs/anomaly.md). Only root (noded, its shepherds) makes those
 * directories and moves processes into them, so a user cannot claim a job
 * this way; a process outside every Drover cgroup has no job. Reads only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cgroup.h"

/* The job id of one cgroup path ("/drover_n1_7001/job_12/step_batch"):
 * the component after a "drover_" one, when it is "job_" and digits. */
static int job_of_path(const char *path, const char *end, uint32_t *job_id)
{
	const char *p = path;
	bool after_scope = false;
	while (p < end) {
		while (p < end && *p == '/')
			p++;
		const char *q = p;
		while (q < end && *q != '/')
			q++;
		size_t n = (size_t)(q - p);
		if (after_scope && n > 4 && !strncmp(p, "job_", 4)) {
			uint64_t v = 0;
			const char *d = p + 4;
			for (; d < q && *d >= '0' && *d <= '9' && v <= UINT32_MAX; d++)
				v = v * 10 + (uint64_t)(*d - '0');
			if (d == q && v > 0 && v < UINT32_MAX) {
				*job_id = (uint32_t)v;
				return 0;
			}
		}
		after_scope = n > 7 && !strncmp(p, "drover_", 7);
		p = q;
	}
	return -ENOENT;
}

int cg_job_of_text(const char *text, uint32_t *job_id)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		/* "hierarchy-id:controllers:path"; the path may hold ':' */
		const char *c1 = memchr(line, ':', (size_t)(end - line));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2 && job_of_path(c2 + 1, end, job_id) == 0)
			return 0;
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int cg_job_of_pid(pid_t pid, uint32_t *job_id)
{
	char path[64], buf[8192];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	int rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc < 0)
		return rc;
	buf[n] = '\0';
	return cg_job_of_text(buf, job_id);
}
