/* array_spec.c — job array index sets (see array_spec.h). Parses what
 * sbatch --array gives, keeps the set as a bitmap so a pending array of
 * 100,000 tasks costs 12.5 KiB, and writes it back as compact ranges.
 * It must not know about jobs or configuration beyond the size bound. */
#include "common/array_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_bit(struct drv_array *a, uint32_t i)
{
	if (a->bits[i / 8] & (1u << (i % 8)))
		return;
	a->bits[i / 8] |= (uint8_t)(1u << (i % 8));
	a->count++;
}

bool drv_array_test(const struct drv_array *a, uint32_t i)
{
	return i < a->nbits && (a->bits[i / 8] & (1u << (i % 8)));
}

/* Reads a non-negative decimal; *end after it. -1 if there are no digits or
 * the value is out of int range (Slurm reads with strtol). */
static int64_t read_num(const char *p, const char **end)
{
	int64_t v = 0;
	const char *s = p;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		s++;
		if (v > INT32_MAX) {
			*end = s;
			return -1;
		}
	}
	*end = s;
	return s == p ? -1 : v;
}

static const char *skip_bracket(const char *p)
{
	return *p == ']' ? p + 1 : p;
}

/* One token "N", "N-M" or "N-M:S" of length len. Sets first/last/step. */
static int parse_token(const char *tok, int64_t *first, int64_t *last, int64_t *step)
{
	const char *p = *tok == '[' ? tok + 1 : tok;
	*first = read_num(p, &p);
	*step = 0;
	if (*first < 0)
		return -EINVAL;
	p = skip_bracket(p);
	if (*p == '\0') {
		*last = *first;
		return 0;
	}
	if (*p != '-')
		return -EINVAL;
	*last = read_num(p + 1, &p);
	p = skip_bracket(p);
	if (*last < 0 || *last < *first)
		return -EINVAL;
	if (*p == ':') {
		*step = read_num(p + 1, &p);
		p = skip_bracket(p);
		if (*step <= 0)
			return -EINVAL;
	}
	return *p == '\0' ? 0 : -EINVAL;
}

static void recount(struct drv_array *a)
{
	a->min = a->max = 0;
	bool seen = false;
	for (uint32_t i = 0; i < a->nbits; i++)
		if (drv_array_test(a, i)) {
			if (!seen)
				a->min = i;
			seen = true;
			a->max = i;
		}
}

