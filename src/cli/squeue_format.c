/* squeue_format.c — squeue's format specifications: one table row per
 * letter (header, whether values are cut to the width, how the value is
 * made), the parser of "%[.][width]X" tokens, and the line printers. */
#include "cli/squeue_format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/state.h"
#include "common/timefmt.h"

typedef void (*field_f)(const struct cli_job *job, int64_t now, char *buf, size_t len);

struct field_row {
	char letter;
	const char *header;
	bool cut; /* Slurm does not cut node lists */
	field_f value;
};

static void f_id(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->job_id);
}

static void f_partition(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->partition);
}

static void f_name(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->name);
}

static void f_user(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->user);
}

static void f_uid(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->uid);
}

static void f_gid(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->gid);
}

static void f_compact(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", cli_state_compact(j->state));
}

static void f_state(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->state);
}

static void f_used(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	drv_time_fmt_elapsed(cli_job_elapsed(j, now), b, l);
}

static void fmt_limit(int64_t secs, char *b, size_t l)
{
	if (secs == -1)
		snprintf(b, l, "UNLIMITED");
	else if (secs < 0)
		snprintf(b, l, "NOT_SET");
	else
		drv_time_fmt_elapsed(secs, b, l);
}

static void f_limit(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	fmt_limit(j->time_limit, b, l);
}

static void f_left(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	int64_t left = j->time_limit;

	if (left >= 0) {
		left -= cli_job_elapsed(j, now);
		if (left < 0)
			left = 0;
	}
	fmt_limit(left, b, l);
}

static void f_nodes(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->num_nodes);
}

static void f_cpus(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->cpus);
}

static void f_nodelist(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->nodelist);
}

static void f_reason(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->reason);
}

/* %R: the reason in parentheses while pending and for jobs that ended
 * badly in a way Slurm explains (FAILED, TIMEOUT, OUT_OF_MEMORY, DEADLINE),
 * otherwise the node list. */
static void f_reason_list(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	static const char *const with_reason[] = {"PENDING", "FAILED", "TIMEOUT",
						  "OUT_OF_MEMORY", "DEADLINE"};

	for (size_t i = 0; i < sizeof(with_reason) / sizeof(with_reason[0]); i++) {
		if (!strcmp(j->state, with_reason[i])) {
			snprintf(b, l, "(%s)", j->reason);
			return;
		}
	}
	snprintf(b, l, "%s", j->nodelist);
}

static void f_priority(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->priority);
}

static void f_workdir(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->workdir);
}

static void f_comment(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->comment ? j->comment : "(null)");
}

static void f_command(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->command);
}

static void fmt_time(int64_t t, char *b, size_t l)
{
	if (t <= 0)
		snprintf(b, l, "N/A");
	else
		drv_time_fmt_iso((time_t)t, b, l);
}

static void f_submit(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	fmt_time(j->submit_time, b, l);
}

static void f_start(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	fmt_time(j->start_time, b, l);
}

static void f_end(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	fmt_time(j->end_time, b, l);
}

static void f_account(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->account ? j->account : "(null)");
}

static void f_qos(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->qos ? j->qos : "normal");
}

static void f_nice(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->nice);
}

static void f_min_memory(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	if (j->min_memory_text)
		snprintf(b, l, "%s", j->min_memory_text);
	else
		cli_mem_fmt(j->min_memory, b, l);
}

static void f_gres(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->gres ? j->gres : "N/A");
}

static void f_min_cpus(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%" PRId64, j->cpus_per_task > 0 ? j->cpus_per_task : 1);
}

static void f_dependency(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->dependency ? j->dependency : "(null)");
}

static void f_oversubscribe(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", j->exclusive ? "NO" : "OK");
}

static void f_array_index(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "N/A");
}

static void f_exec_host(const struct cli_job *j, int64_t now, char *b, size_t l)
{
	snprintf(b, l, "%s", *j->batch_host ? j->batch_host : "n/a");
}

