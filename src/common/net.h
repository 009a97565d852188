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

#include "common/auth.h"

struct drv_conn;

/* env is borrowed for the call. mac_ok is true when the frame carried a valid
 * HMAC (a daemon peer); client frames arrive with mac_ok false. */
typedef void (*drv_conn_msg_f)(struct drv_conn *c, json_t *env, bool mac_ok, void *arg);
/* Called once when the peer closes or the connection fails; the conn is
 * freed right after the callback returns. */
typedef void (*drv_conn_close_f)(struct drv_conn *c, void *arg);

/* Wraps a connected socket (consumed). key may be NULL (then frames with a
 * MAC are refused, and drv_conn_send cannot sign). */
struct drv_conn *drv_conn_new(struct event_base *base, int fd,
			      const struct drv_key *key, uint64_t max_msg,
			      drv_conn_msg_f on_msg, drv_conn_close_f on_close,
			      void *arg);

/* Starts a non-blocking TCP connect; callbacks as above. NULL on failure. */
struct drv_conn *drv_conn_connect(struct event_base *base, const char *host, int port,
				  const struct drv_key *key, uint64_t max_msg,
				  drv_conn_msg_f on_msg, drv_conn_close_f on_close,
				  void *arg);

/* Queues env (borrowed) for sending; MACed when mac is true. 0 or -errno. */
int drv_conn_send(struct drv_conn *c, json_t *env, bool mac);
void drv_conn_free(struct drv_conn *c); /* accepts NULL; no close callback */
const char *drv_conn_peer(const struct drv_conn *c); /* "127.0.0.1:4567" */
void drv_conn_set_arg(struct drv_conn *c, void *arg);
void *drv_conn_get_arg(const struct drv_conn *c);

/* Listens on addr:port (port 0 picks one); calls on_accept with each new fd.
 * *bound_port gets the port. Returns a listener or NULL with err. */
struct evconnlistener;
typedef void (*drv_accept_f)(int fd, const char *peer, void *arg);
struct evconnlistener *drv_listen_tcp(struct event_base *base, const char *addr, int port,
				      drv_accept_f on_accept, void *arg, int *bound_port,
				      struct drv_error *err);

#endif
