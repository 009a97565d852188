/* auth.c — the cluster key, MACs, request digests, credentials and the
 * nonce cache that refuses replays.
 *
 * Key file format: 32 random bytes, written as 64 lower-case hex digits and a
 * newline; drv_key_load also accepts the 32 raw bytes. A key file must be a
 * regular file with no group or other permission bits. A rotation keeps the
 * old key beside the new one as PATH.prev (keyring.c decides how long each
 * daemon still accepts it). This file does no network I/O and never logs:
 * callers log the drv_error once. */
#include "common/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/keyring.h"

static int sodium_ready(void)
{
	return sodium_init() < 0 ? -EIO : 0;
}

/* Writes a new random key to path, which must not exist, mode 0600, synced. */
static int write_new_key(const char *path, struct drv_error *err)
{
	struct drv_key key;
	char hex[2 * DRV_KEY_LEN + 2];
	if (sodium_ready() < 0)
		return drv_error_set(err, EIO, "libsodium failed to initialise");
	randombytes_buf(key.bytes, sizeof(key.bytes));
	sodium_bin2hex(hex, sizeof(hex), key.bytes, sizeof(key.bytes));
	sodium_memzero(key.bytes, sizeof(key.bytes));
	strcat(hex, "\n");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		int e = errno;
		sodium_memzero(hex, sizeof(hex));
		if (e == EEXIST)
			return drv_error_set(err, e, "key file %s already exists", path);
		return drv_error_set(err, e, "cannot create key file %s: %s", path,
				     strerror(e));
	}
	size_t len = strlen(hex);
	ssize_t n = write(fd, hex, len);
	int e = n < 0 ? errno : EIO;
	sodium_memzero(hex, sizeof(hex));
	if (n != (ssize_t)len || fchmod(fd, 0600) < 0 || fsync(fd) < 0) {
		close(fd);
		unlink(path);
		return drv_error_set(err, e, "cannot write key file %s: %s", path,
				     strerror(e));
	}
	if (close(fd) < 0) {
		e = errno;
		unlink(path);
		return drv_error_set(err, e, "cannot write key file %s: %s", path,
				     strerror(e));
	}
	return 0;
}

int drv_key_generate(const char *path, struct drv_error *err)
{
	return write_new_key(path, err);
}

/* Syncs the directory holding path, so that a rename in it is durable. */
static int sync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

int drv_key_rotate(const char *path, struct drv_error *err)
{
	struct drv_key old;
	int rc = drv_key_load(path, &old, NULL, err);
	sodium_memzero(&old, sizeof(old));
	if (rc < 0)
		return rc;
	char tmp[PATH_MAX], prev[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp) ||
	    (size_t)snprintf(prev, sizeof(prev), "%s.prev", path) >= sizeof(prev))
		return drv_error_set(err, ENAMETOOLONG, "key path %s is too long", path);
	unlink(tmp); /* left by a rotation that died half way */
	if ((rc = write_new_key(tmp, err)) < 0)
		return rc;
	/* The old key stays reachable as path.prev (the same file, so still
	 * 0600) before the new one takes its name. */
	if ((unlink(prev) < 0 && errno != ENOENT) || link(path, prev) < 0) {
		int e = errno;
		unlink(tmp);
		return drv_error_set(err, e, "cannot keep the old key as %s: %s", prev,
				     strerror(e));
	}
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return drv_error_set(err, e, "cannot rename %s to %s: %s", tmp, path,
				     strerror(e));
	}
	if ((rc = sync_dir_of(path)) < 0)
		return drv_error_set(err, -rc, "cannot sync the directory of %s: %s",
				     path, strerror(-rc));
	return 0;
}

/* Accepts 32 raw bytes, or 64 hex digits with an optional newline. */
static int key_decode(const unsigned char *buf, size_t n, struct drv_key *key)
{
	if (n == DRV_KEY_LEN) {
		memcpy(key->bytes, buf, DRV_KEY_LEN);
		return 0;
	}
	if (n == 2 * DRV_KEY_LEN + 1 && buf[n - 1] == '\n')
		n--;
	if (n != 2 * DRV_KEY_LEN)
		return -EINVAL;
	size_t got = 0;
	const char *end = NULL;
	if (sodium_hex2bin(key->bytes, DRV_KEY_LEN, (const char *)buf, n, NULL, &got,
			   &end) != 0 ||
	    got != DRV_KEY_LEN || end != (const char *)buf + n)
		return -EINVAL;
	return 0;
}

