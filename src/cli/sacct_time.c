/* sacct_time.c — Slurm's time syntax for -S/-E and the duration and date
 * forms sacct prints. The parser follows Slurm 22.05's parse_time() rule
 * for rule, including the position it reports on an error, because scripts
 * compare that message; it never reads past the end of the text.
 * Pure: "now" comes from the caller. */
#include "cli/sacct_time.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What the text has named so far; -1 = not named. */
struct named {
	int hour, minute, second, month, mday, year;
};

static const struct {
	const char *name;
	int len;
	long mult;
} units[] = {
    {"seconds", 7, 1},	  {"second", 6, 1},    {"minutes", 7, 60}, {"minute", 6, 60},
    {"hours", 5, 3600},	  {"hour", 4, 3600},   {"days", 4, 86400}, {"day", 3, 86400},
    {"weeks", 5, 604800}, {"week", 4, 604800},
};

static bool digit_at(const char *s, int i)
{
	return s[i] >= '0' && s[i] <= '9';
}

/* The count and unit after "now+" / "now-"; *pos is at the sign and ends
 * on the last character used. -1 leaves *pos where Slurm leaves it. */
static int get_delta(const char *s, int *pos, long *delta)
{
	long cnt = 0;
	int digits = 0, off;

	for (off = *pos + 1; s[off] && s[off] != '\n'; off++) {
		if (isspace((unsigned char)s[off]))
			continue;
		size_t u;
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (!strncasecmp(s + off, units[u].name, (size_t)units[u].len))
				break;
		if (u < sizeof(units) / sizeof(units[0])) {
			off += units[u].len;
			if (__builtin_mul_overflow(cnt, units[u].mult, &cnt)) {
				*pos = off - 1; /* no time is that far away */
				return -1;
			}
			break;
		}
		if (!digit_at(s, off)) {
			*pos = off - 1;
			return -1;
		}
		if (cnt < LONG_MAX / 10 - 10)
			cnt = cnt * 10 + (s[off] - '0');
		digits++;
	}
	if (!digits)
		return -1;
	*pos = off - 1;
	*delta = cnt;
	return 0;
}

/* "HH:MM[:SS] [AM|PM]" at *pos. */
static int get_time(const char *s, int *pos, struct named *t)
{
	int off = *pos, hr, min, sec = 0;

	if (!digit_at(s, off))
		goto prob;
	hr = s[off++] - '0';
	if (s[off] != ':') {
		if (!digit_at(s, off))
			goto prob;
		hr = hr * 10 + s[off++] - '0';
	}
	if (hr > 23) {
		off -= 2;
		goto prob;
	}
	if (s[off] != ':')
		goto prob;
	off++;
	if (!digit_at(s, off))
		goto prob;
	min = s[off++] - '0';
	if (!digit_at(s, off))
		goto prob;
	min = min * 10 + s[off++] - '0';
	if (min > 59) {
		off -= 2;
		goto prob;
	}
	if (s[off] == ':') {
		off++;
		if (!digit_at(s, off))
			goto prob;
		sec = s[off++] - '0';
		if (!digit_at(s, off))
			goto prob;
		sec = sec * 10 + s[off++] - '0';
		if (sec > 59) {
			off -= 2;
			goto prob;
		}
	}
	while (isspace((unsigned char)s[off]))
		off++;
	if (!strncasecmp(s + off, "pm", 2)) {
		hr += 12;
		if (hr > 23) {
			if (hr != 24)
				goto prob;
			hr = 12;
		}
		off += 2;
	} else if (!strncasecmp(s + off, "am", 2)) {
		if (hr > 11) {
			if (hr != 12)
				goto prob;
			hr = 0;
		}
		off += 2;
	}
	*pos = off - 1;
	t->hour = hr;
	t->minute = min;
	t->second = sec;
	return 0;
prob:
	*pos = off;
	return -1;
}

/* "YYYY-MM-DD" at *pos. */
static int get_iso_date(const char *s, int *pos, struct named *t)
{
	int off = *pos, yr = 0, mon, day;

	for (int i = 0; i < 4; i++) {
		if (!digit_at(s, off))
			goto prob;
		yr = yr * 10 + s[off++] - '0';
	}
	off++; /* the '-' */
	mon = s[off++] - '0';
	if (digit_at(s, off))
		mon = mon * 10 + s[off++] - '0';
	if (mon < 1 || mon > 12) {
		off -= 2;
		goto prob;
	}
	off++; /* the '-' */
	if (!digit_at(s, off))
		goto prob;
	day = s[off++] - '0';
	if (digit_at(s, off))
		day = day * 10 + s[off++] - '0';
	if (day < 1 || day > 31) {
		off -= 2;
		goto prob;
	}
	*pos = off - 1;
	t->month = mon - 1;
	t->mday = day;
	t->year = yr - 1900;
	return 0;
prob:
	*pos = off;
	return -1;
}

