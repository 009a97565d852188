/* test_store.c — ctld's SQLite store: a committed batch is there after a
 * reopen, recovery filters finished jobs by age, payloads read back, the
 * writer takes one batch at a time, history queries run on the reader thread
 * in order (test_store_filter.c checks what each filter selects), the purge
 * removes only old ended jobs and their earlier runs, queries still
 * queued at close are cancelled, and objects (the policy's tables) are
 * written, replaced, deleted and read back by kind and name. */
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

struct seen {
	char jobs[8][64];
	int n_jobs;
	char nodes[4][64];
	int n_nodes;
};

static void on_job(const char *key, const char *rec, void *arg)
{
	struct seen *s = arg;
	snprintf(s->jobs[s->n_jobs++], 64, "%s=%s", key, rec);
}

static void on_node(const char *key, const char *rec, void *arg)
{
	struct seen *s = arg;
	snprintf(s->nodes[s->n_nodes++], 64, "%s=%s", key, rec);
}

static void done(int rc, void *arg)
{
	*(int *)arg = rc;
}

static void commit_and_wait(struct event_base *base, struct store *s,
			    struct store_batch *b)
{
	int rc = 1;
	assert_int_equal(store_commit(s, b, done, &rc), 0);
	while (rc == 1)
		event_base_loop(base, EVLOOP_ONCE);
	assert_int_equal(rc, 0);
}

