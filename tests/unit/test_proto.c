/* test_proto.c — frames, envelopes and the message schema table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/proto.h"
#include "common/schema.h"

#define MAX (4u << 20)

static struct drv_key key_a = {{1, 2, 3, 4, 5, 6, 7, 8}};
static struct drv_key key_b = {{9, 9, 9}};

static json_t *sample(void)
{
	return drv_request_new("job.cancel", 42, json_pack("{s:[i,i]}", "job_ids", 5, 6));
}

/* Parses the JSON part of a frame built by drv_frame_build. */
static json_t *parse_frame(const char *frame, size_t len, bool *has_mac)
{
	size_t jlen;
	struct drv_error err;
	assert_int_equal(
	    drv_frame_header((const unsigned char *)frame, MAX, &jlen, has_mac, &err), 0);
	assert_int_equal(len, 4 + jlen + (*has_mac ? DRV_MAC_LEN : 0));
	json_t *env = NULL;
	assert_int_equal(drv_envelope_parse(frame + 4, jlen, &env, &err), 0);
	return env;
}

static void test_frame_round_trip(void **state)
{
	json_t *env = sample();
	char *frame;
	size_t len;
	bool has_mac;
	assert_int_equal(drv_frame_build(env, NULL, MAX, &frame, &len), 0);
	json_t *back = parse_frame(frame, len, &has_mac);
	assert_false(has_mac);
	assert_true(json_equal(env, back));
	json_decref(back);
	free(frame);

	assert_int_equal(drv_frame_build(env, &key_a, MAX, &frame, &len), 0);
	back = parse_frame(frame, len, &has_mac);
	assert_true(has_mac);
	assert_true(json_equal(env, back));
	assert_int_equal(drv_frame_verify_mac(&key_a, (unsigned char *)frame, len), 0);
	json_decref(back);
	free(frame);
	json_decref(env);
}

static void test_frame_build_oversize(void **state)
{
	json_t *env = sample();
	char *frame = NULL;
	size_t len;
	assert_int_equal(drv_frame_build(env, NULL, 10, &frame, &len), -EMSGSIZE);
	assert_null(frame);
	json_decref(env);
}

static void test_header_refuses_oversize(void **state)
{
	unsigned char hdr[4] = {0x00, 0x10, 0x00, 0x01}; /* 1 MiB + 1 */
	size_t jlen = 7;
	bool has_mac = true;
	struct drv_error err = {""};
	assert_int_equal(drv_frame_header(hdr, 1 << 20, &jlen, &has_mac, &err),
			 -EMSGSIZE);
	assert_string_equal(err.text,
			    "message of 1048577 bytes exceeds MaxMessageSize 1048576");
	assert_int_equal(jlen, 7); /* outputs untouched on failure */
	unsigned char hdr_mac[4] = {0x80, 0x00, 0x00, 0x05};
	assert_int_equal(drv_frame_header(hdr_mac, 1 << 20, &jlen, &has_mac, &err), 0);
	assert_int_equal(jlen, 5);
	assert_true(has_mac);
	/* the MAC bit does not count towards the length */
	unsigned char hdr_big[4] = {0xff, 0xff, 0xff, 0xff};
	assert_int_equal(drv_frame_header(hdr_big, MAX, &jlen, &has_mac, &err),
			 -EMSGSIZE);
}

static void test_truncated(void **state)
{
	json_t *env = sample();
	char *frame;
	size_t len;
	struct drv_error err;
	assert_int_equal(drv_frame_build(env, &key_a, MAX, &frame, &len), 0);
	/* a frame cut short fails its MAC check, whatever was cut */
	assert_int_equal(drv_frame_verify_mac(&key_a, (unsigned char *)frame, len - 1),
			 -EPERM);
	assert_int_equal(drv_frame_verify_mac(&key_a, (unsigned char *)frame, 3), -EPERM);
	/* and JSON cut short is not an envelope */
	json_t *out = NULL;
	assert_int_equal(
	    drv_envelope_parse(frame + 4, len - 4 - DRV_MAC_LEN - 1, &out, &err),
	    -EBADMSG);
	assert_null(out);
	assert_non_null(strstr(err.text, "not JSON"));
	free(frame);
	json_decref(env);
}

