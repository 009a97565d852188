/* authd.h — drover-authd's service, shared by its main and its socket code.
 *
 * The service owns the cluster key, the socket and the connections; main.c
 * owns the process (options, config, pid file, daemonizing, signals). */
#ifndef DRV_AUTHD_H
#define DRV_AUTHD_H

#include <event2/event.h>
#include <stdint.h>

#include "common/keyring.h"
#include "common/error.h"

struct authd_session;

struct authd {
	struct event_base *base;	/* borrowed */
	struct drv_keyring keys;	/* the cluster key, and a rotated-out one */
	struct event *key_watch;	/* looks for a rotated key file each second */
	struct drv_cred_policy policy;	/* AuthInfo cred_expire, clock_skew */
	struct drv_nonce_cache *nonces; /* verified reply credentials, no replays */
	char host[256];			/* gethostname(), put into every credential */
	char *socket_path;		/* owned */
	struct evconnlistener *lev;
	struct authd_session *sessions; /* live connections, newest first */
	size_t n_sessions;
	size_t max_sessions, max_sessions_per_uid; /* MaxConnections[PerUser] */
};

/* Binds the UNIX socket at path (mode 0666, parent directories created),
 * replacing a stale socket but never one a live authd answers on, and starts
 * accepting. 0 or -errno with err. */
int authd_listen(struct authd *a, const char *path, struct drv_error *err);

/* Closes every connection and the listener and removes the socket. */
void authd_stop(struct authd *a);

#endif