/* "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]" or "YYYY-MM-DD" at *pos. */
static int get_date(const char *s, int *pos, struct named *t)
{
	int off = *pos, mon, day, yr = 0;
	size_t len = strlen(s);

	if (len >= (size_t)off + 7 && s[off + 4] == '-' && s[off + 7] == '-')
		return get_iso_date(s, pos, t);
	mon = s[off++] - '0';
	if (digit_at(s, off))
		mon = mon * 10 + s[off++] - '0';
	if (mon < 1 || mon > 12) {
		off -= 2;
		goto prob;
	}
	if (s[off] == '.' || s[off] == '/')
		off++;
	if (!digit_at(s, off))
		goto prob;
	day = s[off++] - '0';
	if (digit_at(s, off))
		day = day * 10 + s[off++] - '0';
	if (day < 1 || day > 31) {
		off -= 2;
		goto prob;
	}
	if (s[off] == '.' || s[off] == '/')
		off++;
	if (digit_at(s, off)) {
		yr = s[off++] - '0';
		if (!digit_at(s, off))
			goto prob;
		yr = yr * 10 + s[off++] - '0';
	}
	*pos = off - 1;
	t->month = mon - 1;
	t->mday = day;
	if (yr) /* as Slurm: a year "00" counts as none */
		t->year = yr + 100;
	return 0;
prob:
	*pos = off;
	return -1;
}

static void set_day(struct named *t, time_t when)
{
	struct tm tm;
	localtime_r(&when, &tm);
	t->month = tm.tm_mon;
	t->mday = tm.tm_mday;
	t->year = tm.tm_year;
}

static void set_clock(struct named *t, int hour)
{
	t->hour = hour;
	t->minute = 0;
	t->second = 0;
}

/* "now[{+|-}N[unit]]" at *pos. As Slurm, the position it reports after an
 * error counts from where "now" started plus the sign's absolute offset. */
static int get_now(const char *s, int *pos, time_t now, struct named *t)
{
	long delta = 0;
	for (int i = *pos + 3;; i++) {
		if (s[i] == '+' || s[i] == '-') {
			*pos += i;
			if (get_delta(s, pos, &delta) < 0)
				return -1;
			if (s[i] == '-')
				delta = -delta;
			break;
		}
		if (isblank((unsigned char)s[i]))
			continue;
		if (s[i] == '\0' || s[i] == '\n') {
			*pos += i - 1;
			break;
		}
		*pos += i;
		return -1;
	}
	time_t later;
	struct tm tm;
	if (__builtin_add_overflow(now, delta, &later) || !localtime_r(&later, &tm))
		return -1; /* past what a calendar date can say */
	t->month = tm.tm_mon;
	t->mday = tm.tm_mday;
	t->year = tm.tm_year;
	t->hour = tm.tm_hour;
	t->minute = tm.tm_min;
	t->second = tm.tm_sec;
	return 0;
}

/* The words Slurm knows; 1 when one was taken at *pos, -1 on an error in
 * "now...", 0 when none starts there. */
static int get_word(const char *s, int *pos, time_t now, struct named *t)
{
	static const struct {
		const char *word;
		int hour; /* -1: a day, not a time */
	} words[] = {
	    {"today", -1},     {"tomorrow", -2}, {"midnight", 0}, {"noon", 12},
	    {"elevenses", 11}, {"fika", 15},	 {"teatime", 16},
	};
	if (!strncasecmp(s + *pos, "now", 3))
		return get_now(s, pos, now, t) < 0 ? -1 : 1;
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		int len = (int)strlen(words[w].word);
		if (strncasecmp(s + *pos, words[w].word, (size_t)len))
			continue;
		if (words[w].hour == -1)
			set_day(t, now);
		else if (words[w].hour == -2)
			set_day(t, now + 86400);
		else
			set_clock(t, words[w].hour);
		*pos += len - 1;
		return 1;
	}
	return 0;
}

