/* conf_fixture.h — the cmocka fixture of the drover.conf unit tests: a
 * temporary directory whose drover.conf each test writes and loads.
 * Included by one test file each (its functions are static). */
#ifndef DRV_TEST_CONF_FIXTURE_H
#define DRV_TEST_CONF_FIXTURE_H

#include <errno.h>
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

/* Loads text, which must load. */
static inline struct drv_conf *load_ok(struct fixture *f, const char *text)
{
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	if (load(f, text, &c, &err) != 0)
		fail_msg("load failed: %s", err.text);
	return c;
}

/* Expects one line of refusal that starts "path:line: " (line 0: "path: ")
 * and holds fragment. */
static inline void load_bad(struct fixture *f, const char *text, int line,
			    const char *fragment)
{
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	char want[PATH_MAX + 32];
	assert_int_equal(load(f, text, &c, &err), -EINVAL);
	assert_null(c);
	if (line)
		snprintf(want, sizeof(want), "%s:%d: ", f->path, line);
	else
		snprintf(want, sizeof(want), "%s: ", f->path);
	if (strncmp(err.text, want, strlen(want)) || !strstr(err.text, fragment))
		fail_msg("error '%s' is not '%s...%s'", err.text, want, fragment);
	assert_null(strchr(err.text, '\n')); /* one line */
}

#endif
