/* timefmt.h — Slurm's time limit and duration formats, kept to the second. */
#ifndef DRV_TIMEFMT_H
#define DRV_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Parses a -t/--time value: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S",
 * unpadded, hours above 24; "UNLIMITED"/"INFINITE"/"-1" give DRV_INFINITE.
 * Returns 0 and sets *secs, or -EINVAL (nothing set). */
int drv_time_parse_limit(const char *s, int64_t *secs);

/* Elapsed time as squeue %M and %l print it: "0:00", "1:23", "1:02:03",
 * "2-01:02:03". */
void drv_time_fmt_elapsed(int64_t secs, char *buf, size_t len);

/* A limit as scontrol prints TimeLimit: "UNLIMITED", "00:05:00",
 * "2-00:00:00". DRV_NO_VAL prints "NONE". */
void drv_time_fmt_limit(int64_t secs, char *buf, size_t len);

/* Local time as scontrol prints it: "2026-11-30T13:12:49"; 0 -> "Unknown". */
void drv_time_fmt_iso(time_t t, char *buf, size_t len);

#endif
