/* hostlist.h — Slurm hostlist expressions: "gpu[01-04,07],cpu[1-3]".
 * Expansion keeps the order written; compression prints exactly as Slurm
 * does (sorted ranges that keep zero padding, "n[1-3,5]"). */
#ifndef DRV_HOSTLIST_H
#define DRV_HOSTLIST_H

#include <stddef.h>

#include "common/error.h"

/* On success *names is a new array of n malloc'd strings (free with
 * drv_strv_free). On failure returns -EINVAL and names what was wrong. */
int drv_hostlist_expand(const char *expr, char ***names, size_t *n,
			struct drv_error *err);

/* Returns a malloc'd compressed expression of names (borrowed); "" for n == 0. */
char *drv_hostlist_compress(char *const *names, size_t n);

void drv_strv_free(char **v, size_t n);
/* A copy of s, or NULL for NULL (or out of memory). */
char *drv_strdup_or_null(const char *s);

#endif
