/* sprio_format.c — sprio's output as Slurm 22.05 prints it (src/sprio:
 * opts.c, print.c, sort.c, sprio.c): the default formats, -o parsing, -S
 * sorting, each letter's header and value, the widths and the cutting of
 * values to them, and -w's line of weights. Pure: no I/O but the FILE it is
 * given; the jobs and weights come from the caller. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sprio_format.h"

/* Slurm's fuzzy_equal: factors closer than this sort as equal. */
#define SPRIO_FUZZ 1e-6

const char *sprio_default_format(const struct sprio_weights *w,
				 const struct sprio_mode *m, char *buf, size_t len)
{
	bool tres = w->tres && *w->tres;
	const char *age = m->normalized ? " %10a" : " %.10A";
	const char *assoc = m->normalized ? " %10b" : " %.10B";
	const char *fs = m->normalized ? " %10f" : " %.10F";
	const char *js = m->normalized ? " %10j" : " %.10J";
	const char *part = m->normalized ? " %10p" : " %.10P";
	const char *qos = m->normalized ? " %10q" : " %.10Q";

	if (m->long_list && m->normalized)
		snprintf(buf, len, "%s",
			 "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t");
	else if (m->long_list)
		snprintf(buf, len, "%s",
			 "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q "
			 "%.11N %.20T");
	else
		snprintf(buf, len, "%%.15i %%9r%s%s%s%s%s%s%s%s%s%s",
			 m->sibling ? " %.8c" : "", m->users ? " %.8u" : "",
			 m->normalized ? " %10y" : " %.10Y %.10S", w->age ? age : "",
			 w->assoc ? assoc : "", w->fairshare ? fs : "",
			 w->job_size ? js : "", w->partition ? part : "",
			 w->qos ? qos : "",
			 tres ? (m->normalized ? " %20t" : " %.20T") : "");
	return buf;
}

/* --- -o -------------------------------------------------------------------- */

static const char known_letters[] = "aAbBcfFijJnNopPqQrSTtuyY";

static int add_item(struct sprio_format *f, char field, int width, bool right,
		    const char *text, size_t text_len)
{
	struct sprio_item *items = realloc(f->items, (f->n + 1) * sizeof(*items));
	char *copy = strndup(text, text_len);

	if (items)
		f->items = items;
	if (!items || !copy) {
		free(copy);
		return -ENOMEM;
	}
	f->items[f->n++] = (struct sprio_item){field, width, right, copy};
	return 0;
}

/* One token between runs of '%': [.][width]letter[text]. */
static int parse_token(const char *tok, size_t len, struct sprio_format *f,
		       sprio_bad_f bad, void *arg)
{
	size_t i = 0;
	bool right = false;
	int width = 0;
	char letter;

	if (tok[i] == '.') {
		right = true;
		i++;
	}
	while (i < len && tok[i] >= '0' && tok[i] <= '9') {
		if (width < 100000)
			width = width * 10 + (tok[i] - '0');
		i++;
	}
	letter = i < len ? tok[i++] : '\0';
	if (!letter || !strchr(known_letters, letter)) {
		if (bad)
			bad(letter, arg);
		return 0;
	}
	return add_item(f, letter, width, right, tok + i, len - i);
}

int sprio_format_parse(const char *fmt, struct sprio_format *out, sprio_bad_f bad,
		       void *arg)
{
	struct sprio_format f = {NULL, 0};
	const char *p = fmt, *pct = strchr(fmt, '%');
	int rc = 0;

	/* the text before the first '%' is printed as it is, on every line */
	if (pct != fmt)
		rc = add_item(&f, 0, 0, false, fmt,
			      pct ? (size_t)(pct - fmt) : strlen(fmt));
	p = pct;
	while (!rc && p && *p) {
		const char *start = p + strspn(p, "%");
		size_t len = strcspn(start, "%");

		if (len)
			rc = parse_token(start, len, &f, bad, arg);
		p = start + len;
	}
	if (rc) {
		sprio_format_fini(&f);
		return rc;
	}
	*out = f;
	return 0;
}

