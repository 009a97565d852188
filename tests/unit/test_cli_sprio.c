/* Unit tests for cli/sprio_format.c: Slurm 22.05's sprio default, -l and
 * -n layouts byte for byte, -o parsing (prefix, literal text, widths that
 * cut, unknown letters), -h, -w's weights line, an administrator's
 * priority, the floor at 1 and -S ordering. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sprio_format.h"

static const struct sprio_weights weights = {
    .age = 1000,
    .fairshare = 10000,
    .job_size = 1000,
    .partition = 1000,
    .tres = "CPU=2000,GRES/gpu=600",
};

static const struct sprio_tres tres1[] = {
    {"cpu", 0.25, 2000},
    {"mem", 0.5, 0}, /* no weight: not shown */
    {"gres/gpu", 0.5, 600},
};

/* 65539: 250 + 5000 + 125 + 1000 + TRES 500 + 300 = 7175.
 * 7: 1000 + 123.456 + 500 + 500 + nice 50 = 2173.456, shown 2173. */
static struct sprio_job job1(void)
{
	struct sprio_job j = {0};

	j.job_id = 65539;
	j.user = "alice";
	j.account = "physics";
	j.partition = "debug";
	j.qos = "normal";
	j.age = 0.25;
	j.fairshare = 0.5;
	j.job_size = 0.125;
	j.part = 1.0;
	j.tres = tres1;
	j.n_tres = 3;
	return j;
}

static struct sprio_job job2(void)
{
	struct sprio_job j = {0};

	j.job_id = 7;
	j.user = "bartholomew";
	j.account = "chem";
	j.partition = "gpu-long";
	j.qos = "high";
	j.age = 1.0;
	j.fairshare = 0.0123456;
	j.job_size = 0.5;
	j.part = 0.5;
	j.nice = -50;
	return j;
}

static char *letters_seen;

static void note_bad(char letter, void *arg)
{
	size_t *n = arg;

	letters_seen[(*n)++] = letter ? letter : '0';
}

/* Prints jobs with fmt; the caller frees the text. */
static char *render(const char *fmt, const struct sprio_weights *w,
		    const struct sprio_job *jobs, size_t n, bool no_header,
		    bool weights_only)
{
	struct sprio_format f;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_non_null(m);
	assert_int_equal(sprio_format_parse(fmt, &f, NULL, NULL), 0);
	sprio_print(&f, w, jobs, n, no_header, weights_only, m);
	fclose(m);
	sprio_format_fini(&f);
	return out;
}

static void check(const char *fmt, const struct sprio_weights *w,
		  const struct sprio_job *jobs, size_t n, bool no_header,
		  bool weights_only, const char *want)
{
	char *got = render(fmt, w, jobs, n, no_header, weights_only);

	assert_string_equal(got, want);
	free(got);
}

static const char *default_of(const struct sprio_weights *w, bool normalized,
			      bool long_list, bool users, bool sibling)
{
	static char buf[256];
	struct sprio_mode m = {normalized, long_list, users, sibling};

	return sprio_default_format(w, &m, buf, sizeof(buf));
}

/* The columns of the default format follow the weights that are set. */
static void default_formats_follow_the_weights(void **state)
{
	struct sprio_weights all = {1, 1, 1, 1, 1, 1, "CPU=1"};
	struct sprio_weights fs_only = {.fairshare = 1};

	assert_string_equal(
	    default_of(&all, false, false, false, false),
	    "%.15i %9r %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.20T");
	assert_string_equal(default_of(&all, true, false, false, false),
			    "%.15i %9r %10y %10a %10b %10f %10j %10p %10q %20t");
	assert_string_equal(default_of(&fs_only, false, false, false, false),
			    "%.15i %9r %.10Y %.10S %.10F");
	assert_string_equal(default_of(&fs_only, false, false, true, true),
			    "%.15i %9r %.8c %.8u %.10Y %.10S %.10F");
	assert_string_equal(default_of(&fs_only, true, false, true, false),
			    "%.15i %9r %.8u %10y %10f");
	/* -l shows every factor, weighted or not */
	assert_string_equal(
	    default_of(&fs_only, false, true, false, false),
	    "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q "
	    "%.11N %.20T");
	assert_string_equal(default_of(&fs_only, true, true, false, false),
			    "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t");
}

