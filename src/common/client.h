/* client.h — one request, one reply, for the client commands.
 *
 * drv_client_call() asks authd (AuthInfo socket) for a credential bound to the
 * request, sends it to ctld (SlurmctldHost/SlurmctldPort, trying each host in
 * order), reads the reply and has authd verify the reply's credential. */
#ifndef DRV_CLIENT_H
#define DRV_CLIENT_H

#include <jansson.h>
#include <sys/types.h>

#include "common/conf.h"
#include "common/error.h"

/* The retries of a request that ctld's rate limit refused (rc 1804,
 * DRV_RC_BACKOFF), the n-th after a sleep of n seconds. */
#define DRV_RL_MAX_RETRIES 10

/* body is borrowed. Returns:
 *   0  success: *reply is the reply body (new reference, caller decrefs);
 *  >0  ctld refused: a Slurm error code (enum drv_rc); err holds its message;
 *      a rate-limited request (DRV_RC_BACKOFF) is sent again, sleeping
 *      1, 2, ... seconds between tries, and that rc is returned only after
 *      DRV_RL_MAX_RETRIES retries;
 *  <0  -errno: the call failed (authd or ctld unreachable, bad reply); err says
 *      why, e.g. "Unable to contact slurm controller (connect failure)". */
int drv_client_call(const struct drv_conf *conf, const char *type, json_t *body,
		    json_t **reply, struct drv_error *err);

/* A blocking TCP connection to host:port (a name or an address), made
 * within the clients' connect timeout: the fd (the caller closes it) or
 * -errno. */
int drv_tcp_dial(const char *host, int port);

/* The lower half, used by authd's own clients and tests: ask authd at
 * socket_path to sign digest (returns a new credential reference or NULL
 * with err) or to verify cred against digest (0 or -EPERM with err; on 0,
 * *issued_to, when not NULL, is the uid the credential was issued to). */
json_t *drv_authd_sign(const char *socket_path, const char *digest,
		       struct drv_error *err);
int drv_authd_verify(const char *socket_path, json_t *cred, const char *digest,
		     uid_t *issued_to, struct drv_error *err);

#endif
