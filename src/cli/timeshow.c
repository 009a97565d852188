/* timeshow.c — dates as Slurm's commands print them, SLURM_TIME_FORMAT
 * included (Slurm's slurm_make_time_str). */
#include "cli/timeshow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slurm's "relative" format for a date, by its distance in days from now. */
static const char *relative_fmt(const struct tm *when, time_t now)
{
	struct tm today;
	localtime_r(&now, &today);
	int distance = 1000 * (when->tm_year + 1900) + when->tm_yday -
		       (1000 * (today.tm_year + 1900) + today.tm_yday);
	if (distance == -1)
		return "Ystday %H:%M";
	if (distance == 0)
		return "%H:%M:%S";
	if (distance == 1)
		return "Tomorr %H:%M";
	if (distance < -365 || distance > 365)
		return "%-d %b %Y";
	if (distance < -1 || distance > 6)
		return "%-d %b %H:%M";
	return "%a %H:%M";
}

void cli_fmt_date(time_t t, const char *fmt, time_t now, char *buf, size_t len)
{
	struct tm tm;
	if (t == 0 || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "Unknown");
		return;
	}
	if (fmt && !strcmp(fmt, "relative"))
		fmt = relative_fmt(&tm, now);
	else if (!fmt || !*fmt || !strcmp(fmt, "standard"))
		fmt = "%Y-%m-%dT%H:%M:%S";
	if (strftime(buf, len, fmt, &tm) == 0 && len)
		buf[0] = '\0';
}

void cli_fmt_time(time_t t, char *buf, size_t len)
{
	cli_fmt_date(t, getenv("SLURM_TIME_FORMAT"), time(NULL), buf, len);
}