int drv_key_load(const char *path, struct drv_key *key, struct stat *st_out,
		 struct drv_error *err)
{
	if (sodium_ready() < 0)
		return drv_error_set(err, EIO, "libsodium failed to initialise");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		int e = errno;
		return drv_error_set(err, e, "cannot open key file %s: %s", path,
				     strerror(e));
	}
	struct stat st;
	int rc = 0;
	unsigned char buf[2 * DRV_KEY_LEN + 2];
	if (fstat(fd, &st) < 0) {
		rc = drv_error_set(err, errno, "cannot stat key file %s: %s", path,
				   strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc =
		    drv_error_set(err, EINVAL, "key file %s is not a regular file", path);
	} else if (st.st_mode & 077) {
		rc = drv_error_set(
		    err, EPERM,
		    "key file %s is readable by others (mode %04o); chmod 600 it", path,
		    (unsigned)(st.st_mode & 07777));
	} else {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct drv_key k;
		if (n < 0)
			rc = drv_error_set(err, errno, "cannot read key file %s: %s",
					   path, strerror(errno));
		else if (key_decode(buf, (size_t)n, &k) < 0)
			rc = drv_error_set(
			    err, EINVAL,
			    "key file %s has the wrong size or format (want 32 "
			    "bytes, or 64 hex digits)",
			    path);
		else
			*key = k;
		sodium_memzero(&k, sizeof(k));
		if (rc == 0 && st_out)
			*st_out = st;
	}
	sodium_memzero(buf, sizeof(buf));
	close(fd);
	return rc;
}

void drv_hmac(const struct drv_key *key, const void *data, size_t len,
	      unsigned char out[32])
{
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key->bytes, DRV_KEY_LEN);
	crypto_auth_hmacsha256_update(&st, data, len);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
}

/* Canonical JSON of obj without its member `drop` (a malloc'd string). */
static char *canonical_without(json_t *obj, const char *drop)
{
	json_t *copy = json_copy(obj);
	if (!copy)
		return NULL;
	json_object_del(copy, drop);
	char *s = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(copy);
	return s;
}

