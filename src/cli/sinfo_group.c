/* sinfo_group.c — which nodes sinfo shows and how it groups them into
 * lines: per partition (in ctld's order), nodes whose shown values agree
 * share a line; -N gives each node its own line in each partition; -R
 * groups nodes with a reason across partitions. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sinfo_format.h"

static bool one_state(const struct si_node *n, const char *t, const char *c,
		      const char *l)
{
	return !strcasecmp(t, "all") || !strcasecmp(t, c) || !strcasecmp(t, l) ||
	       (!strcasecmp(t, "drain") && n->drain) ||
	       (!strcasecmp(t, "down") && !strcasecmp(n->state, "DOWN")) ||
	       (!strcasecmp(t, "no_respond") && n->not_responding) ||
	       (!strcasecmp(t, "responding") && !n->not_responding);
}

/* -t: states separated by ',' are alternatives; joined by '&', a node must
 * be in all of them (sinfo(1)). */
bool si_state_matches(const struct si_node *n, const char *states)
{
	char c[32], l[32], *copy, *save = NULL;
	bool hit = false;

	if (!states)
		return true;
	si_state_compact(n, c, sizeof(c));
	si_state_long(n, l, sizeof(l));
	c[strcspn(c, "*")] = '\0';
	l[strcspn(l, "*")] = '\0';
	copy = strdup(states);
	for (char *alt = strtok_r(copy, ",", &save); alt && !hit;
	     alt = strtok_r(NULL, ",", &save)) {
		char *save2 = NULL;
		hit = true;
		for (char *t = strtok_r(alt, "&", &save2); t && hit;
		     t = strtok_r(NULL, "&", &save2))
			hit = one_state(n, t, c, l);
	}
	free(copy);
	return hit;
}

static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && !strncmp(p, name, len))
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool node_in_part(const struct si_node *n, const struct si_part *p)
{
	for (size_t i = 0; i < n->n_partitions; i++)
		if (!strcmp(n->partitions[i], p->name))
			return true;
	return false;
}

