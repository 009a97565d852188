/* auth_munge.h — AuthType=auth/munge: client credentials from a real munged.
 *
 * With auth/munge a client's credential is a MUNGE credential whose payload
 * is the request's digest (drv_envelope_digest), sent as {"munge": TEXT} in
 * the envelope's "cred" member; ctld decodes it through its own munged (which
 * says who encoded it and refuses replayed, expired and rewound ones) and
 * checks the payload is the digest. ctld's replies carry a MUNGE credential
 * of the reply's digest, which the client decodes the same way. Frames
 * between daemons keep the cluster key's HMAC: MUNGE authenticates users,
 * the key authenticates daemons. Every call here talks to munged over its
 * UNIX socket and blocks until it answers; nothing here logs. */
#ifndef DRV_AUTH_MUNGE_H
#define DRV_AUTH_MUNGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/error.h"

/* Does conf say AuthType=auth/munge? conf is borrowed. */
bool drv_auth_munge(const struct drv_conf *conf);

/* A MUNGE credential for digest (64 hex digits), from munged at socket:
 * {"munge": "MUNGE:...:"} (a new reference), or NULL with errno and err set
 * ("Unable to contact munged at PATH: ..." when the socket is missing or
 * cannot be used). */
json_t *drv_munge_sign(const char *socket, const char *digest, struct drv_error *err);

/* Decodes cred through munged at socket and checks that its payload is
 * digest. Returns 0 and fills *info (uid and gid as munged vouches for them,
 * host the encoder's IPv4 address, nonce the SHA-256 of the credential text,
 * expires its encode time plus TTL), or:
 *   -EPERM   the credential is refused: err says why ("malformed
 *            credential", "replayed credential", "credential expired",
 *            "credential rewound (encoded in the future)", "invalid MUNGE
 *            credential", "digest mismatch", ...);
 *   -ENOTCONN munged at socket cannot be reached (err names the socket);
 *   -ENOMEM  out of memory.
 * A credential is decoded once: munged refuses it as replayed after that. */
int drv_munge_check(const char *socket, json_t *cred, const char *digest,
		    struct drv_cred_info *info, struct drv_error *err);

/* The client's check of a reply's credential: decodes it once and accepts
 * it when its payload is raw_digest (when not "") or the digest of reply
 * (the whole envelope, borrowed). On 0, *issued_to is the uid munged says
 * encoded it. Errors as drv_munge_check, with -EPERM's text prefixed
 * "reply from controller failed authentication: ". */
int drv_munge_check_reply(const char *socket, json_t *reply, const char *raw_digest,
			  uid_t *issued_to, struct drv_error *err);

/* Encodes and decodes one throwaway credential, so a daemon learns at start
 * that munged at socket answers. 0, or -ENOTCONN/-EPERM with err naming the
 * socket. */
int drv_munge_probe(const char *socket, struct drv_error *err);

#endif
