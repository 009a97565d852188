/* Unit tests for sacct's pure parts: the -S/-E time syntax (cli/sacct_time),
 * durations, dates, memory and TRES strings (cli/sacct_tres), the field
 * list and the bytes of header and rows (cli/sacct_format), the values of
 * a job and its batch step (cli/sacct_values). Expected texts are what
 * Slurm 22.05's sacct prints. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/common.h"
#include "cli/sacct_fields.h"
#include "cli/sacct_format.h"
#include "cli/sacct_opts.h"
#include "cli/sacct_select.h"
#include "cli/sacct_time.h"
#include "cli/timeshow.h"
#include "cli/sacct_tres.h"
#include "cli/sacct_values.h"

/* 2026-11-30T15:20:16 UTC, a Monday */
#define NOW ((time_t)1796052016)
#define DEFAULT_LIST "jobid,jobname,partition,account,alloccpus,state,exitcode"

static time_t at(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = {.tm_year = y - 1900,
			.tm_mon = mo - 1,
			.tm_mday = d,
			.tm_hour = h,
			.tm_min = mi,
			.tm_sec = s,
			.tm_isdst = -1};
	return mktime(&tm);
}

static time_t parse_ok(const char *s)
{
	time_t t = -1;
	int pos = -1;
	assert_int_equal(sacct_time_parse(s, NOW, &t, &pos), 0);
	return t;
}

static int parse_bad(const char *s)
{
	time_t t = 123;
	int pos = -1;
	assert_int_equal(sacct_time_parse(s, NOW, &t, &pos), -EINVAL);
	assert_int_equal(t, 123); /* nothing set on failure */
	return pos;
}

static void test_time_parse_forms(void **state)
{
	assert_int_equal(parse_ok("2026-11-30"), at(2026, 11, 30, 0, 0, 0));
	assert_int_equal(parse_ok("2026-11-30T10:05"), at(2026, 11, 30, 10, 5, 0));
	assert_int_equal(parse_ok("2026-11-30T10:05:07"), at(2026, 11, 30, 10, 5, 7));
	assert_int_equal(parse_ok("1970-01-02"), at(1970, 1, 2, 0, 0, 0));
	assert_int_equal(parse_ok("1130"), at(2026, 11, 30, 0, 0, 0));
	assert_int_equal(parse_ok("113025"), at(2025, 11, 30, 0, 0, 0));
	assert_int_equal(parse_ok("11/30"), at(2026, 11, 30, 0, 0, 0));
	assert_int_equal(parse_ok("11.30.25-10:00"), at(2025, 11, 30, 10, 0, 0));
	/* sacct looks into the past: a later month is last year's */
	assert_int_equal(parse_ok("12/01"), at(2025, 12, 1, 0, 0, 0));
	assert_int_equal(parse_ok("10:00"), at(2026, 11, 30, 10, 0, 0));
	assert_int_equal(parse_ok("10:00pm"), at(2026, 11, 30, 22, 0, 0));
	assert_int_equal(parse_ok("12:30am"), at(2026, 11, 30, 0, 30, 0));
	assert_int_equal(parse_ok("midnight"), at(2026, 11, 30, 0, 0, 0));
	assert_int_equal(parse_ok("today"), at(2026, 11, 30, 0, 0, 0));
	assert_int_equal(parse_ok("tomorrow"), at(2026, 12, 1, 0, 0, 0));
	assert_int_equal(parse_ok("noon"), at(2026, 11, 30, 12, 0, 0));
	assert_int_equal(parse_ok("teatime"), at(2026, 11, 30, 16, 0, 0));
	assert_int_equal(parse_ok("now"), NOW);
	assert_int_equal(parse_ok("now-3days"), NOW - 3 * 86400);
	assert_int_equal(parse_ok("now+1hour"), NOW + 3600);
	assert_int_equal(parse_ok("now -2 hours"), NOW - 7200);
	assert_int_equal(parse_ok("now-90"), NOW - 90);
	assert_int_equal(parse_ok("now-2weeks"), NOW - 14 * 86400);
	assert_int_equal(parse_ok("uts1700000000"), 1700000000);
	/* as Slurm: no time named at all is 0, and mktime normalises days */
	assert_int_equal(parse_ok(""), 0);
	assert_int_equal(parse_ok(" "), 0);
	assert_int_equal(parse_ok("2026-11-31"), at(2026, 12, 1, 0, 0, 0));
}

