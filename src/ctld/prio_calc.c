/* prio_calc.c — fair-share usage arithmetic (prio_calc.h): billing,
 * accrual, reset times, fixed point. Pure. */
#include "ctld/prio_calc.h"

#include <math.h>
#include <time.h>

#define DAY 86400

double prio_billing(const struct drv_tres_weights *w, const struct prio_held *h)
{
	if (!w || !w->set)
		return (double)h->cpus;
	return w->w[DRV_TRES_CPU] * (double)h->cpus +
	       w->w[DRV_TRES_MEM] * (double)h->mem +
	       w->w[DRV_TRES_NODE] * (double)h->nodes +
	       w->w[DRV_TRES_GPU] * (double)h->gpus;
}

double prio_accrue(double billing, int64_t seconds, double usage_factor)
{
	if (seconds <= 0)
		return 0.0;
	return billing * (double)seconds * usage_factor;
}

/* tm (local time) at 00:00 of its day, back to seconds. */
static int64_t midnight(struct tm tm)
{
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

int64_t prio_next_reset(enum drv_prio_reset period, int64_t last_reset, int64_t now)
{
	time_t t = (time_t)last_reset;
	struct tm tm;
	int64_t next;

	if (!localtime_r(&t, &tm))
		return 0;
	switch (period) {
	case DRV_PRIO_RESET_DAILY:
		next = midnight(tm) + DAY;
		while (next + DAY < now)
			next += DAY;
		return next;
	case DRV_PRIO_RESET_WEEKLY:
		next = midnight(tm) + (int64_t)DAY * (7 - tm.tm_wday);
		while (next + 7 * DAY < now)
			next += 7 * DAY;
		return next;
	case DRV_PRIO_RESET_MONTHLY:
		tm.tm_mday = 1;
		tm.tm_mon++; /* mktime carries December into January */
		return midnight(tm);
	case DRV_PRIO_RESET_QUARTERLY:
		tm.tm_mday = 1;
		tm.tm_mon = (tm.tm_mon / 3 + 1) * 3;
		return midnight(tm);
	case DRV_PRIO_RESET_YEARLY:
		tm.tm_mday = 1;
		tm.tm_mon = 0;
		tm.tm_year++;
		return midnight(tm);
	default:
		return 0;
	}
}

int64_t prio_fixed(double v, double scale)
{
	double x = v * scale;
	if (!(x > 0.0))
		return 0;
	if (x >= 9.2e18)
		return INT64_MAX;
	return (int64_t)llround(x);
}
