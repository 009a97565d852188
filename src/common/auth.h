/* auth.h — the cluster key, frame MACs and client credentials.
 *
 * A credential is {uid, gid, host, issued, expires, nonce, digest, mac}, with
 * job_id when the caller runs in a Drover job's cgroup: authd issues it for
 * the SHA-256 digest of the one request a client is about to send; mac is
 * HMAC-SHA256 over the canonical JSON of the other fields. */
#ifndef DRV_AUTH_H
#define DRV_AUTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/error.h"

#define DRV_KEY_LEN 32
/* MUNGE's default credential TTL, for when munged does not say
 * (auth_munge.c); auth/drover credentials live AuthInfo cred_expire seconds. */
#define DRV_CRED_TTL 300

struct drv_key {
	unsigned char bytes[DRV_KEY_LEN];
};

/* Writes a new random key to path with mode 0600 (fails if it exists).
 * The file holds 64 hex digits and a newline; drv_key_load also accepts a
 * file of 32 raw bytes. */
int drv_key_generate(const char *path, struct drv_error *err);

/* Loads the key; refuses a file readable or writable by group or others
 * ("key file PATH is readable by others (mode 0644); chmod 600 it"), or of
 * the wrong size. On success *st (may be NULL) gets the file's fstat, which
 * identifies what was read (keyring.c watches it for a rotation). */
int drv_key_load(const char *path, struct drv_key *key, struct stat *st,
		 struct drv_error *err);

/* `drover keygen --rotate`: writes a new key to path.tmp (mode 0600, synced),
 * links the key now at path to path.prev (replacing an older one), then
 * renames path.tmp over path and syncs the directory, so a daemon reading
 * path sees the old key or the new one, never a mix. path must exist and be
 * a valid key (it becomes the previous one). */
int drv_key_rotate(const char *path, struct drv_error *err);

void drv_hmac(const struct drv_key *key, const void *data, size_t len,
	      unsigned char out[32]);

/* The request digest: hex SHA-256 of the canonical JSON (sorted keys, compact)
 * of env without its "cred" member. hex must hold 65 bytes. */
void drv_envelope_digest(json_t *env, char hex[65]);

/* A new credential (new reference), bound to digest, valid from now for
 * lifetime seconds (AuthInfo cred_expire). */
json_t *drv_cred_issue(const struct drv_key *key, uid_t uid, gid_t gid, const char *host,
		       const char *digest, int64_t now, int lifetime);

/* The same, naming job_id (0: none) as the Drover job the caller runs in
 * (an optional "job_id" member, under the MAC like the rest). */
json_t *drv_cred_issue_job(const struct drv_key *key, uid_t uid, gid_t gid,
			   const char *host, const char *digest, int64_t now,
			   int lifetime, uint32_t job_id);

/* What a credential must satisfy besides its MAC and digest (AuthInfo):
 * lifetime is cred_expire, what authd issues and the most accepted; skew is
 * clock_skew, the seconds two hosts' clocks may disagree by. */
struct drv_cred_policy {
	int lifetime;
	int skew;
};

struct drv_cred_info {
	uid_t uid;
	gid_t gid;
	char host[256];
	char nonce[65];
	int64_t expires;
	int64_t valid_until; /* expires + skew: remember the nonce until then */
	uint32_t job_id;     /* the Drover job the caller ran in, 0: none */
};

/* Checks the mac (under any key the ring accepts at now), the digest binding
 * and the times: refused when issued > now + skew, when expires + skew <= now,
 * or when expires - issued > lifetime + skew. Returns 0 and fills *info, or
 * -EPERM with err saying which check failed ("malformed credential", "bad
 * MAC", "digest mismatch", "credential issued in the future", "credential
 * expired", "credential lifetime too long"). keys is borrowed. */
struct drv_keyring;
int drv_cred_check(const struct drv_keyring *keys, json_t *cred, const char *digest,
		   const struct drv_cred_policy *pol, int64_t now,
		   struct drv_cred_info *info, struct drv_error *err);

/* Nonces seen within the credential lifetime, to refuse replays. Memory is
 * bounded: at most max_total live nonces, and at most max_per_uid of them for
 * any one uid (the uid the credential was issued to), so that one user's
 * flood of fresh credentials cannot lock everyone else out. */
struct drv_nonce_cache;
struct drv_nonce_cache *drv_nonce_cache_new(size_t max_total, size_t max_per_uid);
void drv_nonce_cache_free(struct drv_nonce_cache *c);
/* Returns 0 when new (and remembers it until expires), -EEXIST on a replay.
 * Expired entries are pruned as time goes by. When full it refuses new ones
 * rather than forget one: -EDQUOT when uid holds its share, -ENOSPC when the
 * whole cache is full (treat both as an authentication failure). -EINVAL for
 * a nonce longer than 64 characters. */
int drv_nonce_cache_add(struct drv_nonce_cache *c, uid_t uid, const char *nonce,
			int64_t expires, int64_t now);

#endif
