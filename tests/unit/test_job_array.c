/* test_job_array.c — ctld's array records (src/ctld/job_array.c): the
 * pending set of one record, a task split off per start with a new id, the
 * last task run as the array's own record, pending tasks scancel names
 * moved to a record of their own, the store round trip, and the whole-array summary
 * dependencies read. The commit hooks are stubs: what they are told is counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/ctld.h"

static int committed_jobs, committed_meta;

void commit_job(struct ctld *c, struct job *j)
{
	committed_jobs++;
}

void commit_meta(struct ctld *c)
{
	committed_meta++;
}

int ctld_job_id_new(struct ctld *c, uint32_t *id)
{
	*id = c->jobs.next_id++;
	return 0;
}

static struct job *array_job(struct ctld *c, const char *spec)
{
	struct job *j = job_new();
	j->name = strdup("a");
	j->user = strdup("u");
	j->partition = strdup("p");
	j->req.sched.min_nodes = j->req.sched.cpus_per_task = 1;
	assert_int_equal(job_array_init(j, spec, 1001), 0);
	j->id = c->jobs.next_id++;
	j->array_job_id = j->id;
	job_table_add(&c->jobs, j);
	return j;
}

static void test_split_until_the_last(void **state)
{
	struct ctld c = {0};
	assert_int_equal(job_table_init(&c.jobs), 0);
	c.jobs.next_id = 10;
	struct job *meta = array_job(&c, "4-6%2");
	assert_int_equal(c.jobs.tasks, 3); /* MaxJobCount counts each task */
	assert_string_equal(meta->array_task_str, "4-6%2");
	assert_int_equal(meta->array_task_id, -1);
	assert_int_equal(job_array_room(&c, meta), 2);

	struct job *t = job_array_split(&c, meta);
	assert_ptr_not_equal(t, meta);
	assert_int_equal(t->id, 11);
	assert_int_equal(t->array_job_id, 10);
	assert_int_equal(t->array_task_id, 4);
	assert_null(t->array_task_str);
	assert_null(t->array);
	assert_string_equal(t->name, "a");
	assert_int_equal(t->array_max_tasks, 2);
	assert_int_equal(t->array_count, 3);
	assert_string_equal(meta->array_task_str, "5-6%2");
	assert_int_equal(committed_meta, 1);
	assert_int_equal(c.jobs.tasks, 3); /* a task moved to a record */

	t->state = JOB_RUNNING;
	assert_int_equal(job_array_running(&c, meta), 1);
	assert_int_equal(job_array_room(&c, meta), 1);
	struct job *t2 = job_array_split(&c, meta);
	t2->state = JOB_RUNNING;
	assert_int_equal(job_array_room(&c, meta), 0); /* throttled */
	/* one pending left: shown as that task, then run as the record itself */
	assert_null(meta->array_task_str);
	assert_int_equal(meta->array_task_id, 6);
	t->state = JOB_COMPLETED;
	assert_int_equal(job_array_room(&c, meta), 1);
	assert_ptr_equal(job_array_split(&c, meta), meta);
	assert_null(meta->array);
	assert_int_equal(c.jobs.tasks, 3);
	assert_int_equal(meta->array_task_id, 6);

	struct job_array_summary s;
	meta->state = JOB_RUNNING;
	t2->state = JOB_FAILED;
	job_array_summary(&c, 10, &s);
	assert_true(s.found);
	assert_int_equal(s.pending, 0);
	assert_int_equal(s.running, 1);
	assert_int_equal(s.completed, 1);
	assert_int_equal(s.failed, 1);
	job_array_summary(&c, 11, &s); /* a task's own id is no array */
	assert_false(s.found);
	job_table_fini(&c.jobs);
}

