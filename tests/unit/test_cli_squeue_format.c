/* Unit tests for cli/squeue_format.c and cli/squeue_list.c: format specs,
 * widths, justification, literal text, %R forms, filters and sort order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "cli/squeue_format.h"
#include "cli/squeue_list.h"

static struct cli_job job(int64_t id, const char *state)
{
	struct cli_job j = {0};

	j.job_id = id;
	j.name = "myjob";
	j.user = "alice";
	j.partition = "debug";
	j.state = state;
	j.reason = "None";
	j.nodelist = "";
	j.batch_host = "";
	j.workdir = "/w";
	j.submit_host = "h";
	j.command = "";
	j.num_nodes = 1;
	j.time_limit = -1;
	j.qos = "normal";
	j.array_task_id = -1;
	return j;
}

static char bad_seen[32];

static void on_bad(const char *what, size_t len, void *arg)
{
	snprintf(bad_seen, sizeof(bad_seen), "%.*s", (int)len, what);
}

/* Prints the header (job == NULL) or one line with fmt. Caller frees. */
static char *render(const char *fmt, const struct cli_job *j, int64_t now)
{
	struct sq_format f;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_int_equal(sq_format_parse(fmt, &f, on_bad, NULL), 0);
	if (j)
		sq_print_job(&f, j, now, m);
	else
		sq_print_header(&f, m);
	fclose(m);
	sq_format_fini(&f);
	return out;
}

static void check(const char *fmt, const struct cli_job *j, int64_t now, const char *want)
{
	char *got = render(fmt, j, now);

	assert_string_equal(got, want);
	free(got);
}

static void test_default_header_and_line(void **state)
{
	struct cli_job r = job(42, "RUNNING");

	r.nodelist = "n[1-2]";
	r.num_nodes = 2;
	r.start_time = 1000;
	check(SQ_DEFAULT_FORMAT, NULL, 0,
	      "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
	      "NODELIST(REASON)\n");
	check(SQ_DEFAULT_FORMAT, &r, 1083,
	      "                42     debug    myjob    alice  R       1:23      2 "
	      "n[1-2]\n");
}

static void test_pending_reason_and_literals(void **state)
{
	struct cli_job p = job(7, "PENDING");

	p.reason = "Priority";
	check("%i|%T|%t|%M|%R", &p, 99, "7|PENDING|PD|0:00|(Priority)\n");
	check("%i|%T", NULL, 0, "JOBID|STATE\n");
	check("x%i y", &p, 0, "x7 y\n");
	check("%i %%t", &p, 0, "7 PD\n");
}

static void test_widths(void **state)
{
	struct cli_job p = job(123456, "PENDING");

	p.name = "averyveryverylongname";
	check("%5i|%.5i|%3j|%.3j|%j", &p, 0,
	      "12345|12345|ave|ave|averyveryverylongname\n");
	check("%8i|%.8i|", &p, 0, "123456  |  123456|\n");
	check("%.3R", &p, 0, "(No\n"); /* a reason is cut, a node list never */
	check("%3R|%.3N|%3N", &p, 0, "(No|   |   \n");
	check("%.3N|%.3R", NULL, 0, "NODELIST|NODELIST(REASON)\n");
	p.state = "RUNNING";
	p.nodelist = "n[1-2]";
	check("%.1R|%1R|%.2N|%2N", &p, 0, "n[1-2]|n|n[1-2]|n[\n");
}

static void test_finished_and_times(void **state)
{
	struct cli_job d = job(5, "COMPLETED"), f = job(6, "FAILED"),
		       t = job(8, "RUNNING");

	d.nodelist = "n1";
	d.start_time = 100;
	d.end_time = 100 + 3723;
	f.reason = "NonZeroExitCode";
	t.time_limit = 90061;
	t.start_time = 50;
	check("%R %M", &d, 999999, "n1 1:02:03\n");
	check("%R", &f, 0, "(NonZeroExitCode)\n");
	check("%l %L", &t, 111, "1-01:01:01 1-01:00:00\n");
	check("%.10l", &d, 0, " UNLIMITED\n");
}

static void test_unknown_letter(void **state)
{
	struct cli_job p = job(1, "PENDING");

	bad_seen[0] = 0;
	check("%i %#|%t", &p, 0, "1 %#|PD\n");
	assert_string_equal(bad_seen, "#");
	check("abc%i %10 xyz%5", &p, 0, "abc1 %10 xyz%5\n");
	check("%i|%s|%n|%x|%w|%v|%W|%z|%Y|%X|%d|%f|%H|%I|%J|%O|%o", &p, 0,
	      "1||||(null)|(null)|(null)|*:*:*|(null)|N/A|0|(null)|*|*|*|0|(null)\n");
}

static void test_issue3_fields(void **state)
{
	struct cli_job p = job(7, "PENDING");

	check("%a|%q|%m|%b|%y|%c|%E|%h|%A|%F|%K", &p, 0,
	      "(null)|normal|0|N/A|0|1|(null)|OK|7|7|N/A\n");
	p.account = "proj";
	p.qos = "high";
	p.min_memory = 2048;
	p.gres = "gpu:2";
	p.nice = 100;
	p.cpus_per_task = 4;
	p.dependency = "afterok:5";
	p.exclusive = true;
	check("%a|%q|%m|%b|%y|%c|%E|%h", &p, 0,
	      "proj|high|2G|gres:gpu:2|100|4|afterok:5|NO\n");
	p.min_memory = 1000;
	check("%m", &p, 0, "1000M\n");
	p.min_memory_text = "500M"; /* ctld's own text wins */
	check("%m", &p, 0, "500M\n");
	check("%.8a %q", NULL, 0, " ACCOUNT QOS\n");
}