static void test_mac_flipped_and_wrong_key(void **state)
{
	json_t *env = sample();
	char *frame;
	size_t len;
	assert_int_equal(drv_frame_build(env, &key_a, MAX, &frame, &len), 0);
	assert_int_equal(drv_frame_verify_mac(&key_b, (unsigned char *)frame, len),
			 -EPERM);
	for (size_t i = 0; i < len; i += 7) {
		frame[i] ^= 0x01;
		assert_int_equal(
		    drv_frame_verify_mac(&key_a, (unsigned char *)frame, len), -EPERM);
		frame[i] ^= 0x01;
	}
	frame[len - 1] ^= 0x80; /* in the MAC itself */
	assert_int_equal(drv_frame_verify_mac(&key_a, (unsigned char *)frame, len),
			 -EPERM);
	frame[len - 1] ^= 0x80;
	assert_int_equal(drv_frame_verify_mac(&key_a, (unsigned char *)frame, len), 0);
	free(frame);
	/* an unsigned frame never passes a MAC check */
	assert_int_equal(drv_frame_build(env, NULL, MAX, &frame, &len), 0);
	assert_int_equal(drv_frame_verify_mac(&key_a, (unsigned char *)frame, len),
			 -EPERM);
	free(frame);
	json_decref(env);
}

/* Parses text and expects failure with a message containing want. */
static void expect_bad(const char *text, const char *want)
{
	json_t *env = NULL;
	struct drv_error err = {""};
	assert_int_equal(drv_envelope_parse(text, strlen(text), &env, &err), -EBADMSG);
	assert_null(env);
	if (!strstr(err.text, want))
		fail_msg("'%s': got '%s', want '%s'", text, err.text, want);
}

static void expect_ok(const char *text)
{
	json_t *env = NULL;
	struct drv_error err = {""};
	if (drv_envelope_parse(text, strlen(text), &env, &err) != 0)
		fail_msg("'%s': %s", text, err.text);
	json_decref(env);
}

static void test_envelope_bad(void **state)
{
	expect_bad("", "not JSON");
	expect_bad("{\"v\":1,", "not JSON");
	expect_bad("\xff\xfe", "not JSON");
	expect_bad("[1,2]", "must be a JSON object");
	expect_bad("{\"type\":\"ctld.ping\",\"id\":1,\"body\":{}}",
		   "field 'v': required");
	expect_bad("{\"v\":2,\"type\":\"ctld.ping\",\"id\":1,\"body\":{}}", "field 'v'");
	expect_bad("{\"v\":1,\"id\":1,\"body\":{}}", "field 'type': required");
	expect_bad("{\"v\":1,\"type\":7,\"id\":1,\"body\":{}}", "field 'type': must be");
	expect_bad("{\"v\":1,\"type\":\"ctld.ping\",\"body\":{}}",
		   "field 'id': required");
	expect_bad("{\"v\":1,\"type\":\"ctld.ping\",\"id\":-1,\"body\":{}}",
		   "field 'id'");
	expect_bad("{\"v\":1,\"type\":\"ctld.ping\",\"id\":\"1\",\"body\":{}}",
		   "field 'id'");
	expect_bad("{\"v\":1,\"type\":\"ctld.ping\",\"id\":1}", "field 'body': required");
	expect_bad("{\"v\":1,\"type\":\"ctld.ping\",\"id\":1,\"body\":[]}",
		   "field 'body': must be an object");
	expect_bad("{\"v\":1,\"type\":\"ctld.ping\",\"id\":1,\"body\":{},\"cred\":5}",
		   "field 'cred'");
	expect_bad("{\"v\":1,\"type\":\"job.explode\",\"id\":1,\"body\":{}}",
		   "undeclared message type 'job.explode'");
	expect_bad("{\"v\":1,\"v\":1,\"type\":\"ctld.ping\",\"id\":1,\"body\":{}}",
		   "not JSON"); /* duplicate keys */
	expect_bad("{\"v\":1,\"type\":\"reply\",\"id\":1,\"body\":{}}",
		   "field 'rc': required");
	expect_ok("{\"v\":1,\"type\":\"ctld.ping\",\"id\":0,\"body\":{}}");
	expect_ok("{\"v\":1,\"type\":\"reply\",\"id\":3,\"rc\":2017,\"error\":\"x\"}");
}

