/* peer.c — ctld's connections: clients (one request each, usually) and
 * noded's persistent links. Deferred replies find their peer again by id,
 * so a client that went away in the meantime is simply skipped.
 *
 * It also bounds what anyone who can reach the port may hold: a connection
 * must authenticate a request within ConnAuthTimeout, an authenticated
 * client connection that stays silent for ConnIdleTimeout is closed, and at
 * MaxConnections the oldest connection that never authenticated makes room
 * (every local client comes from 127.0.0.1, so no per-address cap could
 * tell one user from another); when all have authenticated, the uid that
 * holds the most client connections gives up its oldest. After
 * authentication each uid may hold MaxConnectionsPerUser. */
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "ctld/ctld.h"

static void on_msg(struct drv_conn *conn, json_t *env, bool mac_ok, void *arg)
{
	struct peer *p = arg;
	rpc_dispatch(p->ctld, p, env, mac_ok);
}

static void unlink_peer(struct ctld *c, struct peer *p)
{
	for (struct peer **pp = &c->peers; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			c->n_peers--;
			return;
		}
}

static void peer_forget(struct ctld *c, struct peer *p)
{
	if (p->node) {
		log_info("node=%s connection closed", p->node->conf->name);
		node_lost_conn(c, p->node);
	}
	unlink_peer(c, p);
	if (p->auth_timer)
		event_free(p->auth_timer);
	free(p);
}

static void on_close(struct drv_conn *conn, void *arg)
{
	struct peer *p = arg;
	peer_forget(p->ctld, p);
}

/* Closes p from outside its own callbacks (a timer, another's accept). */
static void peer_drop(struct ctld *c, struct peer *p, const char *why)
{
	drv_log_warn_limited(drv_conn_peer(p->conn), "closed connection from %s: %s",
			     drv_conn_peer(p->conn), why);
	drv_conn_free(p->conn);
	peer_forget(c, p);
}

static void auth_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct peer *p = arg;
	if (!p->authed)
		peer_drop(p->ctld, p,
			  "no authenticated request in time (ConnAuthTimeout)");
}

static size_t client_conns(const struct ctld *c, uid_t uid, struct peer **oldest)
{
	size_t n = 0;
	for (struct peer *q = c->peers; q; q = q->next)
		if (q->authed && !q->daemon && q->uid == uid) {
			n++;
			if (oldest)
				*oldest = q; /* the list is newest first */
		}
	return n;
}

/* The connection to close so that a new one fits. */
static struct peer *eviction_victim(const struct ctld *c)
{
	struct peer *victim = NULL;
	for (struct peer *q = c->peers; q; q = q->next)
		if (!q->authed)
			victim = q;
	if (victim)
		return victim;
	size_t most = 0;
	for (struct peer *q = c->peers; q; q = q->next) {
		struct peer *oldest = NULL;
		size_t n = q->authed && !q->daemon ? client_conns(c, q->uid, &oldest) : 0;
		if (n > most) {
			most = n;
			victim = oldest;
		}
	}
	return victim;
}

void peer_accept(int fd, const char *addr, void *arg)
{
	struct ctld *c = arg;
	if (c->n_peers >= (size_t)c->conf->max_connections) {
		struct peer *victim = eviction_victim(c);
		if (!victim) { /* only daemons: they are the cluster, keep them */
			drv_log_warn_limited(addr,
					     "refused connection from %s: "
					     "MaxConnections reached",
					     addr);
			close(fd);
			return;
		}
		peer_drop(c, victim, "making room for a new one (MaxConnections)");
	}
	struct peer *p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return;
	}
	p->ctld = c;
	p->id = ++c->next_peer_id;
	p->auth_timer = evtimer_new(c->base, auth_deadline, p);
	p->conn = drv_conn_new(c->base, fd, &c->keys, c->conf->max_message_size, on_msg,
			       on_close, p);
	struct timeval tv = {.tv_sec = c->conf->conn_auth_timeout};
	if (!p->conn || !p->auth_timer || evtimer_add(p->auth_timer, &tv) < 0) {
		log_warn("cannot serve connection from %s", addr);
		drv_conn_free(p->conn);
		if (p->auth_timer)
			event_free(p->auth_timer);
		free(p);
		return;
	}
	p->next = c->peers;
	c->peers = p;
	c->n_peers++;
}

int peer_authenticated(struct ctld *c, struct peer *p, bool daemon, uid_t uid)
{
	if (p->authed)
		return 0;
	p->authed = true;
	p->daemon = daemon;
	p->uid = uid;
	evtimer_del(p->auth_timer);
	if (daemon)
		return 0; /* node links have SlurmdTimeout of their own */
	drv_conn_set_timeout(p->conn, c->conf->conn_idle_timeout);
	if (client_conns(c, uid, NULL) > (size_t)c->conf->max_connections_per_user)
		return -EDQUOT;
	return 0;
}

void peer_free_all(struct ctld *c)
{
	while (c->peers) {
		struct peer *p = c->peers;
		drv_conn_free(p->conn);
		p->node = NULL; /* shutting down: nothing to tell the node table */
		peer_forget(c, p);
	}
}

struct peer *peer_find(struct ctld *c, uint64_t id)
{
	for (struct peer *p = c->peers; p; p = p->next)
		if (p->id == id)
			return p;
	return NULL;
}

int peer_send(struct ctld *c, struct peer *p, json_t *env)
{
	return drv_conn_send(p->conn, env, p->daemon);
}

int64_t ctld_next_msg_id(struct ctld *c)
{
	return ++c->next_msg_id;
}
