/* timefmt.c — Slurm's time-limit syntax and the ways squeue and scontrol
 * print durations and dates.
 *
 * Pure functions: no allocation, no global state. Limits are kept to the
 * second; unlike Slurm we never round a limit up to whole minutes. */
#include "common/timefmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"

/* No field may exceed this many digits; with at most four fields the total
 * then stays far inside int64_t. */
#define FIELD_DIGITS_MAX 9

/* Parses up to `max` unsigned decimal fields separated by `sep` from
 * [s, end). Returns how many, or -EINVAL. */
static int parse_fields(const char *s, const char *end, char sep, int64_t *f, int max)
{
	int n = 0;
	while (true) {
		if (n == max)
			return -EINVAL;
		const char *p = s;
		int64_t v = 0;
		while (p < end && isdigit((unsigned char)*p)) {
			if (p - s >= FIELD_DIGITS_MAX)
				return -EINVAL;
			v = v * 10 + (*p - '0');
			p++;
		}
		if (p == s)
			return -EINVAL;
		f[n++] = v;
		if (p == end)
			return n;
		if (*p != sep)
			return -EINVAL;
		s = p + 1;
	}
}

int drv_time_parse_limit(const char *s, int64_t *secs)
{
	if (!s || !*s)
		return -EINVAL;
	if (strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0 ||
	    strcmp(s, "-1") == 0) {
		*secs = DRV_INFINITE;
		return 0;
	}
	const char *end = s + strlen(s);
	const char *dash = strchr(s, '-');
	int64_t f[3];
	int64_t days = 0, total;
	if (dash) {
		/* "D-H", "D-H:M", "D-H:M:S" */
		int64_t d[1];
		if (parse_fields(s, dash, '\0', d, 1) != 1)
			return -EINVAL;
		int n = parse_fields(dash + 1, end, ':', f, 3);
		if (n < 0)
			return -EINVAL;
		days = d[0];
		total = f[0] * 3600;
		if (n > 1)
			total += f[1] * 60;
		if (n > 2)
			total += f[2];
	} else {
		/* "M", "M:S", "H:M:S" */
		int n = parse_fields(s, end, ':', f, 3);
		if (n < 0)
			return -EINVAL;
		if (n == 1)
			total = f[0] * 60;
		else if (n == 2)
			total = f[0] * 60 + f[1];
		else
			total = f[0] * 3600 + f[1] * 60 + f[2];
	}
	*secs = days * 86400 + total;
	return 0;
}

void drv_time_fmt_elapsed(int64_t secs, char *buf, size_t len)
{
	if (secs == DRV_INFINITE) {
		snprintf(buf, len, "UNLIMITED");
		return;
	}
	if (secs < 0)
		secs = 0;
	long long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60,
		  s = secs % 60;
	if (d > 0)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", d, h, m, s);
	else if (h > 0)
		snprintf(buf, len, "%lld:%02lld:%02lld", h, m, s);
	else
		snprintf(buf, len, "%lld:%02lld", m, s);
}

void drv_time_fmt_limit(int64_t secs, char *buf, size_t len)
{
	if (secs == DRV_INFINITE) {
		snprintf(buf, len, "UNLIMITED");
		return;
	}
	if (secs == DRV_NO_VAL) {
		snprintf(buf, len, "NONE");
		return;
	}
	if (secs < 0)
		secs = 0;
	long long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60,
		  s = secs % 60;
	if (d > 0)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", d, h, m, s);
	else
		snprintf(buf, len, "%02lld:%02lld:%02lld", h, m, s);
}

void drv_time_fmt_iso(time_t t, char *buf, size_t len)
{
	struct tm tm;
	if (t == 0 || !localtime_r(&t, &tm) ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(buf, len, "Unknown");
}
