/* test_store_filter.c — the typed history filter against a real SQLite
 * store in a temp dir: each kind of filter selects what it should and
 * nothing else, lists given empty select nothing, the time window follows
 * its rules, filters combine, earlier runs are filtered alike, and the
 * store keeps its own copy of a filter. These are the rules docs/store.md
 * asks of every engine. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "ctld/store.h"

struct fixture {
	char dir[32];
	struct event_base *base;
	struct store *s;
};

/* The history every test reads. Job 9 is still running (end 0): no filter
 * returns it. 11 and 12 are the tasks of array 10. 13 has no name, no
 * partition and no account; 3 was never eligible (cancelled while held). */
static const struct {
	uint32_t id;
	int64_t end;
	const char *rec;
} jobs[] = {
    {1, 200,
     "{\"uid\":1000,\"name\":\"Train\",\"partition\":\"gpu\",\"account\":\"Lab\","
     "\"state\":\"COMPLETED\",\"eligible_time\":100}"},
    {2, 400,
     "{\"uid\":1001,\"name\":\"train\",\"partition\":\"cpu\",\"account\":\"\","
     "\"state\":\"FAILED\",\"eligible_time\":150}"},
    {3, 700,
     "{\"uid\":1000,\"name\":\"eval\",\"partition\":\"cpu\",\"account\":\"other\","
     "\"state\":\"CANCELLED\",\"eligible_time\":0}"},
    {9, 0,
     "{\"uid\":1000,\"name\":\"Train\",\"partition\":\"gpu\",\"account\":\"Lab\","
     "\"state\":\"RUNNING\",\"eligible_time\":100}"},
    {11, 600,
     "{\"uid\":1001,\"name\":\"arr\",\"partition\":\"gpu\",\"account\":\"lab\","
     "\"state\":\"COMPLETED\",\"eligible_time\":500,\"array_job_id\":10}"},
    {12, 650,
     "{\"uid\":1001,\"name\":\"arr\",\"partition\":\"gpu\",\"account\":\"lab\","
     "\"state\":\"TIMEOUT\",\"eligible_time\":500,\"array_job_id\":10}"},
    {13, 800, "{\"uid\":1002,\"state\":\"COMPLETED\",\"eligible_time\":700}"},
};

