/* fuzz_job_container_conf.c — job_container.conf as an admin writes it
 * (common/job_container_conf.h), read for two node names: one its NodeName
 * lines may name, one they may not.
 *
 * Each input is written to job_container.conf in a temp dir made once per
 * process and loaded; what loads must hold what the header promises (a
 * BasePath or none, 1 to DRV_JC_DIRS_MAX absolute Dirs, none of them
 * holding BasePath), else the target aborts. The parser opens no path
 * named in the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/job_container_conf.h"
#include "fuzz.h"

static char dir[64];
static char path[96];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static int setup(void)
{
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/drover-fuzz-jc.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/job_container.conf", dir);
	atexit(cleanup);
	return 0;
}

static void check(const struct drv_jc_conf *c)
{
	if (c->n_dirs < 1 || c->n_dirs > DRV_JC_DIRS_MAX)
		abort();
	if (c->base_path && c->base_path[0] != '/')
		abort();
	for (size_t i = 0; i < c->n_dirs; i++) {
		char name[256];
		if (c->dirs[i][0] != '/' ||
		    drv_jc_dir_name(c->dirs[i], name, sizeof(name)))
			abort();
		if (c->base_path && drv_jc_path_under(c->base_path, c->dirs[i]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (setup() < 0)
		abort();
	FILE *f = fopen(path, "w");
	size_t put = f ? fwrite(data, 1, size, f) : 0;
	if (!f || fclose(f) != 0 || put != size)
		return 0;
	static const char *const nodes[] = {"n1", "gpu07"};
	for (size_t i = 0; i < 2; i++) {
		struct drv_jc_conf c;
		struct drv_error err;
		if (drv_jc_conf_load(path, nodes[i], &c, &err) == 0) {
			check(&c);
			drv_jc_conf_fini(&c);
		}
	}
	return 0;
}
