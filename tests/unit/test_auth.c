/* test_auth.c — key files, credentials and the nonce cache. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/auth.h"
#include "common/proto.h"

#define NOW 1800000000LL

static struct drv_key key_a = {{1, 2, 3}};
static struct drv_key key_b = {{4, 5, 6}};

static json_t *request(const char *job)
{
	return drv_request_new("job.query", 1, json_pack("{s:[s]}", "users", job));
}

static json_t *issue_for(json_t *env, const struct drv_key *key, int64_t now)
{
	char digest[65];
	drv_envelope_digest(env, digest);
	return drv_cred_issue(key, 1000, 100, "login1", digest, now);
}

static void test_issue_and_check(void **state)
{
	json_t *env = request("alice");
	json_t *cred = issue_for(env, &key_a, NOW);
	assert_non_null(cred);
	json_object_set(env, "cred", cred);
	char digest[65];
	drv_envelope_digest(env, digest); /* "cred" does not count */
	struct drv_cred_info info;
	struct drv_error err = {""};
	assert_int_equal(drv_cred_check(&key_a, cred, digest, NOW + 10, &info, &err), 0);
	assert_int_equal(info.uid, 1000);
	assert_int_equal(info.gid, 100);
	assert_string_equal(info.host, "login1");
	assert_int_equal(info.expires, NOW + DRV_CRED_TTL);
	assert_int_equal(strlen(info.nonce), 64);
	/* a credential that went through a frame is still good */
	char *s = json_dumps(env, JSON_COMPACT);
	json_t *back;
	assert_int_equal(drv_envelope_parse(s, strlen(s), &back, &err), 0);
	drv_envelope_digest(back, digest);
	assert_int_equal(drv_cred_check(&key_a, json_object_get(back, "cred"), digest,
					NOW, NULL, &err),
			 0);
	free(s);
	json_decref(back);
	json_decref(cred);
	json_decref(env);
}

static void expect_refused(json_t *cred, const char *digest, const struct drv_key *key,
			   int64_t now, const char *why)
{
	struct drv_error err = {""};
	struct drv_cred_info info = {.uid = 77};
	assert_int_equal(drv_cred_check(key, cred, digest, now, &info, &err), -EPERM);
	assert_string_equal(err.text, why);
	assert_int_equal(info.uid, 77); /* untouched */
}

static void test_refusals(void **state)
{
	json_t *env = request("alice");
	json_t *other = request("mallory");
	char digest[65], other_digest[65];
	drv_envelope_digest(env, digest);
	drv_envelope_digest(other, other_digest);
	json_t *cred = issue_for(env, &key_a, NOW);

	expect_refused(cred, digest, &key_a, NOW + DRV_CRED_TTL, "credential expired");
	expect_refused(cred, digest, &key_b, NOW, "bad MAC");
	/* lifted: a good credential presented with another request */
	expect_refused(cred, other_digest, &key_a, NOW, "digest mismatch");

	json_t *forged = json_deep_copy(cred);
	json_object_set_new(forged, "uid", json_integer(0));
	expect_refused(forged, digest, &key_a, NOW, "bad MAC");
	json_decref(forged);
	forged = json_deep_copy(cred);
	json_object_set_new(forged, "expires", json_integer(NOW + 100000));
	expect_refused(forged, digest, &key_a, NOW + DRV_CRED_TTL, "bad MAC");
	json_decref(forged);
	forged = json_deep_copy(cred);
	char mac[65];
	snprintf(mac, sizeof(mac), "%s",
		 json_string_value(json_object_get(forged, "mac")));
	mac[0] = mac[0] == '0' ? '1' : '0';
	json_object_set_new(forged, "mac", json_string(mac));
	expect_refused(forged, digest, &key_a, NOW, "bad MAC");
	json_object_del(forged, "mac");
	expect_refused(forged, digest, &key_a, NOW, "malformed credential");
	json_decref(forged);
	forged = json_deep_copy(cred);
	json_object_set_new(forged, "uid", json_string("0"));
	expect_refused(forged, digest, &key_a, NOW, "malformed credential");
	json_decref(forged);
	expect_refused(json_null(), digest, &key_a, NOW, "malformed credential");

	json_decref(cred);
	json_decref(env);
	json_decref(other);
}