static void committed(int rc, void *arg)
{
	*(int *)arg = rc;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct drv_error err = {{0}};
	strcpy(fx->dir, "/tmp/drv-filter-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	fx->base = event_base_new();
	fx->s = store_open(fx->base, fx->dir, &err);
	assert_non_null(fx->s);
	struct store_batch *b = store_batch_new();
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
		store_batch_put_job(b, jobs[i].id, jobs[i].end, jobs[i].rec);
	/* job 2 ran twice before: its earlier runs, each as it ended */
	store_batch_put_run(b, 2, 1, 300, "{\"uid\":1001,\"state\":\"NODE_FAIL\"}");
	store_batch_put_run(b, 2, 0, 250, "{\"uid\":1001,\"state\":\"REQUEUED\"}");
	store_batch_put_run(b, 1, 0, 150, "{\"uid\":1000,\"state\":\"REQUEUED\"}");
	int rc = 1;
	assert_int_equal(store_commit(fx->s, b, committed, &rc), 0);
	while (rc == 1)
		event_base_loop(fx->base, EVLOOP_ONCE);
	assert_int_equal(rc, 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[64];
	store_close(fx->s);
	event_base_free(fx->base);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

struct answer {
	bool done;
	int rc;
	char ids[256];
};

/* Reader thread: keeps each row's id. */
static char *id_text(int64_t id, const char *rec, void *arg)
{
	char *t = malloc(24);
	snprintf(t, 24, "%lld", (long long)id);
	return t;
}

static void rows_done(int rc, struct store_rows *rows, void *arg)
{
	struct answer *a = arg;
	a->done = true;
	a->rc = rc;
	for (size_t i = 0; i < rows->n; i++) {
		if (i)
			strcat(a->ids, ",");
		strcat(a->ids, rows->texts[i]);
	}
}

/* The ids `from` answers for f, comma-separated in the order given. */
static void expect(void **state, enum store_history from,
		   const struct store_job_filter *f, const char *want)
{
	struct fixture *fx = *state;
	struct answer a = {.done = false};
	assert_int_equal(
	    store_query_history(fx->s, from, f, id_text, NULL, rows_done, &a), 0);
	while (!a.done)
		event_base_loop(fx->base, EVLOOP_ONCE);
	assert_int_equal(a.rc, 0);
	assert_string_equal(a.ids, want);
}

#define IDS(...)                                                                         \
	((struct store_ids){.given = true,                                               \
			    .n = sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t),   \
			    .v = (const uint32_t[]){__VA_ARGS__}})
#define STRS(...)                                                                        \
	((struct store_strs){.given = true,                                              \
			     .n =                                                        \
				 sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *), \
			     .v = (const char *const[]){__VA_ARGS__}})

static void no_filter_is_every_ended_job(void **state)
{
	struct store_job_filter f = {.window = false};
	expect(state, STORE_HISTORY_JOBS, &f, "1,2,3,11,12,13");
}

static void job_ids_select_jobs_and_array_tasks(void **state)
{
	struct store_job_filter f = {.job_ids = IDS(2, 13)};
	expect(state, STORE_HISTORY_JOBS, &f, "2,13");
	f.job_ids = IDS(10); /* the array's id: every task */
	expect(state, STORE_HISTORY_JOBS, &f, "11,12");
	f.job_ids = IDS(12); /* one task by its own id */
	expect(state, STORE_HISTORY_JOBS, &f, "12");
	f.job_ids = IDS(9); /* running: in ctld's memory, not the history */
	expect(state, STORE_HISTORY_JOBS, &f, "");
	f.job_ids = IDS(4242);
	expect(state, STORE_HISTORY_JOBS, &f, "");
}

static void uids_select_their_jobs(void **state)
{
	struct store_job_filter f = {.uids = IDS(1000)};
	expect(state, STORE_HISTORY_JOBS, &f, "1,3");
	f.uids = IDS(1001, 1002);
	expect(state, STORE_HISTORY_JOBS, &f, "2,11,12,13");
	f.uids = IDS(0);
	expect(state, STORE_HISTORY_JOBS, &f, "");
}

static void names_match_in_any_case(void **state)
{
	struct store_job_filter f = {.names = STRS("TRAIN")};
	expect(state, STORE_HISTORY_JOBS, &f, "1,2");
	f.names = STRS("eval", "Arr");
	expect(state, STORE_HISTORY_JOBS, &f, "3,11,12");
	f.names = STRS(""); /* a record without a name has none to match */
	expect(state, STORE_HISTORY_JOBS, &f, "");
	f.names = STRS("trai"); /* whole names only */
	expect(state, STORE_HISTORY_JOBS, &f, "");
}

static void accounts_match_in_any_case_and_none_is_empty(void **state)
{
	struct store_job_filter f = {.accounts = STRS("LAB")};
	expect(state, STORE_HISTORY_JOBS, &f, "1,11,12");
	f.accounts = STRS(""); /* an empty account, and no account at all */
	expect(state, STORE_HISTORY_JOBS, &f, "2,13");
	f.accounts = STRS("Other");
	expect(state, STORE_HISTORY_JOBS, &f, "3");
}

static void partitions_match_in_any_case(void **state)
{
	struct store_job_filter f = {.partitions = STRS("GPU")};
	expect(state, STORE_HISTORY_JOBS, &f, "1,11,12");
	f.partitions = STRS("cpu");
	expect(state, STORE_HISTORY_JOBS, &f, "2,3");
	f.partitions = STRS(""); /* a record without a partition has none */
	expect(state, STORE_HISTORY_JOBS, &f, "");
}

static void states_match_exactly(void **state)
{
	struct store_job_filter f = {.states = STRS("COMPLETED")};
	expect(state, STORE_HISTORY_JOBS, &f, "1,11,13");
	f.states = STRS("FAILED", "TIMEOUT");
	expect(state, STORE_HISTORY_JOBS, &f, "2,12");
	f.states = STRS("failed");
	expect(state, STORE_HISTORY_JOBS, &f, "");
	f.states = STRS("RUNNING"); /* the running job is not history */
	expect(state, STORE_HISTORY_JOBS, &f, "");
}

static void lists_given_empty_select_nothing(void **state)
{
	struct store_job_filter f = {.job_ids = {.given = true, .n = 0, .v = NULL}};
	expect(state, STORE_HISTORY_JOBS, &f, "");
	f = (struct store_job_filter){.uids = {.given = true, .n = 0, .v = NULL}};
	expect(state, STORE_HISTORY_JOBS, &f, "");
	f = (struct store_job_filter){.accounts = {.given = true, .n = 0, .v = NULL}};
	expect(state, STORE_HISTORY_JOBS, &f, "");
}

/* Eligible by end, not ended before start; never eligible is never in. */
static void window_takes_jobs_eligible_and_not_yet_ended(void **state)
{
	struct store_job_filter f = {.window = true, .start = 250, .end = 450};
	expect(state, STORE_HISTORY_JOBS, &f, "2");
	f.start = 400; /* ended at start exactly: in */
	expect(state, STORE_HISTORY_JOBS, &f, "2");
	f.start = 401;
	expect(state, STORE_HISTORY_JOBS, &f, "");
	f = (struct store_job_filter){.window = true, .start = 0, .end = 500};
	expect(state, STORE_HISTORY_JOBS, &f, "1,2,11,12"); /* eligible at end: in */
	f.end = 499;
	expect(state, STORE_HISTORY_JOBS, &f, "1,2");
	f = (struct store_job_filter){.window = true, .start = 650, .end = 100000};
	expect(state, STORE_HISTORY_JOBS, &f,
	       "12,13"); /* 3 ended at 700, never eligible */
}

static void filters_combine(void **state)
{
	struct store_job_filter f = {.uids = IDS(1001), .partitions = STRS("gpu")};
	expect(state, STORE_HISTORY_JOBS, &f, "11,12");
	f.states = STRS("TIMEOUT");
	expect(state, STORE_HISTORY_JOBS, &f, "12");
	f = (struct store_job_filter){
	    .names = STRS("train"), .window = true, .start = 300, .end = 1000};
	expect(state, STORE_HISTORY_JOBS, &f, "2");
	f = (struct store_job_filter){.job_ids = IDS(10, 1), .accounts = STRS("lab")};
	expect(state, STORE_HISTORY_JOBS, &f, "1,11,12");
}

static void runs_are_filtered_alike(void **state)
{
	struct store_job_filter f = {.window = false};
	expect(state, STORE_HISTORY_RUNS, &f, "1,2,2");
	f.job_ids = IDS(2);
	expect(state, STORE_HISTORY_RUNS, &f, "2,2");
	f.states = STRS("REQUEUED");
	expect(state, STORE_HISTORY_RUNS, &f, "2"); /* restart 0 only */
	f = (struct store_job_filter){.uids = IDS(1000)};
	expect(state, STORE_HISTORY_RUNS, &f, "1");
}

/* Reader thread: each row's state, to see the restart order. */
static char *state_text(int64_t id, const char *rec, void *arg)
{
	const char *st = strstr(rec, "\"state\":\"");
	char *t = strdup(st ? st + 9 : "?");
	char *q = strchr(t, '"');
	if (q)
		*q = '\0';
	return t;
}

static void runs_come_in_restart_order(void **state)
{
	struct fixture *fx = *state;
	struct store_job_filter f = {.job_ids = IDS(2)};
	struct answer a = {.done = false};
	assert_int_equal(store_query_history(fx->s, STORE_HISTORY_RUNS, &f, state_text,
					     NULL, rows_done, &a),
			 0);
	while (!a.done)
		event_base_loop(fx->base, EVLOOP_ONCE);
	assert_string_equal(a.ids, "REQUEUED,NODE_FAIL");
}

/* The caller may free or reuse its filter as soon as the query is queued. */
static void the_store_keeps_its_own_copy(void **state)
{
	struct fixture *fx = *state;
	uint32_t *uids = malloc(sizeof(*uids));
	char *name = strdup("arr");
	const char **names = malloc(sizeof(*names));
	uids[0] = 1001;
	names[0] = name;
	struct store_job_filter f = {.uids = {.given = true, .n = 1, .v = uids},
				     .names = {.given = true, .n = 1, .v = names}};
	struct answer a = {.done = false};
	assert_int_equal(store_query_history(fx->s, STORE_HISTORY_JOBS, &f, id_text, NULL,
					     rows_done, &a),
			 0);
	uids[0] = 1000;
	strcpy(name, "xyz");
	free(uids);
	free(name);
	free(names);
	while (!a.done)
		event_base_loop(fx->base, EVLOOP_ONCE);
	assert_int_equal(a.rc, 0);
	assert_string_equal(a.ids, "11,12");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(no_filter_is_every_ended_job),
	    cmocka_unit_test(job_ids_select_jobs_and_array_tasks),
	    cmocka_unit_test(uids_select_their_jobs),
	    cmocka_unit_test(names_match_in_any_case),
	    cmocka_unit_test(accounts_match_in_any_case_and_none_is_empty),
	    cmocka_unit_test(partitions_match_in_any_case),
	    cmocka_unit_test(states_match_exactly),
	    cmocka_unit_test(lists_given_empty_select_nothing),
	    cmocka_unit_test(window_takes_jobs_eligible_and_not_yet_ended),
	    cmocka_unit_test(filters_combine),
	    cmocka_unit_test(runs_are_filtered_alike),
	    cmocka_unit_test(runs_come_in_restart_order),
	    cmocka_unit_test(the_store_keeps_its_own_copy),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