static void test_time_parse_errors(void **state)
{
	/* the positions Slurm 22.05 reports for the same texts */
	assert_int_equal(parse_bad("garbage"), 0);
	assert_int_equal(parse_bad("2026-13-45"), 5);
	assert_int_equal(parse_bad("2026-11-30T25:00"), 11);
	assert_int_equal(parse_bad("2026-11-30T10"), 13);
	assert_int_equal(parse_bad("2026-11-30T10:00:61"), 17);
	assert_int_equal(parse_bad("now-1hourx"), 9);
	assert_int_equal(parse_bad("now-days"), 3);
	assert_int_equal(parse_bad("uts12"), 0);
	assert_int_equal(parse_bad("13/01"), 0);
	assert_int_equal(parse_bad("1"), 1);
	/* a count times its unit past LONG_MAX, or a date past what a tm holds */
	assert_true(parse_bad("now+999999999999999999weeks") > 0);
	assert_true(parse_bad("now+99999999999999999seconds") > 0);
}

static time_t ahead(const char *s)
{
	time_t t = -1;
	int pos = -1;
	assert_int_equal(cli_time_parse(s, NOW, false, &t, &pos), 0);
	return t;
}

/* --begin / --deadline / StartTime= (Slurm's parse_time(s, 0)): it looks
 * ahead, so what is already gone today or this year moves on. */
static void test_begin_time_parse(void **state)
{
	time_t t = 7;
	int pos = -1;
	assert_int_equal(ahead("now+1hour"), NOW + 3600);
	assert_int_equal(ahead("now+60"), NOW + 60);
	assert_int_equal(ahead("now+3"), NOW + 3);
	assert_int_equal(ahead("now+2days"), NOW + 2 * 86400);
	assert_int_equal(ahead("2026-12-01T10:00"), at(2026, 12, 1, 10, 0, 0));
	assert_int_equal(ahead("2020-01-01T10:00"), at(2020, 1, 1, 10, 0, 0));
	/* NOW is 15:20: 16:00 is still today, 10:00 and noon are tomorrow's */
	assert_int_equal(ahead("16:00"), at(2026, 11, 30, 16, 0, 0));
	assert_int_equal(ahead("teatime"), at(2026, 11, 30, 16, 0, 0));
	assert_int_equal(ahead("10:00"), at(2026, 12, 1, 10, 0, 0));
	assert_int_equal(ahead("noon"), at(2026, 12, 1, 12, 0, 0));
	assert_int_equal(ahead("3:00pm"), at(2026, 12, 1, 15, 0, 0));
	assert_int_equal(ahead("tomorrow"), at(2026, 12, 1, 0, 0, 0));
	/* a month and day already gone this year: next year's */
	assert_int_equal(ahead("12/01"), at(2026, 12, 1, 0, 0, 0));
	assert_int_equal(ahead("11/01"), at(2027, 11, 1, 0, 0, 0));
	assert_int_equal(ahead("0115"), at(2027, 1, 15, 0, 0, 0));
	/* errors: the positions Slurm reports, nothing set */
	assert_int_equal(cli_time_parse("garbage", NOW, false, &t, &pos), -EINVAL);
	assert_int_equal(pos, 0);
	assert_int_equal(cli_time_parse("now+3x", NOW, false, &t, &pos), -EINVAL);
	assert_int_equal(pos, 4);
	assert_int_equal(cli_time_parse("3pm", NOW, false, &t, &pos), -EINVAL);
	assert_int_equal(pos, 1);
	assert_int_equal(cli_time_parse("25:00", NOW, false, &t, &pos), -EINVAL);
	assert_int_equal(pos, 0);
	assert_int_equal(cli_time_parse("2026-13-01", NOW, false, &t, &pos), -EINVAL);
	assert_int_equal(pos, 5);
	assert_int_equal(t, 7);
}

