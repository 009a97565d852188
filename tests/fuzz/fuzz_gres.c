/* fuzz_gres.c — Gres= (slurm.conf NodeName lines) and --gres (sbatch, srun)
 * as common/gres.h parses them.
 *
 * Whatever the input, parsing must not crash or leak. An accepted list has
 * at most one entry per comma-separated item, each with a non-empty name
 * free of the separators and a non-zero count; written back as
 * "name[:type]:count" it parses again to the same entries (what ctld stores
 * and shows is what was asked for); and drv_gres_total never wraps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "fuzz.h"

static void check_entry(const struct drv_gres *g)
{
	if (!g->name[0] || g->count == 0 || strpbrk(g->name, ",:(") ||
	    strpbrk(g->type, ",:("))
		abort();
}

/* Writes v back as a gres list and parses it again: same entries. */
static void round_trip(const struct drv_gres *v, size_t n)
{
	size_t cap = n * (sizeof(v->name) + sizeof(v->type) + 24) + 1, off = 0;
	char *text = malloc(cap);
	if (!text)
		abort();
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, cap - off, "%s%s%s%s:%llu",
					i ? "," : "", v[i].name, v[i].type[0] ? ":" : "",
					v[i].type, (unsigned long long)v[i].count);
	struct drv_gres *w;
	size_t m;
	struct drv_error err;
	if (drv_gres_parse(text, &w, &m, &err) < 0 || m != n)
		abort();
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, w[i].name) || strcmp(v[i].type, w[i].type) ||
		    v[i].count != w[i].count)
			abort();
	free(w);
	free(text);
}

/* What ctld sums from a node's Gres= line: never a wrapped total. */
static void check_total(const struct drv_gres *v, size_t n)
{
	uint64_t total = 0;
	unsigned __int128 sum = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, v[0].name))
			sum += v[i].count;
	int rc = drv_gres_total(v, n, n ? v[0].name : "gpu", 1024, &total);
	if ((rc == 0) != (sum <= 1024) || (rc == 0 && total != sum))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct drv_gres *v;
	size_t n;
	struct drv_error err;
	if (drv_gres_parse(s, &v, &n, &err) == 0) {
		size_t items = 1;
		for (const char *p = s; *p; p++)
			items += *p == ',';
		if (n > items)
			abort();
		for (size_t i = 0; i < n; i++)
			check_entry(&v[i]);
		if (n)
			round_trip(v, n);
		check_total(v, n);
		free(v);
	} else if (!err.text[0]) {
		abort(); /* a refusal always says what was wrong */
	}
	free(s);
	return 0;
}
