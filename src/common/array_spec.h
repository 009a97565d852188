/* array_spec.h — job array index sets: sbatch's --array grammar
 * ("0-99", "1,3,5", "0-15:4", "%N" throttle) parsed into a bitmap, and a
 * bitmap written back as Slurm prints a pending remainder ("1,4,7,30-31%3").
 * Pure: no I/O, no globals. */
#ifndef DRV_ARRAY_SPEC_H
#define DRV_ARRAY_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An index set: bit i of bits[i / 8] is task i, for i < nbits. */
struct drv_array {
	uint8_t *bits; /* owned; free with drv_array_fini */
	uint32_t nbits;
	uint32_t count;	   /* bits set */
	uint32_t min, max; /* lowest and highest set (0 when empty) */
	uint32_t step; /* the last ":N" of the spec, 1 without (SLURM_ARRAY_TASK_STEP) */
	uint32_t throttle; /* "%N", 0: none */
};

/* Parses spec as Slurm's controller does: comma tokens (empty ones skipped)
 * each "N", "N-M" or "N-M:S" (brackets around a token ignored), an optional
 * "%N" suffix; an index at or above max_size (MaxArraySize) is refused;
 * max_size 0 takes the bound from the spec (a set ctld wrote itself).
 * Returns 0 with *out filled (caller runs drv_array_fini), -EINVAL when the
 * spec is malformed, empty or too large, -ENOMEM; *out is untouched then. */
int drv_array_parse(const char *spec, uint32_t max_size, struct drv_array *out);
void drv_array_fini(struct drv_array *a); /* accepts a zeroed one */

bool drv_array_test(const struct drv_array *a, uint32_t i);
void drv_array_clear(struct drv_array *a, uint32_t i); /* keeps count/min/max right */
/* Moves the indices of set that from holds into *out (a new set of from's
 * size and step, no throttle; the caller runs drv_array_fini). 0, or
 * -ENOMEM with from untouched. */
int drv_array_take(struct drv_array *from, const struct drv_array *set,
		   struct drv_array *out);
/* The lowest set index, or -1 when empty. */
int64_t drv_array_first(const struct drv_array *a);

/* The set as Slurm writes it: ranges "a-b" joined by ",", then "%N" when
 * throttle is non-zero. Returns new text (caller frees) or NULL on ENOMEM. */
char *drv_array_format(const struct drv_array *a, uint32_t throttle);

#endif
