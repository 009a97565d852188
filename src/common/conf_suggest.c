/* conf_suggest.c — "did you mean": the known key nearest to a misspelt
 * one, for the error a key unknown to Slurm gets (conf.c). Reads the key
 * tables; knows no key by name. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/conf_internal.h"

#define NEAREST_LEN_MAX 64 /* longer names are not typos of a key */

/* Levenshtein distance, case-insensitive; both shorter than NEAREST_LEN_MAX. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[NEAREST_LEN_MAX + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			bool same = tolower((unsigned char)a[i - 1]) ==
				    tolower((unsigned char)b[j - 1]);
			size_t best = diag + (same ? 0 : 1);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Keeps cand in *best when it is nearer to name than what *best holds. */
static void nearer(const char *name, const char *cand, const char **best, size_t *dist)
{
	if (strlen(cand) >= NEAREST_LEN_MAX)
		return;
	size_t d = edit_distance(name, cand);
	if (d < *dist) {
		*dist = d;
		*best = cand;
	}
}

const char *conf_key_nearest(const struct conf_key *table, const char *const *extra,
			     const char *name)
{
	size_t len = strlen(name), dist = SIZE_MAX;
	const char *best = NULL;
	if (len == 0 || len >= NEAREST_LEN_MAX)
		return NULL;
	for (const struct conf_key *k = table; k->name; k++)
		nearer(name, k->name, &best, &dist);
	for (const char *const *e = extra; e && *e; e++)
		nearer(name, *e, &best, &dist);
	/* a third of the name may be wrong, at most 3 letters: beyond that a
	 * suggestion is a guess, not a typo's fix */
	size_t limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;
	return dist <= limit ? best : NULL;
}
