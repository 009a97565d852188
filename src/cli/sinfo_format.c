/* sinfo_format.c — sinfo's fields: one table row per format letter (its
 * header, whether the value is cut to the width, how it is made from a
 * line's partition and nodes), the format parser and the printer. Values
 * that sum or span a line's nodes (counts, CPU totals, node lists, minimum
 * CPUs and memory) are computed here too. */
#include "cli/sinfo_format.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/timeshow.h"
#include "common/hostlist.h"
#include "common/timefmt.h"

void si_node_from_rec(const struct drv_rec_node *r, struct si_node *n)
{
	*n = (struct si_node){
	    .name = r->name,
	    .state = r->state,
	    .reason = r->reason && *r->reason ? r->reason : NULL,
	    .reason_user = r->reason_user,
	    .gres = r->gres,
	    .features = r->features,
	    .addr = r->addr ? r->addr : r->name,
	    .hostname = r->hostname ? r->hostname : r->name,
	    .partitions = r->partitions,
	    .n_partitions = r->n_partitions,
	    .drain = r->drain,
	    .not_responding = r->not_responding,
	    .cpus = r->cpus,
	    .alloc_cpus = r->alloc_cpus,
	    .real_memory = r->real_memory,
	    .tmp_disk = r->tmp_disk,
	    .alloc_memory = r->alloc_memory,
	    .reason_time = r->reason_time,
	    .port = r->port,
	    .gres_used = r->gres_used,
	    .weight = r->weight,
	};
}

void si_part_from_rec(const struct drv_rec_partition *r, struct si_part *p)
{
	*p = (struct si_part){
	    .name = r->name,
	    .nodes = r->nodes ? r->nodes : "",
	    .state = r->state ? r->state : "UP",
	    .is_default = r->is_default,
	    .max_time = r->max_time,
	    .default_time = r->default_time,
	    .total_nodes = r->total_nodes,
	    .total_cpus = r->total_cpus,
	    .min_nodes = r->min_nodes,
	    .max_nodes = r->max_nodes,
	    .max_cpus_per_node = r->max_cpus_per_node,
	    .priority_tier = r->priority_tier,
	    .priority_job_factor = r->priority_job_factor,
	    .oversubscribe = r->oversubscribe ? r->oversubscribe : "NO",
	    .allow_groups = r->allow_groups,
	};
}

/* 0 idle, 1 allocated, 2 mixed, 3 down, 4 unknown. */
static int base(const struct si_node *n)
{
	static const char *const names[] = {"IDLE", "ALLOCATED", "MIXED", "DOWN"};

	for (int i = 0; i < 4; i++)
		if (!strcasecmp(n->state, names[i]))
			return i;
	return 4;
}

static const char *state_name(const struct si_node *n, bool compact)
{
	static const char *const c[] = {"idle", "alloc", "mix", "down", "unk"};
	static const char *const l[] = {"idle", "allocated", "mixed", "down", "unknown"};
	int b = base(n);

	if (n->drain && b != 3) {
		if (b == 1 || b == 2)
			return compact ? "drng" : "draining";
		return compact ? "drain" : "drained";
	}
	return compact ? c[b] : l[b];
}

const char *si_state_compact(const struct si_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", state_name(n, true), n->not_responding ? "*" : "");
	return buf;
}

const char *si_state_long(const struct si_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", state_name(n, false), n->not_responding ? "*" : "");
	return buf;
}

/* --- field values --------------------------------------------------------- */

typedef void (*field_f)(const struct si_row *r, char *buf, size_t len);

static const struct si_node *first(const struct si_row *r)
{
	return r->n ? r->nodes[0] : NULL;
}

static void fmt_time(int64_t secs, char *b, size_t l)
{
	if (secs == -1)
		snprintf(b, l, "infinite");
	else if (secs < 0)
		snprintf(b, l, "n/a");
	else
		drv_time_fmt_elapsed(secs, b, l);
}

static void f_part(const struct si_row *r, char *b, size_t l)
{
	const char *name = r->part ? r->part->name : "";
	snprintf(b, l, "%s%s", name, r->part && r->part->is_default ? "*" : "");
}

