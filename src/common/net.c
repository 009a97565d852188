/* net.c — framed connections and TCP listeners on a libevent loop.
 *
 * Owns the life of a drv_conn: reading frames off a bufferevent, refusing
 * oversize and badly signed ones, answering malformed envelopes with rc 1001,
 * and handing good envelopes to the owner's callback. It decides nothing about
 * what a message means. Callbacks may free the conn (drv_conn_free) from
 * inside; `busy` defers the real free until the libevent callback that runs
 * them has returned.
 *
 * Daemon links (MACed frames) are bound to their connection: the side that
 * dials sends conn.hello with a random nonce, the other answers with its
 * own, and from then on each frame's MAC also covers the receiver's nonce
 * and the frame's sequence number on the link. A frame replayed on the same
 * link, or captured on one link and sent on another, fails its MAC, and the
 * link is closed. Frames the owner sends before the peer's nonce is known
 * wait in `held`. Client frames (no MAC) are not touched by any of this. */
#include "common/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <sodium.h>

#include "common/log.h"
#include "common/proto.h"

#define LINK_NONCE_LEN 32
#define LINK_CTX_LEN (LINK_NONCE_LEN + 8)

struct drv_conn {
	struct bufferevent *bev;
	struct drv_keyring *keys; /* borrowed; NULL: no key, no MACs */
	bool has_key;
	uint64_t max;
	drv_conn_msg_f on_msg;
	drv_conn_close_f on_close;
	void *arg;
	char peer[80];
	int busy;     /* > 0 while one of our libevent callbacks runs */
	bool dead;    /* freed or closed: destroy when busy drops to 0 */
	bool closing; /* sending a last reply, then closing */
	/* the daemon link's binding (see the top of the file) */
	bool hello_sent, have_peer_nonce;
	unsigned char my_nonce[LINK_NONCE_LEN], peer_nonce[LINK_NONCE_LEN];
	uint64_t sent_seq, recv_seq;
	json_t *held; /* MACed envelopes waiting for the peer's nonce */
};

static void read_cb(struct bufferevent *bev, void *arg);
static void event_cb(struct bufferevent *bev, short what, void *arg);

static void conn_destroy(struct drv_conn *c)
{
	if (c->bev)
		bufferevent_free(c->bev);
	json_decref(c->held);
	free(c);
}

void drv_conn_free(struct drv_conn *c)
{
	if (!c || c->dead)
		return;
	c->dead = true;
	if (c->busy == 0)
		conn_destroy(c);
}

/* The connection ended: tell the owner once, then let it go. Only called
 * from inside our callbacks (busy > 0), so the free happens on the way out. */
static void conn_close(struct drv_conn *c)
{
	if (c->dead)
		return;
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	if (c->on_close)
		c->on_close(c, c->arg);
	c->dead = true;
}

static void conn_leave(struct drv_conn *c)
{
	if (--c->busy == 0 && c->dead)
		conn_destroy(c);
}

const char *drv_conn_peer(const struct drv_conn *c)
{
	return c->peer;
}

void drv_conn_set_arg(struct drv_conn *c, void *arg)
{
	c->arg = arg;
}

void *drv_conn_get_arg(const struct drv_conn *c)
{
	return c->arg;
}

int drv_conn_set_timeout(struct drv_conn *c, int seconds)
{
	struct timeval tv = {.tv_sec = seconds};
	return bufferevent_set_timeouts(c->bev, seconds > 0 ? &tv : NULL, NULL) < 0
		   ? -EINVAL
		   : 0;
}

static void frame_free_cb(const void *data, size_t len, void *extra)
{
	free((void *)data);
}

int drv_conn_send_text(struct drv_conn *c, const char *json, size_t len)
{
	if (c->dead || c->closing)
		return -EPIPE;
	if (len > DRV_FRAME_LEN_MASK)
		return -EMSGSIZE;
	unsigned char hdr[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16),
				(unsigned char)(len >> 8), (unsigned char)len};
	struct evbuffer *out = bufferevent_get_output(c->bev);
	if (evbuffer_add(out, hdr, 4) < 0 || evbuffer_add(out, json, len) < 0)
		return -ENOMEM;
	return 0;
}

