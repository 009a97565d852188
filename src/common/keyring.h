/* keyring.h — the keys a daemon signs and verifies with, and key rotation.
 *
 * `drover keygen --rotate` writes a new key file and keeps the old key as
 * PATH.prev. A daemon notices the new file by itself: it looks at the key
 * file's identity (device, inode, size, mtime, ctime) at most once a second on its
 * event loop, and at once when a MAC or credential fails to verify (a peer
 * may have noticed first). From then on it signs with the new key and still
 * accepts the previous one for key_grace seconds, counted from that moment;
 * then the previous key is forgotten and what it signs is a "bad MAC". A
 * second rotation within the grace drops the oldest key at once. */
#ifndef DRV_KEYRING_H
#define DRV_KEYRING_H

#include <event2/event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/error.h"

#define DRV_KEY_GRACE_DEFAULT 300 /* AuthInfo key_grace= */
#define DRV_CLOCK_SKEW_DEFAULT 10 /* AuthInfo clock_skew= */

/* What identifies the key file's contents without reading it. */
struct drv_key_file_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns, ctime_ns;
};

struct drv_keyring {
	struct drv_key cur;	   /* signs, and verifies */
	struct drv_key prev;	   /* verifies while now < prev_until */
	int64_t prev_until;	   /* 0: no previous key */
	int grace;		   /* seconds the previous key is kept */
	char *path;		   /* owned; NULL: a fixed key, never reloaded */
	struct drv_key_file_id id; /* of the file cur (or a bad file) came from */
	int64_t next_look;	   /* when the file may be looked at again */
};

/* Loads path (drv_key_load's checks) into an empty ring. 0 or -errno with
 * err; on failure the ring holds nothing to free. */
int drv_keyring_load(struct drv_keyring *r, const char *path, int grace,
		     struct drv_error *err);

/* A ring of one fixed key (copied), never reloaded: for tests and tools. */
void drv_keyring_from_key(struct drv_keyring *r, const struct drv_key *key);

/* Zeroes the keys and frees the path; accepts NULL. */
void drv_keyring_fini(struct drv_keyring *r);

/* The keys that verify at now: out[0] is the current key, out[1] the
 * previous one while within its grace. Returns how many (1 or 2); the
 * pointers are borrowed from the ring. */
size_t drv_keyring_verifiers(const struct drv_keyring *r, int64_t now,
			     const struct drv_key *out[2]);

/* Looks at the key file (at most once a second unless force) and forgets a
 * previous key past its grace. Returns 1 when it loaded a new key (the old
 * one became the previous), 0 when nothing changed, -errno with err when the
 * file changed but cannot be used (the keys held are kept, and the same bad
 * file is not reported again). Never logs. */
int drv_keyring_refresh(struct drv_keyring *r, int64_t now, bool force,
			struct drv_error *err);

/* drv_keyring_refresh, logging what happened (one line per change). */
int drv_keyring_poll(struct drv_keyring *r, int64_t now, bool force);

/* A persistent one-second timer on base that polls the ring; the ring is
 * borrowed and must outlive it. Free with event_free. NULL when out of
 * memory. */
struct event *drv_keyring_watch(struct event_base *base, struct drv_keyring *r);

/* drv_cred_check, and on a refusal one forced look at the key file: when it
 * held a new key (a peer noticed a rotation first) the check runs again. */
int drv_keyring_check_cred(struct drv_keyring *r, json_t *cred, const char *digest,
			   const struct drv_cred_policy *pol, int64_t now,
			   struct drv_cred_info *info, struct drv_error *err);

#endif
