/* fuzz_cred.c — client credentials as ctld and noded receive them
 * (common/auth.h), checked with a fixed key.
 *
 * The input is JSON. An envelope (an object with a "cred" member) is checked
 * as ctld checks a request: its credential against the envelope's digest. Any
 * other JSON is taken as a bare credential, bound to its own "digest" (or a
 * fixed one). Since no input can carry a valid MAC for the key, each
 * credential is also checked a second time re-signed with the key, so the
 * checks after the MAC (digest, expiry, the info filled in) are reached. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/auth.h"
#include "common/keyring.h"
#include "fuzz.h"

#define NOW 1700000000LL

static void fixed_key(struct drv_key *key)
{
	memset(key->bytes, 0x42, sizeof(key->bytes));
}

/* Sets cred's "mac" as authd would compute it: HMAC-SHA256 over the
 * canonical JSON of the other members. */
static void resign(const struct drv_key *key, json_t *cred)
{
	json_t *copy = json_copy(cred);
	if (!copy)
		return;
	json_object_del(copy, "mac");
	char *s = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(copy);
	if (!s)
		return;
	unsigned char mac[32];
	char hex[65];
	drv_hmac(key, s, strlen(s), mac);
	free(s);
	sodium_bin2hex(hex, sizeof(hex), mac, sizeof(mac));
	json_object_set_new(cred, "mac", json_string(hex));
}

static void check(const struct drv_key *key, json_t *cred, const char *digest)
{
	struct drv_cred_info info;
	struct drv_error err;
	struct drv_keyring ring;
	const struct drv_cred_policy pol = {.lifetime = 300, .skew = 10};
	drv_keyring_from_key(&ring, key);
	int rc = drv_cred_check(&ring, cred, digest, &pol, NOW, &info, &err);
	drv_keyring_fini(&ring);
	if (rc < 0)
		return;
	/* Accepted: a well-formed credential, valid at NOW give or take the
	 * skew, bound to digest, whose nonce the replay cache takes once. */
	if (info.valid_until <= NOW || info.expires + 10 != info.valid_until ||
	    strlen(info.nonce) != 64)
		abort();
	struct drv_nonce_cache *nonces = drv_nonce_cache_new(1 << 20, 1 << 16);
	if (!nonces)
		abort();
	if (drv_nonce_cache_add(nonces, info.uid, info.nonce, info.valid_until, NOW) !=
		0 ||
	    drv_nonce_cache_add(nonces, info.uid, info.nonce, info.valid_until, NOW) !=
		-EEXIST)
		abort();
	drv_nonce_cache_free(nonces);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drv_key key;
	char digest[65] =
	    "0000000000000000000000000000000000000000000000000000000000000000";
	json_error_t jerr;

	fixed_key(&key);
	json_t *in = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!in)
		return 0;
	json_t *cred = json_object_get(in, "cred");
	if (cred) {
		drv_envelope_digest(in, digest);
	} else {
		const char *d = json_string_value(json_object_get(in, "digest"));
		cred = in;
		if (d && strlen(d) == 64)
			memcpy(digest, d, 65);
	}

	check(&key, cred, digest);
	if (json_is_object(cred)) {
		json_t *signed_cred = json_deep_copy(cred);
		if (signed_cred) {
			resign(&key, signed_cred);
			check(&key, signed_cred, digest);
			json_decref(signed_cred);
		}
	}
	json_decref(in);
	return 0;
}
