/* cgroup_freeze.c — a whole job's cgroup frozen or thawed (cgroup_freeze.h).
 * It owns no directory: the job's directories are the shepherds' (cgroup.c)
 * and are only written here, never created or removed. No logging. */
#include "common/cgroup_freeze.h"
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cg_freeze_path(char *buf, size_t len, const struct cg_layout *l, const char *node,
		   int64_t job_id)
{
	const char *base, *file;
	if (l->version == CG_V2) {
		base = l->mem_root;
		file = "cgroup.freeze";
	} else if (l->version == CG_V1 && l->freezer_root[0]) {
		base = l->freezer_root;
		file = "freezer.state";
	} else {
		return -ENOTSUP;
	}
	char dir[PATH_MAX];
	int rc = cg_path(dir, sizeof(dir), base, node, job_id, NULL);
	if (rc < 0)
		return rc;
	int n = snprintf(buf, len, "%s/%s", dir, file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

const char *cg_freeze_word(const struct cg_layout *l, bool freeze)
{
	if (l->version == CG_V2)
		return freeze ? "1" : "0";
	if (l->version == CG_V1 && l->freezer_root[0])
		return freeze ? "FROZEN" : "THAWED";
	return NULL;
}

int cg_job_freeze(const struct cg_layout *l, const char *node, int64_t job_id,
		  bool freeze)
{
	char path[PATH_MAX];
	int rc = cg_freeze_path(path, sizeof(path), l, node, job_id);
	if (rc < 0)
		return rc;
	return drv_write_control(path, cg_freeze_word(l, freeze));
}

bool cg_job_frozen(const struct cg_layout *l, const char *node, int64_t job_id)
{
	char path[PATH_MAX], text[32] = "";
	if (cg_freeze_path(path, sizeof(path), l, node, job_id) < 0)
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r;
	do
		r = read(fd, text, sizeof(text) - 1);
	while (r < 0 && errno == EINTR);
	close(fd);
	if (r <= 0)
		return false;
	text[r] = '\0';
	/* v1: FROZEN or FREEZING (THAWED otherwise); v2: 1 */
	return l->version == CG_V2 ? text[0] == '1' : strncmp(text, "THAWED", 6) != 0;
}