static void f_part_name(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%s", r->part ? r->part->name : "");
}

static void f_avail(const struct si_row *r, char *b, size_t l)
{
	const char *s = r->part ? r->part->state : "UP";
	size_t i;

	for (i = 0; s[i] && i + 1 < l; i++)
		b[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	b[i] = '\0';
	if (!strcmp(b, "inactive"))
		snprintf(b, l, "inact");
}

static void f_limit(const struct si_row *r, char *b, size_t l)
{
	fmt_time(r->part ? r->part->max_time : -1, b, l);
}

static void f_deflimit(const struct si_row *r, char *b, size_t l)
{
	fmt_time(r->part ? r->part->default_time : -2, b, l);
}

static void f_count(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%zu", r->n);
}

static void f_compact(const struct si_row *r, char *b, size_t l)
{
	if (first(r))
		si_state_compact(first(r), b, l);
	else
		snprintf(b, l, "n/a");
}

static void f_long(const struct si_row *r, char *b, size_t l)
{
	if (first(r))
		si_state_long(first(r), b, l);
	else
		snprintf(b, l, "n/a");
}

/* Names (or addresses, or host names) of the line's nodes, compressed. */
static void node_list(const struct si_row *r, int which, char *b, size_t l)
{
	char **names = calloc(r->n + 1, sizeof(*names));
	char *s;

	b[0] = '\0';
	if (!names)
		return;
	for (size_t i = 0; i < r->n; i++)
		names[i] = (char *)(which == 0	 ? r->nodes[i]->name
				    : which == 1 ? r->nodes[i]->addr
						 : r->nodes[i]->hostname);
	s = drv_hostlist_compress(names, r->n);
	snprintf(b, l, "%s", s ? s : "");
	free(s);
	free(names);
}

static void f_nodes(const struct si_row *r, char *b, size_t l)
{
	node_list(r, 0, b, l);
}

static void f_addrs(const struct si_row *r, char *b, size_t l)
{
	node_list(r, 1, b, l);
}

static void f_hosts(const struct si_row *r, char *b, size_t l)
{
	node_list(r, 2, b, l);
}

static const char *or_null(const char *s)
{
	return s && *s ? s : "(null)";
}

static void f_gres(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%s", or_null(first(r) ? first(r)->gres : NULL));
}

static void f_features(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%s", or_null(first(r) ? first(r)->features : NULL));
}

/* The smallest value, with "+" when the nodes differ (Slurm's "250+"). */
enum si_num { SI_CPUS, SI_MEM, SI_TMP };

static void min_plus(const struct si_row *r, enum si_num what, char *b, size_t l)
{
	int64_t lo = INT64_MAX, hi = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct si_node *nd = r->nodes[i];
		int64_t v = what == SI_MEM   ? nd->real_memory
			    : what == SI_TMP ? nd->tmp_disk
					     : nd->cpus;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (!r->n)
		lo = hi = 0;
	snprintf(b, l, "%" PRId64 "%s", lo, hi > lo ? "+" : "");
}

static void f_cpus(const struct si_row *r, char *b, size_t l)
{
	min_plus(r, SI_CPUS, b, l);
}

static void f_tmp_disk(const struct si_row *r, char *b, size_t l)
{
	min_plus(r, SI_TMP, b, l);
}

static void f_memory(const struct si_row *r, char *b, size_t l)
{
	min_plus(r, SI_MEM, b, l);
}

/* A node counts as "other" when it cannot run jobs (down or drained). */
static bool other(const struct si_node *n)
{
	return base(n) >= 3 || n->drain || n->not_responding;
}

static void f_cpu_aiot(const struct si_row *r, char *b, size_t l)
{
	int64_t a = 0, i = 0, o = 0, t = 0;

	for (size_t k = 0; k < r->n; k++) {
		const struct si_node *n = r->nodes[k];
		t += n->cpus;
		if (other(n)) {
			o += n->cpus - n->alloc_cpus;
			a += n->alloc_cpus;
		} else {
			a += n->alloc_cpus;
			i += n->cpus - n->alloc_cpus;
		}
	}
	snprintf(b, l, "%" PRId64 "/%" PRId64 "/%" PRId64 "/%" PRId64, a, i, o, t);
}

static void node_aiot(const struct si_row *r, bool with_other, char *b, size_t l)
{
	size_t a = 0, i = 0, o = 0;

	for (size_t k = 0; k < r->n; k++) {
		const struct si_node *n = r->nodes[k];
		if (other(n))
			o++;
		else if (n->alloc_cpus > 0 || base(n) == 1 || base(n) == 2)
			a++;
		else
			i++;
	}
	if (with_other)
		snprintf(b, l, "%zu/%zu/%zu/%zu", a, i, o, r->n);
	else
		snprintf(b, l, "%zu/%zu", a, i);
}

static void f_node_aiot(const struct si_row *r, char *b, size_t l)
{
	node_aiot(r, true, b, l);
}

static void f_node_ai(const struct si_row *r, char *b, size_t l)
{
	node_aiot(r, false, b, l);
}

static void f_reason(const struct si_row *r, char *b, size_t l)
{
	const struct si_node *n = first(r);
	snprintf(b, l, "%s", n && n->reason ? n->reason : "none");
}

static void f_reason_time(const struct si_row *r, char *b, size_t l)
{
	const struct si_node *n = first(r);

	if (n && n->reason && n->reason_time > 0)
		cli_fmt_time((time_t)n->reason_time, b, l);
	else
		snprintf(b, l, "Unknown");
}

static void f_user(const struct si_row *r, char *b, size_t l)
{
	const struct si_node *n = first(r);
	snprintf(b, l, "%s",
		 n && n->reason && n->reason_user ? n->reason_user : "Unknown");
}

static void f_user_long(const struct si_row *r, char *b, size_t l)
{
	const struct si_node *n = first(r);
	const struct passwd *pw;

	if (!n || !n->reason || !n->reason_user) {
		snprintf(b, l, "Unknown");
		return;
	}
	pw = getpwnam(n->reason_user);
	if (pw)
		snprintf(b, l, "%s(%u)", n->reason_user, (unsigned)pw->pw_uid);
	else
		snprintf(b, l, "%s", n->reason_user);
}

static void f_sct(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64 ":1:1", first(r) ? first(r)->cpus : 0);
}

