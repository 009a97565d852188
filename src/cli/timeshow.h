/* timeshow.h — dates as Slurm's commands print them. */
#ifndef DRV_CLI_TIMESHOW_H
#define DRV_CLI_TIMESHOW_H

#include <stddef.h>
#include <time.h>

/* A date in local time: "2026-11-30T15:16:23", "Unknown" for 0. fmt is
 * SLURM_TIME_FORMAT: NULL or "standard" for Slurm's default, "relative" for
 * Slurm's dates relative to now ("15:16:23" today, "Ystday 20:13", "Tomorr
 * 03:22", "Sat 02:17" this week, "18 Jun 13:14" this year, "19 Jan 2003"
 * further), else a strftime format. */
void cli_fmt_date(time_t t, const char *fmt, time_t now, char *buf, size_t len);

/* The same with $SLURM_TIME_FORMAT and the clock: what every command
 * prints its dates with. */
void cli_fmt_time(time_t t, char *buf, size_t len);

#endif
