/* constraint.c — sbatch -C/--constraint: parsing the expression and
 * matching one node's Features= against it. Pure.
 *
 * The grammar is Slurm's, without parentheses: feature names joined by '&'
 * (AND) and '|' (OR), evaluated left to right as slurmctld does, each name
 * optionally followed by "*N" (at least N of the job's nodes must have it);
 * or one bracketed list of alternatives "[a|b|c]" (matching OR: every node of
 * the job has the same one of them). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' ||
	       c == ':' || c == '=';
}

/* One "name[*N]" at *p; advances *p. */
static int parse_term(const char **p, struct sched_term *t)
{
	const char *s = *p;
	size_t len = 0;
	while (name_char(s[len]))
		len++;
	if (len == 0 || len >= sizeof(t->name))
		return -EINVAL;
	memcpy(t->name, s, len);
	t->name[len] = '\0';
	t->count = 0;
	s += len;
	if (*s == '*') {
		char *end;
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		unsigned long n = strtoul(s, &end, 10);
		if (n == 0 || n > 100000)
			return -EINVAL;
		t->count = (uint32_t)n;
		s = end;
	}
	*p = s;
	return 0;
}

int sched_constraint_parse(const char *text, struct sched_constraint *out)
{
	struct sched_constraint c = {0};
	const char *p = text;
	if (!p || !*p)
		return -EINVAL;
	if (*p == '[') {
		c.match_or = true;
		p++;
	}
	for (;;) {
		if (c.n_terms == SCHED_MAX_TERMS)
			return -E2BIG;
		struct sched_term *t = &c.terms[c.n_terms];
		if (parse_term(&p, t) < 0)
			return -EINVAL;
		c.n_terms++;
		if (*p != '&' && *p != '|')
			break;
		if (c.match_or && *p != '|')
			return -EINVAL; /* "[a&b]" is Slurm's count form: not here */
		if (c.n_terms < SCHED_MAX_TERMS)
			c.terms[c.n_terms].and_prev = *p == '&';
		p++;
	}
	if (c.match_or && *p++ != ']')
		return -EINVAL;
	if (*p)
		return -EINVAL;
	for (uint32_t i = 0; i < c.n_terms; i++)
		if (c.match_or && c.terms[i].count)
			return -EINVAL;
	*out = c;
	return 0;
}

bool sched_node_has_feature(const char *features, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = features; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

bool sched_constraint_match(const struct sched_constraint *c, const char *features,
			    int alt)
{
	if (!c || !c->n_terms)
		return true;
	if (c->match_or)
		return alt >= 0 && (uint32_t)alt < c->n_terms &&
		       sched_node_has_feature(features, c->terms[alt].name);
	/* A counted term does not bar a node that lacks it: the count is
	 * checked over the whole allocation (sched_constraint_counts_met). */
	bool ok = false;
	for (uint32_t i = 0; i < c->n_terms; i++) {
		const struct sched_term *t = &c->terms[i];
		bool has = t->count || sched_node_has_feature(features, t->name);
		ok = i == 0 ? has : t->and_prev ? ok && has : ok || has;
	}
	return ok;
}
