/* proto.h — framing, envelopes and the declared message types.
 *
 * A frame is a 4-byte big-endian length word, then that many bytes of JSON
 * envelope. When the top bit of the length word is set (DRV_FRAME_MAC), a
 * 32-byte HMAC-SHA256 over the length word and the JSON follows: daemons
 * (ctld, noded, authd peers) sign every frame this way. Clients send frames
 * without a MAC; their envelope carries a credential from authd instead.
 *
 * Envelope: {"v":1, "type":"job.submit", "id":N, "cred":{...}, "body":{...}}
 * Reply:    {"v":1, "type":"reply", "id":N, "rc":0, "error":"...", "body":{...},
 *            "cred":{...}}  (rc is 0 or a Slurm error code, see below)
 * Every type, its body and its reply body are declared once in
 * the src/proto schema files (the generated docs/schema.md lists them; protocol.md
 * says what they mean). */
#ifndef DRV_PROTO_H
#define DRV_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/auth.h"
#include "common/error.h"

#define DRV_PROTO_VERSION 1
#define DRV_FRAME_MAC 0x80000000u
#define DRV_FRAME_LEN_MASK 0x7fffffffu
#define DRV_MAC_LEN 32

/* Slurm's error codes for the errors Slurm users know (slurm_errno.h). */
enum drv_rc {
	DRV_RC_OK = 0,
	DRV_RC_ERROR = 1,		 /* generic; message says what */
	DRV_RC_PROTOCOL = 1001,		 /* malformed message */
	DRV_RC_AUTH = 1007,		 /* SLURM_PROTOCOL_AUTHENTICATION_ERROR */
	DRV_RC_INVALID_PARTITION = 2000, /* "Invalid partition name specified" */
	DRV_RC_ACCESS_DENIED = 2002,	 /* "Access/permission denied" */
	DRV_RC_INVALID_NODE_NAME = 2018, /* "Invalid node name specified" */
	DRV_RC_INVALID_FEATURE = 2029,	 /* "Invalid feature specification" */
	DRV_RC_NODE_CONFIG_UNAVAIL =
	    2014, /* "Requested node configuration is not available" */
	DRV_RC_INVALID_JOB_ID = 2017,	 /* "Invalid job id specified" */
	DRV_RC_JOB_NOT_PENDING = 2020,	 /* "Job is no longer pending execution" */
	DRV_RC_ALREADY_DONE = 2021,	 /* "Job/step already completing or completed" */
	DRV_RC_JOB_PENDING = 2024,	 /* "Job is pending execution" */
	DRV_RC_JOB_NOT_RUNNING = 2085,	 /* "Job is not running" */
	DRV_RC_JOB_NOT_SUSPENDED = 2087, /* "Job is not suspended" */
	DRV_RC_DISABLED = 2037,		 /* "Requested operation is presently disabled" */
	DRV_RC_DEPENDENCY = 2030,	 /* "Job dependency problem" */
	DRV_RC_INVALID_ARRAY = 2081,	 /* "Invalid job array specification" */
	DRV_RC_INVALID_GRES = 2072, /* "Invalid generic resource (gres) specification" */
	DRV_RC_INVALID_TIME_LIMIT = 2051,  /* "Requested time limit is invalid ..." */
	DRV_RC_NOT_SUPPORTED = 2054,	   /* "Operation not supported" */
	DRV_RC_JOB_FINISHED = 2084,	   /* "Job has already finished" */
	DRV_RC_CIRCULAR_DEPENDENCY = 2071, /* "Circular job dependency" */
	DRV_RC_NODES_BUSY = 2016,	   /* "Requested nodes are busy" */
	DRV_RC_TOO_MANY_CPUS = 2019,  /* "More processors requested than permitted" */
	DRV_RC_BAD_TASK_COUNT = 2101, /* "Task count specification invalid" */
	DRV_RC_INVALID_STEP = 2047,   /* a step the job does not have */
	/* "User's group not permitted to use this partition" */
	DRV_RC_PART_GROUP = 2003,
	DRV_RC_USER_ID_MISSING = 2010,	  /* "Invalid user id" */
	DRV_RC_JOB_SCRIPT_MISSING = 2009, /* "Job script not specified" */
	DRV_RC_INVALID_NODE_COUNT = 2006, /* "Node count specification invalid" */
	/* "Invalid account or account/partition combination specified" */
	DRV_RC_INVALID_ACCOUNT = 2045,
	DRV_RC_INVALID_PARENT_ACCOUNT = 2046, /* "Invalid parent account specified" */
	DRV_RC_INVALID_TASK_MEMORY =
	    2044,			/* "Memory required by task is not available" */
	DRV_RC_INVALID_LICENSES = 2048, /* "Invalid license specification" */
	/* "Job violates accounting/QOS policy (job submit limit, user's size
	 * and/or time limits)" */
	DRV_RC_ACCOUNTING_POLICY = 2050,
	DRV_RC_INVALID_QOS = 2066,	   /* "Invalid qos specification" */
	DRV_RC_QOS_PREEMPTION_LOOP = 2067, /* "QOS Preemption loop detected" */
	DRV_RC_PARTITION_NOT_AVAIL = 2070, /* "Required partition not available ..." */
	DRV_RC_PARTITION_IN_USE = 2075,	   /* "Partition is in use" */
	DRV_RC_PART_CONFIG_UNAVAIL = 2015, /* "Requested partition configuration ..." */
	DRV_RC_JOB_HELD = 2042,		   /* "Job is in held state, pending ..." */
	/* "Changes to job priority are not persistent, change nice instead" */
	DRV_RC_PRIO_RESET_FAIL = 2095,
	/* "Job(s) active, cancel job(s) before remove" */
	DRV_RC_JOBS_RUNNING_ON_ASSOC = 7001,
	/* SLURMCTLD_COMMUNICATIONS_BACKOFF, "Rate limit exceeded, please retry
	 * momentarily": clients sleep and send the request again */
	DRV_RC_BACKOFF = 1804,
	/* "MaxJobCount limit reached" */
	DRV_RC_MAX_JOB_COUNT = 2007,
	/* "Pathname of a file, directory or other parameter too long" */
	DRV_RC_PATHNAME_TOO_LONG = 2012,
};