static void default_layout(void **state)
{
	const struct sprio_job jobs[] = {job1(), job2()};
	char buf[256];
	struct sprio_mode m = {0};

	check(sprio_default_format(&weights, &m, buf, sizeof(buf)), &weights, jobs, 2,
	      false, false,
	      "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    "
	      "JOBSIZE  PARTITION                 TRES\n"
	      "          65539 debug           7175          0        250       5000     "
	      "   "
	      "125       1000 cpu=500,gres/gpu=300\n"
	      "              7 gpu-long        2173          0       1000        123     "
	      "   "
	      "500        500                     \n");
}

/* -n: factors with seven decimals, the priority over 2^32-1 cut to its
 * width, left-justified. */
static void normalized_layout(void **state)
{
	const struct sprio_job jobs[] = {job1(), job2()};
	char buf[256];
	struct sprio_mode m = {.normalized = true};

	check(sprio_default_format(&weights, &m, buf, sizeof(buf)), &weights, jobs, 2,
	      false, false,
	      "          JOBID PARTITION PRIORITY   AGE        FAIRSHARE  JOBSIZE    "
	      "PARTITION  TRES                \n"
	      "          65539 debug     0.00000167 0.2500000  0.5000000  0.1250000  "
	      "1.0000000  "
	      "cpu=0.25,gres/gpu=0.\n"
	      "              7 gpu-long  0.00000050 1.0000000  0.0123456  0.5000000  "
	      "0.5000000  "
	      "                    \n");
}

/* -l: user (cut to 8), every factor, nice. */
static void long_layout(void **state)
{
	const struct sprio_job jobs[] = {job1(), job2()};
	char buf[256];
	struct sprio_mode m = {.long_list = true};

	check(sprio_default_format(&weights, &m, buf, sizeof(buf)), &weights, jobs, 2,
	      false, false,
	      "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      "
	      "ASSOC  "
	      "FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 "
	      "TRES\n"
	      "          65539 debug        alice       7175          0        250       "
	      "   0 "
	      "      5000        125       1000          0           0 "
	      "cpu=500,gres/gpu=300\n"
	      "              7 gpu-long  bartholo       2173          0       1000       "
	      "   0 "
	      "       123        500        500          0         -50                   "
	      "  \n");
}

/* -h: no header; -w: the weights instead of the jobs. */
static void no_header_and_weights(void **state)
{
	const struct sprio_job jobs[] = {job1()};
	const char *fmt = "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.20T";

	check(fmt, &weights, jobs, 1, true, false,
	      "          65539 debug           7175          0        250       5000     "
	      "   "
	      "125       1000 cpu=500,gres/gpu=300\n");
	check(
	    fmt, &weights, jobs, 1, false, true,
	    "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    "
	    "JOBSIZE  PARTITION                 TRES\n"
	    "        Weights                               1       1000      10000       "
	    "1000       1000 CPU=2000,GRES/gpu=60\n");
	check("%i %a %u %N %t %o %n %c", &weights, jobs, 1, true, true,
	      "Weights 1000      \n");
}

/* -o: the text before the first '%' and after each letter is kept; runs of
 * '%' split fields; a width cuts; an unknown letter is reported and
 * dropped with its text. */
static void user_formats(void **state)
{
	const struct sprio_job jobs[] = {job1(), job2()};
	struct sprio_format f;
	char seen[8] = {0};
	size_t n_seen = 0;

	letters_seen = seen;
	assert_int_equal(
	    sprio_format_parse("prio:%i|%.5u|%%%r%z and %q%", &f, note_bad, &n_seen), 0);
	assert_int_equal(n_seen, 1);
	assert_int_equal(seen[0], 'z');
	assert_int_equal(f.n, 5); /* the prefix, i, u, r, q */
	sprio_format_fini(&f);

	check("prio:%i|%.5u|%%%r%z and %q", &weights, jobs, 2, false, false,
	      "prio:JOBID| USER|PARTITIONQOS\n"
	      "prio:65539|alice|debug0.0000000\n"
	      "prio:7|barth|gpu-long0.0000000\n");
	/* widths without '.' pad on the right and cut; account, QOS name,
	 * nice (newer Slurm's %o and %n) */
	check(
	    "%3i:%8o/%6n/%N", &weights, jobs, 2, false, false,
	    "JOB:ACCOUNT /QOSNAM/NICE\n655:physics /normal/0\n7  :chem    /high  /-50\n");
	/* '-' is no flag of sprio's: an unknown letter, dropped with its text */
	check("%3i:%-8o/%N", &weights, jobs, 1, false, false, "JOB:NICE\n655:0\n");
	/* no field at all: the text on every line */
	check("hello", &weights, jobs, 2, false, false, "hello\nhello\nhello\n");
	/* a '%' with nothing after it is reported as letter 0 */
	n_seen = 0;
	assert_int_equal(sprio_format_parse("%i %.10", &f, note_bad, &n_seen), 0);
	assert_int_equal(n_seen, 1);
	assert_int_equal(seen[0], '0');
	sprio_format_fini(&f);
}