static void test_schema_violations(void **state)
{
	const char *pre = "{\"v\":1,\"type\":\"job.submit\",\"id\":1,\"body\":";
	char buf[1024];
	const char *ok =
	    "\"script\":\"#!/bin/sh\\n\",\"name\":\"a\",\"workdir\":\"/tmp\","
	    "\"user\":\"u\"";
	snprintf(buf, sizeof(buf), "%s{%s}}", pre, ok);
	expect_ok(buf);
	snprintf(buf, sizeof(buf), "%s{%s,\"nodes\":0}}", pre, ok);
	expect_bad(buf, "job.submit: field 'nodes': must be 1..100000");
	snprintf(buf, sizeof(buf), "%s{%s,\"nodes\":100001}}", pre, ok);
	expect_bad(buf, "job.submit: field 'nodes': must be 1..100000");
	snprintf(buf, sizeof(buf), "%s{%s,\"nodes\":\"2\"}}", pre, ok);
	expect_bad(buf, "job.submit: field 'nodes': must be an integer");
	snprintf(buf, sizeof(buf), "%s{%s,\"hold\":1}}", pre, ok);
	expect_bad(buf, "job.submit: field 'hold': must be true or false");
	snprintf(buf, sizeof(buf), "%s{%s,\"env\":[\"A=1\",3]}}", pre, ok);
	expect_bad(buf, "job.submit: field 'env[1]': must be a string");
	snprintf(buf, sizeof(buf), "%s{%s,\"time_limit\":-2}}", pre, ok);
	expect_bad(buf, "field 'time_limit'");
	/* a date past 9999 would wrap start + limit in the deadline check */
	snprintf(buf, sizeof(buf), "%s{%s,\"begin\":9223372036854775807}}", pre, ok);
	expect_bad(buf, "job.submit: field 'begin': must be 0..253402300799");
	snprintf(buf, sizeof(buf), "%s{%s,\"deadline\":253402300800}}", pre, ok);
	expect_bad(buf, "job.submit: field 'deadline'");
	snprintf(buf, sizeof(buf), "%s{%s,\"deadline\":253402300799}}", pre, ok);
	expect_ok(buf);
	snprintf(buf, sizeof(buf), "%s{%s,\"nodes\":null,\"unknown_field\":1}}", pre, ok);
	expect_ok(buf); /* null optional = absent; unknown fields ignored */
	snprintf(buf, sizeof(buf),
		 "%s{\"script\":\"x\",\"workdir\":\"/\",\"user\":\"u\"}}", pre);
	expect_bad(buf, "job.submit: field 'name': required");
	/* no script is an interactive allocation's body: ctld checks the pair */
	snprintf(
	    buf, sizeof(buf),
	    "%s{\"name\":\"a\",\"workdir\":\"/\",\"user\":\"u\",\"interactive\":true}}",
	    pre);
	expect_ok(buf);
	snprintf(buf, sizeof(buf), "%s{%s,\"script\":\"\"}}", pre,
		 "\"name\":\"a\",\"workdir\":\"/tmp\",\"user\":\"u\"");
	expect_bad(buf, "field 'script': must not be empty");
	expect_bad(
	    "{\"v\":1,\"type\":\"node.update\",\"id\":1,\"body\":"
	    "{\"nodes\":\"n1\",\"state\":\"EXPLODE\"}}",
	    "node.update: field 'state': must be one of DRAIN|RESUME|DOWN|UNDRAIN");
	expect_bad(
	    "{\"v\":1,\"type\":\"node.ping\",\"id\":1,\"body\":"
	    "{\"name\":\"n1\",\"jobs\":[{\"job_id\":1,\"restart\":0},{\"job_id\":2}]}}",
	    "node.ping: field 'jobs[1].restart': required");
	expect_bad(
	    "{\"v\":1,\"type\":\"auth.sign\",\"id\":1,\"body\":{\"digest\":\"ABC\"}}",
	    "auth.sign: field 'digest': must be 64 lower-case hex digits");
	expect_bad(
	    "{\"v\":1,\"type\":\"job.cancel\",\"id\":1,\"body\":{\"job_ids\":[0]}}",
	    "job.cancel: field 'job_ids[0]': must be 1..4294967294");
}

/* Every declared type: its minimal example validates, survives a frame
 * round trip, and fails once any one required field is removed. */
