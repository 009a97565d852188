/* fuzz_hostlist.c — hostlist expressions as users and configs write them
 * ("gpu[01-04,07],cpu[1-3]"; common/hostlist.h).
 *
 * The input, cut at 256 bytes, is expanded unless it names more than 20,000
 * hosts (those only slow the fuzzer down); the names are compressed, and the compressed
 * string must expand to the same set of names and compress to itself again. Any
 * difference is a bug: squeue, sinfo and the config all trust that round
 * trip. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "fuzz.h"

#define INPUT_MAX 256
#define NAMES_MAX 20000 /* skip larger expansions: they only slow the fuzzer */

/* The value of the digits at *p (moved past them), as a double so that no
 * run of digits overflows. */
static double digits(const char **p)
{
	double v = 0;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (*(*p)++ - '0');
	return v;
}

/* A quick upper bound on the names expr expands to: each bracket item
 * "lo-hi" counts hi - lo + 1 (anything else 1), brackets of a term multiply
 * and terms add up. It only has to be at least what the parser counts for
 * the expressions the parser accepts. */
static double names_bound(const char *s)
{
	double total = 0, term = 1, bracket = 0;
	bool in = false;
	while (*s) {
		if (!in && *s == '[') {
			in = true;
			bracket = 0;
			s++;
		} else if (in && (*s == ']' || *s == ',')) {
			if (*s == ']') {
				term *= bracket > 1 ? bracket : 1;
				in = false;
			}
			s++;
		} else if (in && *s >= '0' && *s <= '9') {
			double lo = digits(&s), hi = lo;
			if (*s == '-' && s[1] >= '0' && s[1] <= '9') {
				s++;
				hi = digits(&s);
			}
			bracket += hi >= lo ? hi - lo + 1 : 1;
		} else if (!in && (*s == ',' || *s == ' ' || *s == '\t' || *s == '\n')) {
			total += term;
			term = 1;
			s++;
		} else {
			bracket += in;
			s++;
		}
	}
	return total + term;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts v and drops duplicates in place; returns the new count. */
static size_t sort_uniq(char **v, size_t n)
{
	size_t u = 0;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (u > 0 && strcmp(v[u - 1], v[i]) == 0) {
			free(v[i]);
			continue;
		}
		v[u++] = v[i];
	}
	return u;
}

static void check_same_set(char **a, size_t na, char **b, size_t nb)
{
	na = sort_uniq(a, na);
	nb = sort_uniq(b, nb);
	if (na != nb)
		abort();
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			abort();
	drv_strv_free(a, na);
	drv_strv_free(b, nb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char expr[INPUT_MAX + 1];
	size_t len = size < INPUT_MAX ? size : INPUT_MAX;
	memcpy(expr, data, len);
	expr[len] = '\0';

	char **names = NULL, **again = NULL;
	size_t n = 0, n_again = 0;
	struct drv_error err;
	if (names_bound(expr) > NAMES_MAX)
		return 0;
	if (drv_hostlist_expand(expr, &names, &n, &err) < 0)
		return 0;
	if (n == 0)
		abort(); /* an empty list is refused, never returned */

	char *s = drv_hostlist_compress(names, n);
	if (!s)
		abort();
	if (drv_hostlist_expand(s, &again, &n_again, &err) < 0)
		abort();
	char *s2 = drv_hostlist_compress(again, n_again);
	if (!s2 || strcmp(s, s2) != 0)
		abort();
	check_same_set(names, n, again, n_again);
	free(s);
	free(s2);
	return 0;
}
