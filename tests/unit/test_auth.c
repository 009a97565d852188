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
#include <event2/event.h>
#include <event2/listener.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "common/auth.h"
#include "common/client.h"
#include "common/keyring.h"
#include "common/log.h"
#include "common/net.h"
#include "common/proto.h"

#define NOW 1800000000LL

#define TTL 120 /* cred_expire */
#define SKEW 10 /* clock_skew */

static struct drv_key key_a = {{1, 2, 3}};
static struct drv_key key_b = {{4, 5, 6}};
static struct drv_keyring ring_a = {.cur = {{1, 2, 3}}};
static struct drv_keyring ring_b = {.cur = {{4, 5, 6}}};
static const struct drv_cred_policy pol = {.lifetime = TTL, .skew = SKEW};

static json_t *request(const char *job)
{
	return drv_request_new("job.query", 1, json_pack("{s:[s]}", "users", job));
}

static json_t *issue_for(json_t *env, const struct drv_key *key, int64_t now)
{
	char digest[65];
	drv_envelope_digest(env, digest);
	return drv_cred_issue(key, 1000, 100, "login1", digest, now, TTL);
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
	assert_int_equal(
	    drv_cred_check(&ring_a, cred, digest, &pol, NOW + 10, &info, &err), 0);
	assert_int_equal(info.uid, 1000);
	assert_int_equal(info.gid, 100);
	assert_string_equal(info.host, "login1");
	assert_int_equal(info.expires, NOW + TTL);
	assert_int_equal(info.valid_until, NOW + TTL + SKEW);
	assert_int_equal(strlen(info.nonce), 64);
	/* a credential that went through a frame is still good */
	char *s = json_dumps(env, JSON_COMPACT);
	json_t *back;
	assert_int_equal(drv_envelope_parse(s, strlen(s), &back, &err), 0);
	drv_envelope_digest(back, digest);
	assert_int_equal(drv_cred_check(&ring_a, json_object_get(back, "cred"), digest,
					&pol, NOW, NULL, &err),
			 0);
	free(s);
	json_decref(back);
	json_decref(cred);
	json_decref(env);
}

/* The job the caller runs in travels under the MAC: named, it is read
 * back; changed, added or dropped, the MAC fails; malformed, refused
 * before any cryptography; absent, the credential names no job. */
static void test_job_id(void **state)
{
	json_t *env = request("alice");
	char digest[65];
	drv_envelope_digest(env, digest);
	struct drv_cred_info info;
	struct drv_error err = {""};
	json_t *cred = drv_cred_issue_job(&key_a, 1000, 100, "n1", digest, NOW, TTL, 42);
	assert_non_null(cred);
	assert_int_equal(drv_cred_check(&ring_a, cred, digest, &pol, NOW, &info, &err),
			 0);
	assert_int_equal(info.job_id, 42);
	json_t *plain = issue_for(env, &key_a, NOW);
	assert_null(json_object_get(plain, "job_id"));
	assert_int_equal(drv_cred_check(&ring_a, plain, digest, &pol, NOW, &info, &err),
			 0);
	assert_int_equal(info.job_id, 0);

	json_t *forged = json_deep_copy(cred);
	json_object_set_new(forged, "job_id", json_integer(43));
	assert_int_equal(drv_cred_check(&ring_a, forged, digest, &pol, NOW, &info, &err),
			 -EPERM);
	assert_string_equal(err.text, "bad MAC");
	json_object_del(forged, "job_id");
	assert_int_equal(drv_cred_check(&ring_a, forged, digest, &pol, NOW, &info, &err),
			 -EPERM);
	assert_string_equal(err.text, "bad MAC");
	json_decref(forged);
	forged = json_deep_copy(plain);
	json_object_set_new(forged, "job_id", json_integer(7));
	assert_int_equal(drv_cred_check(&ring_a, forged, digest, &pol, NOW, &info, &err),
			 -EPERM);
	assert_string_equal(err.text, "bad MAC");
	const char *bad[] = {"0", "-1", "\"7\"", "4294967295", "1.5"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object_set_new(forged, "job_id",
				    json_loads(bad[i], JSON_DECODE_ANY, NULL));
		assert_int_equal(
		    drv_cred_check(&ring_a, forged, digest, &pol, NOW, &info, &err),
		    -EPERM);
		assert_string_equal(err.text, "malformed credential");
	}
	json_decref(forged);
	json_decref(plain);
	json_decref(cred);
	json_decref(env);
}