void sprio_format_fini(struct sprio_format *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->items[i].text);
	free(f->items);
	f->items = NULL;
	f->n = 0;
}

/* --- values ----------------------------------------------------------------- */

/* A factor times its weight, as Slurm keeps it in the job's record; an
 * administrator's priority leaves every factor 0. */
static double weighted(const struct sprio_job *j, double factor, uint32_t weight)
{
	return j->direct_prio ? 0.0 : factor * (double)weight;
}

/* What sprio -n shows: the weighted value over its weight, 0 without one. */
static double normal(double weighted_value, uint32_t weight)
{
	return weight ? weighted_value / (double)weight : 0.0;
}

double sprio_priority(const struct sprio_job *j, const struct sprio_weights *w)
{
	double p;

	if (j->direct_prio)
		return (double)j->direct_prio;
	p = weighted(j, j->age, w->age) + weighted(j, j->assoc, w->assoc) +
	    weighted(j, j->fairshare, w->fairshare) +
	    weighted(j, j->job_size, w->job_size) + weighted(j, j->part, w->partition) +
	    weighted(j, j->qos_factor, w->qos) + (double)j->site - (double)j->nice;
	for (size_t i = 0; i < j->n_tres; i++)
		p += j->tres[i].factor * j->tres[i].weight;
	return p < 1 ? 1 : p; /* 0 is a held job's */
}

static double tres_sum(const struct sprio_job *j)
{
	double s = 0;

	for (size_t i = 0; !j->direct_prio && i < j->n_tres; i++)
		s += j->tres[i].factor * j->tres[i].weight;
	return s;
}

/* "cpu=500,gres/gpu=300" (weighted, %.0f) or "cpu=0.25,..." (normalized,
 * %.2f): the TRES whose weighted value is not 0. */