static void f_sockets(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, first(r) ? first(r)->cpus : 0);
}

static void f_free_mem(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "N/A");
}

/* The partition's settings: without a partition (sinfo -N of a node in
 * none) Slurm prints n/a. */
static void f_max_cpus(const struct si_row *r, char *b, size_t l)
{
	if (r->part && r->part->max_cpus_per_node >= 0)
		snprintf(b, l, "%" PRId64, r->part->max_cpus_per_node);
	else
		snprintf(b, l, "UNLIMITED");
}

static void f_groups(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%s",
		 !r->part		 ? "n/a"
		 : r->part->allow_groups ? r->part->allow_groups
					 : "all");
}

static void f_oversub(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%s", r->part ? r->part->oversubscribe : "NO");
}

static void f_prio_tier(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, r->part ? r->part->priority_tier : 1);
}

static void f_prio_factor(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, r->part ? r->part->priority_job_factor : 1);
}

/* %s: MinNodes-MaxNodes as Slurm's sinfo prints them ("1-infinite",
 * "2-4", "3"); a MinNodes of 0 shows as 1. */
static void f_job_size(const struct si_row *r, char *b, size_t l)
{
	if (!r->part) {
		snprintf(b, l, "n/a");
		return;
	}
	int64_t min = r->part->min_nodes, max = r->part->max_nodes;
	if (min < 1 && max != 0)
		min = 1;
	if (max == min)
		snprintf(b, l, "%" PRId64, min);
	else if (max < 0)
		snprintf(b, l, "%" PRId64 "-infinite", min);
	else
		snprintf(b, l, "%" PRId64 "-%" PRId64, min, max);
}

static void f_weight(const struct si_row *r, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, first(r) ? first(r)->weight : 1);
}

