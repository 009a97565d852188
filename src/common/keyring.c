/* keyring.c — a daemon's current and previous cluster keys, and noticing a
 * rotated key file without a restart (see keyring.h for the rules).
 *
 * Looking is a stat of the key file; only when its identity (ctime too, so
 * that a chmod that fixes a bad mode counts) changed is it
 * read (drv_key_load, with its permission checks). A file that changed to
 * the same key (touched, copied again) is no rotation. A bad new file (wrong
 * mode, wrong size) is reported once and the keys held stay in use, so a
 * botched copy does not cut a running cluster off. drv_keyring_refresh never
 * logs; drv_keyring_poll is the one place that does. */
#include "common/keyring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sodium.h>

#include "common/log.h"

static struct drv_key_file_id file_id(const struct stat *st)
{
	return (struct drv_key_file_id){
	    .dev = st->st_dev,
	    .ino = st->st_ino,
	    .size = st->st_size,
	    .mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
	    .ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec};
}

static bool same_id(const struct drv_key_file_id *a, const struct drv_key_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

int drv_keyring_load(struct drv_keyring *r, const char *path, int grace,
		     struct drv_error *err)
{
	struct stat st;
	memset(r, 0, sizeof(*r));
	int rc = drv_key_load(path, &r->cur, &st, err);
	if (rc < 0)
		return rc;
	if (!(r->path = strdup(path))) {
		sodium_memzero(&r->cur, sizeof(r->cur));
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	r->grace = grace;
	r->id = file_id(&st);
	return 0;
}

void drv_keyring_from_key(struct drv_keyring *r, const struct drv_key *key)
{
	memset(r, 0, sizeof(*r));
	r->cur = *key;
}

void drv_keyring_fini(struct drv_keyring *r)
{
	if (!r)
		return;
	free(r->path);
	sodium_memzero(r, sizeof(*r));
}

size_t drv_keyring_verifiers(const struct drv_keyring *r, int64_t now,
			     const struct drv_key *out[2])
{
	out[0] = &r->cur;
	if (r->prev_until == 0 || now >= r->prev_until)
		return 1;
	out[1] = &r->prev;
	return 2;
}

/* Forgets the previous key once its grace is over. */
static void expire_prev(struct drv_keyring *r, int64_t now)
{
	if (r->prev_until && now >= r->prev_until) {
		sodium_memzero(&r->prev, sizeof(r->prev));
		r->prev_until = 0;
	}
}

int drv_keyring_refresh(struct drv_keyring *r, int64_t now, bool force,
			struct drv_error *err)
{
	expire_prev(r, now);
	if (!r->path || (!force && now < r->next_look))
		return 0;
	r->next_look = now + 1;
	struct stat st;
	if (stat(r->path, &st) < 0) {
		/* gone for a moment (an admin's mv) or for good: keep what we
		 * hold and say so once */
		struct drv_key_file_id gone = {0};
		if (same_id(&r->id, &gone))
			return 0;
		r->id = gone;
		return drv_error_set(err, errno, "cannot stat key file %s: %s", r->path,
				     strerror(errno));
	}
	struct drv_key_file_id id = file_id(&st);
	if (same_id(&id, &r->id))
		return 0;
	struct drv_key k;
	int rc = drv_key_load(r->path, &k, &st, err);
	r->id = rc == 0 ? file_id(&st) : id; /* a bad file is reported once */
	if (rc < 0)
		return rc;
	if (sodium_memcmp(k.bytes, r->cur.bytes, DRV_KEY_LEN) == 0) {
		sodium_memzero(&k, sizeof(k));
		return 0;
	}
	r->prev = r->cur;
	r->prev_until = now + r->grace;
	r->cur = k;
	sodium_memzero(&k, sizeof(k));
	return 1;
}

int drv_keyring_poll(struct drv_keyring *r, int64_t now, bool force)
{
	struct drv_error err = {""};
	bool had_prev = r->prev_until != 0;
	int rc = drv_keyring_refresh(r, now, force, &err);
	if (rc > 0)
		log_info("key file %s changed: signing with the new key; the previous "
			 "key is accepted for %d more seconds (key_grace)",
			 r->path, r->grace);
	else if (rc < 0)
		log_error("%s; still using the key loaded before", err.text);
	else if (had_prev && r->prev_until == 0)
		log_info("the previous key of %s is forgotten (key_grace over)", r->path);
	return rc;
}

static void watch_cb(evutil_socket_t fd, short what, void *arg)
{
	drv_keyring_poll(arg, (int64_t)time(NULL), false);
}

struct event *drv_keyring_watch(struct event_base *base, struct drv_keyring *r)
{
	struct event *ev = event_new(base, -1, EV_PERSIST, watch_cb, r);
	struct timeval one = {.tv_sec = 1};
	if (ev && event_add(ev, &one) < 0) {
		event_free(ev);
		return NULL;
	}
	return ev;
}

int drv_keyring_check_cred(struct drv_keyring *r, json_t *cred, const char *digest,
			   const struct drv_cred_policy *pol, int64_t now,
			   struct drv_cred_info *info, struct drv_error *err)
{
	int rc = drv_cred_check(r, cred, digest, pol, now, info, err);
	if (rc < 0 && drv_keyring_poll(r, now, true) > 0)
		rc = drv_cred_check(r, cred, digest, pol, now, info, err);
	return rc;
}
