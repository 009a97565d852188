/* auth_munge.c — AuthType=auth/munge: encoding and decoding MUNGE
 * credentials bound to a request's or a reply's digest (auth_munge.h).
 *
 * Owns the mapping of libmunge's errors to Drover's: a socket that cannot
 * be used is one line naming it; a credential munged refuses is -EPERM with
 * the reason the caller logs. munged keeps its own replay cache; callers
 * still remember the credential's hash as its nonce (ctld stores the nonces
 * of writes), so a replay is refused after a restart of either. */
#include "common/auth_munge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <munge.h>
#include <sodium.h>

#define MUNGE_CRED_KEY "munge"
#define MUNGE_CRED_MAX 4096 /* a credential of a 64-byte payload is ~200 */

bool drv_auth_munge(const struct drv_conf *conf)
{
	return conf && conf->auth_type && !strcasecmp(conf->auth_type, "auth/munge");
}

/* A context talking to munged at socket, or NULL with err. */
static munge_ctx_t ctx_new(const char *socket, struct drv_error *err)
{
	munge_ctx_t ctx = munge_ctx_create();
	if (!ctx) {
		drv_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	if (munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		drv_error_set(err, EINVAL, "Unable to contact munged at %s: %s", socket,
			      munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

/* libmunge says 'Failed to access "PATH": why': the line names the path
 * once, so keep only why. */
static const char *without_path(const char *text, const char *socket)
{
	const char *q = strchr(text, '"');
	size_t n = strlen(socket);
	if (q && !strncmp(q + 1, socket, n) && !strncmp(q + 1 + n, "\": ", 3))
		return q + n + 4;
	return text;
}

/* Sets err from a failed munge call; returns the -errno it stands for. */
static int munge_fail(munge_ctx_t ctx, munge_err_t e, const char *socket,
		      struct drv_error *err)
{
	const char *why = munge_ctx_strerror(ctx);
	if (!why)
		why = munge_strerror(e);
	switch (e) {
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
		return drv_error_set(err, ENOTCONN, "Unable to contact munged at %s: %s",
				     socket, without_path(why, socket));
	case EMUNGE_NO_MEMORY:
		return drv_error_set(err, ENOMEM, "out of memory");
	case EMUNGE_CRED_REPLAYED:
		return drv_error_set(err, EPERM, "replayed credential");
	case EMUNGE_CRED_EXPIRED:
		return drv_error_set(err, EPERM, "credential expired");
	case EMUNGE_CRED_REWOUND:
		return drv_error_set(err, EPERM,
				     "credential rewound (encoded in the future: are "
				     "the clocks in step?)");
	case EMUNGE_BAD_CRED:
	case EMUNGE_BAD_VERSION:
	case EMUNGE_BAD_LENGTH:
		return drv_error_set(err, EPERM, "malformed credential");
	case EMUNGE_CRED_INVALID:
	case EMUNGE_BAD_CIPHER:
	case EMUNGE_BAD_MAC:
	case EMUNGE_BAD_ZIP:
	case EMUNGE_BAD_REALM:
		return drv_error_set(err, EPERM, "invalid MUNGE credential (%s)", why);
	case EMUNGE_CRED_UNAUTHORIZED:
		return drv_error_set(err, EPERM, "MUNGE credential not for this user");
	default:
		return drv_error_set(err, EPROTO, "munged at %s: %s", socket, why);
	}
}

json_t *drv_munge_sign(const char *socket, const char *digest, struct drv_error *err)
{
	munge_ctx_t ctx = ctx_new(socket, err);
	if (!ctx) {
		errno = ENOTCONN;
		return NULL;
	}
	char *text = NULL;
	json_t *cred = NULL;
	munge_err_t e = munge_encode(&text, ctx, digest, (int)strlen(digest));
	if (e != EMUNGE_SUCCESS) {
		errno = -munge_fail(ctx, e, socket, err);
	} else {
		cred = json_pack("{s:s}", MUNGE_CRED_KEY, text);
		if (!cred) {
			drv_error_set(err, ENOMEM, "out of memory");
			errno = ENOMEM;
		}
	}
	free(text);
	munge_ctx_destroy(ctx);
	return cred;
}

/* The credential's text when cred has the shape {"munge": TEXT}. */
static const char *cred_text(json_t *cred)
{
	if (!json_is_object(cred) || json_object_size(cred) != 1)
		return NULL;
	json_t *t = json_object_get(cred, MUNGE_CRED_KEY);
	const char *s = json_string_value(t);
	if (!s || json_string_length(t) == 0 || json_string_length(t) > MUNGE_CRED_MAX ||
	    strlen(s) != json_string_length(t))
		return NULL;
	return s;
}

/* What one decode learnt. */
struct decoded {
	char payload[65];
	struct drv_cred_info info;
};

static void fill_info(munge_ctx_t ctx, const char *text, uid_t uid, gid_t gid,
		      struct drv_cred_info *info)
{
	struct in_addr addr = {0};
	time_t encoded = 0;
	int ttl = 0;
	memset(info, 0, sizeof(*info));
	info->uid = uid;
	info->gid = gid;
	if (munge_ctx_get(ctx, MUNGE_OPT_ADDR4, &addr) != EMUNGE_SUCCESS ||
	    !inet_ntop(AF_INET, &addr, info->host, sizeof(info->host)))
		snprintf(info->host, sizeof(info->host), "?");
	if (munge_ctx_get(ctx, MUNGE_OPT_ENCODE_TIME, &encoded) != EMUNGE_SUCCESS)
		encoded = time(NULL);
	if (munge_ctx_get(ctx, MUNGE_OPT_TTL, &ttl) != EMUNGE_SUCCESS || ttl <= 0)
		ttl = DRV_CRED_TTL;
	info->expires = (int64_t)encoded + ttl;
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, (const unsigned char *)text, strlen(text));
	sodium_bin2hex(info->nonce, sizeof(info->nonce), h, sizeof(h));
}

/* Decodes cred once. The payload must be 64 hex digits (a digest). */
static int decode(const char *socket, json_t *cred, struct decoded *d,
		  struct drv_error *err)
{
	const char *text = cred_text(cred);
	if (!text)
		return drv_error_set(err, EPERM, "malformed credential");
	munge_ctx_t ctx = ctx_new(socket, err);
	if (!ctx)
		return -ENOTCONN;
	void *payload = NULL;
	int len = 0;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	int rc = 0;
	munge_err_t e = munge_decode(text, ctx, &payload, &len, &uid, &gid);
	if (e != EMUNGE_SUCCESS)
		rc = munge_fail(ctx, e, socket, err);
	else if (!payload || len != 64 ||
		 strspn((const char *)payload, "0123456789abcdef") < 64)
		rc = drv_error_set(err, EPERM, "digest mismatch");
	else
		memcpy(d->payload, payload, 64);
	if (rc == 0) {
		d->payload[64] = '\0';
		fill_info(ctx, text, uid, gid, &d->info);
	}
	free(payload);
	munge_ctx_destroy(ctx);
	return rc;
}

int drv_munge_check(const char *socket, json_t *cred, const char *digest,
		    struct drv_cred_info *info, struct drv_error *err)
{
	struct decoded d;
	int rc = decode(socket, cred, &d, err);
	if (rc < 0)
		return rc;
	if (!digest || strlen(digest) != 64 || sodium_memcmp(d.payload, digest, 64) != 0)
		return drv_error_set(err, EPERM, "digest mismatch");
	if (info)
		*info = d.info;
	return 0;
}

int drv_munge_check_reply(const char *socket, json_t *reply, const char *raw_digest,
			  uid_t *issued_to, struct drv_error *err)
{
	struct decoded d;
	int rc = decode(socket, json_object_get(reply, "cred"), &d, err);
	if (rc == 0 && !(raw_digest && raw_digest[0] &&
			 sodium_memcmp(d.payload, raw_digest, 64) == 0)) {
		char digest[65];
		drv_envelope_digest(reply, digest);
		if (sodium_memcmp(d.payload, digest, 64) != 0)
			rc = drv_error_set(err, EPERM, "digest mismatch");
	}
	if (rc == -EPERM) {
		char why[sizeof(err->text)];
		snprintf(why, sizeof(why), "%s", err->text);
		return drv_error_set(
		    err, EPERM, "reply from controller failed authentication: %s", why);
	}
	if (rc == 0)
		*issued_to = d.info.uid;
	return rc;
}

int drv_munge_probe(const char *socket, struct drv_error *err)
{
	static const char zeros[] =
	    "0000000000000000000000000000000000000000000000000000000000000000";
	json_t *cred = drv_munge_sign(socket, zeros, err);
	if (!cred)
		return errno == ENOMEM ? -ENOMEM : -ENOTCONN;
	int rc = drv_munge_check(socket, cred, zeros, NULL, err);
	json_decref(cred);
	if (rc == -EPERM) {
		char why[sizeof(err->text)];
		snprintf(why, sizeof(why), "%s", err->text);
		return drv_error_set(err, EPERM,
				     "munged at %s refuses its own credential: %s",
				     socket, why);
	}
	return rc;
}