static void test_durations(void **state)
{
	char b[64];
	sacct_fmt_secs(0, b, sizeof(b));
	assert_string_equal(b, "00:00:00");
	sacct_fmt_secs(69, b, sizeof(b));
	assert_string_equal(b, "00:01:09");
	sacct_fmt_secs(3600 * 25 + 61, b, sizeof(b));
	assert_string_equal(b, "1-01:01:01");
	sacct_fmt_secs(-1, b, sizeof(b));
	assert_string_equal(b, "INVALID");
	sacct_fmt_cpu(0, 0, b, sizeof(b));
	assert_string_equal(b, "00:00:00");
	sacct_fmt_cpu(0, 13000, b, sizeof(b));
	assert_string_equal(b, "00:00.013");
	sacct_fmt_cpu(62, 345678, b, sizeof(b));
	assert_string_equal(b, "01:02.345");
	sacct_fmt_cpu(62, 999, b, sizeof(b));
	assert_string_equal(b, "00:01:02");
	sacct_fmt_cpu(3723, 5000, b, sizeof(b));
	assert_string_equal(b, "01:02:03");
	sacct_fmt_cpu(86400, 2500000, b, sizeof(b));
	assert_string_equal(b, "1-00:00:02");
}

static void test_dates(void **state)
{
	char b[64];
	cli_fmt_date(at(2026, 11, 30, 15, 16, 23), NULL, NOW, b, sizeof(b));
	assert_string_equal(b, "2026-11-30T15:16:23");
	cli_fmt_date(at(2026, 11, 30, 15, 16, 23), "standard", NOW, b, sizeof(b));
	assert_string_equal(b, "2026-11-30T15:16:23");
	cli_fmt_date(at(2026, 11, 30, 15, 16, 23), "%H:%M", NOW, b, sizeof(b));
	assert_string_equal(b, "15:16");
	cli_fmt_date(0, NULL, NOW, b, sizeof(b));
	assert_string_equal(b, "Unknown");
	/* SLURM_TIME_FORMAT=relative; NOW is Monday 2026-11-30 */
	static const struct {
		int y, mo, d, h, mi;
		const char *want;
	} rel[] = {
	    {2026, 11, 30, 15, 16, "15:16:00"},	   {2026, 11, 29, 20, 13, "Ystday 20:13"},
	    {2026, 12, 1, 3, 22, "Tomorr 03:22"},  {2026, 12, 5, 2, 17, "Sat 02:17"},
	    {2026, 6, 18, 13, 14, "18 Jun 13:14"}, {2003, 1, 19, 0, 0, "19 Jan 2003"},
	};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		cli_fmt_date(at(rel[i].y, rel[i].mo, rel[i].d, rel[i].h, rel[i].mi, 0),
			     "relative", NOW, b, sizeof(b));
		assert_string_equal(b, rel[i].want);
	}
	assert_int_equal(sacct_time_midnight(NOW), at(2026, 11, 30, 0, 0, 0));
}

