/* proto.c — frames and envelopes.
 *
 * Owns the byte layout of a frame (length word, JSON, optional HMAC), the
 * envelope's shape ({v, type, id, cred?, body}) and Slurm's texts for the
 * return codes. Body fields are proto_schema.c's business; sockets are
 * net.c's and client.c's. Nothing here logs or keeps state. */
#include "common/proto.h"
#include "common/proto_gen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* Slurm's words for each code (slurm_errno.c). */
static const struct {
	int rc;
	const char *text;
} rc_texts[] = {
    {DRV_RC_OK, "No error"},
    {DRV_RC_ERROR, "Unspecified error"},
    {DRV_RC_PROTOCOL, "Message receive failure"},
    {DRV_RC_AUTH, "Protocol authentication error"},
    {DRV_RC_INVALID_PARTITION, "Invalid partition name specified"},
    {DRV_RC_ACCESS_DENIED, "Access/permission denied"},
    {DRV_RC_USER_ID_MISSING, "Invalid user id"},
    {DRV_RC_JOB_SCRIPT_MISSING, "Job script not specified"},
    {DRV_RC_INVALID_NODE_NAME, "Invalid node name specified"},
    {DRV_RC_INVALID_FEATURE, "Invalid feature specification"},
    {DRV_RC_NODE_CONFIG_UNAVAIL, "Requested node configuration is not available"},
    {DRV_RC_INVALID_JOB_ID, "Invalid job id specified"},
    {DRV_RC_JOB_NOT_PENDING, "Job is no longer pending execution"},
    {DRV_RC_ALREADY_DONE, "Job/step already completing or completed"},
    {DRV_RC_JOB_PENDING, "Job is pending execution"},
    {DRV_RC_JOB_NOT_RUNNING, "Job is not running"},
    {DRV_RC_JOB_NOT_SUSPENDED, "Job is not suspended"},
    {DRV_RC_NODES_BUSY, "Requested nodes are busy"},
    {DRV_RC_TOO_MANY_CPUS, "More processors requested than permitted"},
    {DRV_RC_BAD_TASK_COUNT, "Task count specification invalid"},
    {DRV_RC_INVALID_STEP, "Invalid job id specified"},
    {DRV_RC_INVALID_ARRAY, "Invalid job array specification"},
    {DRV_RC_INVALID_ACCOUNT,
     "Invalid account or account/partition combination specified"},
    {DRV_RC_INVALID_PARENT_ACCOUNT, "Invalid parent account specified"},
    {DRV_RC_ACCOUNTING_POLICY, "Job violates accounting/QOS policy (job submit limit, "
			       "user's size and/or time limits)"},
    {DRV_RC_INVALID_QOS, "Invalid qos specification"},
    {DRV_RC_QOS_PREEMPTION_LOOP, "QOS Preemption loop detected"},
    {DRV_RC_PART_CONFIG_UNAVAIL, "Requested partition configuration not available now"},
    {DRV_RC_JOB_HELD, "Job is in held state, pending scheduler release"},
    {DRV_RC_PRIO_RESET_FAIL,
     "Changes to job priority are not persistent, change nice instead"},
    {DRV_RC_JOBS_RUNNING_ON_ASSOC, "Job(s) active, cancel job(s) before remove"},
    {DRV_RC_DISABLED, "Requested operation is presently disabled"},
    {DRV_RC_DEPENDENCY, "Job dependency problem"},
    {DRV_RC_INVALID_GRES, "Invalid generic resource (gres) specification"},
    {DRV_RC_INVALID_TIME_LIMIT,
     "Requested time limit is invalid (missing or exceeds some limit)"},
    {DRV_RC_NOT_SUPPORTED, "Operation not supported"},
    {DRV_RC_CIRCULAR_DEPENDENCY, "Circular job dependency"},
    {DRV_RC_JOB_FINISHED, "Job has already finished"},
    {DRV_RC_PART_GROUP, "User's group not permitted to use this partition"},
    {DRV_RC_INVALID_NODE_COUNT, "Node count specification invalid"},
    {DRV_RC_INVALID_TASK_MEMORY, "Memory required by task is not available"},
    {DRV_RC_INVALID_LICENSES, "Invalid license specification"},
    {DRV_RC_PARTITION_NOT_AVAIL, "Required partition not available (inactive or drain)"},
    {DRV_RC_PARTITION_IN_USE, "Partition is in use"},
    {DRV_RC_BACKOFF, "Rate limit exceeded, please retry momentarily"},
    {DRV_RC_MAX_JOB_COUNT, "MaxJobCount limit reached"},
    {DRV_RC_PATHNAME_TOO_LONG,
     "Pathname of a file, directory or other parameter too long"},
};

