/* test_auth_munge.c — auth/munge's checks that need no munged: the shape of
 * a credential is judged before munged is asked, and a socket that is not
 * there is one line naming it. tests/integ/test_munge.py runs the rest
 * against a real munged. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/auth_munge.h"

#define GONE "/nonexistent-drover-test/munge.sock"
#define DIGEST "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_auth_type(void **state)
{
	struct drv_conf c = {.auth_type = "auth/munge"};
	assert_true(drv_auth_munge(&c));
	c.auth_type = "auth/drover";
	assert_false(drv_auth_munge(&c));
	assert_false(drv_auth_munge(NULL));
}

/* Each is refused as malformed before munged is asked (the socket does
 * not exist, so asking would give -ENOTCONN instead). */
static void test_malformed_is_refused_without_munged(void **state)
{
	const char *shapes[] = {
	    "null",
	    "\"MUNGE:abc:\"",
	    "{}",
	    "{\"munge\":5}",
	    "{\"munge\":\"\"}",
	    "{\"munge\":\"a\",\"uid\":0}",
	    "{\"uid\":0,\"gid\":0,\"nonce\":\"ab\"}",
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		json_t *cred = json_loads(shapes[i], JSON_DECODE_ANY, NULL);
		struct drv_error err = {{0}};
		struct drv_cred_info info;
		assert_int_equal(drv_munge_check(GONE, cred, DIGEST, &info, &err),
				 -EPERM);
		assert_string_equal(err.text, "malformed credential");
		json_decref(cred);
	}
	json_t *reply = json_pack("{s:i, s:{s:i}}", "id", 1, "cred", "munge", 5);
	struct drv_error err = {{0}};
	uid_t uid = 12345;
	assert_int_equal(drv_munge_check_reply(GONE, reply, "", &uid, &err), -EPERM);
	assert_string_equal(err.text, "reply from controller failed authentication: "
				      "malformed credential");
	assert_int_equal(uid, 12345); /* outputs set only on success */
	json_decref(reply);
}

static void assert_names_socket_once(const char *text)
{
	const char *prefix = "Unable to contact munged at " GONE ": ";
	assert_memory_equal(text, prefix, strlen(prefix));
	assert_null(strstr(text + strlen(prefix), GONE));
	assert_null(strchr(text, '\n'));
}

static void test_missing_socket(void **state)
{
	struct drv_error err = {{0}};
	errno = 0;
	assert_null(drv_munge_sign(GONE, DIGEST, &err));
	assert_int_equal(errno, ENOTCONN);
	assert_names_socket_once(err.text);

	json_t *cred = json_pack("{s:s}", "munge", "MUNGE:AwQFAAB:");
	memset(&err, 0, sizeof(err));
	assert_int_equal(drv_munge_check(GONE, cred, DIGEST, NULL, &err), -ENOTCONN);
	assert_names_socket_once(err.text);
	json_decref(cred);

	memset(&err, 0, sizeof(err));
	assert_int_equal(drv_munge_probe(GONE, &err), -ENOTCONN);
	assert_names_socket_once(err.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_auth_type),
	    cmocka_unit_test(test_malformed_is_refused_without_munged),
	    cmocka_unit_test(test_missing_socket),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
