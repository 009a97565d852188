/* cpu_bind.c — srun's --cpu-bind, applied by each task to itself before it
 * execs (Slurm's task/affinity inside task/cgroup's cpuset).
 *
 * A task may only be bound within the CPUs its step was given: the cpuset
 * of its cgroup where cores are constrained, else what the shepherd may
 * run on. cores and threads give task i of a node cpus_per_task CPUs of
 * that set in order (block), wrapping round when there are more tasks
 * than CPUs; rank gives it the i-th; sockets, ldoms, boards and rank_ldom
 * the whole set (a node is one socket to Drover); map_cpu and mask_cpu
 * give it the i-th entry of the list (machine CPU ids, as in Slurm), which
 * must lie within the set. none, or no option, leaves the task as it is.
 * verbose prints Slurm's line on the task's stderr. The choice is pure
 * (cpu_bind_mask); only cpu_bind_apply touches the process. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

enum bind_kind { BIND_NONE, BIND_CORES, BIND_RANK, BIND_ALL, BIND_MAP, BIND_MASK };

struct bind_spec {
	enum bind_kind kind;
	bool verbose;
	const char *list; /* map_cpu/mask_cpu: after the ':' */
};

static bool word_is(const char *p, size_t len, const char *w)
{
	return strlen(w) == len && !strncasecmp(p, w, len);
}

/* One list entry: a number (map: decimal or 0x hex; mask: hex, 0x
 * optional) with an optional "*count"; *end past it. */
static int list_item(const char *p, bool mask, unsigned long long *v, unsigned *count,
		     const char **end)
{
	char *e;
	int base = mask || !strncasecmp(p, "0x", 2) ? 16 : 10;
	errno = 0;
	*v = strtoull(p, &e, base);
	if (e == p || errno)
		return -EINVAL;
	*count = 1;
	if (*e == '*') {
		char *c;
		unsigned long n = strtoul(e + 1, &c, 10);
		if (c == e + 1 || n == 0 || n > 100000)
			return -EINVAL;
		*count = (unsigned)n;
		e = c;
	}
	*end = e;
	return 0;
}

/* Past a list's last entry: entries run while they parse, so that a word
 * may follow ("map_cpu:0,1,verbose"); list itself when none does. */
static const char *list_end(const char *list, bool mask)
{
	const char *q = list, *next;
	unsigned long long v;
	unsigned n;
	while (list_item(q, mask, &v, &n, &next) == 0) {
		q = next;
		if (*q != ',' || list_item(q + 1, mask, &v, &n, &next) < 0)
			break;
		q++;
	}
	return q;
}

static int parse(const char *bind, struct bind_spec *b)
{
	*b = (struct bind_spec){BIND_NONE, false, NULL};
	for (const char *p = bind; p && *p;) {
		size_t len = strcspn(p, ",:");
		if (word_is(p, len, "v") || word_is(p, len, "verbose"))
			b->verbose = true;
		else if (word_is(p, len, "cores") || word_is(p, len, "threads"))
			b->kind = BIND_CORES;
		else if (word_is(p, len, "rank"))
			b->kind = BIND_RANK;
		else if (word_is(p, len, "sockets") || word_is(p, len, "ldoms") ||
			 word_is(p, len, "boards") || word_is(p, len, "rank_ldom") ||
			 word_is(p, len, "map_ldom") || word_is(p, len, "mask_ldom"))
			b->kind = BIND_ALL;
		else if (word_is(p, len, "map_cpu") || word_is(p, len, "mask_cpu")) {
			b->kind = word_is(p, len, "map_cpu") ? BIND_MAP : BIND_MASK;
			if (p[len] != ':')
				return -EINVAL;
			b->list = p + len + 1;
			const char *q = list_end(b->list, b->kind == BIND_MASK);
			if (q == b->list)
				return -EINVAL;
			p = q;
			len = 0;
		} else if (!(word_is(p, len, "q") || word_is(p, len, "quiet") ||
			     word_is(p, len, "no") || word_is(p, len, "none")))
			return -EINVAL;
		else if (word_is(p, len, "no") || word_is(p, len, "none"))
			b->kind = BIND_NONE;
		p += len;
		if (*p == ',' || *p == ':')
			p++;
	}
	return 0;
}