static void expect_refused(json_t *cred, const char *digest,
			   const struct drv_keyring *key, int64_t now, const char *why)
{
	struct drv_error err = {""};
	struct drv_cred_info info = {.uid = 77};
	assert_int_equal(drv_cred_check(key, cred, digest, &pol, now, &info, &err),
			 -EPERM);
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

	expect_refused(cred, digest, &ring_a, NOW + TTL + SKEW, "credential expired");
	expect_refused(cred, digest, &ring_b, NOW, "bad MAC");
	/* lifted: a good credential presented with another request */
	expect_refused(cred, other_digest, &ring_a, NOW, "digest mismatch");

	json_t *forged = json_deep_copy(cred);
	json_object_set_new(forged, "uid", json_integer(0));
	expect_refused(forged, digest, &ring_a, NOW, "bad MAC");
	json_decref(forged);
	forged = json_deep_copy(cred);
	json_object_set_new(forged, "expires", json_integer(NOW + 100000));
	expect_refused(forged, digest, &ring_a, NOW + TTL + SKEW, "bad MAC");
	json_decref(forged);
	forged = json_deep_copy(cred);
	char mac[65];
	snprintf(mac, sizeof(mac), "%s",
		 json_string_value(json_object_get(forged, "mac")));
	mac[0] = mac[0] == '0' ? '1' : '0';
	json_object_set_new(forged, "mac", json_string(mac));
	expect_refused(forged, digest, &ring_a, NOW, "bad MAC");
	json_object_del(forged, "mac");
	expect_refused(forged, digest, &ring_a, NOW, "malformed credential");
	json_decref(forged);
	forged = json_deep_copy(cred);
	json_object_set_new(forged, "uid", json_string("0"));
	expect_refused(forged, digest, &ring_a, NOW, "malformed credential");
	json_decref(forged);
	expect_refused(json_null(), digest, &ring_a, NOW, "malformed credential");

	json_decref(cred);
	json_decref(env);
	json_decref(other);
}

/* One uid's flood fills its own share only; the whole cache still bounds
 * memory; expired entries give their share back. */
static void test_nonce_share_per_uid(void **state)
{
	struct drv_nonce_cache *c = drv_nonce_cache_new(300, 100);
	char n[65];
	for (int i = 0; i < 100; i++) {
		snprintf(n, sizeof(n), "f%063d", i);
		assert_int_equal(drv_nonce_cache_add(c, 666, n, NOW + 300, NOW), 0);
	}
	assert_int_equal(drv_nonce_cache_add(c, 666, "f-one-more", NOW + 300, NOW),
			 -EDQUOT);
	/* everyone else is served */
	assert_int_equal(drv_nonce_cache_add(c, 0, "root-1", NOW + 300, NOW), 0);
	assert_int_equal(drv_nonce_cache_add(c, 1000, "owner-1", NOW + 300, NOW), 0);
	/* a replay is still a replay, whoever sends it */
	assert_int_equal(drv_nonce_cache_add(c, 1000, "root-1", NOW + 300, NOW), -EEXIST);
	/* the total bounds the sum of the shares */
	for (int u = 2000; u < 2002; u++)
		for (int i = 0; i < 100; i++) {
			snprintf(n, sizeof(n), "u%d-%d", u, i);
			int rc = drv_nonce_cache_add(c, (uid_t)u, n, NOW + 300, NOW);
			assert_true(rc == 0 || rc == -ENOSPC);
		}
	assert_int_equal(drv_nonce_cache_add(c, 3000, "late", NOW + 300, NOW), -ENOSPC);
	/* once the flood's credentials expire, its share is back */
	assert_int_equal(drv_nonce_cache_add(c, 666, "f-later", NOW + 900, NOW + 301), 0);
	drv_nonce_cache_free(c);
}