const char *drv_rc_text(int rc)
{
	for (size_t i = 0; i < sizeof(rc_texts) / sizeof(rc_texts[0]); i++)
		if (rc_texts[i].rc == rc)
			return rc_texts[i].text;
	return "Unknown error";
}

/* --- framing ---------------------------------------------------------- */

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
	       (uint32_t)p[3];
}

/* HMAC-SHA256 over ctx (may be empty) then the frame's header and JSON. */
static void frame_mac(const struct drv_key *key, const unsigned char *ctx, size_t ctx_len,
		      const unsigned char *frame, size_t n,
		      unsigned char out[DRV_MAC_LEN])
{
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key->bytes, DRV_KEY_LEN);
	if (ctx_len)
		crypto_auth_hmacsha256_update(&st, ctx, ctx_len);
	crypto_auth_hmacsha256_update(&st, frame, n);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
}

int drv_frame_build(json_t *env, const struct drv_key *key, uint64_t max, char **out,
		    size_t *len)
{
	return drv_frame_build_bound(env, key, NULL, 0, max, out, len);
}

int drv_frame_build_bound(json_t *env, const struct drv_key *key,
			  const unsigned char *ctx, size_t ctx_len, uint64_t max,
			  char **out, size_t *len)
{
	char *json = json_dumps(env, JSON_COMPACT);
	if (!json)
		return -EINVAL;
	size_t n = strlen(json);
	if (n > max || n > DRV_FRAME_LEN_MASK) {
		free(json);
		return -EMSGSIZE;
	}
	size_t total = 4 + n + (key ? DRV_MAC_LEN : 0);
	unsigned char *f = malloc(total);
	if (!f) {
		free(json);
		return -ENOMEM;
	}
	put_be32(f, (uint32_t)n | (key ? DRV_FRAME_MAC : 0));
	memcpy(f + 4, json, n);
	free(json);
	if (key)
		frame_mac(key, ctx, ctx_len, f, 4 + n, f + 4 + n);
	*out = (char *)f;
	*len = total;
	return 0;
}

int drv_frame_header(const unsigned char hdr[4], uint64_t max, size_t *json_len,
		     bool *has_mac, struct drv_error *err)
{
	uint32_t word = get_be32(hdr);
	size_t n = word & DRV_FRAME_LEN_MASK;
	if (n > max)
		return drv_error_set(err, EMSGSIZE,
				     "message of %zu bytes exceeds MaxMessageSize %llu",
				     n, (unsigned long long)max);
	*json_len = n;
	*has_mac = (word & DRV_FRAME_MAC) != 0;
	return 0;
}

int drv_frame_verify_mac(const struct drv_key *key, const unsigned char *frame,
			 size_t len)
{
	return drv_frame_verify_mac_bound(key, NULL, 0, frame, len);
}

int drv_frame_verify_mac_bound(const struct drv_key *key, const unsigned char *ctx,
			       size_t ctx_len, const unsigned char *frame, size_t len)
{
	if (!key || len < 4 + DRV_MAC_LEN)
		return -EPERM;
	uint32_t word = get_be32(frame);
	size_t n = word & DRV_FRAME_LEN_MASK;
	if (!(word & DRV_FRAME_MAC) || len != 4 + n + DRV_MAC_LEN)
		return -EPERM;
	unsigned char mac[DRV_MAC_LEN];
	frame_mac(key, ctx, ctx_len, frame, 4 + n, mac);
	return sodium_memcmp(mac, frame + 4 + n, DRV_MAC_LEN) == 0 ? 0 : -EPERM;
}

/* --- envelopes -------------------------------------------------------- */

static int env_fail(struct drv_error *err, const char *field, const char *what)
{
	return drv_error_set(err, EBADMSG, "envelope: field '%s': %s", field, what);
}

