/* jsonw.c — a growing buffer of JSON text with jansson's escaping rules:
 * '"', '\\' and the control characters are escaped (\b \f \n \r \t short,
 * others as \u00XX upper-case); '/' and non-ASCII UTF-8 stay as they are. */
#include "common/jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void drv_jw_init(struct drv_jw *w)
{
	memset(w, 0, sizeof(*w));
}

void drv_jw_fini(struct drv_jw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

static bool reserve(struct drv_jw *w, size_t more)
{
	if (w->oom)
		return false;
	if (w->len + more + 1 <= w->cap)
		return true;
	size_t cap = w->cap ? w->cap : 4096;
	while (cap < w->len + more + 1)
		cap *= 2;
	char *b = realloc(w->buf, cap);
	if (!b) {
		w->oom = true;
		return false;
	}
	w->buf = b;
	w->cap = cap;
	return true;
}

void drv_jw_raw(struct drv_jw *w, const char *s, size_t n)
{
	if (!reserve(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

void drv_jw_str(struct drv_jw *w, const char *s)
{
	if (!s) {
		drv_jw_raw(w, "null", 4);
		return;
	}
	drv_jw_raw(w, "\"", 1);
	const char *run = s;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *esc = short_escape(*p);
		if (!esc && *p >= 0x20)
			continue;
		drv_jw_raw(w, run, (size_t)((const char *)p - run));
		char u[8];
		if (!esc) {
			snprintf(u, sizeof(u), "\\u%04X", *p);
			esc = u;
		}
		drv_jw_raw(w, esc, strlen(esc));
		run = (const char *)p + 1;
	}
	drv_jw_raw(w, run, strlen(run));
	drv_jw_raw(w, "\"", 1);
}

void drv_jw_int(struct drv_jw *w, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRId64, v);
	drv_jw_raw(w, b, (size_t)n);
}
