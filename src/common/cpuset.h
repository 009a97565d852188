/* cpuset.h — sets of CPU ids as bitmaps (bit i: CPU i) and in Slurm's text
 * form, "0-3,8,10-11" (CPU_IDs= of scontrol show job -d, cpuset.cpus). */
#ifndef DRV_CPUSET_H
#define DRV_CPUSET_H

#include <stddef.h>
#include <stdint.h>

#define DRV_CPUSET_WORDS(n) (((size_t)(n) + 63) / 64)

/* Writes bits 0..n_bits-1 of bits as ranges into buf ("" when none is set).
 * Returns the length the text needs (as snprintf: when it is >= size, buf
 * holds a truncated text). */
size_t drv_cpuset_format(const uint64_t *bits, uint32_t n_bits, char *buf, size_t size);

/* Parses text into bits (DRV_CPUSET_WORDS(n_bits) words, cleared first).
 * 0, or -EINVAL when text is malformed or names a CPU >= n_bits (bits then
 * unchanged). */
int drv_cpuset_parse(const char *text, uint64_t *bits, uint32_t n_bits);

/* How many bits of bits[0..n_bits) are set. */
uint32_t drv_cpuset_count(const uint64_t *bits, uint32_t n_bits);

#endif
