/* fuzz_cgroup.c — what Drover reads from the kernel's cgroup files
 * (common/cgroup.h): cgroup.controllers, as cg_detect reads it to choose v2,
 * and the "oom_kill N" line of memory.events / memory.oom_control.
 *
 * There is no cgroup.conf parser: Slurm's cgroup.conf keys (CgroupPlugin,
 * CgroupMountpoint, ConstrainRAMSpace) are drover.conf keys, which
 * fuzz_conf covers. Each input is written as cgroup.controllers in a temp
 * dir made once per process and detected there, then parsed as an events
 * file. Neither may crash; a v2 detection means the text lists "memory", and
 * an oom_kill count is never negative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cgroup.h"
#include "fuzz.h"

static char dir[64];
static char controllers[96];

static void cleanup(void)
{
	unlink(controllers);
	rmdir(dir);
}

static int setup(void)
{
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/drover-fuzz-cgroup.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	snprintf(controllers, sizeof(controllers), "%s/cgroup.controllers", dir);
	atexit(cleanup);
	return 0;
}

static void detect(const uint8_t *data, size_t size)
{
	FILE *f = fopen(controllers, "w");
	if (!f)
		return;
	fwrite(data, 1, size, f);
	fclose(f);
	struct cg_layout l;
	int rc = cg_detect(dir, &l);
	if (rc == 0 && (l.version != CG_V2 || !memmem(data, size, "memory", 6)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (setup() == 0)
		detect(data, size);
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	int64_t n = -1;
	int rc = cg_parse_oom_kill(s, &n);
	if (rc == 0 && (n < 0 || !strstr(s, "oom_kill ")))
		abort();
	free(s);
	return 0;
}