void drv_envelope_digest(json_t *env, char hex[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	char *s = canonical_without(env, "cred");
	crypto_hash_sha256(h, (const unsigned char *)(s ? s : ""), s ? strlen(s) : 0);
	free(s);
	sodium_bin2hex(hex, 65, h, sizeof(h));
}

static int cred_mac(const struct drv_key *key, json_t *cred, char hex[65])
{
	char *s = canonical_without(cred, "mac");
	if (!s)
		return -ENOMEM;
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	drv_hmac(key, s, strlen(s), mac);
	free(s);
	sodium_bin2hex(hex, 65, mac, sizeof(mac));
	return 0;
}

json_t *drv_cred_issue(const struct drv_key *key, uid_t uid, gid_t gid, const char *host,
		       const char *digest, int64_t now, int lifetime)
{
	return drv_cred_issue_job(key, uid, gid, host, digest, now, lifetime, 0);
}

json_t *drv_cred_issue_job(const struct drv_key *key, uid_t uid, gid_t gid,
			   const char *host, const char *digest, int64_t now,
			   int lifetime, uint32_t job_id)
{
	unsigned char raw[32];
	char nonce[65], mac[65];
	if (sodium_ready() < 0)
		return NULL;
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(nonce, sizeof(nonce), raw, sizeof(raw));
	json_t *cred = json_pack(
	    "{s:I, s:I, s:s, s:I, s:I, s:s, s:s}", "uid", (json_int_t)uid, "gid",
	    (json_int_t)gid, "host", host, "issued", (json_int_t)now, "expires",
	    (json_int_t)(now + lifetime), "nonce", nonce, "digest", digest);
	if (!cred)
		return NULL;
	/* the job the caller runs in: under the MAC like the rest */
	if (job_id && json_object_set_new(cred, "job_id", json_integer(job_id)) < 0) {
		json_decref(cred);
		return NULL;
	}
	if (cred_mac(key, cred, mac) < 0 ||
	    json_object_set_new(cred, "mac", json_string(mac)) < 0) {
		json_decref(cred);
		return NULL;
	}
	return cred;
}

static bool hex64(json_t *x)
{
	const char *s = json_string_value(x);
	if (!s || strlen(s) != 64)
		return false;
	return strspn(s, "0123456789abcdef") == 64;
}

static bool id_ok(json_t *x)
{
	return json_is_integer(x) && json_integer_value(x) >= 0 &&
	       json_integer_value(x) < 4294967295LL;
}

/* The optional job_id: absent, or a job id (1 .. 2^32 - 2). */
static bool job_id_ok(json_t *x)
{
	return !x || (id_ok(x) && json_integer_value(x) > 0);
}

/* The credential's shape, before any cryptography is spent on it. */
static bool cred_well_formed(json_t *cred)
{
	json_t *host = json_object_get(cred, "host");
	return json_is_object(cred) && id_ok(json_object_get(cred, "uid")) &&
	       job_id_ok(json_object_get(cred, "job_id")) &&
	       id_ok(json_object_get(cred, "gid")) && json_is_string(host) &&
	       json_string_length(host) < 256 &&
	       json_is_integer(json_object_get(cred, "issued")) &&
	       json_is_integer(json_object_get(cred, "expires")) &&
	       hex64(json_object_get(cred, "nonce")) &&
	       hex64(json_object_get(cred, "digest")) &&
	       hex64(json_object_get(cred, "mac"));
}

/* The MAC under any key the ring accepts at now. */
static int cred_mac_ok(const struct drv_keyring *keys, json_t *cred, int64_t now)
{
	const struct drv_key *k[2];
	size_t n = drv_keyring_verifiers(keys, now, k);
	const char *mac = json_string_value(json_object_get(cred, "mac"));
	for (size_t i = 0; i < n; i++) {
		char want[65];
		if (cred_mac(k[i], cred, want) < 0)
			return -ENOMEM;
		if (sodium_memcmp(want, mac, 64) == 0)
			return 0;
	}
	return -EPERM;
}

/* The times, with skew for clocks that disagree. Written so that nothing
 * overflows whatever integers the credential holds (now and the policy are
 * sane; issued and expires may be anything). */
static int cred_times_ok(int64_t issued, int64_t expires,
			 const struct drv_cred_policy *pol, int64_t now,
			 struct drv_error *err)
{
	if (issued > now + pol->skew)
		return drv_error_set(err, EPERM, "credential issued in the future");
	if (expires <= now - pol->skew)
		return drv_error_set(err, EPERM, "credential expired");
	/* expires > now - skew here, so the subtraction stays in range */
	if (issued < expires - ((int64_t)pol->lifetime + pol->skew))
		return drv_error_set(err, EPERM, "credential lifetime too long");
	return 0;
}

int drv_cred_check(const struct drv_keyring *keys, json_t *cred, const char *digest,
		   const struct drv_cred_policy *pol, int64_t now,
		   struct drv_cred_info *info, struct drv_error *err)
{
	if (!cred_well_formed(cred))
		return drv_error_set(err, EPERM, "malformed credential");
	int rc = cred_mac_ok(keys, cred, now);
	if (rc == -ENOMEM)
		return drv_error_set(err, ENOMEM, "out of memory checking credential");
	if (rc < 0)
		return drv_error_set(err, EPERM, "bad MAC");
	const char *d = json_string_value(json_object_get(cred, "digest"));
	if (!digest || strlen(digest) != 64 || sodium_memcmp(d, digest, 64) != 0)
		return drv_error_set(err, EPERM, "digest mismatch");
	int64_t issued = json_integer_value(json_object_get(cred, "issued"));
	int64_t expires = json_integer_value(json_object_get(cred, "expires"));
	if ((rc = cred_times_ok(issued, expires, pol, now, err)) < 0)
		return rc;
	if (info) {
		info->uid = (uid_t)json_integer_value(json_object_get(cred, "uid"));
		info->gid = (gid_t)json_integer_value(json_object_get(cred, "gid"));
		snprintf(info->host, sizeof(info->host), "%s",
			 json_string_value(json_object_get(cred, "host")));
		snprintf(info->nonce, sizeof(info->nonce), "%s",
			 json_string_value(json_object_get(cred, "nonce")));
		info->expires = expires;
		info->valid_until = expires + pol->skew;
		json_t *job = json_object_get(cred, "job_id");
		info->job_id = job ? (uint32_t)json_integer_value(job) : 0;
	}
	return 0;
}

/* --- nonce cache ------------------------------------------------------
 * A chained hash set keyed by SipHash (libsodium's crypto_shorthash, with a
 * random key so that no one can aim nonces at one bucket). Entries live until
 * their credential expires; a sweep at most every NONCE_SWEEP_S seconds drops
 * the expired ones. Memory is bounded: with max_total live entries the cache
 * refuses new ones (-ENOSPC) rather than forget a nonce that might be
 * replayed, and each uid may hold at most max_per_uid of them (-EDQUOT), so
 * that one user minting credentials as fast as authd signs them fills only
 * their own share and everyone else is still served. */

#define NONCE_SWEEP_S 10

struct nonce_entry {
	struct nonce_entry *next;
	int64_t expires;
	uid_t uid;
	char nonce[65];
};

struct uid_count {
	uid_t uid;
	size_t n;
};

struct drv_nonce_cache {
	struct nonce_entry **buckets;
	size_t n_buckets; /* a power of two */
	size_t count, max_total, max_per_uid;
	struct uid_count *uids; /* live entries per uid; few uids, so an array */
	size_t n_uids;
	int64_t next_sweep, last_sweep;
	unsigned char hkey[crypto_shorthash_KEYBYTES];
};

/* The uid's counter, made when absent (NULL only when out of memory). */
static struct uid_count *uid_slot(struct drv_nonce_cache *c, uid_t uid)
{
	for (size_t i = 0; i < c->n_uids; i++)
		if (c->uids[i].uid == uid)
			return &c->uids[i];
	struct uid_count *u = realloc(c->uids, (c->n_uids + 1) * sizeof(*u));
	if (!u)
		return NULL;
	c->uids = u;
	u[c->n_uids] = (struct uid_count){.uid = uid};
	return &u[c->n_uids++];
}

struct drv_nonce_cache *drv_nonce_cache_new(size_t max_total, size_t max_per_uid)
{
	if (sodium_ready() < 0) {
		errno = EIO;
		return NULL;
	}
	struct drv_nonce_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->n_buckets = 1024;
	c->max_total = max_total;
	c->max_per_uid = max_per_uid;
	c->buckets = calloc(c->n_buckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	crypto_shorthash_keygen(c->hkey);
	return c;
}

void drv_nonce_cache_free(struct drv_nonce_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct nonce_entry *e = c->buckets[i];
		while (e) {
			struct nonce_entry *next = e->next;
			free(e);
			e = next;
		}
	}
	free(c->buckets);
	free(c->uids);
	free(c);
}

static size_t nonce_bucket(const struct drv_nonce_cache *c, const char *nonce, size_t n)
{
	unsigned char h[crypto_shorthash_BYTES];
	crypto_shorthash(h, (const unsigned char *)nonce, strlen(nonce), c->hkey);
	uint64_t v;
	memcpy(&v, h, sizeof(v));
	return (size_t)(v & (n - 1));
}

static void nonce_sweep(struct drv_nonce_cache *c, int64_t now)
{
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct nonce_entry **pp = &c->buckets[i];
		while (*pp) {
			struct nonce_entry *e = *pp;
			if (e->expires <= now) {
				*pp = e->next;
				uid_slot(c, e->uid)->n--; /* the slot exists: e counted */
				free(e);
				c->count--;
			} else {
				pp = &e->next;
			}
		}
	}
	/* Forget the uids that hold nothing, so the array stays short. */
	size_t kept = 0;
	for (size_t i = 0; i < c->n_uids; i++)
		if (c->uids[i].n)
			c->uids[kept++] = c->uids[i];
	c->n_uids = kept;
	c->last_sweep = now;
	c->next_sweep = now + NONCE_SWEEP_S;
}

