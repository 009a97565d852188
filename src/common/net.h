/* net.h — framed, optionally MACed connections on a libevent loop.
 *
 * A drv_conn reads frames, refuses oversize ones before reading them, checks
 * the MAC when the frame carries one, parses the envelope and hands it to the
 * message callback. Anything malformed gets an error reply (rc
 * DRV_RC_PROTOCOL) and is logged with the peer's address; the connection
 * stays usable when the framing itself is intact. */
#ifndef DRV_NET_H
#define DRV_NET_H

#include <event2/event.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/keyring.h"

struct drv_conn;

/* env is borrowed for the call. mac_ok is true when the frame carried a valid
 * HMAC (a daemon peer); client frames arrive with mac_ok false. */
typedef void (*drv_conn_msg_f)(struct drv_conn *c, json_t *env, bool mac_ok, void *arg);
/* Called once when the peer closes or the connection fails; the conn is
 * freed right after the callback returns. */
typedef void (*drv_conn_close_f)(struct drv_conn *c, void *arg);

/* Wraps a connected socket (consumed, even on failure). keys may be NULL
 * (then frames with a MAC are refused, and drv_conn_send cannot sign); it is
 * borrowed and must outlive the conn, so that a rotated key reaches live
 * links: frames are signed with its current key and verified under any key
 * it accepts, and a frame that fails makes it look at the key file once
 * (drv_keyring_poll) before the link is given up. Frames without a MAC are accepted
 * either way (mac_ok false): the owner decides what an unsigned peer may do. A malformed
 * envelope gets a reply with rc DRV_RC_PROTOCOL (never sent for a malformed reply). */
struct drv_conn *drv_conn_new(struct event_base *base, int fd, struct drv_keyring *keys,
			      uint64_t max_msg, drv_conn_msg_f on_msg,
			      drv_conn_close_f on_close, void *arg);

/* Starts a non-blocking TCP connect; callbacks as above. A refused or failed
 * connect fires the close callback from the loop. NULL (errno set) only when
 * the host does not resolve or no socket can be made. Frames may be sent
 * before the connect completes; they are queued. */
struct drv_conn *drv_conn_connect(struct event_base *base, const char *host, int port,
				  struct drv_keyring *keys, uint64_t max_msg,
				  drv_conn_msg_f on_msg, drv_conn_close_f on_close,
				  void *arg);

/* Queues env (borrowed) for sending; MACed when mac is true (-EINVAL if the
 * conn has no key). -EMSGSIZE above max_msg, -EPIPE once closing. */
int drv_conn_send(struct drv_conn *c, json_t *env, bool mac);
/* Queues an envelope already encoded as JSON text (copied), without a MAC:
 * for bulk replies to clients that are written as text, not built as trees. */
int drv_conn_send_text(struct drv_conn *c, const char *json, size_t len);
void drv_conn_free(struct drv_conn *c);		     /* accepts NULL; no close callback */
const char *drv_conn_peer(const struct drv_conn *c); /* "127.0.0.1:4567" */
void drv_conn_set_arg(struct drv_conn *c, void *arg);
void *drv_conn_get_arg(const struct drv_conn *c);

/* Closes the connection when no frame arrived for seconds (0: never, the
 * default); the close callback fires. 0 or -errno. */
int drv_conn_set_timeout(struct drv_conn *c, int seconds);

/* Stops reading, sends what is queued, then closes (close callback fires).
 * For a last error reply before hanging up. */
void drv_conn_close_after_flush(struct drv_conn *c);

/* Listens on addr:port (port 0 picks one); calls on_accept with each new fd.
 * *bound_port gets the port. Returns a listener or NULL with err. */
struct evconnlistener;
typedef void (*drv_accept_f)(int fd, const char *peer, void *arg);
/* addr NULL, "" or "*" listens on every IPv4 address. The listener sets
 * SO_REUSEADDR and close-on-exec; accepted fds are non-blocking. Free it with
 * drv_listener_free (not evconnlistener_free, which would leak a little). */
struct evconnlistener *drv_listen_tcp(struct event_base *base, const char *addr, int port,
				      drv_accept_f on_accept, void *arg, int *bound_port,
				      struct drv_error *err);
void drv_listener_free(struct evconnlistener *lev); /* accepts NULL */

#endif
