/* test_depend.c — how ctld judges a pending job's dependencies
 * (ctld/depend.c), on a job table built by hand: met entries leave the
 * list, failed ones stay marked, '?' lists, after+min against the clock
 * (and the scheduler woken at the target's start and at the minutes),
 * targets ctld no longer holds, singleton, kill_invalid_depend and cycles.
 * The rules are Slurm 22.05's, checked against a real slurmctld. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/ctld.h"

#define NOW 1796052016

static int commits;

/* depend.c commits a job whose list changed; here that is only counted. */
void commit_job(struct ctld *c, struct job *j)
{
	commits++;
}

/* job_array.c tells the store its array record changed; counted too. */
void commit_meta(struct ctld *c)
{
	commits++;
}

/* depend.c asks for a scheduler pass at a time, or now; recorded here. */
static int64_t wake_at;
static int passes;

void timed_sched_wake(struct ctld *c, int64_t when)
{
	if (!wake_at || when < wake_at)
		wake_at = when;
}

void sched_request(struct ctld *c)
{
	passes++;
}

int ctld_job_id_new(struct ctld *c, uint32_t *id)
{
	*id = c->jobs.next_id++;
	return 0;
}

static struct job *add(struct ctld *c, uint32_t id, enum job_state st, const char *name,
		       const char *dep)
{
	struct job *j = job_new();
	assert_non_null(j);
	j->id = id;
	j->state = st;
	j->uid = 1000;
	j->name = strdup(name);
	if (dep)
		assert_int_equal(dep_parse(dep, &j->req.deps), 0);
	job_table_add(&c->jobs, j);
	return j;
}

static char *shown(const struct job *j)
{
	static char buf[256];
	char *s = dep_format(&j->req.deps);
	snprintf(buf, sizeof(buf), "%s", s ? s : "(null)");
	free(s);
	return buf;
}

static int setup(void **state)
{
	static struct drv_conf conf;
	struct ctld *c = calloc(1, sizeof(*c));
	assert_int_equal(job_table_init(&c->jobs), 0);
	memset(&conf, 0, sizeof(conf));
	c->conf = &conf;
	commits = 0;
	wake_at = 0;
	passes = 0;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctld *c = *state;
	job_table_fini(&c->jobs);
	free(c);
	return 0;
}

static void met_entries_leave_and_failed_ones_stay(void **state)
{
	struct ctld *c = *state;
	add(c, 1, JOB_COMPLETED, "a", NULL);
	add(c, 2, JOB_FAILED, "b", NULL);
	add(c, 3, JOB_RUNNING, "c", NULL);
	struct job *j = add(c, 10, JOB_PENDING, "x", "afterok:1:3");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_WAIT);
	assert_string_equal(shown(j), "afterok:3(unfulfilled)");
	assert_int_equal(commits, 1);
	assert_int_equal(depend_check(c, j, NOW), DEPEND_WAIT);
	assert_int_equal(commits, 1); /* nothing changed, nothing committed */
	j = add(c, 11, JOB_PENDING, "x", "afterok:2,afterany:3");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_NEVER);
	assert_string_equal(shown(j), "afterok:2(failed),afterany:3(unfulfilled)");
	j = add(c, 12, JOB_PENDING, "x", "afternotok:2:1");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_NEVER);
	assert_string_equal(shown(j), "afternotok:1(failed)");
	j = add(c, 13, JOB_PENDING, "x", "afterany:1:2");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_MET);
	assert_string_equal(shown(j), "(null)");
	assert_int_equal(j->eligible_time, NOW); /* eligible from now on */
}

static void any_of_lists(void **state)
{
	struct ctld *c = *state;
	add(c, 1, JOB_COMPLETED, "a", NULL);
	add(c, 2, JOB_FAILED, "b", NULL);
	struct job *r = add(c, 3, JOB_RUNNING, "c", NULL);
	struct job *j = add(c, 10, JOB_PENDING, "x", "afterok:2?afterok:3");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_WAIT);
	assert_string_equal(shown(j), "afterok:2(failed)?afterok:3(unfulfilled)");
	r->state = JOB_FAILED;
	assert_int_equal(depend_check(c, j, NOW), DEPEND_NEVER);
	j = add(c, 11, JOB_PENDING, "x", "afterok:2?afterok:1");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_MET);
	assert_string_equal(shown(j), "(null)");
}

static void after_counts_minutes_from_the_start(void **state)
{
	struct ctld *c = *state;
	struct job *t = add(c, 1, JOB_PENDING, "a", NULL);
	struct job *j = add(c, 10, JOB_PENDING, "x", "after:1+2");
	struct job *other = add(c, 3, JOB_PENDING, "o", NULL);
	assert_int_equal(depend_check(c, j, NOW), DEPEND_WAIT);
	/* only time meets it: its target's start asks for a pass, once */
	assert_true(t->start_awaited);
	depend_started(c, other);
	assert_int_equal(passes, 0);
	t->state = JOB_RUNNING;
	t->start_time = NOW;
	depend_started(c, t);
	assert_int_equal(passes, 1);
	assert_false(t->start_awaited);
	depend_started(c, t);
	assert_int_equal(passes, 1);
	/* then a pass at the minutes past that start */
	assert_int_equal(wake_at, 0);
	assert_int_equal(depend_check(c, j, NOW + 119), DEPEND_WAIT);
	assert_int_equal(wake_at, NOW + 120);
	assert_int_equal(depend_check(c, j, NOW + 120), DEPEND_MET);
	/* cancelled before it started: counted from the cancel */
	struct job *gone = add(c, 2, JOB_CANCELLED, "b", NULL);
	gone->end_time = NOW;
	j = add(c, 11, JOB_PENDING, "x", "after:2");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_MET);
}