static char *render_long(const char *spec, const struct cli_job *j)
{
	struct sq_format f;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_int_equal(sq_format_parse_long(spec, &f, on_bad, NULL), 0);
	sq_print_header(&f, m);
	sq_print_job(&f, j, 0, m);
	fclose(m);
	sq_format_fini(&f);
	return out;
}

static void test_array_ids(void **state)
{
	struct cli_job t = job(124, "RUNNING"), m = job(123, "PENDING");

	t.array_task_id = -1;
	check("%i|%F|%K|%A", &t, 0, "124|124|N/A|124\n");
	t.array_job_id = 123;
	t.array_task_id = 4;
	check("%i|%F|%K|%A", &t, 0, "123_4|123|4|124\n");
	m.array_job_id = 123;
	m.array_task_id = -1;
	m.array_task_str = "5-9";
	check("%i|%F|%K", &m, 0, "123_[5-9]|123|5-9\n");
}

/* squeue -r: an array's pending rest becomes one line per task; other
 * records stay as they are, in order; -j N_T then picks one task. */
static void test_expand_arrays(void **state)
{
	struct cli_job *v = calloc(3, sizeof(*v));
	json_t *tasks = json_pack("[[I,I]]", (json_int_t)123, (json_int_t)30);
	json_t *none = json_array();
	struct sq_filter f = {.job_ids = none, .tasks = tasks};

	v[0] = job(7, "RUNNING");
	v[1] = job(123, "PENDING");
	v[1].array_job_id = 123;
	v[1].array_task_str = "1,4,30-31%3";
	v[2] = job(124, "RUNNING");
	v[2].array_job_id = 123;
	v[2].array_task_id = 0;
	size_t n = sq_expand_arrays(&v, 3);
	assert_int_equal(n, 6);
	check("%i %A", &v[0], 0, "7 7\n");
	check("%i %A %r", &v[1], 0, "123_1 123 None\n");
	check("%i", &v[2], 0, "123_4\n");
	check("%i", &v[3], 0, "123_30\n");
	check("%i", &v[4], 0, "123_31\n");
	check("%i %A", &v[5], 0, "123_0 124\n");
	size_t matched = 0;
	for (size_t i = 0; i < n; i++)
		matched += sq_job_matches(&f, &v[i]) ? i : 0;
	assert_int_equal(matched, 3); /* only 123_30 */
	json_decref(tasks);
	json_decref(none);
	free(v);
}

static void test_long_format(void **state)
{
	struct cli_job p = job(23051, "PENDING");
	char *got;

	p.reason = "JobHeldUser";
	got = render_long("JobArrayID,StateCompact,Reason", &p);
	assert_string_equal(
	    got, "JOBID               ST                  REASON              \n"
		 "23051               PD                  JobHeldUser         \n");
	free(got);
	got = render_long("JobID:5x,State:.4,Name:0,NodeList:.3", &p);
	assert_string_equal(got, "JOBIDxSTATNAMENODELIST\n23051xPENDmyjob   \n");
	free(got);
	bad_seen[0] = 0;
	got = render_long("JobID:3,Bogus", &p);
	assert_string_equal(got, "JOB\n230\n");
	assert_string_equal(bad_seen, "Bogus");
	free(got);
}

static void test_filter_and_sort(void **state)
{
	struct cli_job j[4] = {job(1, "RUNNING"), job(2, "PENDING"), job(3, "COMPLETED"),
			       job(4, "PENDING")};
	struct sq_filter f = {0};
	json_t *ids = json_pack("[I]", (json_int_t)3);

	j[1].priority = 10;
	j[3].priority = 20;
	assert_true(sq_job_matches(&f, &j[0]));
	assert_false(sq_job_matches(&f, &j[2]));
	f.all_states = true;
	assert_true(sq_job_matches(&f, &j[2]));
	f.all_states = false;
	f.job_ids = ids;
	assert_false(sq_job_matches(&f, &j[2])); /* finished: hidden without -t */
	assert_true(sq_filter_has_id(&f, 3));
	json_decref(ids);
	struct sq_sort_key keys[8];
	char bad = 0;
	bool warn_b = false;
	int n = sq_sort_parse(SQ_DEFAULT_SORT, keys, 8, &bad, &warn_b);
	assert_int_equal(n, 3);
	sq_sort(j, 4, keys, n, 0);
	/* compact state as text: CD < PD < R; then priority high to low */
	assert_int_equal(j[0].job_id, 3);
	assert_int_equal(j[1].job_id, 4);
	assert_int_equal(j[2].job_id, 2);
	assert_int_equal(j[3].job_id, 1);
	n = sq_sort_parse("-i", keys, 8, &bad, &warn_b);
	sq_sort(j, 4, keys, n, 0);
	assert_int_equal(j[0].job_id, 4);
	assert_int_equal(j[3].job_id, 1);
	assert_int_equal(sq_sort_parse("P,Z", keys, 8, &bad, &warn_b), -EINVAL);
	assert_int_equal(bad, 'Z');
	assert_int_equal(sq_sort_parse("c,f,b", keys, 8, &bad, &warn_b), 0);
	assert_true(warn_b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_header_and_line),
	    cmocka_unit_test(test_pending_reason_and_literals),
	    cmocka_unit_test(test_widths),
	    cmocka_unit_test(test_finished_and_times),
	    cmocka_unit_test(test_unknown_letter),
	    cmocka_unit_test(test_issue3_fields),
	    cmocka_unit_test(test_array_ids),
	    cmocka_unit_test(test_expand_arrays),
	    cmocka_unit_test(test_long_format),
	    cmocka_unit_test(test_filter_and_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