/* What a link frame's MAC covers besides the frame: the receiver's nonce
 * and the frame's number on the link. */
static void link_ctx(const unsigned char nonce[LINK_NONCE_LEN], uint64_t seq,
		     unsigned char ctx[LINK_CTX_LEN])
{
	memcpy(ctx, nonce, LINK_NONCE_LEN);
	for (int i = 0; i < 8; i++)
		ctx[LINK_NONCE_LEN + i] = (unsigned char)(seq >> (56 - 8 * i));
}

static int queue_frame(struct drv_conn *c, char *frame, size_t len)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	if (evbuffer_add_reference(out, frame, len, frame_free_cb, NULL) < 0) {
		free(frame);
		return -ENOMEM;
	}
	return 0;
}

/* conn.hello, MACed with the key alone: it carries our nonce. */
static int send_hello(struct drv_conn *c)
{
	char hex[2 * LINK_NONCE_LEN + 1], *frame;
	size_t len;
	sodium_bin2hex(hex, sizeof(hex), c->my_nonce, LINK_NONCE_LEN);
	json_t *env = drv_request_new("conn.hello", 0, json_pack("{s:s}", "nonce", hex));
	int rc =
	    env ? drv_frame_build(env, &c->keys->cur, DRV_FRAME_LEN_MASK, &frame, &len)
		: -ENOMEM;
	json_decref(env);
	if (rc == 0)
		rc = queue_frame(c, frame, len);
	c->hello_sent = rc == 0;
	return rc;
}

static int conn_send(struct drv_conn *c, json_t *env, bool mac)
{
	char *frame;
	size_t len;
	if (mac && !c->has_key)
		return -EINVAL;
	if (mac && !c->have_peer_nonce) {
		if (!c->held && !(c->held = json_array()))
			return -ENOMEM;
		return json_array_append(c->held, env) < 0 ? -ENOMEM : 0;
	}
	unsigned char ctx[LINK_CTX_LEN];
	if (mac)
		link_ctx(c->peer_nonce, ++c->sent_seq, ctx);
	/* MaxMessageSize bounds what a daemon accepts; what it sends (a listing of
	 * many jobs) is bounded only by the frame format. */
	int rc = drv_frame_build_bound(env, mac ? &c->keys->cur : NULL, ctx,
				       mac ? sizeof(ctx) : 0, DRV_FRAME_LEN_MASK, &frame,
				       &len);
	if (rc < 0)
		return rc;
	return queue_frame(c, frame, len);
}

int drv_conn_send(struct drv_conn *c, json_t *env, bool mac)
{
	if (c->dead || c->closing)
		return -EPIPE;
	return conn_send(c, env, mac);
}

static void closing_write_cb(struct bufferevent *bev, void *arg)
{
	struct drv_conn *c = arg;
	if (evbuffer_get_length(bufferevent_get_output(bev)) > 0)
		return;
	c->busy++;
	conn_close(c);
	conn_leave(c);
}

