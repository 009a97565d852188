/* test_schema_text.c — the text decoder (common/schema_text.h) agrees with
 * the tree decoder on every declared shape: its examples, each rule broken,
 * escapes, unknown and null fields, strict JSON; truncated and deeply nested
 * text is refused; arrays and compact rows stream one element at a time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../fuzz/schema_text_diff.h"

/* Both decoders agree on text; returns whether they accepted it. */
static bool agree(const struct drv_shape *s, const char *text, struct text_diff *d)
{
	if (!text_diff(s, text, strlen(text), d))
		fail_msg("%s: %s\n text %s", s->name, d->why, text);
	return d->tree_ok;
}

static void refused_as_json(const struct drv_shape *s, const char *text)
{
	struct text_diff d;
	if (agree(s, text, &d))
		fail_msg("%s: accepted %s", s->name, text);
	if (strncmp(d.text_err.text, "not JSON: ", 10) != 0 || !d.tree_syntax)
		fail_msg("%s: %s: %s / %s", s->name, text, d.text_err.text, d.tree_err);
}

/* Refused by both, the text decoder in the tree decoder's words. */
static void refused_alike(const struct drv_shape *s, const char *text)
{
	struct text_diff d;
	if (agree(s, text, &d))
		fail_msg("%s: accepted %s", s->name, text);
	if (strcmp(d.tree_err, d.text_err.text) != 0)
		fail_msg("%s: %s\n tree %s\n text %s", s->name, text, d.tree_err,
			 d.text_err.text);
}

static void test_examples(void **state)
{
	(void)state;
	for (size_t i = 0; i < drv_n_all_shapes; i++)
		for (int full = 0; full < 2; full++) {
			const struct drv_shape *s = drv_all_shapes[i];
			json_t *x = drv_shape_example(s, full);
			char *compact = json_dumps(x, JSON_COMPACT),
			     *spaced = json_dumps(x, JSON_INDENT(2) | JSON_SORT_KEYS);
			struct text_diff d;
			assert_true(agree(s, compact, &d));
			assert_true(agree(s, spaced, &d));
			free(compact);
			free(spaced);
			json_decref(x);
		}
}

/* Values that break (or may break) a field's rules. */
static size_t bad_values(const struct drv_field *f, json_t **v)
{
	static const char big[] = "this string is longer than most fields allow";
	size_t n = 0;
	if (f->min > INT64_MIN)
		v[n++] = json_integer(f->min - 1);
	if (f->max < INT64_MAX)
		v[n++] = json_integer(f->max + 1);
	v[n++] = json_string("");
	v[n++] = json_string("zz");
	v[n++] = json_string(big);
	v[n++] = json_true();
	v[n++] = json_real(1.5);
	v[n++] = json_integer(0);
	v[n++] = json_object();
	v[n++] = json_array();
	return n;
}

/* Every field of every shape's full example, broken each way in turn (or
 * left out): both refuse in the same words, or both accept alike. */
static void test_rules_alike(void **state)
{
	(void)state;
	for (size_t i = 0; i < drv_n_all_shapes; i++) {
		const struct drv_shape *s = drv_all_shapes[i];
		json_t *full = drv_shape_example(s, true), *v[12];
		for (size_t k = 0; k < s->n_fields; k++) {
			const struct drv_field *f = &s->fields[k];
			size_t n = bad_values(f, v);
			v[n++] = NULL; /* left out */
			for (size_t b = 0; b < n; b++) {
				json_t *y = json_deep_copy(full);
				if (!v[b])
					json_object_del(y, f->name);
				else if (f->array && b % 2)
					json_object_set_new(y, f->name,
							    json_pack("[O]", v[b]));
				else
					json_object_set(y, f->name, v[b]);
				char *text = json_dumps(y, JSON_COMPACT);
				struct text_diff d;
				if (!agree(s, text, &d) &&
				    strcmp(d.tree_err, d.text_err.text))
					fail_msg("%s\n tree %s\n text %s", text,
						 d.tree_err, d.text_err.text);
				free(text);
				json_decref(y);
				json_decref(v[b]);
			}
		}
		json_decref(full);
	}
}