static const struct field_row fields[] = {
    {'a', "ACCOUNT", true, f_account},
    {'A', "JOBID", true, f_id},
    {'b', "TRES_PER_NODE", true, f_gres},
    {'c', "MIN_CPUS", true, f_min_cpus},
    {'E', "DEPENDENCY", true, f_dependency},
    {'F', "ARRAY_JOB_ID", true, f_id},
    {'h', "OVER_SUBSCRIBE", true, f_oversubscribe},
    {'K', "ARRAY_TASK_ID", true, f_array_index},
    {'m', "MIN_MEMORY", true, f_min_memory},
    {'B', "EXEC_HOST", true, f_exec_host},
    {'C', "CPUS", true, f_cpus},
    {'D', "NODES", true, f_nodes},
    {'e', "END_TIME", true, f_end},
    {'G', "GROUP", true, f_gid},
    {'i', "JOBID", true, f_id},
    {'j', "NAME", true, f_name},
    {'k', "COMMENT", true, f_comment},
    {'l', "TIME_LIMIT", true, f_limit},
    {'L', "TIME_LEFT", true, f_left},
    {'M', "TIME", true, f_used},
    {'N', "NODELIST", false, f_nodelist},
    {'o', "COMMAND", true, f_command},
    {'P', "PARTITION", true, f_partition},
    {'q', "QOS", true, f_qos},
    {'Q', "PRIORITY", true, f_priority},
    {'r', "REASON", true, f_reason},
    {'R', "NODELIST(REASON)", true, f_reason_list},
    {'S', "START_TIME", true, f_start},
    {'t', "ST", true, f_compact},
    {'T', "STATE", true, f_state},
    {'u', "USER", true, f_user},
    {'U', "UID", true, f_uid},
    {'V', "SUBMIT_TIME", true, f_submit},
    {'y', "NICE", true, f_nice},
    {'Z', "WORK_DIR", true, f_workdir},
};

static const struct field_row *find_field(char letter)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].letter == letter)
			return &fields[i];
	return NULL;
}

static int push(struct sq_format *f, char field, int width, bool right, const char *text,
		size_t text_len)
{
	struct sq_item *items = realloc(f->items, (f->n + 1) * sizeof(*items));
	struct sq_item *it;

	if (!items)
		return -ENOMEM;
	f->items = items;
	it = &items[f->n];
	*it = (struct sq_item){.field = field, .width = width, .right = right};
	if (!field && !(it->text = strndup(text, text_len)))
		return -ENOMEM;
	f->n++;
	return 0;
}

/* One token: the text between two '%' ("." width letter suffix). */
static int parse_token(struct sq_format *f, const char *tok, size_t len, sq_bad_f bad,
		       void *arg)
{
	size_t i = 0;
	bool right = false;
	int width = 0;
	int rc;

	if (i < len && tok[i] == '.') {
		right = true;
		i++;
	}
	while (i < len && tok[i] >= '0' && tok[i] <= '9' && width < 100000)
		width = width * 10 + (tok[i++] - '0');
	if (i < len && find_field(tok[i])) {
		rc = push(f, tok[i], width, right, NULL, 0);
		i++;
		if (rc == 0 && i < len)
			rc = push(f, 0, 0, false, tok + i, len - i);
		return rc;
	}
	if (bad)
		bad(i < len ? tok[i] : '\0', arg);
	rc = push(f, 0, 0, false, "%", 1);
	return rc == 0 ? push(f, 0, 0, false, tok, len) : rc;
}

int sq_format_parse(const char *fmt, struct sq_format *out, sq_bad_f bad, void *arg)
{
	struct sq_format f = {0};
	const char *p = strchr(fmt, '%');
	int rc = 0;

	if (!p)
		p = fmt + strlen(fmt);
	if (p > fmt)
		rc = push(&f, 0, 0, false, fmt, (size_t)(p - fmt)); /* the prefix */
	while (rc == 0 && *p) {
		const char *tok = p + 1;
		const char *next = strchr(tok, '%');
		size_t len = next ? (size_t)(next - tok) : strlen(tok);

		if (len > 0) /* "%%" gives an empty token, skipped as Slurm does */
			rc = parse_token(&f, tok, len, bad, arg);
		p = tok + len;
	}
	if (rc < 0) {
		sq_format_fini(&f);
		return rc;
	}
	*out = f;
	return 0;
}

void sq_format_fini(struct sq_format *f)
{
	for (size_t i = 0; f && i < f->n; i++)
		free(f->items[i].text);
	if (f) {
		free(f->items);
		f->items = NULL;
		f->n = 0;
	}
}