static void test_split_set_and_summary(void **state)
{
	struct ctld c = {0};
	assert_int_equal(job_table_init(&c.jobs), 0);
	c.jobs.next_id = 20;
	struct job *meta = array_job(&c, "0-9");
	assert_int_equal(c.jobs.tasks, 10);
	struct drv_array set;
	uint32_t taken;
	/* scancel 20_[3,5-6,42]: one record holds the three, pending still */
	assert_int_equal(drv_array_parse("3,5-6,42", 0, &set), 0);
	struct job *t = job_array_split_set(&c, meta, &set, &taken);
	assert_int_equal(taken, 3);
	assert_non_null(t);
	assert_int_equal(t->id, 21);
	assert_int_equal(t->array_job_id, meta->id);
	assert_int_equal(t->state, JOB_PENDING);
	assert_string_equal(t->array_task_str, "3,5-6");
	assert_string_equal(meta->array_task_str, "0-2,4,7-9");
	assert_int_equal(c.jobs.tasks, 10); /* 7 in meta, 3 in t */
	drv_array_fini(&set);
	/* scancel 20_8: a record of one task shows as that task */
	assert_int_equal(drv_array_parse("8", 0, &set), 0);
	t = job_array_split_set(&c, meta, &set, &taken);
	assert_int_equal(taken, 1);
	assert_int_equal(t->array_task_id, 8);
	assert_true(job_array_has_task(t, meta->id, &set));
	assert_null(job_array_split_set(&c, meta, &set, &taken)); /* gone already */
	assert_int_equal(taken, 0);
	drv_array_fini(&set);
	/* all that is left: meta is the record, nothing new */
	assert_int_equal(drv_array_parse("0-9", 0, &set), 0);
	assert_ptr_equal(job_array_split_set(&c, meta, &set, &taken), meta);
	assert_int_equal(taken, 6);
	assert_string_equal(meta->array_task_str, "0-2,4,7,9");
	assert_null(job_table_find(&c.jobs, 23));
	assert_int_equal(c.jobs.tasks, 10);
	job_table_remove(&c.jobs, t); /* purged: its one task goes */
	assert_int_equal(c.jobs.tasks, 9);
	job_table_add(&c.jobs, t);
	drv_array_fini(&set);
	struct job_array_summary s;
	job_array_summary(&c, meta->id, &s);
	assert_int_equal(s.pending, 10);
	for (struct job *x = c.jobs.head; x; x = x->next)
		x->state = JOB_CANCELLED; /* a cancelled record counts as failed */
	job_array_summary(&c, meta->id, &s);
	assert_int_equal(s.pending, 0);
	assert_int_equal(s.failed, 3);
	job_table_fini(&c.jobs);
}

/* The store record brings the pending set back as it was. */
static void test_store_round_trip(void **state)
{
	struct ctld c = {0};
	assert_int_equal(job_table_init(&c.jobs), 0);
	struct job *meta = array_job(&c, "1-7:3,20,30-31%3");
	json_t *rec = job_to_store(meta, NULL);
	assert_string_equal(json_string_value(json_object_get(rec, "array_task_str")),
			    "1,4,7,20,30-31%3");
	assert_int_equal(json_integer_value(json_object_get(rec, "array_max_tasks")), 3);
	struct drv_rec_job r;
	struct drv_error err;
	assert_int_equal(drv_rec_job_decode(rec, &r, &err), 0);
	struct job *back = job_from_store(&r);
	drv_rec_job_free(&r);
	assert_non_null(back);
	assert_non_null(back->array);
	assert_int_equal(back->array->count, 6);
	assert_string_equal(back->array_task_str, "1,4,7,20,30-31%3");
	assert_int_equal(back->array_step, 3);
	assert_int_equal(back->array_min, 1);
	assert_int_equal(back->array_max, 31);
	assert_int_equal(back->array_job_id, meta->id);
	job_free(back);
	json_decref(rec);
	job_table_fini(&c.jobs);
}

/* A payload an older ctld wrote, before base_priority, submit_dir and the
 * array's fields were kept, still brings its job back. */
static void test_older_payload(void **state)
{
	json_t *rec = json_loads("{\"job_id\":7,\"state\":\"PENDING\",\"priority\":5,"
				 "\"export\":null,\"req\":{\"min_nodes\":1}}",
				 0, NULL);
	struct drv_rec_job r;
	struct drv_error err;
	assert_int_equal(drv_rec_job_decode(rec, &r, &err), 0);
	struct job *back = job_from_store(&r);
	drv_rec_job_free(&r);
	json_decref(rec);
	assert_non_null(back);
	assert_int_equal(back->id, 7);
	assert_int_equal(back->priority, 5);
	assert_null(back->export_env);
	assert_int_equal(back->array_task_id, -1);
	assert_null(back->array);
	job_free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split_until_the_last),
	    cmocka_unit_test(test_split_set_and_summary),
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_older_payload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