void drv_conn_close_after_flush(struct drv_conn *c)
{
	if (c->dead || c->closing)
		return;
	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setcb(c->bev, NULL, closing_write_cb, event_cb, c);
	bufferevent_enable(c->bev, EV_WRITE);
	bufferevent_trigger(c->bev, EV_WRITE,
			    BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
}

static void send_error(struct drv_conn *c, int64_t id, const char *text, bool mac)
{
	json_t *r = drv_reply_new(id, DRV_RC_PROTOCOL, text, NULL);
	if (r && conn_send(c, r, mac && c->has_key) < 0)
		log_debug("cannot send error reply to %s", c->peer);
	json_decref(r);
}

/* What can be saved from a message that failed its checks: its id, so the
 * error reply can name it, and whether it was itself a reply (never answer
 * a reply, or two peers could bounce errors forever). */
static void salvage(const char *json, size_t len, int64_t *id, bool *is_reply)
{
	*id = 0;
	*is_reply = false;
	json_t *e = json_loadb(json, len, 0, NULL);
	if (!json_is_object(e)) {
		json_decref(e);
		return;
	}
	json_t *jid = json_object_get(e, "id");
	if (json_is_integer(jid) && json_integer_value(jid) >= 0)
		*id = json_integer_value(jid);
	const char *type = json_string_value(json_object_get(e, "type"));
	*is_reply = type && strcmp(type, "reply") == 0;
	json_decref(e);
}

static void handle_json(struct drv_conn *c, const char *json, size_t len, bool mac_ok)
{
	json_t *env;
	struct drv_error err;
	if (drv_envelope_parse(json, len, &env, &err) < 0) {
		int64_t id;
		bool is_reply;
		salvage(json, len, &id, &is_reply);
		drv_log_warn_limited(c->peer, "malformed message from %s: %s", c->peer,
				     err.text);
		if (!is_reply)
			send_error(c, id, err.text, mac_ok);
		return;
	}
	if (c->on_msg)
		c->on_msg(c, env, mac_ok, c->arg);
	json_decref(env);
}

/* The peer's conn.hello: its nonce binds what we send from now on; answer
 * with ours unless we spoke first, then send what was held. false: not a
 * well-formed hello (the link is closed). */
static bool take_hello(struct drv_conn *c, const char *json, size_t len)
{
	json_t *env;
	struct drv_error err;
	if (drv_envelope_parse(json, len, &env, &err) < 0)
		return false;
	const char *type = json_string_value(json_object_get(env, "type"));
	const char *hex =
	    json_string_value(json_object_get(json_object_get(env, "body"), "nonce"));
	size_t n = 0;
	bool ok = type && !strcmp(type, "conn.hello") && hex &&
		  sodium_hex2bin(c->peer_nonce, LINK_NONCE_LEN, hex, strlen(hex), NULL,
				 &n, NULL) == 0 &&
		  n == LINK_NONCE_LEN;
	json_decref(env);
	if (!ok)
		return false;
	c->have_peer_nonce = true;
	if (!c->hello_sent && send_hello(c) < 0)
		return false;
	json_t *held = c->held, *e;
	size_t i;
	c->held = NULL;
	json_array_foreach(held, i, e)
	{
		if (conn_send(c, e, true) < 0)
			log_debug("cannot send a held frame to %s", c->peer);
	}
	json_decref(held);
	return true;
}

/* Whether the frame's MAC (over ctx, may be empty, then the frame) holds
 * under a key the ring accepts now. On a failure the key file is looked at
 * once: a peer that noticed a rotated key first already signs with it. */
static bool frame_mac_ok(struct drv_conn *c, const unsigned char *ctx, size_t ctx_len,
			 const unsigned char *frame, size_t total)
{
	for (int look = 0; look < 2; look++) {
		int64_t now = (int64_t)time(NULL);
		const struct drv_key *k[2];
		size_t n = drv_keyring_verifiers(c->keys, now, k);
		for (size_t i = 0; i < n; i++)
			if (drv_frame_verify_mac_bound(k[i], ctx, ctx_len, frame,
						       total) == 0)
				return true;
		if (look == 0 && drv_keyring_poll(c->keys, now, true) <= 0)
			return false;
	}
	return false;
}

/* A MACed frame: the hello first, then frames bound to this link. */
static bool check_link_frame(struct drv_conn *c, const unsigned char *frame, size_t total,
			     size_t jlen)
{
	if (!c->have_peer_nonce) {
		if (frame_mac_ok(c, NULL, 0, frame, total) &&
		    take_hello(c, (const char *)frame + 4, jlen))
			return false; /* consumed: nothing for the owner */
		drv_log_warn_limited(
		    c->peer, "bad HMAC from %s (no valid conn.hello first)", c->peer);
		conn_close(c);
		return false;
	}
	unsigned char ctx[LINK_CTX_LEN];
	link_ctx(c->my_nonce, c->recv_seq + 1, ctx);
	if (!frame_mac_ok(c, ctx, sizeof(ctx), frame, total)) {
		drv_log_warn_limited(c->peer, "bad HMAC from %s (or a replayed frame)",
				     c->peer);
		conn_close(c);
		return false;
	}
	c->recv_seq++;
	return true;
}

/* Handles one whole frame if the input holds one. Returns true to go on. */
static bool read_frame(struct drv_conn *c, struct evbuffer *in)
{
	size_t avail = evbuffer_get_length(in), jlen;
	unsigned char hdr[4];
	bool has_mac;
	struct drv_error err;
	if (avail < 4)
		return false;
	evbuffer_copyout(in, hdr, 4);
	if (drv_frame_header(hdr, c->max, &jlen, &has_mac, &err) < 0) {
		drv_log_warn_limited(c->peer, "refused frame from %s: %s", c->peer,
				     err.text);
		send_error(c, 0, err.text, (hdr[0] & 0x80) != 0);
		drv_conn_close_after_flush(c);
		return false;
	}
	if (has_mac && !c->has_key) {
		drv_log_warn_limited(c->peer,
				     "bad HMAC from %s (a signed frame, but no key here)",
				     c->peer);
		conn_close(c);
		return false;
	}
	size_t total = 4 + jlen + (has_mac ? DRV_MAC_LEN : 0);
	if (avail < total)
		return false;
	unsigned char *frame = evbuffer_pullup(in, (ev_ssize_t)total);
	if (!frame) {
		conn_close(c);
		return false;
	}
	if (!has_mac || check_link_frame(c, frame, total, jlen))
		handle_json(c, (const char *)frame + 4, jlen, has_mac);
	if (c->dead)
		return false;
	evbuffer_drain(in, total);
	return true;
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct drv_conn *c = arg;
	c->busy++;
	while (!c->dead && !c->closing && read_frame(c, bufferevent_get_input(bev)))
		;
	conn_leave(c);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct drv_conn *c = arg;
	c->busy++;
	if (what & BEV_EVENT_CONNECTED) {
		log_debug("connected to %s", c->peer);
	} else if (what & BEV_EVENT_EOF) {
		size_t left = evbuffer_get_length(bufferevent_get_input(bev));
		if (left > 0)
			log_debug("%s closed in the middle of a frame (%zu bytes)",
				  c->peer, left);
		conn_close(c);
	} else if (what & BEV_EVENT_TIMEOUT) {
		log_debug("%s timed out", c->peer);
		conn_close(c);
	} else if (what & BEV_EVENT_ERROR) {
		int e = EVUTIL_SOCKET_ERROR();
		log_debug("connection to %s failed: %s", c->peer,
			  evutil_socket_error_to_string(e));
		conn_close(c);
	}
	conn_leave(c);
}

static void format_peer(const struct sockaddr *sa, char *out, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(out, size, "%s:%d", host, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(out, size, "[%s]:%d", host, ntohs(in6->sin6_port));
	} else if (sa->sa_family == AF_UNIX) {
		snprintf(out, size, "local");
	} else {
		snprintf(out, size, "unknown");
	}
}

static struct drv_conn *conn_alloc(struct bufferevent *bev, struct drv_keyring *keys,
				   uint64_t max, drv_conn_msg_f on_msg,
				   drv_conn_close_f on_close, void *arg)
{
	struct drv_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->bev = bev;
	c->keys = keys;
	c->has_key = keys != NULL;
	c->max = max;
	c->on_msg = on_msg;
	c->on_close = on_close;
	c->arg = arg;
	randombytes_buf(c->my_nonce, sizeof(c->my_nonce));
	bufferevent_setcb(bev, read_cb, NULL, event_cb, c);
	return c;
}

struct drv_conn *drv_conn_new(struct event_base *base, int fd, struct drv_keyring *keys,
			      uint64_t max_msg, drv_conn_msg_f on_msg,
			      drv_conn_close_f on_close, void *arg)
{
	evutil_make_socket_nonblocking(fd);
	evutil_make_socket_closeonexec(fd);
	struct bufferevent *bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	struct drv_conn *c = conn_alloc(bev, keys, max_msg, on_msg, on_close, arg);
	if (!c) {
		bufferevent_free(bev);
		errno = ENOMEM;
		return NULL;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		format_peer((struct sockaddr *)&ss, c->peer, sizeof(c->peer));
	else
		snprintf(c->peer, sizeof(c->peer), "unknown");
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	return c;
}

struct drv_conn *drv_conn_connect(struct event_base *base, const char *host, int port,
				  struct drv_keyring *keys, uint64_t max_msg,
				  drv_conn_msg_f on_msg, drv_conn_close_f on_close,
				  void *arg)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	struct addrinfo *ai;
	char portstr[16];
	snprintf(portstr, sizeof(portstr), "%d", port);
	if (getaddrinfo(host, portstr, &hints, &ai) != 0) {
		errno = EHOSTUNREACH;
		return NULL;
	}
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct drv_conn *c =
	    bev ? conn_alloc(bev, keys, max_msg, on_msg, on_close, arg) : NULL;
	if (!c) {
		if (bev)
			bufferevent_free(bev);
		freeaddrinfo(ai);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(c->peer, sizeof(c->peer), "%s:%d", host, port);
	int rc = bufferevent_socket_connect(bev, ai->ai_addr, (int)ai->ai_addrlen);
	freeaddrinfo(ai);
	if (rc == 0 && c->has_key)
		rc = send_hello(c); /* we dialled: we speak first */
	if (rc < 0) {
		int e = errno ? errno : ECONNREFUSED;
		conn_destroy(c);
		errno = e;
		return NULL;
	}
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	return c;
}

/* --- listeners -------------------------------------------------------
 * libevent's listener keeps one callback argument, and ours needs two
 * (on_accept and its arg); the pair lives in a small list so that
 * drv_listener_free can find and free it. Daemons are single-threaded. */

struct listen_ctx {
	struct listen_ctx *next;
	struct evconnlistener *lev;
	drv_accept_f on_accept;
	void *arg;
};

static struct listen_ctx *listeners;

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
		      int socklen, void *arg)
{
	struct listen_ctx *l = arg;
	char peer[80];
	format_peer(sa, peer, sizeof(peer));
	l->on_accept(fd, peer, l->arg);
}

static int resolve_bind(const char *addr, int port, struct addrinfo **ai,
			struct drv_error *err)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	char portstr[16];
	snprintf(portstr, sizeof(portstr), "%d", port);
	if (addr && (!*addr || strcmp(addr, "*") == 0))
		addr = NULL;
	if (!addr)
		hints.ai_family = AF_INET;
	int rc = getaddrinfo(addr, portstr, &hints, ai);
	if (rc != 0)
		return drv_error_set(err, EADDRNOTAVAIL, "cannot resolve %s: %s",
				     addr ? addr : "*", gai_strerror(rc));
	return 0;
}