/* The i-th entry of a map_cpu/mask_cpu list, repeats counted, cycling. */
static int list_entry(const char *list, bool mask, uint32_t i, cpu_set_t *out)
{
	unsigned long long total = 0, v;
	unsigned n;
	const char *q = list;
	for (; list_item(q, mask, &v, &n, &q) == 0; q++) { /* count the entries */
		total += n;
		if (*q != ',')
			break;
	}
	if (!total)
		return -EINVAL;
	uint64_t want = i % total;
	for (q = list; list_item(q, mask, &v, &n, &q) == 0; q++) {
		if (want < n)
			break;
		want -= n;
	}
	CPU_ZERO(out);
	if (!mask) {
		if (v >= CPU_SETSIZE)
			return -ERANGE;
		CPU_SET((int)v, out);
	} else {
		for (int c = 0; c < 64 && c < CPU_SETSIZE; c++)
			if (v >> c & 1)
				CPU_SET(c, out);
	}
	return 0;
}

int cpu_bind_mask(const cpu_set_t *allowed, const char *bind, uint32_t local,
		  uint32_t cpt, cpu_set_t *out, bool *verbose)
{
	struct bind_spec b;
	*verbose = false;
	if (parse(bind, &b) < 0)
		return -EINVAL;
	*verbose = b.verbose;
	int cpus[CPU_SETSIZE], n = 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed))
			cpus[n++] = c;
	if (b.kind == BIND_NONE || n == 0)
		return 1;
	CPU_ZERO(out);
	switch (b.kind) {
	case BIND_CORES:
		for (uint32_t k = 0; k < (cpt ? cpt : 1); k++)
			CPU_SET(cpus[(local * (cpt ? cpt : 1) + k) % (uint32_t)n], out);
		return 0;
	case BIND_RANK:
		CPU_SET(cpus[local % (uint32_t)n], out);
		return 0;
	case BIND_ALL:
		*out = *allowed;
		return 0;
	default: {
		int rc = list_entry(b.list, b.kind == BIND_MASK, local, out);
		if (rc < 0)
			return rc;
		cpu_set_t inside;
		CPU_AND(&inside, out, allowed);
		return CPU_EQUAL(&inside, out) && CPU_COUNT(out) > 0 ? 0 : -EPERM;
	}
	}
}

/* The mask as Slurm prints it: hex, no leading zeros. */
static void mask_hex(const cpu_set_t *m, char *buf, size_t len)
{
	int top = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, m))
			top = c;
	size_t k = 0;
	for (int nib = top < 0 ? 0 : top / 4; nib >= 0 && k + 1 < len; nib--) {
		unsigned v = 0;
		for (int b = 0; b < 4; b++)
			v |= (unsigned)(CPU_ISSET(nib * 4 + b, m) != 0) << b;
		buf[k++] = "0123456789abcdef"[v];
	}
	buf[k] = '\0';
}

int cpu_bind_apply(const char *bind, uint32_t cpt, const char *node, uint32_t task_id,
		   uint32_t local, char *why, size_t len)
{
	cpu_set_t allowed, mask;
	bool verbose;
	if (!bind || !*bind)
		return 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return snprintf(why, len, "sched_getaffinity: %s", strerror(errno)), -1;
	int rc = cpu_bind_mask(&allowed, bind, local, cpt, &mask, &verbose);
	if (rc == -EPERM || rc == -ERANGE) {
		char have[CPU_SETSIZE / 4 + 1];
		mask_hex(&allowed, have, sizeof(have));
		return snprintf(
			   why, len,
			   "task/affinity: --cpu-bind=%s: CPU binding outside of job "
			   "step allocation, allocated CPUs are: 0x%s",
			   bind, have),
		       -1;
	}
	if (rc < 0)
		return snprintf(why, len, "--cpu-bind=%s: cannot be parsed", bind), -1;
	if (rc == 1)
		return 0;
	if (sched_setaffinity(0, sizeof(mask), &mask) < 0)
		return snprintf(why, len, "sched_setaffinity: %s", strerror(errno)), -1;
	if (verbose) {
		char hex[CPU_SETSIZE / 4 + 1];
		mask_hex(&mask, hex, sizeof(hex));
		dprintf(STDERR_FILENO,
			"cpu-bind=MASK - %s, task %2u %2u [%d]: mask 0x%s set\n", node,
			task_id, local, (int)getpid(), hex);
	}
	return 0;
}
