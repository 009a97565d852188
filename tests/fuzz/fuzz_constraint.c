/* fuzz_constraint.c — sbatch/srun -C/--constraint as ctld parses it
 * (sched/constraint.c) and matches it against nodes' Features=.
 *
 * The input up to its first newline is the expression; the rest, if any, is
 * a node's feature list. Whatever the input, parsing and matching must not
 * crash. An accepted expression has 1..SCHED_MAX_TERMS named terms, counts
 * only outside the bracketed form, and written back in Slurm's syntax it
 * parses to the same thing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sched/sched.h"

static void check_shape(const struct sched_constraint *c)
{
	if (c->n_terms == 0 || c->n_terms > SCHED_MAX_TERMS)
		abort();
	for (uint32_t i = 0; i < c->n_terms; i++) {
		const struct sched_term *t = &c->terms[i];
		if (!t->name[0] || strpbrk(t->name, "&|[]*,") ||
		    (c->match_or && t->count))
			abort();
	}
}

/* Writes c back as -C text; parsing it again gives c. */
static void round_trip(const struct sched_constraint *c)
{
	char text[SCHED_MAX_TERMS * 80 + 4];
	size_t off = 0;
	if (c->match_or)
		text[off++] = '[';
	for (uint32_t i = 0; i < c->n_terms; i++) {
		const struct sched_term *t = &c->terms[i];
		if (i)
			text[off++] = c->match_or || !t->and_prev ? '|' : '&';
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s", t->name);
		if (t->count)
			off += (size_t)snprintf(text + off, sizeof(text) - off, "*%u",
						t->count);
	}
	if (c->match_or)
		text[off++] = ']';
	text[off] = '\0';
	struct sched_constraint d;
	if (sched_constraint_parse(text, &d) != 0 || d.n_terms != c->n_terms ||
	    d.match_or != c->match_or)
		abort();
	for (uint32_t i = 0; i < c->n_terms; i++)
		if (strcmp(d.terms[i].name, c->terms[i].name) ||
		    d.terms[i].count != c->terms[i].count ||
		    (i && !c->match_or && d.terms[i].and_prev != c->terms[i].and_prev))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	char *features = strchr(s, '\n');
	if (features)
		*features++ = '\0';
	struct sched_constraint c;
	if (sched_constraint_parse(s, &c) == 0) {
		check_shape(&c);
		round_trip(&c);
		const char *feats = features ? features : "a100,ib,gpu";
		for (int alt = -1; alt <= (int)c.n_terms; alt++)
			(void)sched_constraint_match(&c, feats, alt);
		/* A node whose features are every term's name matches the
		 * AND/OR form outright. */
		if (!c.match_or) {
			char all[SCHED_MAX_TERMS * 66];
			size_t off = 0;
			for (uint32_t i = 0; i < c.n_terms; i++)
				off +=
				    (size_t)snprintf(all + off, sizeof(all) - off, "%s%s",
						     i ? "," : "", c.terms[i].name);
			if (!sched_constraint_match(&c, all, 0))
				abort();
		}
	}
	if (features)
		(void)sched_node_has_feature(features, s);
	free(s);
	return 0;
}