#define CONST_FIELD(fname, text)                                                         \
	static void fname(const struct si_row *r, char *b, size_t l)                     \
	{                                                                                \
		snprintf(b, l, "%s", text);                                              \
	}

CONST_FIELD(f_one, "1")
CONST_FIELD(f_no, "no")
CONST_FIELD(f_load, "N/A")
CONST_FIELD(f_alloc_nodes, "all")
CONST_FIELD(f_off, "OFF")
CONST_FIELD(f_version, "22.05.8")

struct field_row {
	char letter;
	const char *header;
	bool cut;
	bool summed; /* the value spans the line's nodes: not a grouping key */
	field_f value;
};

static const struct field_row fields[] = {
    {'a', "AVAIL", true, false, f_avail},
    {'A', "NODES(A/I)", true, true, f_node_ai},
    {'b', "ACTIVE_FEATURES", true, false, f_features},
    {'B', "MAX_CPUS_PER_NODE", true, false, f_max_cpus},
    {'c', "CPUS", true, true, f_cpus},
    {'C', "CPUS(A/I/O/T)", true, true, f_cpu_aiot},
    {'d', "TMP_DISK", true, false, f_tmp_disk},
    {'D', "NODES", true, true, f_count},
    {'e', "FREE_MEM", true, false, f_free_mem},
    {'E', "REASON", true, false, f_reason},
    {'f', "AVAIL_FEATURES", true, false, f_features},
    {'F', "NODES(A/I/O/T)", true, true, f_node_aiot},
    {'g', "GROUPS", true, false, f_groups},
    {'G', "GRES", true, false, f_gres},
    {'h', "OVERSUBSCRIBE", true, false, f_oversub},
    {'H', "TIMESTAMP", true, false, f_reason_time},
    {'I', "PRIO_JOB_FACTOR", true, false, f_prio_factor},
    {'l', "TIMELIMIT", true, false, f_limit},
    {'L', "DEFAULTTIME", true, false, f_deflimit},
    {'m', "MEMORY", true, true, f_memory},
    {'M', "PREEMPT_MODE", true, false, f_off},
    {'n', "HOSTNAMES", true, true, f_hosts},
    {'N', "NODELIST", true, true, f_nodes},
    {'o', "NODE_ADDR", true, true, f_addrs},
    {'O', "CPU_LOAD", true, false, f_load},
    {'p', "PRIO_TIER", true, false, f_prio_tier},
    {'P', "PARTITION", true, false, f_part},
    {'r', "ROOT", true, false, f_no},
    {'R', "PARTITION", true, false, f_part_name},
    {'s', "JOB_SIZE", true, false, f_job_size},
    {'S', "ALLOCNODES", true, false, f_alloc_nodes},
    {'t', "STATE", true, false, f_compact},
    {'T', "STATE", true, false, f_long},
    {'u', "USER", true, false, f_user},
    {'U', "USER", true, false, f_user_long},
    {'v', "VERSION", true, false, f_version},
    {'V', "CLUSTER", true, false, f_load},
    {'w', "WEIGHT", true, false, f_weight},
    {'X', "SOCKETS", true, false, f_sockets},
    {'Y', "CORES", true, false, f_one},
    {'z', "S:C:T", true, false, f_sct},
    {'Z', "THREADS", true, false, f_one},
};

static const struct field_row *find_field(char letter)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].letter == letter)
			return &fields[i];
	return NULL;
}

bool si_field_summed(char letter)
{
	const struct field_row *row = find_field(letter);
	return row && row->summed;
}

void si_field_value(char letter, const struct si_row *r, char *buf, size_t len)
{
	const struct field_row *row = find_field(letter);

	if (row)
		row->value(r, buf, len);
	else
		buf[0] = '\0';
}

/* --- parsing and printing ---------------------------------------------- */

static int push(struct si_format *f, struct si_item it, const char *text, size_t len)
{
	struct si_item *items = realloc(f->items, (f->n + 1) * sizeof(*items));

	if (!items)
		return -ENOMEM;
	f->items = items;
	if (!it.field && !(it.text = strndup(text, len)))
		return -ENOMEM;
	items[f->n++] = it;
	return 0;
}

