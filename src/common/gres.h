/* gres.h — generic resources as slurm.conf and sbatch write them:
 * "gpu:4", "gpu:a100:2,gpu:v100:2", "gpu:a100:1(S:0)" (socket hints ignored). */
#ifndef DRV_GRES_H
#define DRV_GRES_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct drv_gres {
	char name[32]; /* "gpu" */
	char type[64]; /* "a100", or "" when untyped */
	uint64_t count;
};

/* Parses a comma list; on success *out is a new array of *n entries (free()).
 * A count of 0 or a malformed entry is -EINVAL with err naming it. An empty
 * string or "(null)" gives n = 0. */
int drv_gres_parse(const char *s, struct drv_gres **out, size_t *n,
		   struct drv_error *err);

/* How many of name the n entries of v hold in all, into *total. -E2BIG when
 * that is above max (checked entry by entry, so counts near 2^64 cannot wrap
 * the sum back under it: "gpu:18446744073709551615,gpu:2" is 1 otherwise). */
int drv_gres_total(const struct drv_gres *v, size_t n, const char *name, uint64_t max,
		   uint64_t *total);
#endif