static void test_every_type_round_trip(void **state)
{
	size_t n = 0;
	for (const char *t; (t = drv_msg_type_name(n)); n++) {
		json_t *body = drv_msg_example(t);
		struct drv_error err = {""};
		assert_non_null(body);
		if (drv_msg_validate(t, body, &err) != 0)
			fail_msg("%s example: %s", t, err.text);
		json_t *env = drv_request_new(t, (int64_t)n, json_incref(body));
		char *frame;
		size_t len;
		bool has_mac;
		assert_int_equal(drv_frame_build(env, &key_a, MAX, &frame, &len), 0);
		json_t *back = parse_frame(frame, len, &has_mac);
		assert_true(json_equal(env, back));
		free(frame);
		json_decref(back);
		json_decref(env);
		const char *k;
		json_t *v;
		json_object_foreach(body, k, v)
		{
			json_t *less = json_deep_copy(body);
			json_object_del(less, k);
			if (drv_msg_validate(t, less, &err) != -EBADMSG)
				fail_msg("%s without %s validated", t, k);
			json_decref(less);
		}
		json_decref(body);
	}
	assert_true(n >= 17);
	assert_null(drv_msg_example("reply"));
	assert_true(drv_msg_known("reply"));
	assert_false(drv_msg_known("nope"));
}

/* A pushed message is an envelope of its own type, checked like a request. */
static void test_push_typed(void **state)
{
	expect_ok("{\"v\":1,\"type\":\"step.end\",\"id\":0,\"body\":{\"job_id\":7,"
		  "\"step_id\":0,\"state\":\"COMPLETED\"}}");
	expect_bad("{\"v\":1,\"type\":\"step.end\",\"id\":0,\"body\":{\"job_id\":7,"
		   "\"state\":\"COMPLETED\"}}",
		   "step.end: field 'step_id': required");
	expect_bad("{\"v\":1,\"type\":\"watch.event\",\"id\":0,\"body\":{\"seq\":1,"
		   "\"kind\":\"job\",\"job\":{\"job_id\":0,\"state\":\"PENDING\"}}}",
		   "watch.event: field 'job.job_id': must be 1..4294967294");
	const struct drv_msg_decl *d = drv_msg_decl_find("step.end");
	assert_non_null(d);
	assert_int_equal(d->kind, DRV_MSG_PUSH);
	assert_null(d->reply);
}

static void test_defaults(void **state)
{
	json_t *b = json_pack("{s:s, s:s, s:s, s:s}", "script", "x", "name", "n",
			      "workdir", "/", "user", "u");
	assert_int_equal(drv_msg_fill_defaults("job.submit", b), 0);
	assert_null(
	    json_object_get(b, "nodes")); /* -N absent means "as many as needed" */
	assert_string_equal(json_string_value(json_object_get(b, "export")), "ALL");
	assert_true(json_is_array(json_object_get(b, "env")));
	assert_true(json_is_false(json_object_get(b, "hold")));
	assert_null(json_object_get(b, "partition")); /* no default: stays absent */
	assert_int_equal(drv_msg_fill_defaults("nope", b), -EINVAL);
	json_decref(b);
}

static void test_reply_new(void **state)
{
	json_t *r = drv_reply_new(9, DRV_RC_INVALID_JOB_ID, NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "Invalid job id specified");
	assert_true(json_is_object(json_object_get(r, "body")));
	json_decref(r);
	r = drv_reply_new(9, 0, NULL, json_pack("{s:i}", "job_id", 3));
	assert_null(json_object_get(r, "error"));
	char *s = json_dumps(r, JSON_COMPACT);
	struct drv_error err;
	json_t *back;
	assert_int_equal(drv_envelope_parse(s, strlen(s), &back, &err), 0);
	assert_true(json_equal(r, back));
	free(s);
	json_decref(back);
	json_decref(r);
	/* a bad byte echoed into an error text does not lose the error */
	r = drv_reply_new(1, 1001, "bad \xff byte", NULL);
	assert_string_equal(json_string_value(json_object_get(r, "error")), "bad ? byte");
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frame_round_trip),
	    cmocka_unit_test(test_push_typed),
	    cmocka_unit_test(test_frame_build_oversize),
	    cmocka_unit_test(test_header_refuses_oversize),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_mac_flipped_and_wrong_key),
	    cmocka_unit_test(test_envelope_bad),
	    cmocka_unit_test(test_schema_violations),
	    cmocka_unit_test(test_every_type_round_trip),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_reply_new),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