/* Doubles the table; on allocation failure it just stays as it is. */
static void nonce_grow(struct drv_nonce_cache *c)
{
	size_t n = c->n_buckets * 2;
	struct nonce_entry **b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct nonce_entry *e = c->buckets[i];
		while (e) {
			struct nonce_entry *next = e->next;
			size_t k = nonce_bucket(c, e->nonce, n);
			e->next = b[k];
			b[k] = e;
			e = next;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->n_buckets = n;
}

int drv_nonce_cache_add(struct drv_nonce_cache *c, uid_t uid, const char *nonce,
			int64_t expires, int64_t now)
{
	if (!nonce || strlen(nonce) > 64)
		return -EINVAL;
	struct uid_count *u = uid_slot(c, uid);
	if (!u)
		return -ENOMEM;
	/* A full cache or share is swept early to reclaim what expired, but at
	 * most once a second: a flood that keeps hitting its share must not
	 * buy a walk of the whole table with every refused request. */
	bool full = c->count >= c->max_total || u->n >= c->max_per_uid;
	if (now >= c->next_sweep || (full && now > c->last_sweep)) {
		nonce_sweep(c, now);
		u = uid_slot(c, uid); /* the sweep may have compacted the array */
		if (!u)
			return -ENOMEM;
	}
	size_t k = nonce_bucket(c, nonce, c->n_buckets);
	for (struct nonce_entry *e = c->buckets[k]; e; e = e->next) {
		if (strcmp(e->nonce, nonce) != 0)
			continue;
		if (e->expires > now)
			return -EEXIST;
		uid_slot(c, e->uid)->n--; /* counted, so no new slot is made */
		e->uid = uid;
		e->expires = expires;
		u->n++;
		return 0;
	}
	if (expires <= now)
		return 0; /* nothing to remember: its credential is no longer valid */
	if (u->n >= c->max_per_uid)
		return -EDQUOT;
	if (c->count >= c->max_total)
		return -ENOSPC;
	struct nonce_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	snprintf(e->nonce, sizeof(e->nonce), "%s", nonce);
	e->expires = expires;
	e->uid = uid;
	u->n++;
	e->next = c->buckets[k];
	c->buckets[k] = e;
	if (++c->count > c->n_buckets)
		nonce_grow(c);
	return 0;
}
