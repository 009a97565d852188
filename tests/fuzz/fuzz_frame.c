/* fuzz_frame.c — a frame as it comes off a socket: the length word, the JSON
 * envelope and the MAC (common/proto.h, common/auth.h).
 *
 * The first 4 bytes go to drv_frame_header with a 64 KiB limit, the rest
 * (less the 32-byte MAC trailer when the header announces one) to
 * drv_envelope_parse, and the whole input to drv_frame_verify_mac with a
 * fixed key. The rest is parsed whatever length the header says, so that
 * mutations of the JSON are not all cut off by a stale length word. An accepted
 * envelope must survive what the daemons do next: its digest, its defaults
 * (still valid afterwards) and a rebuilt, signed frame that parses again. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/proto.h"
#include "fuzz.h"

#define FRAME_MAX (64 * 1024)

static void fixed_key(struct drv_key *key)
{
	memset(key->bytes, 0x42, sizeof(key->bytes));
}

/* What a daemon does with an envelope it accepted; aborts on a broken
 * invariant. */
static void use_envelope(json_t *env, const struct drv_key *key)
{
	struct drv_error err;
	char digest[65];
	drv_envelope_digest(env, digest);
	if (strlen(digest) != 64)
		abort();

	/* Re-framed and signed, it must read back as the same message. */
	char *frame;
	size_t len, json_len;
	bool has_mac;
	if (drv_frame_build(env, key, 1u << 24, &frame, &len) == 0) {
		json_t *again = NULL;
		if (drv_frame_header((unsigned char *)frame, 1u << 24, &json_len,
				     &has_mac, &err) < 0 ||
		    !has_mac || json_len + 4 + DRV_MAC_LEN != len ||
		    drv_frame_verify_mac(key, (unsigned char *)frame, len) < 0 ||
		    drv_envelope_parse(frame + 4, json_len, &again, &err) < 0 ||
		    !json_equal(env, again))
			abort();
		json_decref(again);
		free(frame);
	}

	/* Declared defaults keep a valid body valid. */
	const char *type = json_string_value(json_object_get(env, "type"));
	json_t *body = json_object_get(env, "body");
	if (strcmp(type, "reply") != 0) {
		if (drv_msg_fill_defaults(type, body) < 0 ||
		    drv_msg_validate(type, body, &err) < 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drv_key key;
	struct drv_error err;
	size_t json_len;
	bool has_mac;

	fixed_key(&key);
	(void)drv_frame_verify_mac(&key, data, size);
	if (size < 4)
		return 0;
	if (drv_frame_header(data, FRAME_MAX, &json_len, &has_mac, &err) < 0)
		return 0;
	json_len = size - 4;
	if (has_mac && json_len >= DRV_MAC_LEN)
		json_len -= DRV_MAC_LEN;

	json_t *env = NULL;
	if (drv_envelope_parse((const char *)data + 4, json_len, &env, &err) == 0) {
		use_envelope(env, &key);
		json_decref(env);
	}
	return 0;
}