/* One token: the text between two '%' ([.#][width]letter suffix). */
static int parse_token(struct si_format *f, const char *tok, size_t len, bool builtin,
		       si_bad_f bad, void *arg)
{
	struct si_item it = {0};
	size_t i = 0;
	int rc;

	for (; i < len && (tok[i] == '.' || (builtin && tok[i] == '#')); i++) {
		if (tok[i] == '#')
			it.fit = true;
		else
			it.right = true;
	}
	while (i < len && tok[i] >= '0' && tok[i] <= '9' && it.width < 100000)
		it.width = it.width * 10 + (tok[i++] - '0');
	if (i < len && find_field(tok[i])) {
		it.field = tok[i++];
		rc = push(f, it, NULL, 0);
		if (rc == 0 && i < len)
			rc = push(f, (struct si_item){0}, tok + i, len - i);
		return rc;
	}
	if (bad)
		bad(tok + i, i < len ? 1 : 0, arg);
	rc = push(f, (struct si_item){0}, "%", 1);
	return rc == 0 ? push(f, (struct si_item){0}, tok, len) : rc;
}

int si_format_parse(const char *fmt, bool builtin, struct si_format *out, si_bad_f bad,
		    void *arg)
{
	struct si_format f = {0};
	const char *p = strchr(fmt, '%');
	int rc = 0;

	if (!p)
		p = fmt + strlen(fmt);
	if (p > fmt)
		rc = push(&f, (struct si_item){0}, fmt, (size_t)(p - fmt));
	while (rc == 0 && *p) {
		const char *tok = p + 1;
		const char *next = strchr(tok, '%');
		size_t len = next ? (size_t)(next - tok) : strlen(tok);

		if (len > 0) /* "%%" gives an empty token, dropped as Slurm does */
			rc = parse_token(&f, tok, len, builtin, bad, arg);
		p = tok + len;
	}
	if (rc < 0) {
		si_format_fini(&f);
		return rc;
	}
	*out = f;
	return 0;
}

/* sinfo -O names and the letters they stand for. */
static const struct {
	const char *name;
	char letter;
} long_names[] = {
    {"allocnodes", 'S'},
    {"available", 'a'},
    {"cluster", 'V'},
    {"cpus", 'c'},
    {"cpusload", 'O'},
    {"freemem", 'e'},
    {"cpusstate", 'C'},
    {"cores", 'Y'},
    {"defaulttime", 'L'},
    {"disk", 'd'},
    {"features", 'f'},
    {"features_act", 'b'},
    {"groups", 'g'},
    {"gres", 'G'},
    {"maxcpuspernode", 'B'},
    {"memory", 'm'},
    {"nodeai", 'A'},
    {"nodeaiot", 'F'},
    {"nodehost", 'n'},
    {"nodeaddr", 'o'},
    {"nodelist", 'N'},
    {"nodes", 'D'},
    {"oversubscribe", 'h'},
    {"partition", 'P'},
    {"partitionname", 'R'},
    {"preemptmode", 'M'},
    {"prioritytier", 'p'},
    {"priorityjobfactor", 'I'},
    {"reason", 'E'},
    {"root", 'r'},
    {"size", 's'},
    {"statecompact", 't'},
    {"statelong", 'T'},
    {"sockets", 'X'},
    {"socketcorethread", 'z'},
    {"time", 'l'},
    {"timestamp", 'H'},
    {"threads", 'Z'},
    {"user", 'u'},
    {"userlong", 'U'},
    {"version", 'v'},
    {"weight", 'w'},
};

static char long_letter(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(long_names) / sizeof(long_names[0]); i++)
		if (strlen(long_names[i].name) == len &&
		    !strncasecmp(long_names[i].name, name, len))
			return long_names[i].letter;
	return 0;
}

