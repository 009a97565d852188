/* sacct_tres.c — TRES strings and memory sizes in the forms sacct prints.
 * Whatever order or memory notation ctld used, the output is Slurm's:
 * sorted keys, memory through Slurm's unit conversion. */
#include "cli/sacct_tres.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 32

struct entry {
	char key[64];
	char val[64];
};

void sacct_fmt_mem(double mib, char *buf, size_t len)
{
	static const char units[] = "MGTPE";
	int u = 0;
	while (mib >= 1024 && units[u + 1]) {
		mib /= 1024;
		u++;
	}
	long long whole = (long long)mib;
	if ((double)whole == mib)
		snprintf(buf, len, "%lld%c", whole, units[u]);
	else
		snprintf(buf, len, "%.2f%c", mib, units[u]);
}

double sacct_mem_parse(const char *s, size_t n)
{
	char tmp[64], *end = NULL;
	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	double v = strtod(tmp, &end);
	if (end == tmp || v < 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case '\0':
	case 'M':
		break;
	case 'K':
		v /= 1024;
		break;
	case 'G':
		v *= 1024;
		break;
	case 'T':
		v *= 1024.0 * 1024;
		break;
	case 'P':
		v *= 1024.0 * 1024 * 1024;
		break;
	default:
		return -1;
	}
	return v;
}

/* Splits tres into entries; returns how many. */
static size_t split(const char *tres, struct entry *e, size_t max)
{
	size_t n = 0;
	for (const char *p = tres; p && *p && n < max;) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		if (eq && (size_t)(eq - p) < sizeof(e[n].key) &&
		    len - (size_t)(eq - p) - 1 < sizeof(e[n].val)) {
			snprintf(e[n].key, sizeof(e[n].key), "%.*s", (int)(eq - p), p);
			snprintf(e[n].val, sizeof(e[n].val), "%.*s",
				 (int)(len - (size_t)(eq - p) - 1), eq + 1);
			n++;
		}
		p += len + (p[len] == ',');
	}
	return n;
}

double sacct_tres_get(const char *tres, const char *key)
{
	struct entry e[MAX_ENTRIES];
	size_t n = split(tres, e, MAX_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(e[i].key, key))
			continue;
		if (!strcmp(key, "mem"))
			return sacct_mem_parse(e[i].val, strlen(e[i].val));
		return strtod(e[i].val, NULL);
	}
	return -1;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

static void join(struct entry *e, size_t n, char *buf, size_t len)
{
	size_t off = 0;
	qsort(e, n, sizeof(*e), by_key);
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++) {
		char val[64];
		double mib;
		const char *v = e[i].val;
		if (!strcmp(e[i].key, "mem") &&
		    (mib = sacct_mem_parse(v, strlen(v))) >= 0) {
			sacct_fmt_mem(mib, val, sizeof(val));
			v = val;
		}
		int w =
		    snprintf(buf + off, len - off, "%s%s=%s", i ? "," : "", e[i].key, v);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

void sacct_tres_normalize(const char *tres, char *buf, size_t len)
{
	struct entry e[MAX_ENTRIES];
	size_t n = split(tres, e, MAX_ENTRIES);
	join(e, n, buf, len);
}

void sacct_tres_batch(const char *job_tres, int64_t cpus, int64_t nodes, int64_t gpus,
		      char *buf, size_t len)
{
	struct entry e[MAX_ENTRIES];
	size_t n = split(job_tres, e, MAX_ENTRIES), out = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = e[i].key;
		double mib;
		if (!strcmp(k, "billing"))
			continue;
		if (!strcmp(k, "cpu"))
			snprintf(e[i].val, sizeof(e[i].val), "%lld", (long long)cpus);
		else if (!strcmp(k, "node"))
			snprintf(e[i].val, sizeof(e[i].val), "1");
		else if (!strcmp(k, "mem") && nodes > 1 &&
			 (mib = sacct_mem_parse(e[i].val, strlen(e[i].val))) >= 0)
			snprintf(e[i].val, sizeof(e[i].val), "%.6fM",
				 mib / (double)nodes);
		else if (!strcmp(k, "gres/gpu") && gpus >= 0)
			snprintf(e[i].val, sizeof(e[i].val), "%lld", (long long)gpus);
		if (!strcmp(k, "gres/gpu") && gpus == 0)
			continue;
		if (out != i)
			e[out] = e[i];
		out++;
	}
	join(e, out, buf, len);
}