void sq_print_str(FILE *out, const char *s, int width, bool right, bool cut)
{
	int len = (int)strlen(s);

	if (width <= 0) {
		fputs(s, out);
		return;
	}
	if (len > width && cut) {
		fwrite(s, 1, (size_t)width, out); /* Slurm keeps the first width chars */
		return;
	}
	if (right)
		fprintf(out, "%*s", width, s);
	else
		fprintf(out, "%-*s", width, s);
}

static void print_line(const struct sq_format *f, const struct cli_job *job, int64_t now,
		       FILE *out)
{
	char buf[4096];

	for (size_t i = 0; i < f->n; i++) {
		const struct sq_item *it = &f->items[i];
		const struct field_row *row;

		if (!it->field) {
			fputs(it->text, out);
			continue;
		}
		row = find_field(it->field);
		if (job)
			row->value(job, now, buf, sizeof(buf));
		sq_print_str(out, job ? buf : row->header, it->width, it->right,
			     job ? row->cut : true);
	}
	fputc('\n', out);
}

void sq_print_header(const struct sq_format *f, FILE *out)
{
	print_line(f, NULL, 0, out);
}

void sq_print_job(const struct sq_format *f, const struct cli_job *job, int64_t now,
		  FILE *out)
{
	print_line(f, job, now, out);
}

struct long_name {
	const char *name;
	char letter;
};

static const struct long_name long_names[] = {
    {"jobid", 'A'},	  {"jobarrayid", 'i'},	 {"arrayjobid", 'F'},
    {"arraytaskid", 'K'}, {"minmemory", 'm'},	 {"tres-per-node", 'b'},
    {"mincpus", 'c'},	  {"dependency", 'E'},	 {"oversubscribe", 'h'},
    {"shared", 'h'},	  {"statecompact", 't'}, {"state", 'T'},
    {"reason", 'r'},	  {"reasonlist", 'R'},	 {"name", 'j'},
    {"partition", 'P'},	  {"username", 'u'},	 {"userid", 'U'},
    {"timeused", 'M'},	  {"numnodes", 'D'},	 {"nodelist", 'N'},
    {"timelimit", 'l'},	  {"timeleft", 'L'},	 {"workdir", 'Z'},
    {"comment", 'k'},	  {"command", 'o'},	 {"prioritylong", 'Q'},
    {"numcpus", 'C'},	  {"submittime", 'V'},	 {"starttime", 'S'},
    {"endtime", 'e'},	  {"account", 'a'},	 {"qos", 'q'},
    {"batchhost", 'B'},	  {"groupid", 'G'},	 {"nice", 'y'},
};

static char long_letter(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(long_names) / sizeof(long_names[0]); i++)
		if (strlen(long_names[i].name) == len &&
		    !strncasecmp(long_names[i].name, name, len))
			return long_names[i].letter;
	return 0;
}

/* Appends the -o spec for one "Name[:[.]width]" item. */
static int long_item(FILE *f, const char *item, size_t len, char *bad, size_t bad_len)
{
	const char *colon = memchr(item, ':', len);
	size_t nlen = colon ? (size_t)(colon - item) : len;
	char letter = long_letter(item, nlen);
	bool right = false;
	int width = 20;

	if (!letter) {
		snprintf(bad, bad_len, "%.*s", (int)nlen, item);
		return -EINVAL;
	}
	if (colon) {
		const char *p = colon + 1, *end = item + len;
		if (p < end && *p == '.') {
			right = true;
			p++;
		}
		if (p < end && *p >= '0' && *p <= '9')
			width = atoi(p);
	}
	fprintf(f, "%%%s%d%c", right ? "." : "", width, letter);
	return 0;
}

char *sq_format_from_long(const char *spec, char *bad, size_t bad_len)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	const char *p = spec;
	int rc = 0;

	if (!f)
		return NULL;
	while (rc == 0 && *p) {
		size_t len = strcspn(p, ",");
		if (len > 0)
			rc = long_item(f, p, len, bad, bad_len);
		p += len;
		if (*p == ',')
			p++;
	}
	fclose(f);
	if (rc < 0) {
		free(out);
		return NULL;
	}
	return out;
}