/* Fills a's bits from the comma tokens of idx (the part before '%'). */
static int parse_tokens(char *idx, uint32_t max_size, struct drv_array *a)
{
	char *save = NULL;
	for (char *tok = strtok_r(idx, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int64_t first, last, step;
		if (parse_token(tok, &first, &last, &step) < 0 || last >= max_size)
			return -EINVAL;
		if (step)
			a->step = (uint32_t)step;
		for (int64_t i = first; i <= last; i += step ? step : 1)
			set_bit(a, (uint32_t)i);
	}
	return a->count ? 0 : -EINVAL;
}

/* The bound a stored set needs: one above its largest number. */
static uint32_t bound_of(const char *spec)
{
	int64_t max = 0;
	for (const char *p = spec; *p;) {
		const char *end;
		int64_t v = read_num(p, &end);
		if (v > max)
			max = v;
		p = end > p ? end : p + 1;
	}
	return (uint32_t)max + 1;
}

int drv_array_parse(const char *spec, uint32_t max_size, struct drv_array *out)
{
	if (!spec || !*spec)
		return -EINVAL;
	if (max_size == 0)
		max_size = bound_of(spec);
	char *idx = strdup(spec);
	struct drv_array a = {.nbits = max_size, .step = 1};
	a.bits = calloc((max_size + 7) / 8, 1);
	if (!idx || !a.bits) {
		free(idx);
		free(a.bits);
		return -ENOMEM;
	}
	char *pct = strchr(idx, '%');
	if (pct) { /* as Slurm's strtol: leading digits, anything after ignored */
		*pct = '\0';
		const char *end;
		int64_t t = read_num(pct + 1, &end);
		a.throttle = t > 0 ? (uint32_t)t : 0;
	}
	int rc = parse_tokens(idx, max_size, &a);
	free(idx);
	if (rc < 0) {
		free(a.bits);
		return rc;
	}
	recount(&a);
	a.nbits = a.max + 1; /* keep only what is needed */
	uint8_t *shrunk = realloc(a.bits, (a.nbits + 7) / 8);
	if (shrunk)
		a.bits = shrunk;
	*out = a;
	return 0;
}

void drv_array_fini(struct drv_array *a)
{
	free(a->bits);
	memset(a, 0, sizeof(*a));
}

/* The nearest set index at or above (below) i; one must exist. Clearing
 * from the bottom, as ctld splits tasks off an array, scans each gap once:
 * a rescan of the whole set per clear made a 100001-task array cost 10^10
 * bit tests over its life (fuzz_array_spec's slow unit "0-30220,30-302"). */
static uint32_t next_set(const struct drv_array *a, uint32_t i)
{
	while (i < a->max) {
		if (i % 8 == 0 && !a->bits[i / 8]) {
			i += 8; /* a whole empty byte, below max's */
			continue;
		}
		if (drv_array_test(a, i))
			return i;
		i++;
	}
	return a->max;
}

static uint32_t prev_set(const struct drv_array *a, uint32_t i)
{
	while (i > a->min) {
		if (i % 8 == 7 && !a->bits[i / 8]) {
			i -= 8; /* a whole empty byte, above min's */
			continue;
		}
		if (drv_array_test(a, i))
			return i;
		i--;
	}
	return a->min;
}

void drv_array_clear(struct drv_array *a, uint32_t i)
{
	if (!drv_array_test(a, i))
		return;
	a->bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
	a->count--;
	if (a->count == 0)
		a->min = a->max = 0;
	else if (i == a->min)
		a->min = next_set(a, i + 1);
	else if (i == a->max)
		a->max = prev_set(a, i - 1);
}

int drv_array_take(struct drv_array *from, const struct drv_array *set,
		   struct drv_array *out)
{
	struct drv_array t = {.nbits = from->nbits, .step = from->step};
	t.bits = calloc(from->nbits / 8 + 1, 1);
	if (!t.bits)
		return -ENOMEM;
	for (uint32_t i = set->min; set->count && i <= set->max && i < from->nbits; i++)
		if (drv_array_test(set, i) && drv_array_test(from, i)) {
			t.bits[i / 8] |= (uint8_t)(1u << (i % 8));
			t.count++;
			from->bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
			from->count--;
		}
	recount(&t);
	recount(from);
	*out = t;
	return 0;
}

int64_t drv_array_first(const struct drv_array *a)
{
	return a->count ? (int64_t)a->min : -1;
}

char *drv_array_format(const struct drv_array *a, uint32_t throttle)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = a->min; a->count && i <= a->max; i++) {
		if (!drv_array_test(a, i))
			continue;
		uint32_t j = i;
		while (j + 1 <= a->max && drv_array_test(a, j + 1))
			j++;
		if (cap - len < 32) {
			cap *= 2;
			char *n = realloc(s, cap);
			if (!n) {
				free(s);
				return NULL;
			}
			s = n;
		}
		len += (size_t)(j > i ? snprintf(s + len, cap - len, "%s%u-%u",
						 len ? "," : "", i, j)
				      : snprintf(s + len, cap - len, "%s%u",
						 len ? "," : "", i));
		i = j;
	}
	if (throttle && cap - len < 16) {
		char *n = realloc(s, cap + 16);
		if (!n) {
			free(s);
			return NULL;
		}
		s = n;
		cap += 16;
	}
	if (throttle)
		snprintf(s + len, cap - len, "%%%u", throttle);
	return s;
}