static void test_memory_and_tres(void **state)
{
	char b[256];
	sacct_fmt_mem(100, b, sizeof(b));
	assert_string_equal(b, "100M");
	sacct_fmt_mem(1536, b, sizeof(b));
	assert_string_equal(b, "1.50G");
	sacct_fmt_mem(4096, b, sizeof(b));
	assert_string_equal(b, "4G");
	sacct_fmt_mem(1000, b, sizeof(b));
	assert_string_equal(b, "1000M");
	sacct_fmt_mem(1024 * 1024, b, sizeof(b));
	assert_string_equal(b, "1T");
	assert_true(sacct_mem_parse("2G", 2) == 2048);
	assert_true(sacct_mem_parse("1.50G", 5) == 1536);
	assert_true(sacct_mem_parse("x", 1) < 0);
	sacct_tres_normalize("cpu=2,mem=1536M,node=1,billing=2,gres/gpu=2", b, sizeof(b));
	assert_string_equal(b, "billing=2,cpu=2,gres/gpu=2,mem=1.50G,node=1");
	sacct_tres_normalize(NULL, b, sizeof(b));
	assert_string_equal(b, "");
	assert_true(sacct_tres_get("billing=1,cpu=3,mem=2G,node=1", "cpu") == 3);
	assert_true(sacct_tres_get("billing=1,cpu=3,mem=2G,node=1", "mem") == 2048);
	assert_true(sacct_tres_get("cpu=3", "node") < 0);
	/* the batch step of a 2-node job: its node's share, no billing */
	sacct_tres_batch("billing=2,cpu=2,mem=4G,node=2", 1, 2, -1, b, sizeof(b));
	assert_string_equal(b, "cpu=1,mem=2G,node=1");
	sacct_tres_batch("billing=2,cpu=2,gres/gpu=2,mem=500M,node=1", 2, 1, 2, b,
			 sizeof(b));
	assert_string_equal(b, "cpu=2,gres/gpu=2,mem=500M,node=1");
}

/* Prints the header and one row per job of rows with format list. */
static char *render(const char *list, enum sacct_parsable p, const struct sacct_row *rows,
		    size_t n)
{
	struct sacct_format f;
	char bad[64];
	char *out = NULL;
	size_t len = 0;
	struct sacct_ctx c = {NOW, "peer", NULL, false};
	FILE *m = open_memstream(&out, &len);
	assert_int_equal(sacct_format_parse(list, &f, bad, sizeof(bad)), 0);
	f.parsable = p;
	f.delim = NULL;
	f.header = true;
	sacct_print_header(&f, m);
	for (size_t i = 0; i < n; i++)
		sacct_print_row(&f, &rows[i], &c, m);
	fclose(m);
	sacct_format_fini(&f);
	return out;
}

static struct cli_job job(int64_t id, const char *name, const char *state)
{
	struct cli_job j;
	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.name = name;
	j.state = state;
	j.user = "root";
	j.partition = "batch";
	j.account = "root";
	j.qos = "normal";
	j.reason = "None";
	j.nodelist = j.batch_host = "n1";
	j.workdir = "/tmp";
	j.num_nodes = j.cpus = 1;
	j.time_limit = -1;
	j.submit_time = j.eligible_time = j.start_time = NOW - 69;
	j.end_time = NOW;
	j.cancel_uid = -1;
	j.array_task_id = -1;
	j.req_tres = j.alloc_tres = "billing=1,cpu=1,mem=100M,node=1";
	return j;
}

static void test_rows_like_slurm(void **state)
{
	struct cli_job ok = job(23021, "ok", "COMPLETED"),
		       ca = job(23023, "runcancel", "CANCELLED");
	ca.cancel_uid = 0;
	struct sacct_row rows[] = {
	    {&ok, false, NULL}, {&ok, true, NULL}, {&ca, false, NULL}, {&ca, true, NULL}};
	char *out = render(DEFAULT_LIST, SACCT_FIXED, rows, 4);
	assert_string_equal(out, "JobID           JobName  Partition    Account  "
				 "AllocCPUS      State ExitCode \n"
				 "------------ ---------- ---------- ---------- "
				 "---------- ---------- -------- \n"
				 "23021                ok      batch       root          "
				 "1  COMPLETED      0:0 \n"
				 "23021.batch       batch                  root          "
				 "1  COMPLETED      0:0 \n"
				 "23023         runcancel      batch       root          "
				 "1 CANCELLED+      0:0 \n"
				 "23023.batch       batch                  root          "
				 "1  CANCELLED     0:15 \n");
	free(out);
	out =
	    render("JobIDRaw,State,Elapsed,TimelimitRaw", SACCT_PARSABLE_NO_END, rows, 4);
	assert_string_equal(out, "JobIDRaw|State|Elapsed|TimelimitRaw\n"
				 "23021|COMPLETED|00:01:09|UNLIMITED\n"
				 "23021.batch|COMPLETED|00:01:09|\n"
				 "23023|CANCELLED by 0|00:01:09|UNLIMITED\n"
				 "23023.batch|CANCELLED|00:01:09|\n");
	free(out);
	out = render("jobid,st", SACCT_PARSABLE, rows, 1);
	assert_string_equal(out, "JobID|Start|\n23021|2026-11-30T15:19:07|\n");
	free(out);
}