static void test_job_id_error(void **state)
{
	(void)state;
	refused_alike(&drv_shape_job_query_reply,
		      "{\"jobs\":[{\"job_id\":1,\"state\":\"PENDING\"},"
		      "{\"job_id\":0,\"state\":\"PENDING\"}]}");
	struct text_diff d;
	agree(&drv_shape_job_query_reply, "{\"jobs\":[{\"job_id\":0,\"state\":\"x\"}]}",
	      &d);
	assert_string_equal(
	    d.text_err.text,
	    "job.query reply: field 'jobs[0].job_id': must be 1..4294967294");
}

/* Escapes shrink in place: the struct's string points into the buffer. */
static void test_escapes(void **state)
{
	(void)state;
	char text[] = "{\"job_id\":7,\"state\":\"PENDING\","
		      "\"name\":\"a\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\\t\\b\\f\\r\"}";
	struct drv_rec_job j;
	struct drv_arena a = {0};
	struct drv_error err = {{0}};
	assert_int_equal(
	    drv_shape_decode_text(&drv_shape_rec_job, text, strlen(text), &j, &a, &err),
	    0);
	assert_string_equal(j.name, "a\xc3\xa9\xf0\x9f\x98\x80\n\"\\/\t\b\f\r");
	assert_true(j.name > text && j.name < text + sizeof(text));
	drv_arena_free(&a);
	struct text_diff d;
	assert_true(agree(
	    &drv_shape_rec_job,
	    "{\"job_id\":7,\"state\":\"P\",\"name\":\"\\uD834\\uDD1E\\u20AC\"}", &d));
	refused_as_json(&drv_shape_rec_job, "{\"job_id\":7,\"state\":\"\\ud800\"}");
	refused_as_json(&drv_shape_rec_job,
			"{\"job_id\":7,\"state\":\"\\udc00\\ud800\"}");
	refused_as_json(&drv_shape_rec_job, "{\"job_id\":7,\"state\":\"\\u0000\"}");
	refused_as_json(&drv_shape_rec_job, "{\"job_id\":7,\"state\":\"\\x\"}");
	refused_as_json(&drv_shape_rec_job, "{\"job_id\":7,\"state\":\"\\u12\"}");
	/* a key escaped is the same key */
	refused_as_json(&drv_shape_rec_job,
			"{\"job_id\":7,\"state\":\"P\",\"job\\u005fid\":8}");
}

static void test_unknown_and_null(void **state)
{
	(void)state;
	struct text_diff d;
	const struct drv_shape *s = &drv_shape_rec_job;
	assert_true(
	    agree(s,
		  "{\"zz\":{\"a\":[1,{\"b\":null,\"c\":[[],{}]}],\"d\":\"\\u00e9\"},"
		  "\"job_id\":5,\"y\":-1.5e-3,\"state\":\"PENDING\",\"name\":null,"
		  "\"time_limit\":null,\"qos\":null,\"hold\":null}",
		  &d));
	refused_alike(s, "{\"job_id\":null,\"state\":\"PENDING\"}");
	refused_alike(s, "{\"state\":\"PENDING\",\"hold\":\"nobody\",\"job_id\":3}");
	refused_alike(s, "[1,2]");
	refused_alike(s, "\"job\"");
	/* null decodes as absent: the default */
	char text[] = "{\"job_id\":5,\"state\":\"R\",\"time_limit\":null,\"qos\":null}";
	struct drv_rec_job j;
	struct drv_arena a = {0};
	assert_int_equal(drv_shape_decode_text(s, text, strlen(text), &j, &a, NULL), 0);
	assert_int_equal(j.time_limit, -1);
	assert_string_equal(j.qos, "normal");
	drv_arena_free(&a);
}