static int parse_uts(const char *s, time_t *out, int *pos)
{
	char *last = NULL;
	long uts = strtol(s + 3, &last, 10);
	if (uts < 1000000 || uts == LONG_MAX || !last || *last) {
		*pos = 0;
		return -EINVAL;
	}
	*out = (time_t)uts;
	return 0;
}

static time_t make_time(const struct named *t)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	tm.tm_sec = t->second;
	tm.tm_min = t->minute;
	tm.tm_hour = t->hour;
	tm.tm_mday = t->mday;
	tm.tm_mon = t->month;
	tm.tm_year = t->year;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* Fills in what the text left out: a date alone means 00:00, a time alone
 * means today, no year means this year. Looking into the past (sacct), a
 * month still to come is last year's; looking ahead (--begin), a time of
 * day already gone is tomorrow's and a date already gone next year's. */
static time_t resolve(struct named *t, time_t now, bool past)
{
	struct tm now_tm;
	bool time_only = false, no_year = t->year == -1;
	localtime_r(&now, &now_tm);
	if (t->hour == -1) {
		t->hour = 0;
		t->minute = 0;
	} else if (t->month == -1) {
		set_day(t, now);
		time_only = true;
	}
	if (t->year == -1)
		t->year = past && t->month > now_tm.tm_mon ? now_tm.tm_year - 1
							   : now_tm.tm_year;
	if (!past && time_only && make_time(t) < now)
		set_day(t, now + 86400);
	else if (!past && no_year && make_time(t) < now)
		t->year++;
	return make_time(t);
}

int sacct_time_parse(const char *s, time_t now, time_t *out, int *pos)
{
	return cli_time_parse(s, now, true, out, pos);
}

int cli_time_parse(const char *s, time_t now, bool past, time_t *out, int *pos)
{
	struct named t = {-1, -1, 0, -1, -1, -1};
	int p, rc;

	if (!strncasecmp(s, "uts", 3))
		return parse_uts(s, out, pos);
	for (p = 0; s[p] && s[p] != '\n'; p++) {
		if (isblank((unsigned char)s[p]) || s[p] == '-' || s[p] == 'T')
			continue;
		rc = get_word(s, &p, now, &t);
		if (rc < 0)
			goto prob;
		if (rc > 0)
			continue;
		if (!digit_at(s, p))
			goto prob;
		if (s[p + 1] == ':' || (s[p + 1] && s[p + 2] == ':'))
			rc = get_time(s, &p, &t);
		else
			rc = get_date(s, &p, &t);
		if (rc < 0)
			goto prob;
	}
	if (t.hour == -1 && t.month == -1) {
		*out = 0;
		return 0;
	}
	time_t when = resolve(&t, now, past);
	if (when != (time_t)-1) {
		*out = when;
		return 0;
	}
prob:
	*pos = p;
	return -EINVAL;
}

time_t sacct_time_midnight(time_t now)
{
	struct tm tm;
	localtime_r(&now, &tm);
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

void sacct_fmt_secs(int64_t secs, char *buf, size_t len)
{
	long long s = secs % 60, m = (secs / 60) % 60, h = (secs / 3600) % 24,
		  d = secs / 86400;
	if (secs < 0)
		snprintf(buf, len, "INVALID");
	else if (d)
		snprintf(buf, len, "%lld-%2.2lld:%2.2lld:%2.2lld", d, h, m, s);
	else
		snprintf(buf, len, "%2.2lld:%2.2lld:%2.2lld", h, m, s);
}

void sacct_fmt_cpu(int64_t secs, int64_t usecs, char *buf, size_t len)
{
	if (usecs >= 1000000) {
		secs += usecs / 1000000;
		usecs %= 1000000;
	}
	long long ms = usecs > 0 ? usecs / 1000 : 0;
	long long s = secs % 60, m = (secs / 60) % 60, h = (secs / 3600) % 24,
		  d = secs / 86400;
	if (d)
		snprintf(buf, len, "%lld-%2.2lld:%2.2lld:%2.2lld", d, h, m, s);
	else if (h)
		snprintf(buf, len, "%2.2lld:%2.2lld:%2.2lld", h, m, s);
	else if (ms)
		snprintf(buf, len, "%2.2lld:%2.2lld.%3.3lld", m, s, ms);
	else
		snprintf(buf, len, "00:%2.2lld:%2.2lld", m, s);
}
