/* log_limit.c — warnings about refused or malformed input, rate-limited per
 * peer.
 *
 * Anyone who can reach a daemon's port can make it refuse things; one line
 * per refusal would let them fill its log. Each peer host (the address
 * without its port) gets LIMIT_BURST lines per LIMIT_INTERVAL_S seconds,
 * then one line saying how many more were dropped. The table is small and
 * fixed: a peer that hashes onto a busy slot takes it over after the
 * holder's count is printed, so memory never grows with the number of
 * peers. Like log.c, it is the process's own state, used from one thread. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

#define LIMIT_SLOTS 64
#define LIMIT_INTERVAL_S 10
#define LIMIT_BURST 5

struct limit_slot {
	char key[64];
	int64_t window; /* start of the current interval */
	unsigned printed, dropped;
};

static struct limit_slot slots[LIMIT_SLOTS];

static int64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void host_of(const char *peer, char *key, size_t len)
{
	snprintf(key, len, "%s", peer ? peer : "?");
	char *colon = strrchr(key, ':');
	if (colon && colon != key)
		*colon = '\0';
}

static void flush_dropped(struct limit_slot *s, int64_t now)
{
	if (s->dropped)
		log_warn("%u more warnings about %s in the last %llds were not logged",
			 s->dropped, s->key, (long long)(now - s->window));
	s->dropped = 0;
	s->printed = 0;
	s->window = now;
}

void drv_log_limit_flush(void)
{
	int64_t now = mono_now();
	for (size_t i = 0; i < LIMIT_SLOTS; i++)
		if (slots[i].dropped && now - slots[i].window >= LIMIT_INTERVAL_S)
			flush_dropped(&slots[i], now);
}

void drv_log_warn_limited(const char *peer, const char *fmt, ...)
{
	char key[64], line[512];
	host_of(peer, key, sizeof(key));
	uint32_t h = 5381;
	for (const char *p = key; *p; p++)
		h = h * 33 + (unsigned char)*p;
	struct limit_slot *s = &slots[h % LIMIT_SLOTS];
	int64_t now = mono_now();
	if (strcmp(s->key, key) != 0) {
		flush_dropped(s, now);
		snprintf(s->key, sizeof(s->key), "%s", key);
	} else if (now - s->window >= LIMIT_INTERVAL_S) {
		flush_dropped(s, now);
	}
	if (s->printed >= LIMIT_BURST) {
		s->dropped++;
		return;
	}
	s->printed++;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_warn("%s", line);
}
