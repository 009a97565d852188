/* sacct_time.h — the time syntax sacct reads (-S/-E) and the ways it prints
 * durations and dates, as Slurm 22.05's sacct does. Pure functions: the
 * caller passes "now"; nothing here allocates or keeps state. */
#ifndef DRV_CLI_SACCT_TIME_H
#define DRV_CLI_SACCT_TIME_H

#include <stdbool.h>
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

/* The same syntax looking ahead (past false), as sbatch --begin/--deadline
 * and scontrol's StartTime= read it (Slurm's parse_time(s, 0)): a time of
 * day already gone means tomorrow, a date without a year already gone
 * means next year. */
int cli_time_parse(const char *s, time_t now, bool past, time_t *out, int *pos);

/* Local midnight of the day of now. */
time_t sacct_time_midnight(time_t now);

/* A duration as Slurm's secs2time_str: "00:01:05", "1-02:03:04". */
void sacct_fmt_secs(int64_t secs, char *buf, size_t len);

/* CPU time as sacct's TotalCPU/UserCPU/SystemCPU: "00:00:00", "01:02.345"
 * (minutes:seconds.milliseconds under an hour when there are
 * microseconds), "1:02:03", "1-00:00:00". */
void sacct_fmt_cpu(int64_t secs, int64_t usecs, char *buf, size_t len);

#endif