static void tres_text(const struct sprio_job *j, bool normalized, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; !j->direct_prio && i < j->n_tres && used < len; i++) {
		const struct sprio_tres *t = &j->tres[i];
		double v = t->factor * t->weight;
		int k;

		if (v == 0.0)
			continue;
		if (normalized)
			k = snprintf(buf + used, len - used, "%s%s=%.2f", used ? "," : "",
				     t->name ? t->name : "", v / t->weight);
		else
			k = snprintf(buf + used, len - used, "%s%s=%.0f", used ? "," : "",
				     t->name ? t->name : "", v);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

static const char *header_of(char letter)
{
	switch (letter) {
	case 'a':
	case 'A':
		return "AGE";
	case 'b':
	case 'B':
		return "ASSOC";
	case 'c':
		return "CLUSTER";
	case 'f':
	case 'F':
		return "FAIRSHARE";
	case 'i':
		return "JOBID";
	case 'j':
	case 'J':
		return "JOBSIZE";
	case 'n':
		return "QOSNAME";
	case 'N':
		return "NICE";
	case 'o':
		return "ACCOUNT";
	case 'p':
	case 'P':
	case 'r':
		return "PARTITION";
	case 'q':
	case 'Q':
		return "QOS";
	case 'S':
		return "SITE";
	case 't':
	case 'T':
		return "TRES";
	case 'u':
		return "USER";
	default: /* y, Y */
		return "PRIORITY";
	}
}

/* A factor's weight and weighted value, by its letter (either case). */
static bool factor_of(char letter, const struct sprio_job *j,
		      const struct sprio_weights *w, uint32_t *weight, double *value)
{
	switch (letter | 0x20) {
	case 'a':
		*weight = w->age;
		*value = j ? weighted(j, j->age, w->age) : 0;
		return true;
	case 'b':
		*weight = w->assoc;
		*value = j ? weighted(j, j->assoc, w->assoc) : 0;
		return true;
	case 'f':
		*weight = w->fairshare;
		*value = j ? weighted(j, j->fairshare, w->fairshare) : 0;
		return true;
	case 'j':
		*weight = w->job_size;
		*value = j ? weighted(j, j->job_size, w->job_size) : 0;
		return true;
	case 'p':
		*weight = w->partition;
		*value = j ? weighted(j, j->part, w->partition) : 0;
		return true;
	case 'q':
		*weight = w->qos;
		*value = j ? weighted(j, j->qos_factor, w->qos) : 0;
		return true;
	default:
		return false;
	}
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* -w's line: each factor's weight, 1 for the site factor, PriorityWeightTRES
 * as configured, "Weights" for the job id, nothing elsewhere. */
static const char *weight_value(char letter, const struct sprio_weights *w, char *buf,
				size_t len)
{
	uint32_t weight;
	double unused;

	if (factor_of(letter, NULL, w, &weight, &unused)) {
		snprintf(buf, len, "%u", weight);
		return buf;
	}
	switch (letter) {
	case 'i':
		return "Weights";
	case 'S':
		return "1";
	case 'T':
		return str_or_empty(w->tres);
	default:
		return "";
	}
}

static const char *priority_value(char letter, const struct sprio_job *j,
				  const struct sprio_weights *w, char *buf, size_t len)
{
	double p = sprio_priority(j, w);

	if (letter == 'Y')
		snprintf(buf, len, "%lld", (long long)p);
	else /* Slurm shows an administrator's priority itself, not over 2^32-1 */
		snprintf(buf, len, "%16.14f",
			 j->direct_prio ? p : p / (double)UINT32_MAX);
	return buf;
}

static const char *job_value(char letter, const struct sprio_job *j,
			     const struct sprio_weights *w, char *buf, size_t len)
{
	uint32_t weight;
	double v;

	if (factor_of(letter, j, w, &weight, &v)) {
		if (letter >= 'a') /* lower case: normalized */
			snprintf(buf, len, "%.7f", normal(v, weight));
		else
			snprintf(buf, len, "%.0f", v);
		return buf;
	}
	switch (letter) {
	case 'c':
		return str_or_empty(j->cluster);
	case 'i':
		snprintf(buf, len, "%u", j->job_id);
		return buf;
	case 'n':
		return str_or_empty(j->qos);
	case 'N':
		snprintf(buf, len, "%.0f", j->direct_prio ? 0.0 : (double)j->nice);
		return buf;
	case 'o':
		return str_or_empty(j->account);
	case 'r':
		return str_or_empty(j->partition);
	case 'S':
		snprintf(buf, len, "%.0f", j->direct_prio ? 0.0 : (double)j->site);
		return buf;
	case 't':
	case 'T':
		tres_text(j, letter == 't', buf, len);
		return buf;
	case 'u':
		return str_or_empty(j->user);
	default: /* y, Y */
		return priority_value(letter, j, w, buf, len);
	}
}

/* Slurm's _print_str: right-justified in width, or cut to width and padded
 * on the right; longer values are cut to width either way. */
static void put(FILE *out, const char *s, int width, bool right)
{
	size_t n = strlen(s);

	if (!width) {
		fputs(s, out);
		return;
	}
	if (n > (size_t)width)
		n = (size_t)width;
	if (right)
		fprintf(out, "%*.*s", width, (int)n, s);
	else
		fprintf(out, "%-*.*s", width, (int)n, s);
}

/* One line: the header (no job, not weights_row), a job, or the weights. */
static void print_line(const struct sprio_format *f, const struct sprio_weights *w,
		       const struct sprio_job *j, bool weights_row, FILE *out)
{
	char buf[1024];

	for (size_t i = 0; i < f->n; i++) {
		const struct sprio_item *it = &f->items[i];
		const char *v;

		if (it->field) {
			if (weights_row)
				v = weight_value(it->field, w, buf, sizeof(buf));
			else if (j)
				v = job_value(it->field, j, w, buf, sizeof(buf));
			else
				v = header_of(it->field);
			put(out, v, it->width, it->right);
		}
		fputs(it->text, out);
	}
	fputc('\n', out);
}

void sprio_print(const struct sprio_format *f, const struct sprio_weights *w,
		 const struct sprio_job *jobs, size_t n, bool no_header,
		 bool weights_only, FILE *out)
{
	if (!no_header)
		print_line(f, w, NULL, false, out);
	if (weights_only) {
		print_line(f, w, NULL, true, out);
		return;
	}
	for (size_t i = 0; i < n; i++)
		print_line(f, w, &jobs[i], false, out);
}

/* --- -S ----------------------------------------------------------------------- */

struct sort_key {
	char letter;
	bool descending;
};

struct sort_ctx {
	const struct sort_key *keys;
	size_t n_keys;
	const struct sprio_weights *w;
};

struct sort_entry {
	struct sprio_job job;
	size_t index; /* the given order, for ties */
};

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_double(double a, double b)
{
	if (a - b > -SPRIO_FUZZ && a - b < SPRIO_FUZZ)
		return 0;
	return a < b ? -1 : 1;
}

static int cmp_int(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_key(char letter, const struct sprio_job *a, const struct sprio_job *b,
		   const struct sprio_weights *w)
{
	uint32_t weight;
	double va, vb;

	if (factor_of(letter, a, w, &weight, &va)) {
		factor_of(letter, b, w, &weight, &vb);
		return cmp_double(va, vb);
	}
	switch (letter) {
	case 'c':
		return cmp_str(a->cluster, b->cluster);
	case 'i':
		return cmp_int(a->job_id, b->job_id);
	case 'N':
		return cmp_int(a->nice, b->nice);
	case 'r':
		return cmp_str(a->partition, b->partition);
	case 'u':
		return cmp_str(a->user, b->user);
	case 't':
	case 'T':
		return cmp_double(tres_sum(a), tres_sum(b));
	default: /* y, Y */
		return cmp_double(sprio_priority(a, w), sprio_priority(b, w));
	}
}

static int cmp_entries(const void *x, const void *y, void *arg)
{
	const struct sort_entry *a = x, *b = y;
	const struct sort_ctx *c = arg;

	for (size_t k = 0; k < c->n_keys; k++) {
		int r = cmp_key(c->keys[k].letter, &a->job, &b->job, c->w);

		if (r)
			return c->keys[k].descending ? -r : r;
	}
	return (a->index > b->index) - (a->index < b->index);
}

/* Slurm's letters for -S: each one a key, '-' right before it descending. */
static int parse_sort(const char *spec, struct sort_key *keys, size_t *n_keys, char *bad)
{
	static const char sortable[] = "aAcfFiNjJpPqQrtTuyY";
	size_t n = 0;

	for (size_t i = 0; spec[i]; i++) {
		char c = spec[i];

		if (c == ',' || c == '-' || c == '+')
			continue;
		if (!strchr(sortable, c)) {
			if (bad)
				*bad = c;
			return -EINVAL;
		}
		keys[n++] = (struct sort_key){c, i > 0 && spec[i - 1] == '-'};
	}
	*n_keys = n;
	return 0;
}

int sprio_sort(struct sprio_job *jobs, size_t n, const char *spec,
	       const struct sprio_weights *w, char *bad)
{
	struct sort_key *keys = calloc(strlen(spec ? spec : "i") + 1, sizeof(*keys));
	struct sort_entry *e = calloc(n ? n : 1, sizeof(*e));
	struct sort_ctx ctx = {keys, 0, w};
	int rc = -ENOMEM;

	if (!keys || !e)
		goto out;
	rc = parse_sort(spec ? spec : "i", keys, &ctx.n_keys, bad);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++)
		e[i] = (struct sort_entry){jobs[i], i};
	qsort_r(e, n, sizeof(*e), cmp_entries, &ctx);
	for (size_t i = 0; i < n; i++)
		jobs[i] = e[i].job;
out:
	free(keys);
	free(e);
	return rc;
}