/* An administrator's priority is the priority; the factors show 0. A
 * priority below 1 shows 1. */
static void direct_priority_and_floor(void **state)
{
	struct sprio_job jobs[] = {job1(), job2()};

	jobs[0].direct_prio = 5000;
	jobs[1].nice = 100000;
	jobs[1].site = 3;
	check("%.6i %.6Y %.4S %.4N %.4A %T|%10y", &weights, jobs, 2, true, false,
	      " 65539   5000    0    0    0 |5000.00000\n"
	      "     7      1    3 1000 1000 |0.00000000\n");
}

/* Slurm's -S: keys left to right, '-' descending, ties in the given order;
 * a letter it does not sort by is refused. */
static void sorting(void **state)
{
	struct sprio_job a = job1(), b = job2(), c = job1();
	struct sprio_job jobs[3];
	char bad = 0;

	c.job_id = 3;
	c.fairshare = 0.9; /* c: 11175 */
	jobs[0] = a;
	jobs[1] = b;
	jobs[2] = c;
	assert_int_equal(sprio_sort(jobs, 3, NULL, &weights, &bad), 0);
	assert_int_equal(jobs[0].job_id, 3);
	assert_int_equal(jobs[1].job_id, 7);
	assert_int_equal(jobs[2].job_id, 65539);
	assert_int_equal(sprio_sort(jobs, 3, "-y", &weights, &bad), 0);
	assert_int_equal(jobs[0].job_id, 3);
	assert_int_equal(jobs[1].job_id, 65539);
	assert_int_equal(jobs[2].job_id, 7);
	/* by user, then fair share descending */
	assert_int_equal(sprio_sort(jobs, 3, "u,-F", &weights, &bad), 0);
	assert_int_equal(jobs[0].job_id, 3);
	assert_int_equal(jobs[1].job_id, 65539);
	assert_int_equal(jobs[2].job_id, 7);
	/* partition then age ascending (+); equal keys keep their order */
	assert_int_equal(sprio_sort(jobs, 3, "r,+a", &weights, &bad), 0);
	assert_int_equal(jobs[0].job_id, 3);
	assert_int_equal(jobs[1].job_id, 65539);
	assert_int_equal(jobs[2].job_id, 7);
	/* nice, descending: 7 has -50 */
	assert_int_equal(sprio_sort(jobs, 3, "-N,i", &weights, &bad), 0);
	assert_int_equal(jobs[0].job_id, 3);
	assert_int_equal(jobs[2].job_id, 7);
	/* TRES: 7 has none */
	assert_int_equal(sprio_sort(jobs, 3, "T,-i", &weights, &bad), 0);
	assert_int_equal(jobs[0].job_id, 7);
	assert_int_equal(jobs[1].job_id, 65539);
	/* refused, order unchanged */
	assert_int_equal(sprio_sort(jobs, 3, "i,b", &weights, &bad), -EINVAL);
	assert_int_equal(bad, 'b');
	assert_int_equal(jobs[0].job_id, 7);
	assert_int_equal(sprio_sort(jobs, 0, "z", &weights, &bad), -EINVAL);
	assert_int_equal(bad, 'z');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(default_formats_follow_the_weights),
	    cmocka_unit_test(default_layout),
	    cmocka_unit_test(normalized_layout),
	    cmocka_unit_test(long_layout),
	    cmocka_unit_test(no_header_and_weights),
	    cmocka_unit_test(user_formats),
	    cmocka_unit_test(direct_priority_and_floor),
	    cmocka_unit_test(sorting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