/* Slurm's text for rc (static string). */
const char *drv_rc_text(int rc);

/* --- framing ---------------------------------------------------------- */

/* Serialises env (borrowed) into a new frame (*out, caller frees). With a key
 * the frame is MACed. Returns 0 or -errno (-EMSGSIZE above max). */
int drv_frame_build(json_t *env, const struct drv_key *key, uint64_t max, char **out,
		    size_t *len);

/* The same, with the MAC bound to ctx as well: HMAC(key, ctx || frame).
 * Daemon links put the receiver's connection nonce and the frame's sequence
 * number there, so a frame captured on one connection, or replayed on the
 * same one, fails its MAC (net.c). */
int drv_frame_build_bound(json_t *env, const struct drv_key *key,
			  const unsigned char *ctx, size_t ctx_len, uint64_t max,
			  char **out, size_t *len);
int drv_frame_verify_mac_bound(const struct drv_key *key, const unsigned char *ctx,
			       size_t ctx_len, const unsigned char *frame, size_t len);

/* Reads the 4-byte header: sets *json_len and *has_mac. Returns -EMSGSIZE
 * (with err) when the frame is above max, so the caller refuses it before
 * reading the rest. */
int drv_frame_header(const unsigned char hdr[4], uint64_t max, size_t *json_len,
		     bool *has_mac, struct drv_error *err);

/* Checks the MAC of a whole frame (header + json + mac). Returns 0 or -EPERM. */
int drv_frame_verify_mac(const struct drv_key *key, const unsigned char *frame,
			 size_t len);

/* Parses and checks the envelope shape (v, type, id, body object; the type
 * declared; the body valid for that type). Returns 0 and a new reference in
 * *env, or -EBADMSG with err naming the field. A "reply" must carry an integer
 * rc; its body is checked by the client against the reply's declaration
 * (drv_reply_validate: only it knows which request the reply answers; an
 * absent body becomes {}). Bodies may carry
 * fields beyond the declared ones: they are ignored, not refused. */
int drv_envelope_parse(const char *json, size_t len, json_t **env, struct drv_error *err);

/* --- building envelopes (all return new references) -------------------- */
json_t *drv_request_new(const char *type, int64_t id, json_t *body /* stolen */);
json_t *drv_reply_new(int64_t id, int rc, const char *error,
		      json_t *body /* stolen, may be NULL */);

/* --- schema ----------------------------------------------------------- */

/* Validates body against the declared fields of type. Returns 0 or -EBADMSG
 * with err naming the field ("job.submit: field 'nodes': must be 1..100000"). */
int drv_msg_validate(const char *type, json_t *body, struct drv_error *err);
bool drv_msg_known(const char *type);

/* Validates the body of a successful reply to a request of type against
 * the reply's declaration (any object when none is declared). 0 or -EBADMSG
 * with err naming the field ("job.query reply: field 'jobs[0].job_id': ..."). */
int drv_reply_validate(const char *type, json_t *body, struct drv_error *err);

/* Fills the declared defaults of absent (or null) optional fields into body
 * (borrowed, modified), e.g. job.submit "nodes":1, "export":"ALL", "env":[].
 * Call it only after any credential digest was checked: the digest covers
 * the body as the sender wrote it. 0, or -EINVAL for an undeclared type. */
int drv_msg_fill_defaults(const char *type, json_t *body);

/* The i-th declared message type (static string), NULL past the end. */
const char *drv_msg_type_name(size_t i);

/* A minimal valid body of type (every required field at its lower bound), a
 * new reference; NULL for an undeclared type. Used by the round-trip tests. */
json_t *drv_msg_example(const char *type);

#endif