static void test_nonce_replay(void **state)
{
	struct drv_nonce_cache *c = drv_nonce_cache_new(1 << 20, 1 << 16);
	assert_non_null(c);
	const char *n1 = "aa11", *n2 = "bb22";
	assert_int_equal(drv_nonce_cache_add(c, 1000, n1, NOW + 300, NOW), 0);
	assert_int_equal(drv_nonce_cache_add(c, 1000, n1, NOW + 300, NOW + 1), -EEXIST);
	assert_int_equal(drv_nonce_cache_add(c, 1000, n2, NOW + 300, NOW + 1), 0);
	assert_int_equal(drv_nonce_cache_add(c, 1000, n2, NOW + 300, NOW + 299), -EEXIST);
	/* after expiry the entry is gone (its credential is refused anyway) */
	assert_int_equal(drv_nonce_cache_add(c, 1000, n1, NOW + 900, NOW + 300), 0);
	assert_int_equal(drv_nonce_cache_add(c, 1000, n1, NOW + 900, NOW + 301), -EEXIST);
	char toolong[80];
	memset(toolong, 'a', sizeof(toolong) - 1);
	toolong[79] = '\0';
	assert_int_equal(drv_nonce_cache_add(c, 1000, toolong, NOW + 300, NOW), -EINVAL);
	/* many entries: the table grows and sweeps without losing any */
	char n[65];
	for (int i = 0; i < 5000; i++) {
		snprintf(n, sizeof(n), "%064d", i);
		assert_int_equal(
		    drv_nonce_cache_add(c, 1000, n, NOW + 1000 + i, NOW + 400), 0);
	}
	for (int i = 0; i < 5000; i += 97) {
		snprintf(n, sizeof(n), "%064d", i);
		assert_int_equal(drv_nonce_cache_add(c, 1000, n, NOW + 2000, NOW + 500),
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
	assert_int_equal(drv_key_load(path, &k1, NULL, &err), 0);

	chmod(path, 0644);
	assert_int_equal(drv_key_load(path, &k2, NULL, &err), -EPERM);
	char want[256];
	snprintf(want, sizeof(want),
		 "key file %s is readable by others (mode 0644); chmod 600 it", path);
	assert_string_equal(err.text, want);
	chmod(path, 0640);
	assert_int_equal(drv_key_load(path, &k2, NULL, &err), -EPERM);
	chmod(path, 0602);
	assert_int_equal(drv_key_load(path, &k2, NULL, &err), -EPERM);

	/* 32 raw bytes are accepted too; other sizes are not */
	snprintf(raw, sizeof(raw), "%s/raw.key", tmpdir);
	int fd = open(raw, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, k1.bytes, 32), 32);
	assert_int_equal(drv_key_load(raw, &k2, NULL, &err), 0);
	assert_memory_equal(k1.bytes, k2.bytes, 32);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(drv_key_load(raw, &k2, NULL, &err), -EINVAL);
	snprintf(raw, sizeof(raw), "%s/missing.key", tmpdir);
	assert_int_equal(drv_key_load(raw, &k2, NULL, &err), -ENOENT);
}

/* --- clock skew ---------------------------------------------------------- */

/* A credential for env with the given times, MACed with key as authd would. */
static json_t *cred_at(json_t *env, const struct drv_key *key, int64_t issued,
		       int64_t expires)
{
	json_t *cred = issue_for(env, key, NOW);
	json_object_set_new(cred, "issued", json_integer(issued));
	json_object_set_new(cred, "expires", json_integer(expires));
	json_object_del(cred, "mac");
	char *text = json_dumps(cred, JSON_COMPACT | JSON_SORT_KEYS);
	unsigned char mac[32];
	char hex[65];
	drv_hmac(key, text, strlen(text), mac);
	free(text);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	json_object_set_new(cred, "mac", json_string(hex));
	return cred;
}

static void expect_times(json_t *env, int64_t issued, int64_t expires, const char *why)
{
	char digest[65];
	drv_envelope_digest(env, digest);
	json_t *cred = cred_at(env, &key_a, issued, expires);
	if (why) {
		expect_refused(cred, digest, &ring_a, NOW, why);
	} else {
		struct drv_error err = {""};
		struct drv_cred_info info;
		assert_int_equal(
		    drv_cred_check(&ring_a, cred, digest, &pol, NOW, &info, &err), 0);
		assert_int_equal(info.valid_until, expires + SKEW);
	}
	json_decref(cred);
}

/* Each limit exactly at the skew is accepted, one second past it refused. */
static void test_clock_skew_edges(void **state)
{
	json_t *env = request("alice");
	/* issued ahead of our clock */
	expect_times(env, NOW + SKEW, NOW + SKEW + TTL, NULL);
	expect_times(env, NOW + SKEW + 1, NOW + SKEW + 1 + TTL,
		     "credential issued in the future");
	/* expired by our clock: valid while expires + skew > now */
	expect_times(env, NOW - TTL, NOW - SKEW + 1, NULL);
	expect_times(env, NOW - TTL, NOW - SKEW, "credential expired");
	/* a lifetime longer than cred_expire allows */
	expect_times(env, NOW, NOW + TTL + SKEW, NULL);
	expect_times(env, NOW, NOW + TTL + SKEW + 1, "credential lifetime too long");
	/* times at the ends of the integer range neither overflow nor pass */
	expect_times(env, INT64_MIN, INT64_MAX, "credential lifetime too long");
	expect_times(env, INT64_MAX, INT64_MAX, "credential issued in the future");
	expect_times(env, INT64_MIN, INT64_MIN, "credential expired");
	expect_times(env, NOW, INT64_MAX, "credential lifetime too long");
	/* no skew allowed: exactly now is still good, a second later not */
	struct drv_cred_policy strict = {.lifetime = TTL, .skew = 0};
	char digest[65];
	drv_envelope_digest(env, digest);
	json_t *cred = cred_at(env, &key_a, NOW, NOW + 1);
	struct drv_error err = {""};
	assert_int_equal(drv_cred_check(&ring_a, cred, digest, &strict, NOW, NULL, &err),
			 0);
	assert_int_equal(
	    drv_cred_check(&ring_a, cred, digest, &strict, NOW + 1, NULL, &err), -EPERM);
	assert_string_equal(err.text, "credential expired");
	json_decref(cred);
	json_decref(env);
}

/* --- key rotation ---------------------------------------------------------- */

static bool same_key(const struct drv_key *a, const struct drv_key *b)
{
	return memcmp(a->bytes, b->bytes, DRV_KEY_LEN) == 0;
}

static void expect_accepted(struct drv_keyring *r, const struct drv_key *signer,
			    int64_t now, bool ok)
{
	json_t *env = request("alice");
	char digest[65];
	drv_envelope_digest(env, digest);
	json_t *cred = issue_for(env, signer, now);
	struct drv_error err = {""};
	int rc = drv_cred_check(r, cred, digest, &pol, now, NULL, &err);
	assert_int_equal(rc, ok ? 0 : -EPERM);
	if (!ok)
		assert_string_equal(err.text, "bad MAC");
	json_decref(cred);
	json_decref(env);
}

static void test_key_rotate_file(void **state)
{
	char path[128], prev[160];
	struct drv_error err = {""};
	struct drv_key old, now_key, kept;
	snprintf(path, sizeof(path), "%s/drover.key", tmpdir);
	snprintf(prev, sizeof(prev), "%s.prev", path);
	assert_int_equal(drv_key_rotate(path, &err), -ENOENT); /* nothing to rotate */
	assert_int_equal(drv_key_generate(path, &err), 0);
	assert_int_equal(drv_key_load(path, &old, NULL, &err), 0);
	assert_int_equal(drv_key_rotate(path, &err), 0);
	struct stat st;
	assert_int_equal(stat(prev, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(drv_key_load(prev, &kept, NULL, &err), 0);
	assert_int_equal(drv_key_load(path, &now_key, NULL, &err), 0);
	assert_true(same_key(&kept, &old));
	assert_false(same_key(&now_key, &old));
	char tmp[160];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1);
	/* a second rotation replaces the .prev */
	assert_int_equal(drv_key_rotate(path, &err), 0);
	assert_int_equal(drv_key_load(prev, &kept, NULL, &err), 0);
	assert_true(same_key(&kept, &now_key));
	/* a key readable by others is not rotated (nor used) */
	chmod(path, 0640);
	assert_int_equal(drv_key_rotate(path, &err), -EPERM);
	assert_non_null(strstr(err.text, "mode 0640"));
}

static void test_keyring_rotation(void **state)
{
	char path[128];
	struct drv_error err = {""};
	struct drv_keyring r, peer;
	struct drv_key old;
	snprintf(path, sizeof(path), "%s/drover.key", tmpdir);
	assert_int_equal(drv_key_generate(path, &err), 0);
	assert_int_equal(drv_keyring_load(&r, path, 5, &err), 0);
	assert_int_equal(drv_keyring_load(&peer, path, 5, &err), 0);
	old = r.cur;
	assert_int_equal(drv_keyring_refresh(&r, NOW, false, &err), 0); /* unchanged */

	assert_int_equal(drv_key_rotate(path, &err), 0);
	/* the file is looked at no more than once a second, unless forced */
	assert_int_equal(drv_keyring_refresh(&r, NOW, false, &err), 0);
	assert_true(same_key(&r.cur, &old));
	assert_int_equal(drv_keyring_refresh(&r, NOW + 1, false, &err), 1);
	assert_false(same_key(&r.cur, &old));
	assert_int_equal(drv_keyring_refresh(&r, NOW + 1, true, &err), 0); /* seen */
	/* within the grace (from NOW + 1) both keys verify; the new one signs */
	expect_accepted(&r, &old, NOW + 5, true);
	expect_accepted(&r, &r.cur, NOW + 5, true);
	/* after it the old key's MACs are refused, and it is forgotten */
	expect_accepted(&r, &old, NOW + 6, false);
	assert_int_equal(drv_keyring_refresh(&r, NOW + 6, false, &err), 0);
	assert_int_equal(r.prev_until, 0);
	struct drv_key zero = {{0}};
	assert_true(same_key(&r.prev, &zero));

	/* a peer that has not looked yet takes a credential signed with the
	 * new key: the refusal makes it look at the file, and it passes */
	json_t *env = request("alice");
	char digest[65];
	drv_envelope_digest(env, digest);
	json_t *cred = issue_for(env, &r.cur, NOW + 5);
	peer.next_look = NOW + 100; /* as if it had just looked */
	assert_int_equal(
	    drv_keyring_check_cred(&peer, cred, digest, &pol, NOW + 5, NULL, &err), 0);
	assert_true(same_key(&peer.cur, &r.cur));
	json_decref(cred);
	json_decref(env);

	/* a new file that is no good is reported once; the keys stay */
	struct drv_key held = r.cur;
	assert_int_equal(drv_key_rotate(path, &err), 0);
	chmod(path, 0644);
	assert_int_equal(drv_keyring_refresh(&r, NOW + 6, true, &err), -EPERM);
	assert_non_null(strstr(err.text, "mode 0644"));
	assert_int_equal(drv_keyring_refresh(&r, NOW + 7, true, &err), 0);
	assert_true(same_key(&r.cur, &held));
	chmod(path, 0600); /* fixed: now it is taken */
	assert_int_equal(drv_keyring_refresh(&r, NOW + 8, true, &err), 1);
	assert_true(same_key(&r.prev, &held));
	/* the same key written again is no rotation */
	struct timespec ts[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(drv_keyring_refresh(&r, NOW + 9, true, &err), 0);
	/* a ring of a fixed key never looks at any file */
	struct drv_keyring fixed;
	drv_keyring_from_key(&fixed, &key_b);
	assert_int_equal(drv_keyring_refresh(&fixed, NOW, true, &err), 0);
	expect_accepted(&fixed, &key_b, NOW, true);
	expect_accepted(&fixed, &key_a, NOW, false);
	drv_keyring_fini(&fixed);
	drv_keyring_fini(&r);
	drv_keyring_fini(&peer);
	drv_keyring_fini(NULL);
}

/* --- drover-authd and drv_client_call, end to end ---------------------- */

static char authd_bin[PATH_MAX + 16];

/* drover-authd is built beside tests/unit/: <build>/drover-authd. */
static bool find_authd(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	char *p = strstr(self, "/tests/unit/");
	if (!p)
		return false;
	*p = '\0';
	snprintf(authd_bin, sizeof(authd_bin), "%s/drover-authd", self);
	return access(authd_bin, X_OK) == 0;
}

static bool wait_socket(const char *path, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s", path);
		int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
		if (rc == 0)
			return true;
		usleep(10000);
	}
	return false;
}

static pid_t start_authd(const char *conf)
{
	pid_t pid = fork();
	if (pid == 0) {
		char log[160];
		snprintf(log, sizeof(log), "%s/authd.log", tmpdir);
		execl(authd_bin, "drover-authd", "-D", "-v", "-f", conf, "-L", log,
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* A stand-in for ctld: checks each request's credential as ctld does and
 * answers with a credential bound to the reply. Runs in a child process. */
static struct drv_keyring fake_ring;
static struct drv_nonce_cache *fake_nonces;

static void fake_msg(struct drv_conn *c, json_t *env, bool mac_ok, void *arg)
{
	char digest[65];
	struct drv_cred_info info;
	struct drv_error err;
	int64_t now = (int64_t)time(NULL);
	int64_t id = json_integer_value(json_object_get(env, "id"));
	drv_envelope_digest(env, digest);
	json_t *r;
	if (drv_cred_check(&fake_ring, json_object_get(env, "cred"), digest, &pol, now,
			   &info, &err) < 0 ||
	    drv_nonce_cache_add(fake_nonces, info.uid, info.nonce, info.valid_until,
				now) < 0)
		r = drv_reply_new(id, DRV_RC_AUTH, "refused", NULL);
	else if (strcmp(json_string_value(json_object_get(env, "type")), "job.query") ==
		 0)
		r = drv_reply_new(id, DRV_RC_INVALID_JOB_ID, NULL, NULL);
	else if (strcmp(json_string_value(json_object_get(env, "type")), "node.query") ==
		 0) /* a body that breaks node.query's declared reply */
		r = drv_reply_new(id, 0, NULL,
				  json_pack("{s:[{s:i}]}", "nodes", "name", 5));
	else
		r = drv_reply_new(id, 0, NULL,
				  json_pack("{s:I,s:s,s:s}", "uid", (json_int_t)info.uid,
					    "host", "here", "cluster", "c"));
	drv_envelope_digest(r, digest);
	json_object_set_new(
	    r, "cred",
	    drv_cred_issue(&fake_ring.cur, getuid(), getgid(), "ctld", digest, now, TTL));
	drv_conn_send(c, r, false);
	json_decref(r);
}

static void fake_accept(int fd, const char *peer, void *arg)
{
	drv_conn_new(arg, fd, &fake_ring, 1 << 20, fake_msg, NULL, NULL);
}

static pid_t start_fake_ctld(const char *keypath, int *port)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct drv_error err;
		struct event_base *base = event_base_new();
		if (drv_keyring_load(&fake_ring, keypath, 300, &err) < 0)
			_exit(1);
		fake_nonces = drv_nonce_cache_new(1 << 20, 1 << 16);
		if (!drv_listen_tcp(base, "127.0.0.1", 0, fake_accept, base, port, &err))
			_exit(1);
		if (write(p[1], port, sizeof(*port)) != sizeof(*port))
			_exit(1);
		event_base_dispatch(base);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], port, sizeof(*port)), sizeof(*port));
	close(p[0]);
	return pid;
}

static void client_calls(const char *sock, const char *keypath)
{
	struct drv_ctld_host hosts[2] = {{"nowhere", "127.0.0.1"}, {"here", "127.0.0.1"}};
	struct drv_conf conf = {.ctld_hosts = hosts,
				.n_ctld_hosts = 2,
				.auth_socket = (char *)sock,
				.max_message_size = 1 << 20};
	struct drv_error err = {""};
	json_t *reply = NULL;
	int free_port;
	{ /* a port nothing listens on */
		struct event_base *b = event_base_new();
		struct evconnlistener *l =
		    drv_listen_tcp(b, "127.0.0.1", 0, NULL, NULL, &free_port, &err);
		drv_listener_free(l);
		event_base_free(b);
	}
	conf.ctld_port = free_port;
	json_t *empty = json_object();
	assert_int_equal(drv_client_call(&conf, "ctld.ping", empty, &reply, &err),
			 -ECONNREFUSED);
	assert_string_equal(err.text,
			    "Unable to contact slurm controller (connect failure)");
	json_decref(empty);

	int port;
	pid_t ctld = start_fake_ctld(keypath, &port);
	conf.ctld_port = port;
	json_t *body = json_object();
	assert_int_equal(drv_client_call(&conf, "ctld.ping", body, &reply, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(reply, "uid")), getuid());
	json_decref(reply);
	reply = NULL;
	assert_int_equal(drv_client_call(&conf, "job.query", body, &reply, &err),
			 DRV_RC_INVALID_JOB_ID);
	assert_string_equal(err.text, "Invalid job id specified");
	assert_null(reply);
	/* a reply is checked against its declaration as a request is */
	assert_int_equal(drv_client_call(&conf, "node.query", body, &reply, &err),
			 -EBADMSG);
	assert_string_equal(err.text,
			    "malformed reply from controller: node.query reply: "
			    "field 'nodes[0].name': must be a string");
	assert_null(reply);
	json_decref(body);
	kill(ctld, SIGKILL);
	waitpid(ctld, NULL, 0);
}

static void test_authd_round_trip(void **state)
{
	if (!find_authd())
		skip();
	char conf[128], key[128], sock[128], cmd[512];
	struct drv_error err = {""};
	snprintf(conf, sizeof(conf), "%s/drover.conf", tmpdir);
	snprintf(key, sizeof(key), "%s/drover.key", tmpdir);
	snprintf(sock, sizeof(sock), "%s/run/authd.sock", tmpdir);
	assert_int_equal(drv_key_generate(key, &err), 0);
	FILE *f = fopen(conf, "w");
	fprintf(f, "ClusterName=t\nSlurmctldHost=localhost\nAuthInfo=socket=%s,key=%s\n",
		sock, key);
	fclose(f);

	json_t *cred = drv_authd_sign(sock, "00", &err);
	assert_null(cred);
	snprintf(cmd, sizeof(cmd),
		 "Unable to contact authd at %s: No such file or directory", sock);
	assert_string_equal(err.text, cmd);

	pid_t pid = start_authd(conf);
	assert_true(wait_socket(sock, 5000));
	char digest[65], other[65];
	json_t *env = request("alice"), *env2 = request("bob");
	drv_envelope_digest(env, digest);
	drv_envelope_digest(env2, other);
	cred = drv_authd_sign(sock, digest, &err);
	assert_non_null(cred);
	assert_int_equal(json_integer_value(json_object_get(cred, "uid")), getuid());
	assert_int_equal(drv_authd_verify(sock, cred, other, NULL, &err), -EPERM);
	assert_string_equal(err.text, "digest mismatch");
	assert_int_equal(drv_authd_verify(sock, cred, digest, NULL, &err), 0);
	assert_int_equal(drv_authd_verify(sock, cred, digest, NULL, &err), -EPERM);
	assert_string_equal(err.text, "credential replayed");
	json_decref(cred);

	/* garbage on the socket does not hurt it */
	snprintf(cmd, sizeof(cmd),
		 "head -c 4000 /dev/urandom | timeout 2 python3 -c \"import socket,sys;"
		 "s=socket.socket(socket.AF_UNIX);s.connect('%s');"
		 "s.sendall(sys.stdin.buffer.read())\" 2>/dev/null",
		 sock);
	(void)system(cmd);
	cred = drv_authd_sign(sock, digest, &err);
	assert_non_null(cred);
	json_decref(cred);

	client_calls(sock, key);

	kill(pid, SIGTERM);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(access(sock, F_OK), -1); /* socket removed */
	json_decref(env);
	json_decref(env2);
}

int main(void)
{
	drv_log_init("test_auth", DRV_LOG_ERROR);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_issue_and_check),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_job_id),
	    cmocka_unit_test(test_clock_skew_edges),
	    cmocka_unit_test_setup_teardown(test_key_rotate_file, setup_dir,
					    teardown_dir),
	    cmocka_unit_test_setup_teardown(test_keyring_rotation, setup_dir,
					    teardown_dir),
	    cmocka_unit_test(test_nonce_replay),
	    cmocka_unit_test(test_nonce_share_per_uid),
	    cmocka_unit_test_setup_teardown(test_key_files, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(test_authd_round_trip, setup_dir,
					    teardown_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
