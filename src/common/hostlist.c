/* hostlist.c — expansion and compression of Slurm hostlist expressions.
 *
 * Owns nothing beyond the arrays and strings it returns. Expansion keeps the
 * order written; compression sorts (prefix, then number) and drops duplicate
 * names, as Slurm's sorted and uniq'd hostlists print. It must not touch any
 * global state: the config parser and every daemon call it. */
#include "common/hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTLIST_MAX 1000000 /* refuse expansions larger than this */
#define NUM_DIGITS_MAX 18    /* keeps every range value inside uint64_t */

void drv_strv_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A growing array of names under construction. */
struct strv {
	char **v;
	size_t n, cap;
};

static int strv_push(struct strv *sv, char *s)
{
	if (!s)
		return -ENOMEM;
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 16;
		char **v = realloc(sv->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			return -ENOMEM;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	return 0;
}

/* Parses "lo" or "lo-hi" (digits only) from [s, end). */
static int parse_range(const char *s, const char *end, uint64_t *lo, uint64_t *hi,
		       int *width)
{
	const char *dash = memchr(s, '-', (size_t)(end - s));
	const char *lo_end = dash ? dash : end;
	if (lo_end == s || lo_end - s > NUM_DIGITS_MAX)
		return -EINVAL;
	uint64_t a = 0, b = 0;
	for (const char *p = s; p < lo_end; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = a * 10 + (uint64_t)(*p - '0');
	}
	b = a;
	if (dash) {
		const char *h = dash + 1;
		if (h == end || end - h > NUM_DIGITS_MAX)
			return -EINVAL;
		b = 0;
		for (const char *p = h; p < end; p++) {
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = b * 10 + (uint64_t)(*p - '0');
		}
	}
	if (a > b)
		return -ERANGE;
	*lo = a;
	*hi = b;
	*width = (int)(lo_end - s);
	return 0;
}

/* Counts the hosts one bracket body "1-3,5" names; 0 with rc set on error. */
static int count_bracket(const char *body, const char *end, uint64_t *count)
{
	uint64_t total = 0;
	const char *s = body;
	while (s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *item_end = comma ? comma : end;
		uint64_t lo, hi;
		int width;
		int rc = parse_range(s, item_end, &lo, &hi, &width);
		if (rc < 0)
			return rc;
		total += hi - lo + 1;
		if (hi - lo >= HOSTLIST_MAX || total > HOSTLIST_MAX)
			return -E2BIG;
		if (!comma)
			break;
		s = comma + 1;
	}
	*count = total;
	return 0;
}

/* Checks one term's brackets and counts the hosts it expands to. */
static int count_term(const char *t, size_t len, uint64_t *count)
{
	uint64_t total = 1;
	const char *end = t + len;
	for (const char *p = t; p < end; p++) {
		if (*p == ']')
			return -EBADMSG;
		if (*p != '[')
			continue;
		const char *close = memchr(p, ']', (size_t)(end - p));
		const char *open2 = memchr(p + 1, '[', (size_t)(end - p - 1));
		if (!close || (open2 && open2 < close))
			return -EBADMSG;
		uint64_t c;
		int rc = count_bracket(p + 1, close, &c);
		if (rc < 0)
			return rc;
		total *= c;
		if (total > HOSTLIST_MAX)
			return -E2BIG;
		p = close;
	}
	*count = total;
	return 0;
}

/* Appends every host of term t[0..len) to sv; prefix is what came before. */
static int expand_term(const char *prefix, const char *t, const char *end,
		       struct strv *sv)
{
	const char *open = memchr(t, '[', (size_t)(end - t));
	if (!open) {
		char *s;
		if (asprintf(&s, "%s%.*s", prefix, (int)(end - t), t) < 0)
			return -ENOMEM;
		return strv_push(sv, s);
	}
	const char *close = memchr(open, ']', (size_t)(end - open));
	const char *s = open + 1;
	while (s <= close) {
		const char *comma = memchr(s, ',', (size_t)(close - s));
		const char *item_end = comma ? comma : close;
		uint64_t lo, hi;
		int width;
		(void)parse_range(s, item_end, &lo, &hi, &width); /* checked by count */
		for (uint64_t v = lo; v <= hi; v++) {
			char *pre;
			if (asprintf(&pre, "%s%.*s%0*llu", prefix, (int)(open - t), t,
				     width, (unsigned long long)v) < 0)
				return -ENOMEM;
			int rc = expand_term(pre, close + 1, end, sv);
			free(pre);
			if (rc < 0)
				return rc;
		}
		if (!comma)
			break;
		s = comma + 1;
	}
	return 0;
}

static bool is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n';
}

/* Finds the end of the term that starts at s: the next separator outside
 * brackets. */
static const char *term_end(const char *s)
{
	int depth = 0;
	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']')
			depth--;
		else if (depth == 0 && is_sep(*s))
			break;
	}
	return s;
}

static int expand_error(struct drv_error *err, int rc, const char *expr)
{
	const char *why = "bad range";
	if (rc == -EBADMSG)
		why = "unbalanced brackets";
	else if (rc == -ERANGE)
		why = "range goes backwards";
	else if (rc == -E2BIG)
		why = "more than 1000000 hosts";
	else if (rc == -ENOMEM)
		return drv_error_set(err, ENOMEM, "out of memory expanding hostlist");
	return drv_error_set(err, EINVAL, "bad hostlist '%.80s': %s", expr, why);
}

