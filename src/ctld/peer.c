/* peer.c — ctld's connections: clients (one request each, usually) and
 * noded's persistent links. Deferred replies find their peer again by id,
 * so a client that went away in the meantime is simply skipped. */
#include <stdlib.h>
#include <unistd.h>

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
			return;
		}
}

static void on_close(struct drv_conn *conn, void *arg)
{
	struct peer *p = arg;
	struct ctld *c = p->ctld;
	if (p->node) {
		log_info("node=%s connection closed", p->node->conf->name);
		node_lost_conn(c, p->node);
	}
	unlink_peer(c, p);
	free(p);
}

void peer_accept(int fd, const char *addr, void *arg)
{
	struct ctld *c = arg;
	struct peer *p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return;
	}
	p->ctld = c;
	p->id = ++c->next_peer_id;
	p->conn = drv_conn_new(c->base, fd, &c->key, c->conf->max_message_size, on_msg,
			       on_close, p);
	if (!p->conn) {
		log_warn("cannot serve connection from %s", addr);
		free(p);
		return;
	}
	p->next = c->peers;
	c->peers = p;
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