static void committed_batch_survives_reopen(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct event_base *base = event_base_new();
	struct drv_error err = {{0}};
	struct store *s = store_open(base, dir, &err);
	assert_non_null(s);
	struct store_batch *b = store_batch_new();
	store_batch_put_job(b, 1, 0, "{\"a\":1}");
	store_batch_put_job(b, 2, 100, "{\"b\":2}");  /* ended long ago */
	store_batch_put_job(b, 3, 5000, "{\"c\":3}"); /* ended recently */
	store_batch_put_payload(b, 1, "#!/bin/sh\necho hi\n", "[\"A=1\"]", "[]");
	store_batch_put_node(b, "n1", "{\"drain\":true}");
	store_batch_put_next_id(b, 4);
	commit_and_wait(base, s, b);
	/* a later change replaces the earlier record */
	b = store_batch_new();
	store_batch_put_job(b, 1, 0, "{\"a\":9}");
	commit_and_wait(base, s, b);
	store_close(s);

	s = store_open(base, dir, &err);
	assert_non_null(s);
	struct seen seen = {0};
	uint32_t next = 0;
	assert_int_equal(store_load(s, 1000, on_job, on_node, &seen, &next, &err), 0);
	assert_int_equal(next, 4);
	assert_int_equal(seen.n_jobs, 2);
	assert_string_equal(seen.jobs[0], "1={\"a\":9}");
	assert_string_equal(seen.jobs[1], "3={\"c\":3}");
	assert_int_equal(seen.n_nodes, 1);
	assert_string_equal(seen.nodes[0], "n1={\"drain\":true}");
	char *script, *env, *argv;
	assert_int_equal(store_job_payload(s, 1, &script, &env, &argv), 0);
	assert_string_equal(script, "#!/bin/sh\necho hi\n");
	assert_string_equal(env, "[\"A=1\"]");
	free(script);
	free(env);
	free(argv);
	assert_int_equal(store_job_payload(s, 2, &script, &env, &argv), -ENOENT);
	store_close(s);
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

struct objects_seen {
	char rows[8][96];
	int n;
};

static void on_object(enum store_obj_kind kind, const char *name, const char *rec,
		      void *arg)
{
	struct objects_seen *s = arg;
	snprintf(s->rows[s->n++], 96, "%d/%s=%s", (int)kind, name, rec);
}

static void objects_by_kind_and_name(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct event_base *base = event_base_new();
	struct drv_error err = {{0}};
	struct store *s = store_open(base, dir, &err);
	assert_non_null(s);
	struct store_batch *b = store_batch_new();
	store_batch_put_object(b, STORE_OBJ_QOS, "normal", "{\"priority\":0}");
	store_batch_put_object(b, STORE_OBJ_ACCOUNT, "physics", "{\"parent\":\"root\"}");
	store_batch_put_object(b, STORE_OBJ_ACCOUNT, "chem", "{}");
	store_batch_put_object(b, STORE_OBJ_QOS, "high", "{\"priority\":9}");
	commit_and_wait(base, s, b);
	/* the same name under another kind is another object; a put replaces,
	 * a NULL record deletes */
	b = store_batch_new();
	store_batch_put_object(b, STORE_OBJ_QOS, "normal", "{\"priority\":1}");
	store_batch_put_object(b, STORE_OBJ_USER, "chem", "{}");
	store_batch_put_object(b, STORE_OBJ_QOS, "high", NULL);
	commit_and_wait(base, s, b);
	store_close(s);

	s = store_open(base, dir, &err);
	assert_non_null(s);
	struct objects_seen seen = {0};
	assert_int_equal(store_load_objects(s, on_object, &seen, &err), 0);
	assert_int_equal(seen.n, 4);
	assert_string_equal(seen.rows[0], "2/chem={}");
	assert_string_equal(seen.rows[1], "2/physics={\"parent\":\"root\"}");
	assert_string_equal(seen.rows[2], "3/chem={}");
	assert_string_equal(seen.rows[3], "5/normal={\"priority\":1}");
	store_close(s);
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void one_batch_at_a_time(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct event_base *base = event_base_new();
	struct drv_error err = {{0}};
	struct store *s = store_open(base, dir, &err);
	assert_non_null(s);
	struct store_batch *a = store_batch_new(), *b = store_batch_new();
	store_batch_put_next_id(a, 7);
	store_batch_put_next_id(b, 8);
	int rc = 1;
	assert_int_equal(store_commit(s, a, done, &rc), 0);
	assert_int_equal(store_commit(s, b, done, &rc), -EBUSY);
	while (rc == 1)
		event_base_loop(base, EVLOOP_ONCE);
	commit_and_wait(base, s, b);
	struct seen seen = {0};
	uint32_t next = 0;
	assert_int_equal(store_load(s, 0, on_job, on_node, &seen, &next, &err), 0);
	assert_int_equal(next, 8);
	store_close(s);
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

struct answer {
	int calls, rc;
	char text[256];
};

/* The reader thread's row map: keeps "id:rec". */
static char *keep_all(int64_t id, const char *rec, void *arg)
{
	char *t = malloc(64);
	snprintf(t, 64, "%lld:%s", (long long)id, rec);
	return t;
}

static void rows_done(int rc, struct store_rows *rows, void *arg)
{
	struct answer *a = arg;
	a->calls++;
	a->rc = rc;
	a->text[0] = '\0';
	for (size_t i = 0; i < rows->n; i++) {
		strcat(a->text, rows->texts[i]);
		strcat(a->text, ";");
	}
}

static struct store *open_with_jobs(char *dir, struct event_base *base)
{
	struct drv_error err = {{0}};
	assert_non_null(mkdtemp(dir));
	struct store *s = store_open(base, dir, &err);
	assert_non_null(s);
	struct store_batch *b = store_batch_new();
	store_batch_put_job(b, 1, 100, "{\"uid\":5,\"name\":\"a\"}");
	store_batch_put_job(b, 2, 0, "{\"uid\":5,\"name\":\"b\"}");
	store_batch_put_job(b, 3, 300, "{\"uid\":6,\"name\":\"a\"}");
	store_batch_put_payload(b, 1, "#!/bin/sh", "[]", "[]");
	store_batch_put_run(b, 1, 0, 50, "{\"uid\":5,\"name\":\"a\"}");
	store_batch_put_run(b, 3, 0, 250, "{\"uid\":6,\"name\":\"a\"}");
	commit_and_wait(base, s, b);
	return s;
}

static void history_queries_answer_in_order(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	struct event_base *base = event_base_new();
	struct store *s = open_with_jobs(dir, base);
	struct answer by_uid = {0}, by_name = {0}, none = {0};
	const uint32_t uid5[] = {5};
	const char *const name_a[] = {"A"};
	struct store_job_filter f = {.uids = {.given = true, .n = 1, .v = uid5}};
	assert_int_equal(store_query_history(s, STORE_HISTORY_JOBS, &f, keep_all, NULL,
					     rows_done, &by_uid),
			 0);
	f = (struct store_job_filter){.names = {.given = true, .n = 1, .v = name_a}};
	assert_int_equal(store_query_history(s, STORE_HISTORY_JOBS, &f, keep_all, NULL,
					     rows_done, &by_name),
			 0);
	f = (struct store_job_filter){.states = {.given = true, .n = 0, .v = NULL}};
	assert_int_equal(store_query_history(s, STORE_HISTORY_JOBS, &f, keep_all, NULL,
					     rows_done, &none),
			 0);
	while (!none.calls)
		event_base_loop(base, EVLOOP_ONCE);
	/* answered in the order queued: the first two are in when the last is */
	assert_int_equal(by_uid.calls, 1);
	assert_int_equal(by_uid.rc, 0);
	assert_string_equal(by_uid.text, "1:{\"uid\":5,\"name\":\"a\"};"); /* 2 runs */
	assert_int_equal(by_name.calls, 1);
	assert_string_equal(by_name.text,
			    "1:{\"uid\":5,\"name\":\"a\"};3:{\"uid\":6,\"name\":\"a\"};");
	assert_int_equal(none.rc, 0);
	assert_string_equal(none.text, "");
	store_close(s);
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void purge_takes_only_old_ended_jobs(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	struct event_base *base = event_base_new();
	struct store *s = open_with_jobs(dir, base);
	struct store_batch *b = store_batch_new();
	store_batch_put_purge(b, 200, 10); /* job 1 ended at 100; 2 runs; 3 at 300 */
	commit_and_wait(base, s, b);
	struct seen seen = {0};
	struct drv_error err = {{0}};
	uint32_t next = 0;
	assert_int_equal(store_load(s, 0, on_job, on_node, &seen, &next, &err), 0);
	assert_int_equal(seen.n_jobs, 2);
	assert_non_null(strstr(seen.jobs[0], "2="));
	assert_non_null(strstr(seen.jobs[1], "3="));
	char *script = NULL, *env = NULL, *argv = NULL;
	assert_int_equal(store_job_payload(s, 1, &script, &env, &argv), -ENOENT);
	/* the purged job's earlier runs went with it; job 3's stay */
	struct store_job_filter all = {.window = false};
	struct answer runs = {0};
	assert_int_equal(store_query_history(s, STORE_HISTORY_RUNS, &all, keep_all, NULL,
					     rows_done, &runs),
			 0);
	while (!runs.calls)
		event_base_loop(base, EVLOOP_ONCE);
	assert_string_equal(runs.text, "3:{\"uid\":6,\"name\":\"a\"};");
	store_close(s);
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A new id skips every id the history holds; recovery hands jobs back in
 * the order their ids were issued, round from the stored next id. */
static void unused_ids_and_issue_order(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	struct event_base *base = event_base_new();
	struct store *s = open_with_jobs(dir, base); /* jobs 1, 2, 3 */
	struct store_batch *b = store_batch_new();
	store_batch_put_job(b, 5, 0, "{}");
	store_batch_put_next_id(b, 3); /* 3 and 5 issued before a wrap, then 1, 2 */
	commit_and_wait(base, s, b);
	uint32_t id = 99;
	assert_int_equal(store_first_unused_id(s, 1, 10, &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(store_first_unused_id(s, 4, 10, &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(store_first_unused_id(s, 5, 10, &id), 0);
	assert_int_equal(id, 6);
	assert_int_equal(store_first_unused_id(s, 1, 3, &id), 0);
	assert_int_equal(id, 0); /* all of 1..3 are taken */
	assert_int_equal(store_first_unused_id(s, 5, 5, &id), 0);
	assert_int_equal(id, 0);
	struct seen seen = {0};
	struct drv_error err = {{0}};
	uint32_t next = 0;
	assert_int_equal(store_load(s, 0, on_job, on_node, &seen, &next, &err), 0);
	assert_int_equal(next, 3);
	assert_int_equal(seen.n_jobs, 4);
	assert_non_null(strstr(seen.jobs[0], "3="));
	assert_non_null(strstr(seen.jobs[1], "5="));
	assert_non_null(strstr(seen.jobs[2], "1="));
	assert_non_null(strstr(seen.jobs[3], "2="));
	store_close(s);
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void queries_queued_at_close_are_cancelled(void **state)
{
	char dir[] = "/tmp/drv-store-XXXXXX";
	struct event_base *base = event_base_new();
	struct store *s = open_with_jobs(dir, base);
	struct answer a[8] = {{0}};
	for (int i = 0; i < 8; i++) {
		struct store_job_filter all = {.window = false};
		assert_int_equal(store_query_history(s, STORE_HISTORY_JOBS, &all,
						     keep_all, NULL, rows_done, &a[i]),
				 0);
	}
	store_close(s); /* without running the loop: nothing was answered yet */
	for (int i = 0; i < 8; i++) {
		assert_int_equal(a[i].calls, 1);
		assert_int_equal(a[i].rc, -ECANCELED);
	}
	event_base_free(base);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void unusable_dir_is_an_error(void **state)
{
	struct event_base *base = event_base_new();
	struct drv_error err = {{0}};
	assert_null(store_open(base, "/proc/drover-no-such-dir", &err));
	assert_non_null(strstr(err.text, "/proc/drover-no-such-dir"));
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(committed_batch_survives_reopen),
	    cmocka_unit_test(one_batch_at_a_time),
	    cmocka_unit_test(objects_by_kind_and_name),
	    cmocka_unit_test(unusable_dir_is_an_error),
	    cmocka_unit_test(history_queries_answer_in_order),
	    cmocka_unit_test(purge_takes_only_old_ended_jobs),
	    cmocka_unit_test(queries_queued_at_close_are_cancelled),
	    cmocka_unit_test(unused_ids_and_issue_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