static void test_widths(void **state)
{
	struct cli_job ca = job(23023, "runcancel", "CANCELLED");
	ca.cancel_uid = 0;
	ca.priority = 4294901759LL;
	struct sacct_row rows[] = {{&ca, false, NULL}, {&ca, true, NULL}};
	char *out = render("JobID%20,State%-12,JobName%3,Priority%5,Start%8,Elapsed%3,"
			   "AllocCPUS%-4,ExitCode%2,JobID%-5",
			   SACCT_FIXED, rows, 2);
	/* one width per field, the last given, as Slurm: JobID%-5 wins */
	assert_string_equal(
	    out, "JobID State        Job Prior    Start Ela Allo Ex JobID \n"
		 "----- ------------ --- ----- -------- --- ---- -- ----- \n"
		 "23023 CANCELLED b+ ru+ 4294901759 2026-11- 00:01:09 1    0+ 23023 \n"
		 "2302+ CANCELLED    ba+       2026-11- 00:01:09 1    0+ 2302+ \n");
	free(out);
	/* width 0 prints a lone space; an empty entry ends the list */
	out = render("JobID%0,State, ,JobName", SACCT_FIXED, rows, 1);
	assert_string_equal(out, "      State \n ---------- \n CANCELLED+ \n");
	free(out);
}

