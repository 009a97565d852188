/* cpuset.c — CPU id sets: bitmaps and Slurm's range text. Pure. */
#include "common/cpuset.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_set(const uint64_t *bits, uint32_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

size_t drv_cpuset_format(const uint64_t *bits, uint32_t n_bits, char *buf, size_t size)
{
	size_t len = 0;
	if (size)
		buf[0] = '\0';
	for (uint32_t i = 0; i < n_bits;) {
		if (!is_set(bits, i)) {
			i++;
			continue;
		}
		uint32_t end = i;
		while (end + 1 < n_bits && is_set(bits, end + 1))
			end++;
		char part[32];
		int n = end == i ? snprintf(part, sizeof(part), "%s%u", len ? "," : "", i)
				 : snprintf(part, sizeof(part), "%s%u-%u", len ? "," : "",
					    i, end);
		if (len + (size_t)n < size)
			memcpy(buf + len, part, (size_t)n + 1);
		else if (len < size)
			buf[len] = '\0';
		len += (size_t)n;
		i = end + 1;
	}
	return len;
}

/* One decimal CPU id at *p, below n_bits; advances *p. */
static int parse_id(const char **p, uint32_t n_bits, uint32_t *out)
{
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	char *end;
	unsigned long v = strtoul(*p, &end, 10);
	if (v >= n_bits)
		return -EINVAL;
	*p = end;
	*out = (uint32_t)v;
	return 0;
}

int drv_cpuset_parse(const char *text, uint64_t *bits, uint32_t n_bits)
{
	size_t words = DRV_CPUSET_WORDS(n_bits);
	uint64_t *v = calloc(words ? words : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	const char *p = text;
	int rc = 0;
	while (rc == 0 && p && *p) {
		uint32_t lo, hi;
		rc = parse_id(&p, n_bits, &lo);
		hi = lo;
		if (rc == 0 && *p == '-') {
			p++;
			rc = parse_id(&p, n_bits, &hi);
			if (rc == 0 && hi < lo)
				rc = -EINVAL;
		}
		for (uint32_t i = lo; rc == 0 && i <= hi; i++)
			v[i / 64] |= 1ULL << (i % 64);
		if (rc == 0 && *p == ',' && p[1])
			p++;
		else if (rc == 0 && *p)
			rc = -EINVAL;
	}
	if (rc == 0)
		memcpy(bits, v, words * sizeof(*v));
	free(v);
	return rc;
}

uint32_t drv_cpuset_count(const uint64_t *bits, uint32_t n_bits)
{
	uint32_t n = 0;
	for (size_t w = 0; w < DRV_CPUSET_WORDS(n_bits); w++) {
		uint64_t x = bits[w];
		if (w == n_bits / 64 && n_bits % 64)
			x &= (1ULL << (n_bits % 64)) - 1;
		n += (uint32_t)__builtin_popcountll(x);
	}
	return n;
}
