/* gres.c — parsing Gres= and --gres lists. No allocation policy here. */
#include "common/gres.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_count(const char *s, size_t len, uint64_t *out)
{
	char buf[32];
	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	uint64_t mult = 1;
	if (*end == 'k' || *end == 'K')
		mult = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mult = 1024 * 1024, end++;
	uint64_t count;
	if (errno || *end || !isdigit((unsigned char)buf[0]) || v == 0 ||
	    __builtin_mul_overflow(v, mult, &count))
		return -EINVAL; /* "1k" scales: a count past 2^64 wraps to a small one */
	*out = count;
	return 0;
}

/* One "name[:type][:count][(hints)]" entry. */
static int parse_one(const char *s, size_t len, struct drv_gres *g)
{
	const char *paren = memchr(s, '(', len);
	if (paren)
		len = (size_t)(paren - s);
	const char *c1 = memchr(s, ':', len);
	size_t name_len = c1 ? (size_t)(c1 - s) : len;
	if (name_len == 0 || name_len >= sizeof(g->name))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	memcpy(g->name, s, name_len);
	g->count = 1;
	if (!c1)
		return 0;
	const char *rest = c1 + 1, *end = s + len;
	const char *c2 = memchr(rest, ':', (size_t)(end - rest));
	if (c2) { /* name:type:count */
		size_t type_len = (size_t)(c2 - rest);
		if (type_len == 0 || type_len >= sizeof(g->type))
			return -EINVAL;
		memcpy(g->type, rest, type_len);
		return parse_count(c2 + 1, (size_t)(end - c2 - 1), &g->count);
	}
	if (rest < end && isdigit((unsigned char)*rest)) /* name:count */
		return parse_count(rest, (size_t)(end - rest), &g->count);
	size_t type_len = (size_t)(end - rest); /* name:type */
	if (type_len == 0 || type_len >= sizeof(g->type))
		return -EINVAL;
	memcpy(g->type, rest, type_len);
	g->count = 1;
	return 0;
}

int drv_gres_parse(const char *s, struct drv_gres **out, size_t *n, struct drv_error *err)
{
	*out = NULL;
	*n = 0;
	if (!s || !*s || !strcmp(s, "(null)"))
		return 0;
	size_t cap = 1;
	for (const char *p = s; *p; p++)
		cap += *p == ',';
	struct drv_gres *v = calloc(cap, sizeof(*v));
	if (!v)
		return drv_error_set(err, ENOMEM, "out of memory");
	size_t k = 0;
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		if (parse_one(p, len, &v[k]) < 0) {
			free(v);
			return drv_error_set(err, EINVAL, "invalid gres '%.*s'", (int)len,
					     p);
		}
		k++;
		p += len;
		if (*p)
			p++;
	}
	*out = v;
	*n = k;
	return 0;
}

int drv_gres_total(const struct drv_gres *v, size_t n, const char *name, uint64_t max,
		   uint64_t *total)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].name, name))
			continue;
		if (v[i].count > max - sum)
			return -E2BIG;
		sum += v[i].count;
	}
	*total = sum;
	return 0;
}
