/* license.h — Slurm's license lists: "name[:count][,name[:count]...]", the
 * syntax of drover.conf's Licenses= and of a job's -L/--licenses. Pure: no
 * I/O, no knowledge of which licenses a cluster has. */
#ifndef DRV_LICENSE_H
#define DRV_LICENSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct drv_license {
	char *name;
	uint32_t count;
};

/* Parses text as Slurm does: entries separated by ',' or ';', each a name
 * (no spaces, not empty) with an optional ":count" (a decimal number,
 * 0..2147483647; 1 when absent); a name given twice adds up. 0 and a new
 * array in *out (n entries, in the order first named; free it with
 * drv_licenses_free), or -EINVAL with err saying what was wrong, or
 * -ENOMEM; *out and *n are untouched on failure. */
int drv_licenses_parse(const char *text, struct drv_license **out, size_t *n,
		       struct drv_error *err);
void drv_licenses_free(struct drv_license *v, size_t n); /* accepts NULL */

#endif
