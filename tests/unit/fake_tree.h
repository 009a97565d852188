/* fake_tree.h — directories laid out like cgroupfs for the cgroup unit
 * tests: a file with its text, a subdirectory, and removal of the whole
 * tree. Included by one test file each (its functions are static), after
 * cmocka.h. */
#ifndef DRV_TEST_FAKE_TREE_H
#define DRV_TEST_FAKE_TREE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* root/rel holds text. */
static inline void put(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* root/rel is a new directory. */
static inline void sub(const char *root, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static inline void rm_tree(const char *root)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

#endif