int drv_hostlist_expand(const char *expr, char ***names, size_t *n, struct drv_error *err)
{
	if (!expr)
		expr = "";
	struct strv sv = {0};
	uint64_t total = 0;
	const char *s = expr;
	int rc = 0;

	/* First pass: validate everything and count, so nothing is built for a
	 * bad or oversized expression. */
	while (*s) {
		if (is_sep(*s)) {
			s++;
			continue;
		}
		const char *e = term_end(s);
		uint64_t c;
		rc = count_term(s, (size_t)(e - s), &c);
		if (rc < 0)
			return expand_error(err, rc, expr);
		total += c;
		if (total > HOSTLIST_MAX)
			return expand_error(err, -E2BIG, expr);
		s = e;
	}
	if (total == 0)
		return drv_error_set(err, EINVAL, "empty hostlist '%.80s'", expr);

	for (s = expr; *s;) {
		if (is_sep(*s)) {
			s++;
			continue;
		}
		const char *e = term_end(s);
		rc = expand_term("", s, e, &sv);
		if (rc < 0) {
			drv_strv_free(sv.v, sv.n);
			return expand_error(err, rc, expr);
		}
		s = e;
	}
	*names = sv.v;
	*n = sv.n;
	return 0;
}

/* A name split into its prefix and numeric suffix, for sorting. */
struct host_key {
	const char *name;
	size_t prefix_len;
	bool has_num;
	uint64_t num;
	int width; /* digits written, so "n01" keeps its padding */
};

static void host_key_init(struct host_key *k, const char *name)
{
	size_t len = strlen(name);
	size_t i = len;
	while (i > 0 && isdigit((unsigned char)name[i - 1]) && len - i < NUM_DIGITS_MAX)
		i--;
	k->name = name;
	k->prefix_len = i;
	k->has_num = i < len;
	k->width = (int)(len - i);
	k->num = k->has_num ? strtoull(name + i, NULL, 10) : 0;
}

static int prefix_cmp(const struct host_key *a, const struct host_key *b)
{
	size_t n = a->prefix_len < b->prefix_len ? a->prefix_len : b->prefix_len;
	int c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	if (a->prefix_len != b->prefix_len)
		return a->prefix_len < b->prefix_len ? -1 : 1;
	return 0;
}

static int host_key_cmp(const void *pa, const void *pb)
{
	const struct host_key *a = pa, *b = pb;
	int c = prefix_cmp(a, b);
	if (c)
		return c;
	if (a->has_num != b->has_num)
		return a->has_num ? 1 : -1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return a->width - b->width;
}

/* True when b continues the range that started at lo: the next number, and
 * printing it with the range's width gives b's name exactly. */
static bool extends_range(const struct host_key *lo, const struct host_key *last,
			  const struct host_key *b)
{
	if (!b->has_num || prefix_cmp(lo, b) != 0 || b->num != last->num + 1)
		return false;
	char buf[NUM_DIGITS_MAX + 2];
	snprintf(buf, sizeof(buf), "%0*llu", lo->width, (unsigned long long)b->num);
	return strcmp(buf, b->name + b->prefix_len) == 0;
}

/* A string being built; on allocation failure `failed` is set. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sbuf_num(struct sbuf *b, uint64_t v, int width)
{
	char buf[NUM_DIGITS_MAX + 2];
	int n = snprintf(buf, sizeof(buf), "%0*llu", width, (unsigned long long)v);
	sbuf_add(b, buf, (size_t)n);
}

/* Prints keys[i..j) (one prefix, all numbered) as "p[1-3,5]" or bare. */
static void print_group(struct sbuf *b, const struct host_key *keys, size_t i, size_t j)
{
	if (j - i == 1) {
		sbuf_add(b, keys[i].name, strlen(keys[i].name));
		return;
	}
	sbuf_add(b, keys[i].name, keys[i].prefix_len);
	sbuf_add(b, "[", 1);
	for (size_t k = i; k < j;) {
		size_t m = k + 1;
		while (m < j && extends_range(&keys[k], &keys[m - 1], &keys[m]))
			m++;
		if (k > i)
			sbuf_add(b, ",", 1);
		sbuf_num(b, keys[k].num, keys[k].width);
		if (m - k > 1) {
			sbuf_add(b, "-", 1);
			sbuf_num(b, keys[m - 1].num, keys[k].width);
		}
		k = m;
	}
	sbuf_add(b, "]", 1);
}

char *drv_hostlist_compress(char *const *names, size_t n)
{
	struct host_key *keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return NULL;
	for (size_t i = 0; i < n; i++)
		host_key_init(&keys[i], names[i]);
	qsort(keys, n, sizeof(*keys), host_key_cmp);

	/* Drop duplicates: equal names sort next to each other. */
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || strcmp(keys[u - 1].name, keys[i].name) != 0)
			keys[u++] = keys[i];

	struct sbuf b = {0};
	sbuf_add(&b, "", 0);
	for (size_t i = 0; i < u;) {
		size_t j = i + 1;
		if (keys[i].has_num)
			while (j < u && keys[j].has_num &&
			       prefix_cmp(&keys[i], &keys[j]) == 0)
				j++;
		if (i > 0)
			sbuf_add(&b, ",", 1);
		print_group(&b, keys, i, j);
		i = j;
	}
	free(keys);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

char *drv_strdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}
