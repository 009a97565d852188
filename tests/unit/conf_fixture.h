/* conf_fixture.h — the cmocka fixture of the drover.conf unit tests: a
 * temporary directory whose drover.conf each test writes and loads.
 * Included by one test file each (its functions are static). */
#ifndef DRV_TEST_CONF_FIXTURE_H
#define DRV_TEST_CONF_FIXTURE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"

struct fixture {
	char dir[64];
	char path[PATH_MAX];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/test_conf.XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/drover.conf", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Writes text as the fixture's drover.conf and loads it. */
static int load(struct fixture *f, const char *text, struct drv_conf **c,
		struct drv_error *err)
{
	FILE *fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return drv_conf_load(f->path, NULL, NULL, c, err);
}

#endif