static void test_field_list(void **state)
{
	struct sacct_format f;
	char bad[64] = "";
	size_t nf;
	const struct sacct_field *tab = sacct_fields(&nf);
	assert_int_equal(sacct_format_parse("jobi,ST,e,ela", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f.n, 4);
	assert_string_equal(tab[f.cols[0]].name, "JobID");
	assert_string_equal(tab[f.cols[1]].name, "Start");
	assert_string_equal(tab[f.cols[2]].name, "Elapsed");
	assert_string_equal(tab[f.cols[3]].name, "Elapsed");
	sacct_format_fini(&f);
	assert_int_equal(sacct_format_parse("a", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f.n, 109); /* "a" is a prefix of ALL: Slurm 22.05's 109 */
	sacct_format_fini(&f);
	assert_int_equal(sacct_format_parse("restarts", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f.n, 1);
	sacct_format_fini(&f);
	assert_int_equal(sacct_format_parse("JobID,Foo%20,State", &f, bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "Foo");
	assert_null(f.cols);
}

static void test_helpformat(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	sacct_print_helpformat(m);
	fclose(m);
	assert_memory_equal(out,
			    "Account             AdminComment        AllocCPUS           "
			    "AllocNodes         \n",
			    80);
	assert_string_equal(out + len - 21, "\nWorkDir            \n");
	free(out);
}

static void test_batch_step_values(void **state)
{
	struct cli_job to = job(23024, "to", "TIMEOUT"),
		       f9 = job(23054, "sig9", "FAILED"),
		       e130 = job(23056, "e130", "FAILED"),
		       pend = job(23027, "pend", "PENDING");
	struct sacct_ctx c = {NOW, "peer", NULL, false};
	char buf[SACCT_VALUE_MAX];
	f9.exit_signal = 9;
	e130.exit_code = 130;
	pend.start_time = pend.end_time = pend.eligible_time = 0;
	pend.hold = "user";
	pend.reason = "JobHeldUser";
	pend.priority = 4294901754LL;
	assert_string_equal(
	    sacct_v_exitcode(&(struct sacct_row){&to, false, NULL}, &c, buf), "0:0");
	assert_string_equal(
	    sacct_v_exitcode(&(struct sacct_row){&to, true, NULL}, &c, buf), "0:15");
	assert_string_equal(sacct_v_state(&(struct sacct_row){&to, true, NULL}, &c, buf),
			    "CANCELLED");
	assert_string_equal(
	    sacct_v_exitcode(&(struct sacct_row){&f9, false, NULL}, &c, buf), "0:9");
	assert_string_equal(sacct_v_state(&(struct sacct_row){&f9, true, NULL}, &c, buf),
			    "CANCELLED");
	assert_string_equal(
	    sacct_v_exitcode(&(struct sacct_row){&e130, true, NULL}, &c, buf), "2:0");
	assert_string_equal(
	    sacct_v_start(&(struct sacct_row){&pend, false, NULL}, &c, buf), "Unknown");
	assert_string_equal(
	    sacct_v_nodelist(&(struct sacct_row){&pend, false, NULL}, &c, buf),
	    "None assigned");
	assert_string_equal(
	    sacct_v_priority(&(struct sacct_row){&pend, false, NULL}, &c, buf), "0");
	assert_string_equal(
	    sacct_v_reason(&(struct sacct_row){&pend, false, NULL}, &c, buf),
	    "JobHeldUser");
	assert_string_equal(
	    sacct_v_alloc_tres(&(struct sacct_row){&pend, false, NULL}, &c, buf), "");
	pend.state = "CANCELLED"; /* ctld keeps the reason it waited for */
	pend.end_time = NOW;
	assert_string_equal(
	    sacct_v_start(&(struct sacct_row){&pend, false, NULL}, &c, buf), "None");
	assert_string_equal(
	    sacct_v_reason(&(struct sacct_row){&pend, false, NULL}, &c, buf),
	    "JobHeldUser");
	assert_string_equal(
	    sacct_v_alloc_tres(&(struct sacct_row){&to, true, NULL}, &c, buf),
	    "cpu=1,mem=100M,node=1");
}

static void test_array_ids(void **state)
{
	struct cli_job t = job(131, "arr", "COMPLETED"),
		       rest = job(128, "arr", "PENDING");
	struct sacct_ctx c = {NOW, "peer", NULL, false};
	char buf[SACCT_VALUE_MAX];
	t.array_job_id = rest.array_job_id = 128;
	t.array_task_id = 3;
	rest.array_task_id = -1;
	rest.array_task_str = "5-9";
	assert_string_equal(sacct_v_jobid(&(struct sacct_row){&t, false, NULL}, &c, buf),
			    "128_3");
	assert_string_equal(sacct_v_jobid(&(struct sacct_row){&t, true, NULL}, &c, buf),
			    "128_3.batch");
	assert_string_equal(
	    sacct_v_jobidraw(&(struct sacct_row){&t, true, NULL}, &c, buf), "131.batch");
	assert_string_equal(
	    sacct_v_jobid(&(struct sacct_row){&rest, false, NULL}, &c, buf), "128_[5-9]");
	assert_string_equal(
	    sacct_v_jobidraw(&(struct sacct_row){&rest, false, NULL}, &c, buf), "128");
}

/* Parses a command line (NULL-terminated words after "sacct"). */
static int parse(struct sacct_opts *o, ...)
{
	char *argv[32] = {"sacct"};
	int argc = 1;
	va_list ap;
	va_start(ap, o);
	for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	return sacct_opts_parse(argc, argv, NOW, o);
}

static void test_options_and_window(void **state)
{
	struct sacct_opts o;
	struct sacct_window w;
	time_t s, e;
	assert_int_equal(parse(&o, "-j", "1,2", "-j", "3.batch", "-X", "-P", NULL), 0);
	assert_int_equal(o.n_sel, 3);
	assert_int_equal(o.sel[2].job_id, 3);
	assert_int_equal(o.sel[2].step, SACCT_STEP_BATCH);
	assert_true(o.allocations && o.fmt.parsable == SACCT_PARSABLE_NO_END);
	assert_int_equal(o.fmt.n, 7); /* the default columns */
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(w.start == 0 && w.end == 0 && !w.states); /* -j: no window */
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-b", "-o", "JobName", NULL), 0);
	assert_int_equal(o.fmt.n, 4); /* -o first, then -b's three */
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(w.start == at(2026, 11, 30, 0, 0, 0) && w.end == NOW);
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-s", "r,CD", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(w.states && w.start == NOW && w.end == NOW);
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-s", "ca", "-S", "midnight", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(w.start == w.end); /* with -s, the end defaults to the start */
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-S", "tomorrow", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), -EINVAL);
	assert_true(s == at(2026, 12, 1, 0, 0, 0) && e == NOW);
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-V", NULL), 1);
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-s", "bogus", NULL), -1);
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-o", "JobID", "stray", NULL), -1);
	sacct_opts_fini(&o);
}

static void test_selection(void **state)
{
	struct sacct_opts o;
	struct sacct_window w;
	time_t s, e;
	bool job_row, batch_row;
	struct cli_job ran = job(5, "ok", "COMPLETED"), task = job(131, "a", "COMPLETED");
	task.array_job_id = 128;
	task.array_task_id = 3;
	/* with -j and no window, "running" means it ever ran */
	assert_int_equal(parse(&o, "-s", "R", "-j", "5", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(sacct_job_selected(&o, &w, NULL, "peer", &ran));
	sacct_opts_fini(&o);
	/* with a window, only what ended in it */
	assert_int_equal(parse(&o, "-s", "CD", "-S", "now", "-E", "now", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(sacct_job_selected(&o, &w, NULL, "peer", &ran));
	ran.end_time = NOW - 1;
	assert_false(sacct_job_selected(&o, &w, NULL, "peer", &ran));
	sacct_opts_fini(&o);
	/* an array id names its tasks; ID_I one task; ID.batch only the step */
	assert_int_equal(parse(&o, "-j", "128", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_true(sacct_job_selected(&o, &w, NULL, "peer", &task));
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-j", "128_4", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_false(sacct_job_selected(&o, &w, NULL, "peer", &task));
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-j", "5.batch", NULL), 0);
	sacct_job_rows(&o, &ran, &job_row, &batch_row);
	assert_true(!job_row && batch_row);
	sacct_opts_fini(&o);
	assert_int_equal(parse(&o, "-M", "other", "--name", "OK", NULL), 0);
	assert_int_equal(sacct_window(&o, NOW, &w, &s, &e), 0);
	assert_false(sacct_job_selected(&o, &w, NULL, "peer", &ran));
	assert_true(sacct_job_selected(&o, &w, NULL, "other", &ran)); /* any case */
	sacct_opts_fini(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time_parse_forms),
	    cmocka_unit_test(test_time_parse_errors),
	    cmocka_unit_test(test_begin_time_parse),
	    cmocka_unit_test(test_durations),
	    cmocka_unit_test(test_dates),
	    cmocka_unit_test(test_memory_and_tres),
	    cmocka_unit_test(test_rows_like_slurm),
	    cmocka_unit_test(test_widths),
	    cmocka_unit_test(test_field_list),
	    cmocka_unit_test(test_helpformat),
	    cmocka_unit_test(test_batch_step_values),
	    cmocka_unit_test(test_array_ids),
	    cmocka_unit_test(test_options_and_window),
	    cmocka_unit_test(test_selection),
	};
	cli_init("sacct");
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