static void test_nonce_replay(void **state)
{
	struct drv_nonce_cache *c = drv_nonce_cache_new();
	assert_non_null(c);
	const char *n1 = "aa11", *n2 = "bb22";
	assert_int_equal(drv_nonce_cache_add(c, n1, NOW + 300, NOW), 0);
	assert_int_equal(drv_nonce_cache_add(c, n1, NOW + 300, NOW + 1), -EEXIST);
	assert_int_equal(drv_nonce_cache_add(c, n2, NOW + 300, NOW + 1), 0);
	assert_int_equal(drv_nonce_cache_add(c, n2, NOW + 300, NOW + 299), -EEXIST);
	/* after expiry the entry is gone (its credential is refused anyway) */
	assert_int_equal(drv_nonce_cache_add(c, n1, NOW + 900, NOW + 300), 0);
	assert_int_equal(drv_nonce_cache_add(c, n1, NOW + 900, NOW + 301), -EEXIST);
	char toolong[80];
	memset(toolong, 'a', sizeof(toolong) - 1);
	toolong[79] = '\0';
	assert_int_equal(drv_nonce_cache_add(c, toolong, NOW + 300, NOW), -EINVAL);
	/* many entries: the table grows and sweeps without losing any */
	char n[65];
	for (int i = 0; i < 5000; i++) {
		snprintf(n, sizeof(n), "%064d", i);
		assert_int_equal(drv_nonce_cache_add(c, n, NOW + 1000 + i, NOW + 400), 0);
	}
	for (int i = 0; i < 5000; i += 97) {
		snprintf(n, sizeof(n), "%064d", i);
		assert_int_equal(drv_nonce_cache_add(c, n, NOW + 2000, NOW + 500),
				 -EEXIST);
	}
	drv_nonce_cache_free(c);
	drv_nonce_cache_free(NULL);
}

static char tmpdir[64];

static int setup_dir(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_auth.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_key_files(void **state)
{
	char path[128], raw[128];
	struct drv_error err = {""};
	struct drv_key k1, k2;
	snprintf(path, sizeof(path), "%s/drover.key", tmpdir);
	assert_int_equal(drv_key_generate(path, &err), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 65);
	assert_int_equal(drv_key_generate(path, &err), -EEXIST);
	assert_int_equal(drv_key_load(path, &k1, &err), 0);

	chmod(path, 0644);
	assert_int_equal(drv_key_load(path, &k2, &err), -EPERM);
	char want[256];
	snprintf(want, sizeof(want),
		 "key file %s is readable by others (mode 0644); chmod 600 it", path);
	assert_string_equal(err.text, want);
	chmod(path, 0640);
	assert_int_equal(drv_key_load(path, &k2, &err), -EPERM);
	chmod(path, 0602);
	assert_int_equal(drv_key_load(path, &k2, &err), -EPERM);

	/* 32 raw bytes are accepted too; other sizes are not */
	snprintf(raw, sizeof(raw), "%s/raw.key", tmpdir);
	int fd = open(raw, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, k1.bytes, 32), 32);
	assert_int_equal(drv_key_load(raw, &k2, &err), 0);
	assert_memory_equal(k1.bytes, k2.bytes, 32);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(drv_key_load(raw, &k2, &err), -EINVAL);
	snprintf(raw, sizeof(raw), "%s/missing.key", tmpdir);
	assert_int_equal(drv_key_load(raw, &k2, &err), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_issue_and_check),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_nonce_replay),
	    cmocka_unit_test_setup_teardown(test_key_files, setup_dir, teardown_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