/* The envelope's own fields; the body is left to the schema. */
static int check_envelope(json_t *env, struct drv_error *err)
{
	json_t *v = json_object_get(env, "v");
	if (!v)
		return env_fail(err, "v", "required");
	if (!json_is_integer(v) || json_integer_value(v) != DRV_PROTO_VERSION)
		return env_fail(err, "v",
				"unsupported protocol version (this side speaks 1)");
	json_t *type = json_object_get(env, "type");
	if (!type)
		return env_fail(err, "type", "required");
	if (!json_is_string(type))
		return env_fail(err, "type", "must be a string");
	if (!drv_msg_known(json_string_value(type)))
		return drv_error_set(err, EBADMSG,
				     "envelope: undeclared message type '%.64s'",
				     json_string_value(type));
	json_t *id = json_object_get(env, "id");
	if (!id)
		return env_fail(err, "id", "required");
	if (!json_is_integer(id) || json_integer_value(id) < 0)
		return env_fail(err, "id", "must be an integer >= 0");
	json_t *cred = json_object_get(env, "cred");
	if (cred && !json_is_object(cred))
		return env_fail(err, "cred", "must be an object");
	return 0;
}

static int check_reply(json_t *env, struct drv_error *err)
{
	json_t *rc = json_object_get(env, "rc");
	if (!rc)
		return drv_error_set(err, EBADMSG, "reply: field 'rc': required");
	if (!json_is_integer(rc) || json_integer_value(rc) < 0 ||
	    json_integer_value(rc) > INT32_MAX)
		return drv_error_set(err, EBADMSG,
				     "reply: field 'rc': must be an integer >= 0");
	json_t *e = json_object_get(env, "error");
	if (e && !json_is_string(e) && !json_is_null(e))
		return drv_error_set(err, EBADMSG,
				     "reply: field 'error': must be a string");
	json_t *body = json_object_get(env, "body");
	if (!body || json_is_null(body))
		json_object_set_new(env, "body", json_object());
	return 0;
}

int drv_envelope_parse(const char *json, size_t len, json_t **env, struct drv_error *err)
{
	json_error_t jerr;
	json_t *e = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!e)
		return drv_error_set(err, EBADMSG, "not JSON: %s at byte %d", jerr.text,
				     jerr.position);
	int rc;
	if (!json_is_object(e)) {
		rc = drv_error_set(err, EBADMSG, "envelope: must be a JSON object");
		goto fail;
	}
	rc = check_envelope(e, err);
	if (rc < 0)
		goto fail;
	const char *type = json_string_value(json_object_get(e, "type"));
	if (strcmp(type, "reply") == 0) {
		rc = check_reply(e, err);
		if (rc < 0)
			goto fail;
	}
	json_t *body = json_object_get(e, "body");
	if (!body) {
		rc = drv_error_set(err, EBADMSG, "%s: field 'body': required", type);
		goto fail;
	}
	rc = drv_msg_validate(type, body, err);
	if (rc < 0)
		goto fail;
	*env = e;
	return 0;
fail:
	json_decref(e);
	return rc;
}

/* The envelope of e, taking over e->body (the encoder adds its own
 * reference). */
static json_t *envelope_new(struct drv_rec_envelope *e)
{
	if (!e->body)
		e->body = json_object();
	json_t *env = drv_rec_envelope_encode(e);
	json_decref(e->body);
	return env;
}

json_t *drv_request_new(const char *type, int64_t id, json_t *body)
{
	struct drv_rec_envelope e = {
	    .v = DRV_PROTO_VERSION, .type = type, .id = id, .body = body};
	if (!type) {
		json_decref(body);
		return NULL;
	}
	return envelope_new(&e);
}

/* A JSON string of text; bytes that are not printable ASCII (a cut UTF-8
 * sequence echoed from a bad message, say) become '?'. */
static json_t *safe_string(const char *text)
{
	json_t *s = json_string(text);
	if (s)
		return s;
	char buf[256];
	size_t i;
	for (i = 0; i < sizeof(buf) - 1 && text[i]; i++) {
		unsigned char ch = (unsigned char)text[i];
		buf[i] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
	}
	buf[i] = '\0';
	return json_string(buf);
}

json_t *drv_reply_new(int64_t id, int rc, const char *error, json_t *body)
{
	struct drv_rec_envelope e = {.v = DRV_PROTO_VERSION,
				     .type = "reply",
				     .id = id,
				     .rc = rc,
				     .has_rc = true,
				     .body = body};
	json_t *r = envelope_new(&e);
	/* not through the struct: the text may not be UTF-8, safe_string mends it */
	if (r && (error || rc != 0))
		json_object_set_new(
		    r, drv_shape_rec_envelope.fields[DRV_REC_ENVELOPE__ERROR].name,
		    safe_string(error ? error : drv_rc_text(rc)));
	return r;
}