static void test_strict_json(void **state)
{
	(void)state;
	const struct drv_shape *s = &drv_shape_rec_job;
	static const char *const bad[] = {
	    "{\"job_id\":1,\"state\":\"P\",}",
	    "{\"job_id\":01,\"state\":\"P\"}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":[1,]}",
	    "{\"job_id\":1,\"state\":\"a\tb\"}",
	    "{\"job_id\":1,\"state\":\"\xc0\x80\"}",
	    "{\"job_id\":1,\"state\":\"\xed\xa0\x80\"}",
	    "{\"job_id\":1,\"state\":\"\xf5\x80\x80\x80\"}",
	    "{\"job_id\":1,\"state\":\"\xe2\x82\"}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":9223372036854775808}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":-9223372036854775809}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":1e400}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":1.}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":-}",
	    "{\"job_id\":1,\"state\":\"P\",\"x\":tru}",
	    "{\"job_id\":1,\"state\":\"P\"} x",
	    "{\"job_id\":1,\"job_id\":2,\"state\":\"P\"}",
	    "{\"job_id\":1,\"state\":\"P\",\"a\":1,\"a\":2}",
	    "{\"job_id\":1,\"state\":\"P\",\"a\":{\"b\":1,\"b\":2}}",
	    "{'job_id':1}",
	    "",
	    "   ",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		refused_as_json(s, bad[i]);
	struct text_diff d;
	assert_true(agree(s,
			  "{\"job_id\":1,\"state\":\"\xe2\x82\xac\xf0\x9f\x98\x80\x7f\","
			  "\"x\":[-9223372036854775808,-0,0.5e-400,1E+2]}",
			  &d));
	/* a NUL byte is refused, also inside a json member jansson parses */
	static const char nul[] = "{\"cred\":{\"cred\":33\0}";
	assert_true(text_diff(&drv_shape_auth_sign_reply, nul, sizeof(nul) - 1, &d));
	assert_false(d.text_ok);
	refused_alike(s, "{\"job_id\":1.0,\"state\":\"P\"}");
	refused_alike(s, "{\"job_id\":4294967295,\"state\":\"P\"}");
}

/* Every proper prefix of every full example is refused, none crashes. */
static void test_truncated(void **state)
{
	(void)state;
	for (size_t i = 0; i < drv_n_all_shapes; i++) {
		const struct drv_shape *s = drv_all_shapes[i];
		json_t *x = drv_shape_example(s, true);
		char *text = json_dumps(x, JSON_COMPACT);
		size_t len = strlen(text);
		for (size_t n = 0; n < len; n++) {
			char *copy = malloc(n ? n : 1);
			memcpy(copy, text, n);
			void *m = calloc(1, s->size);
			struct drv_arena a = {0};
			struct drv_error err = {{0}};
			assert_int_equal(drv_shape_decode_text(s, copy, n, m, &a, &err),
					 -EBADMSG);
			drv_arena_free(&a);
			free(m);
			free(copy);
		}
		free(text);
		json_decref(x);
	}
}

static char *nested(size_t depth)
{
	const char head[] = "{\"job_id\":1,\"state\":\"P\",\"x\":";
	char *t = malloc(sizeof(head) + 2 * depth + 2);
	size_t n = strlen(head);
	memcpy(t, head, n);
	memset(t + n, '[', depth);
	memset(t + n + depth, ']', depth);
	strcpy(t + n + 2 * depth, "}");
	return t;
}

static void test_deep_nesting(void **state)
{
	(void)state;
	struct text_diff d;
	char *ok = nested(DRV_TEXT_MAX_DEPTH - 1), *deep = nested(100000);
	assert_true(agree(&drv_shape_rec_job, ok, &d));
	agree(&drv_shape_rec_job, deep, &d);
	assert_false(d.text_ok);
	assert_non_null(strstr(d.text_err.text, "nesting too deep"));
	free(ok);
	free(deep);
}

struct seen_jobs {
	size_t n;
	uint32_t ids[8];
	const char *names[8];
	int64_t limits[8];
};

static int one_job(void *elem, size_t i, void *ctx)
{
	const struct drv_rec_job *j = elem;
	struct seen_jobs *sj = ctx;
	assert_int_equal(i, sj->n);
	sj->ids[sj->n] = j->job_id;
	sj->names[sj->n] = j->name;
	sj->limits[sj->n++] = j->time_limit;
	return 0;
}