static int long_item(struct si_format *f, const char *item, size_t len, si_bad_f bad,
		     void *arg)
{
	const char *colon = memchr(item, ':', len), *end = item + len, *p = end;
	size_t nlen = colon ? (size_t)(colon - item) : len;
	struct si_item it = {.field = long_letter(item, nlen), .width = 20};
	int rc = 0;

	if (colon) {
		p = colon + 1;
		if (p < end && *p == '.') {
			it.right = true;
			p++;
		}
		for (it.width = 0; p < end && *p >= '0' && *p <= '9' && it.width < 100000;
		     p++)
			it.width = it.width * 10 + (*p - '0');
	}
	if (!it.field && bad)
		bad(item, nlen, arg);
	if (it.field)
		rc = push(f, it, NULL, 0);
	if (rc == 0 && p < end)
		rc = push(f, (struct si_item){0}, p, (size_t)(end - p));
	return rc;
}

int si_format_parse_long(const char *spec, struct si_format *out, si_bad_f bad, void *arg)
{
	struct si_format f = {0};
	int rc = 0;

	for (const char *p = spec; rc == 0 && *p;) {
		size_t len = strcspn(p, ",");
		if (len > 0)
			rc = long_item(&f, p, len, bad, arg);
		p += len + (p[len] == ',');
	}
	if (rc < 0) {
		si_format_fini(&f);
		return rc;
	}
	*out = f;
	return 0;
}

void si_format_fini(struct si_format *f)
{
	for (size_t i = 0; f && i < f->n; i++)
		free(f->items[i].text);
	if (f) {
		free(f->items);
		f->items = NULL;
		f->n = 0;
	}
}

/* Slurm's _print_str: right-justified text is cut only when cut is set;
 * left-justified text is always cut to the width. */
static void print_str(FILE *out, const char *s, int width, bool right, bool cut)
{
	int len = (int)strlen(s);

	if (width <= 0)
		fputs(s, out);
	else if (!right)
		fprintf(out, "%-*.*s", width, width, s);
	else if (len > width && cut)
		fwrite(s, 1, (size_t)width, out);
	else
		fprintf(out, "%*s", width, s);
}

/* The width of item i: as written, or with '#' the widest value and at
 * least 9 (Slurm's MIN_PART_FIELD_SIZE and MIN_NODE_FIELD_SIZE). */
static int item_width(const struct si_item *it, const struct si_rows *rows)
{
	const struct field_row *row = find_field(it->field);
	char buf[4096];
	int w = 9;

	if (!it->fit)
		return it->width;
	for (size_t i = 0; i < rows->n; i++) {
		row->value(&rows->rows[i], buf, sizeof(buf));
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	return w;
}

/* %P with a width: the default partition's '*' replaces the last character
 * that fits (Slurm's "ba*" for %.3P). */
static void part_value(const struct si_row *r, int width, char *b, size_t l)
{
	f_part_name(r, b, l);
	if (!r->part || !r->part->is_default)
		return;
	if (width == 0 || (int)strlen(b) < width)
		snprintf(b + strlen(b), l - strlen(b), "*");
	else if ((size_t)width < l)
		b[width - 1] = '*';
}

static void print_line(const struct si_format *f, const int *widths,
		       const struct si_row *r, FILE *out)
{
	char buf[4096];

	for (size_t i = 0; i < f->n; i++) {
		const struct si_item *it = &f->items[i];
		const struct field_row *row;

		if (!it->field) {
			fputs(it->text, out);
			continue;
		}
		row = find_field(it->field);
		if (r && it->field == 'P')
			part_value(r, widths[i], buf, sizeof(buf));
		else if (r)
			row->value(r, buf, sizeof(buf));
		print_str(out, r ? buf : row->header, widths[i], it->right,
			  r ? row->cut : !strchr("Nno", it->field));
	}
	fputc('\n', out);
}

void si_print(const struct si_format *f, const struct si_rows *rows, bool no_header,
	      FILE *out)
{
	int *widths = calloc(f->n + 1, sizeof(*widths));

	if (!widths)
		return;
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].field)
			widths[i] = item_width(&f->items[i], rows);
	if (!no_header)
		print_line(f, widths, NULL, out);
	for (size_t i = 0; i < rows->n; i++)
		print_line(f, widths, &rows->rows[i], out);
	free(widths);
}