/* The values of the fields that decide whether two nodes share a line. */
static char *group_key(const struct si_format *f, const struct si_part *p,
		       const struct si_node *n, bool node_mode)
{
	const struct si_node *one[1] = {n};
	struct si_row r = {p, one, 1};
	char *out = NULL, buf[4096];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (!m)
		return NULL;
	if (node_mode)
		fprintf(m, "%s\x1f", n->name);
	for (size_t i = 0; i < f->n; i++) {
		if (!f->items[i].field || si_field_summed(f->items[i].field))
			continue;
		si_field_value(f->items[i].field, &r, buf, sizeof(buf));
		fprintf(m, "%s\x1f", buf);
	}
	if (fclose(m) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

struct grouping {
	struct si_rows *rows;
	char **keys;
	size_t cap;
};

static int add_row(struct grouping *g, const struct si_part *p, char *key)
{
	if (g->rows->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		struct si_row *rows = realloc(g->rows->rows, cap * sizeof(*rows));
		char **keys;

		if (!rows)
			return -ENOMEM;
		g->rows->rows = rows;
		keys = realloc(g->keys, cap * sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		g->keys = keys;
		g->cap = cap;
	}
	g->rows->rows[g->rows->n] = (struct si_row){p, NULL, 0};
	g->keys[g->rows->n++] = key;
	return 0;
}

/* Puts n on the line of p whose key matches, or on a new line. */
static int place(struct grouping *g, const struct si_format *f, const struct si_part *p,
		 const struct si_node *n, bool node_mode)
{
	char *key = group_key(f, p, n, node_mode);
	struct si_row *r = NULL;
	const struct si_node **nodes;

	if (!key)
		return -ENOMEM;
	for (size_t i = 0; i < g->rows->n && !r; i++)
		if (g->rows->rows[i].part == p && !strcmp(g->keys[i], key))
			r = &g->rows->rows[i];
	if (r) {
		free(key);
	} else {
		if (add_row(g, p, key) < 0) {
			free(key);
			return -ENOMEM;
		}
		r = &g->rows->rows[g->rows->n - 1];
	}
	nodes = realloc(r->nodes, (r->n + 1) * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	r->nodes = nodes;
	r->nodes[r->n++] = n;
	return 0;
}

static int group_part(struct grouping *g, const struct si_format *f,
		      const struct si_select *sel, const struct si_part *p,
		      const struct si_node *nodes, size_t nnodes)
{
	size_t members = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < nnodes; i++) {
		if (!node_in_part(&nodes[i], p))
			continue;
		members++;
		if (si_state_matches(&nodes[i], sel->states))
			rc = place(g, f, p, &nodes[i], sel->node_mode);
	}
	if (rc == 0 && members == 0 && !sel->states && !sel->node_mode) {
		char *key = strdup("");
		rc = key ? add_row(g, p, key) : -ENOMEM;
		if (rc < 0)
			free(key);
	}
	return rc;
}

int si_group(const struct si_format *f, const struct si_select *sel,
	     const struct si_part *parts, size_t nparts, const struct si_node *nodes,
	     size_t nnodes, struct si_rows *out)
{
	struct si_rows rows = {0};
	struct grouping g = {&rows, NULL, 0};
	int rc = 0;

	if (sel->reason_mode) {
		for (size_t i = 0; rc == 0 && i < nnodes; i++)
			if (nodes[i].reason && si_state_matches(&nodes[i], sel->states))
				rc = place(&g, f, NULL, &nodes[i], false);
	} else {
		for (size_t p = 0; rc == 0 && p < nparts; p++)
			if (!sel->partitions || in_list(sel->partitions, parts[p].name))
				rc = group_part(&g, f, sel, &parts[p], nodes, nnodes);
	}
	for (size_t i = 0; i < rows.n; i++)
		free(g.keys[i]);
	free(g.keys);
	if (rc < 0) {
		si_rows_fini(&rows);
		return rc;
	}
	*out = rows;
	return 0;
}

void si_rows_fini(struct si_rows *r)
{
	for (size_t i = 0; r && i < r->n; i++)
		free(r->rows[i].nodes);
	if (r) {
		free(r->rows);
		r->rows = NULL;
		r->n = 0;
	}
}

/* --- -S ----------------------------------------------------------------- */

/* Slurm's numeric node state: base (unknown 0, down 1, idle 2, allocated 3,
 * mixed 5) plus the DRAIN (0x200) and NO_RESPOND (0x800) flags. */
static int state_num(const struct si_row *r)
{
	static const char *const base[] = {"UNKNOWN",	"DOWN", "IDLE",
					   "ALLOCATED", "",	"MIXED"};
	const struct si_node *n = r->n ? r->nodes[0] : NULL;
	int v = 0;

	for (int i = 0; n && i < 6; i++)
		if (!strcasecmp(n->state, base[i]))
			v = i;
	if (n && n->drain)
		v |= 0x200;
	if (n && n->not_responding)
		v |= 0x800;
	return v;
}

/* Slurm compares host names with their first numbers as numbers. */
static int host_cmp(const char *a, const char *b)
{
	for (size_t i = 0;; i++) {
		if (a[i] == b[i]) {
			if (!a[i])
				return 0;
			continue;
		}
		if (a[i] >= '0' && a[i] <= '9' && b[i] >= '0' && b[i] <= '9')
			return atoi(a + i) - atoi(b + i);
		return strcmp(a, b);
	}
}

struct sort_key {
	char letter;
	bool reverse, part_order;
};

static int cmp_num(long long a, long long b)
{
	return (a > b) - (a < b);
}

static int cmp_key(const struct sort_key *k, const struct si_row *a,
		   const struct si_row *b)
{
	char va[4096], vb[4096];

	switch (k->letter) {
	case 'P':
	case 'R':
		if (k->part_order) /* parts is one array in ctld's order */
			return a->part && b->part ? cmp_num(a->part - b->part, 0) : 0;
		return strcmp(a->part ? a->part->name : "", b->part ? b->part->name : "");
	case 't':
	case 'T':
		return state_num(a) - state_num(b);
	case 'N':
	case 'n':
	case 'o':
		si_field_value(k->letter, a, va, sizeof(va));
		si_field_value(k->letter, b, vb, sizeof(vb));
		return host_cmp(va, vb);
	case 'D':
	case 'c':
	case 'm':
	case 'l':
		si_field_value(k->letter, a, va, sizeof(va));
		si_field_value(k->letter, b, vb, sizeof(vb));
		return cmp_num(atoll(va), atoll(vb));
	case 'a':
	case 'E':
	case 'H':
	case 'u':
	case 'U':
		si_field_value(k->letter, a, va, sizeof(va));
		si_field_value(k->letter, b, vb, sizeof(vb));
		return strcmp(va, vb);
	default:
		return 0; /* letters Slurm does not sort on, or Drover's constants */
	}
}

struct sort_ctx {
	const struct sort_key *keys;
	size_t nkeys;
};

struct indexed {
	struct si_row row;
	size_t index; /* ctld's order breaks ties, as Slurm's stable list_sort */
};

static int compare(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *ctx = arg;
	const struct indexed *a = pa, *b = pb;

	for (size_t i = 0; i < ctx->nkeys; i++) {
		int c = cmp_key(&ctx->keys[i], &a->row, &b->row);
		if (c)
			return ctx->keys[i].reverse ? -c : c;
	}
	return (a->index > b->index) - (a->index < b->index);
}

int si_sort(struct si_rows *rows, const char *spec)
{
	size_t len = strlen(spec), n = 0;
	struct sort_key *keys = calloc(len + 1, sizeof(*keys));
	struct indexed *v = calloc(rows->n + 1, sizeof(*v));
	struct sort_ctx ctx = {keys, 0};

	if (!keys || !v) {
		free(keys);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++) {
		if (strchr(",#+-", spec[i]))
			continue;
		keys[n++] = (struct sort_key){spec[i], i > 0 && spec[i - 1] == '-',
					      i > 0 && spec[i - 1] == '#'};
	}
	ctx.nkeys = n;
	for (size_t i = 0; i < rows->n; i++)
		v[i] = (struct indexed){rows->rows[i], i};
	qsort_r(v, rows->n, sizeof(*v), compare, &ctx);
	for (size_t i = 0; i < rows->n; i++)
		rows->rows[i] = v[i].row;
	free(keys);
	free(v);
	return 0;
}