static void test_stream_array(void **state)
{
	(void)state;
	char text[] =
	    "{\"now\":9,\"jobs\":[{\"job_id\":3,\"state\":\"PENDING\",\"name\":\"a\"},"
	    "{\"job_id\":4,\"state\":\"RUNNING\",\"time_limit\":60}]}";
	struct drv_job_query_reply r;
	struct seen_jobs sj = {0};
	struct drv_arena a = {0};
	struct drv_error err = {{0}};
	assert_int_equal(drv_shape_stream_array(&drv_shape_job_query_reply,
						DRV_JOB_QUERY_REPLY__JOBS, text,
						strlen(text), &r, &a, one_job, &sj, &err),
			 0);
	assert_int_equal(sj.n, 2);
	assert_int_equal(sj.ids[1], 4);
	assert_string_equal(sj.names[0], "a");
	assert_null(sj.names[1]);
	assert_int_equal(sj.limits[0], -1);
	assert_int_equal(sj.limits[1], 60);
	assert_int_equal(r.now, 9);
	assert_int_equal(r.n_jobs, 0);
	sj.n = 0;
	char bad[] =
	    "{\"jobs\":[{\"job_id\":3,\"state\":\"P\"},{\"job_id\":0,\"state\":\"P\"}]}";
	assert_int_equal(drv_shape_stream_array(&drv_shape_job_query_reply,
						DRV_JOB_QUERY_REPLY__JOBS, bad,
						strlen(bad), &r, &a, one_job, &sj, &err),
			 -EBADMSG);
	assert_string_equal(
	    err.text, "job.query reply: field 'jobs[1].job_id': must be 1..4294967294");
	drv_arena_free(&a);
}

static int rows_into(char *text, struct seen_jobs *sj, struct drv_error *err)
{
	struct drv_job_query_reply r;
	struct drv_arena a = {0};
	int rc = drv_job_rows_decode_text(text, strlen(text), &r, &a, one_job, sj, err);
	if (rc == 0) {
		assert_int_equal(r.n_fields, 5);
		assert_string_equal(r.fields[4], "time_limit");
		assert_null(r.rows);
	}
	drv_arena_free(&a);
	return rc;
}

static void test_rows(void **state)
{
	(void)state;
	char text[] =
	    "{\"fields\":[\"job_id\",\"name\",\"nope\",\"state\",\"time_limit\"],"
	    "\"now\":5,\"rows\":[[1,\"a\\u00e9\",7,\"PENDING\",null],"
	    "[2,null,[1,{}],\"RUNNING\",60],[3]]}";
	struct seen_jobs sj = {0};
	struct drv_error err = {{0}};
	assert_int_equal(rows_into(text, &sj, &err), 0);
	assert_int_equal(sj.n, 3);
	assert_int_equal(sj.ids[2], 3);
	assert_string_equal(sj.names[0], "a\xc3\xa9");
	assert_null(sj.names[1]);
	assert_int_equal(sj.limits[0], -1);
	assert_int_equal(sj.limits[1], 60);

	char zero[] = "{\"fields\":[\"job_id\",\"a\",\"b\",\"c\",\"time_limit\"],"
		      "\"rows\":[[1],[0]]}";
	sj.n = 0;
	assert_int_equal(rows_into(zero, &sj, &err), -EBADMSG);
	assert_string_equal(
	    err.text, "job.query reply: field 'rows[1].job_id': must be 1..4294967294");
	char longer[] = "{\"fields\":[\"job_id\"],\"rows\":[[1,2]]}";
	sj.n = 0;
	assert_int_equal(rows_into(longer, &sj, &err), -EBADMSG);
	assert_string_equal(err.text,
			    "job.query reply: field 'rows[0]': more values than fields");
	char before[] = "{\"rows\":[[1]],\"fields\":[\"job_id\"]}";
	sj.n = 0;
	assert_int_equal(rows_into(before, &sj, &err), -EBADMSG);
	assert_string_equal(
	    err.text, "job.query reply: field 'rows': comes before the field names");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_examples),	     cmocka_unit_test(test_rules_alike),
	    cmocka_unit_test(test_job_id_error),     cmocka_unit_test(test_escapes),
	    cmocka_unit_test(test_unknown_and_null), cmocka_unit_test(test_strict_json),
	    cmocka_unit_test(test_truncated),	     cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_stream_array),     cmocka_unit_test(test_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
