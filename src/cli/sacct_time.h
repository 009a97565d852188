/* sacct_time.h — the time syntax sacct reads (-S/-E) and the ways it prints
 * durations and dates, as Slurm 22.05's sacct does. Pure functions: the
 * caller passes "now"; nothing here allocates or keeps state. */
#ifndef DRV_CLI_SACCT_TIME_H
#define DRV_CLI_SACCT_TIME_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Parses a -S/-E value as Slurm's parse_time() with past=1: "HH:MM[:SS]
 * [AM|PM]", "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]", "MM/DD[/YY]-HH:MM[:SS]",
 * "YYYY-MM-DD[THH:MM[:SS]]", "now[{+|-}N[seconds|minutes|hours|days|
 * weeks]]", "today", "tomorrow", "midnight", "noon", "elevenses", "fika",
 * "teatime", "uts<epoch>", in local time. Returns 0 and sets *out (0 when
 * the text names no time at all, as Slurm), or -EINVAL and sets *pos to the
 * offset Slurm reports in "Invalid time specification (pos=N): TEXT". */
int sacct_time_parse(const char *s, time_t now, time_t *out, int *pos);

/* Local midnight of the day of now. */
time_t sacct_time_midnight(time_t now);

/* A duration as Slurm's secs2time_str: "00:01:05", "1-02:03:04". */
void sacct_fmt_secs(int64_t secs, char *buf, size_t len);

/* CPU time as sacct's TotalCPU/UserCPU/SystemCPU: "00:00:00", "01:02.345"
 * (minutes:seconds.milliseconds under an hour when there are
 * microseconds), "1:02:03", "1-00:00:00". */
void sacct_fmt_cpu(int64_t secs, int64_t usecs, char *buf, size_t len);

/* A date as sacct prints it: "2026-11-30T15:16:23" in local time, "Unknown"
 * for 0. fmt is SLURM_TIME_FORMAT: NULL or "standard" for Slurm's default,
 * "relative" for Slurm's dates relative to now ("15:16:23" today, "Ystday
 * 20:13", "Tomorr 03:22", "Sat 02:17" this week, "18 Jun 13:14" this year,
 * "19 Jan 2003" further), else a strftime format. */
void sacct_fmt_date(time_t t, const char *fmt, time_t now, char *buf, size_t len);

#endif