struct evconnlistener *drv_listen_tcp(struct event_base *base, const char *addr, int port,
				      drv_accept_f on_accept, void *arg, int *bound_port,
				      struct drv_error *err)
{
	struct addrinfo *ai;
	if (resolve_bind(addr, port, &ai, err) < 0)
		return NULL;
	struct listen_ctx *l = calloc(1, sizeof(*l));
	if (!l) {
		freeaddrinfo(ai);
		drv_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	unsigned flags =
	    LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC;
	l->lev = evconnlistener_new_bind(base, accept_cb, l, flags, 128, ai->ai_addr,
					 (int)ai->ai_addrlen);
	freeaddrinfo(ai);
	if (!l->lev) {
		int e = errno;
		free(l);
		drv_error_set(err, e, "cannot listen on %s:%d: %s", addr ? addr : "*",
			      port, strerror(e));
		errno = e;
		return NULL;
	}
	l->on_accept = on_accept;
	l->arg = arg;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int port_out = port;
	if (getsockname(evconnlistener_get_fd(l->lev), (struct sockaddr *)&ss, &sl) == 0)
		port_out = ss.ss_family == AF_INET6
			       ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
			       : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (bound_port)
		*bound_port = port_out;
	l->next = listeners;
	listeners = l;
	return l->lev;
}

void drv_listener_free(struct evconnlistener *lev)
{
	if (!lev)
		return;
	for (struct listen_ctx **pp = &listeners; *pp; pp = &(*pp)->next) {
		if ((*pp)->lev == lev) {
			struct listen_ctx *l = *pp;
			*pp = l->next;
			free(l);
			break;
		}
	}
	evconnlistener_free(lev);
}