static void a_job_ctld_does_not_hold_lifts_its_entry(void **state)
{
	struct ctld *c = *state;
	struct job *j = add(c, 10, JOB_PENDING, "x", "afterok:999999,afternotok:5");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_MET);
}

static void completing_is_not_ended_yet(void **state)
{
	struct ctld *c = *state;
	struct job *t = add(c, 1, JOB_COMPLETED, "a", NULL);
	t->completing = true;
	struct job *j = add(c, 10, JOB_PENDING, "x", "afterany:1");
	assert_int_equal(depend_check(c, j, NOW), DEPEND_WAIT);
	t->completing = false;
	assert_int_equal(depend_check(c, j, NOW), DEPEND_MET);
}

static void singleton_one_at_a_time(void **state)
{
	struct ctld *c = *state;
	struct job *held = add(c, 1, JOB_PENDING, "solo", NULL);
	struct job *a = add(c, 2, JOB_PENDING, "solo", "singleton");
	struct job *b = add(c, 3, JOB_PENDING, "solo", "singleton");
	struct job *other = add(c, 4, JOB_PENDING, "other", "singleton");
	/* a same-name pending job without singleton holds them back */
	assert_int_equal(depend_check(c, a, NOW), DEPEND_WAIT);
	assert_int_equal(depend_check(c, other, NOW), DEPEND_MET);
	held->state = JOB_CANCELLED;
	/* the first one judged goes, and then holds the other back */
	assert_int_equal(depend_check(c, a, NOW), DEPEND_MET);
	assert_int_equal(depend_check(c, b, NOW), DEPEND_WAIT);
	a->state = JOB_RUNNING;
	assert_int_equal(depend_check(c, b, NOW), DEPEND_WAIT);
	a->state = JOB_COMPLETED;
	assert_int_equal(depend_check(c, b, NOW), DEPEND_MET);
}

static void kill_invalid_depend_choice(void **state)
{
	struct ctld *c = *state;
	struct job *j = add(c, 10, JOB_PENDING, "x", NULL);
	j->req.kill_invalid_dep = -1;
	c->conf->sched.kill_invalid_depend = false;
	assert_false(depend_kill_invalid(c, j));
	c->conf->sched.kill_invalid_depend = true; /* SchedulerParameters= */
	assert_true(depend_kill_invalid(c, j));
	j->req.kill_invalid_dep = 0; /* --kill-on-invalid-dep=no wins */
	assert_false(depend_kill_invalid(c, j));
	c->conf->sched.kill_invalid_depend = false;
	j->req.kill_invalid_dep = 1; /* and =yes */
	assert_true(depend_kill_invalid(c, j));
}

/* An array answers as a whole ("ID", "ID_*": OK once every task
 * completed, never once one failed) or by task ("ID_TASK"). */
static void arrays_whole_and_by_task(void **state)
{
	struct ctld *c = *state;
	struct job *meta = job_new();
	meta->name = strdup("arr");
	meta->req.sched.min_nodes = meta->req.sched.cpus_per_task = 1;
	assert_int_equal(job_array_init(meta, "0-1", 1001), 0);
	meta->id = meta->array_job_id = 5;
	c->jobs.next_id = 6;
	job_table_add(&c->jobs, meta);
	struct job *all = add(c, 100, JOB_PENDING, "x", "afterok:5");
	struct job *star = add(c, 101, JOB_PENDING, "x", "afterany:5_*");
	struct job *one = add(c, 102, JOB_PENDING, "x", "afterok:5_0");
	struct job *other = add(c, 103, JOB_PENDING, "x", "afternotok:5_1");
	c->jobs.next_id = 6; /* tasks take the ids after the array's */
	assert_int_equal(depend_check(c, all, NOW), DEPEND_WAIT);

	struct job *t0 = job_array_split(c, meta); /* task 0, id 6 */
	assert_int_equal(t0->array_task_id, 0);
	t0->state = JOB_COMPLETED;
	assert_int_equal(depend_check(c, one, NOW), DEPEND_MET);
	assert_int_equal(depend_check(c, all, NOW), DEPEND_WAIT); /* task 1 waits */
	assert_int_equal(depend_check(c, other, NOW), DEPEND_WAIT);

	assert_ptr_equal(job_array_split(c, meta), meta); /* task 1: the record */
	meta->state = JOB_FAILED;
	assert_int_equal(depend_check(c, all, NOW), DEPEND_NEVER);
	assert_int_equal(depend_check(c, star, NOW), DEPEND_MET);
	assert_int_equal(depend_check(c, other, NOW), DEPEND_MET);
}

static void cycles(void **state)
{
	struct ctld *c = *state;
	add(c, 1, JOB_PENDING, "a", "afterok:2");
	add(c, 2, JOB_PENDING, "b", "afterany:3?singleton");
	add(c, 3, JOB_PENDING, "c", NULL);
	struct dep_list l;
	assert_int_equal(dep_parse("afterok:1", &l), 0);
	assert_true(depend_circular(c, 3, &l)); /* 3 -> 1 -> 2 -> 3 */
	assert_false(depend_circular(c, 4, &l));
	dep_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(met_entries_leave_and_failed_ones_stay, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(any_of_lists, setup, teardown),
	    cmocka_unit_test_setup_teardown(after_counts_minutes_from_the_start, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_job_ctld_does_not_hold_lifts_its_entry,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(completing_is_not_ended_yet, setup, teardown),
	    cmocka_unit_test_setup_teardown(singleton_one_at_a_time, setup, teardown),
	    cmocka_unit_test_setup_teardown(kill_invalid_depend_choice, setup, teardown),
	    cmocka_unit_test_setup_teardown(cycles, setup, teardown),
	    cmocka_unit_test_setup_teardown(arrays_whole_and_by_task, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
