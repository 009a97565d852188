/* test_stepio.c — srun <-> shepherd frames (common/stepio.h), with the
 * --mpi=pmix fence and abort frames, and the step messages' "mpi" fields. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/error.h"
#include "common/proto.h"
#include "common/stepio.h"

static void test_header_types(void **state)
{
	uint8_t buf[STEPIO_HDR_LEN];
	struct stepio_hdr h;
	for (uint8_t t = STEPIO_HELLO; t <= STEPIO_ABORTING; t++) {
		stepio_hdr_pack(buf, t, 7, 42);
		assert_int_equal(stepio_hdr_unpack(buf, &h), 0);
		assert_int_equal(h.type, t);
		assert_int_equal(h.task, 7);
		assert_int_equal(h.len, 42);
	}
	stepio_hdr_pack(buf, STEPIO_ABORTING + 1, 0, 0);
	assert_int_equal(stepio_hdr_unpack(buf, &h), -1);
	stepio_hdr_pack(buf, 0, 0, 0);
	assert_int_equal(stepio_hdr_unpack(buf, &h), -1);
	stepio_hdr_pack(buf, STEPIO_FENCE_UP, 0, STEPIO_MAX_PAYLOAD + 1);
	assert_int_equal(stepio_hdr_unpack(buf, &h), -1);
}

static void test_fence_frame_round_trip(void **state)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* two nodes' parts, each length-prefixed, as srun sends them down */
	const uint8_t down[] = {0, 0, 0, 2, 'a', 'b', 0, 0, 0, 1, 'c'};
	assert_int_equal(stepio_send(sv[0], STEPIO_FENCE_DOWN, 0, down, sizeof(down)), 0);
	assert_int_equal(stepio_send(sv[0], STEPIO_ABORT, 0, NULL, 0), 0);
	uint8_t hdr[STEPIO_HDR_LEN], got[sizeof(down)];
	struct stepio_hdr h;
	assert_int_equal(stepio_read_full(sv[1], hdr, sizeof(hdr)), 0);
	assert_int_equal(stepio_hdr_unpack(hdr, &h), 0);
	assert_int_equal(h.type, STEPIO_FENCE_DOWN);
	assert_int_equal(h.len, sizeof(down));
	assert_int_equal(stepio_read_full(sv[1], got, h.len), 0);
	assert_memory_equal(got, down, sizeof(down));
	assert_int_equal(stepio_read_full(sv[1], hdr, sizeof(hdr)), 0);
	assert_int_equal(stepio_hdr_unpack(hdr, &h), 0);
	assert_int_equal(h.type, STEPIO_ABORT);
	assert_int_equal(h.len, 0);
	close(sv[0]);
	close(sv[1]);
}

/* --pty: "pty" is a bool in both step messages, false when absent */
static void test_step_messages_pty(void **state)
{
	const char *types[] = {"step.create", "step.launch"};
	for (size_t i = 0; i < 2; i++) {
		struct drv_error err;
		json_t *b = drv_msg_example(types[i]);
		assert_non_null(b);
		json_object_set_new(b, "pty", json_true());
		assert_int_equal(drv_msg_validate(types[i], b, &err), 0);
		json_object_set_new(b, "pty", json_string("yes"));
		assert_int_equal(drv_msg_validate(types[i], b, &err), -EBADMSG);
		json_decref(b);
	}
}

/* sattach's key: fixed by io_key, other than it, 64 hex digits */
static void test_attach_key(void **state)
{
	char a[65], b[65];
	const char *k1 =
	    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	const char *k2 =
	    "10112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	stepio_attach_key(k1, a);
	stepio_attach_key(k1, b);
	assert_string_equal(a, b);
	assert_int_equal(strlen(a), 64);
	assert_true(strspn(a, "0123456789abcdef") == 64);
	assert_string_not_equal(a, k1);
	stepio_attach_key(k2, b);
	assert_string_not_equal(a, b);
}

/* step.attach: both ids required; its reply carries the attach key */
static void test_step_attach_messages(void **state)
{
	struct drv_error err;
	json_t *b = json_pack("{s:i,s:i}", "job_id", 5, "step_id", 0);
	assert_int_equal(drv_msg_validate("step.attach", b, &err), 0);
	json_object_del(b, "step_id");
	assert_int_equal(drv_msg_validate("step.attach", b, &err), -EBADMSG);
	json_decref(b);
}

/* "mpi" is optional and only "none" or "pmix" */
static void test_step_messages_mpi(void **state)
{
	const char *types[] = {"step.create", "step.launch"};
	for (size_t i = 0; i < 2; i++) {
		struct drv_error err;
		json_t *b = drv_msg_example(types[i]);
		assert_non_null(b);
		assert_int_equal(drv_msg_validate(types[i], b, &err), 0);
		json_object_set_new(b, "mpi", json_string("pmix"));
		assert_int_equal(drv_msg_validate(types[i], b, &err), 0);
		json_object_set_new(b, "mpi", json_string("pmi2"));
		assert_int_equal(drv_msg_validate(types[i], b, &err), -EBADMSG);
		json_decref(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_types),
	    cmocka_unit_test(test_fence_frame_round_trip),
	    cmocka_unit_test(test_step_messages_mpi),
	    cmocka_unit_test(test_step_messages_pty),
	    cmocka_unit_test(test_attach_key),
	    cmocka_unit_test(test_step_attach_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
