/* test_net.c — drv_conn on a real libevent loop: good frames, malformed
 * ones, oversize ones, bad MACs, truncation, and a TCP listener. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "common/log.h"
#include <sodium.h>

#include "common/net.h"
#include "common/proto.h"

#define MAX 4096

static struct drv_key key_a = {{7, 7, 7}};
static struct drv_key key_b = {{8, 8, 8}};
static struct drv_keyring ring_a = {.cur = {{7, 7, 7}}}; /* key_a, for conns */

struct fixture {
	struct event_base *base;
	struct drv_conn *conn; /* the side under test */
	int peer;	       /* the raw other end */
	int n_msgs;
	bool last_mac_ok;
	char last_type[32];
	bool closed;
};

static void on_msg(struct drv_conn *c, json_t *env, bool mac_ok, void *arg)
{
	struct fixture *f = arg;
	f->n_msgs++;
	f->last_mac_ok = mac_ok;
	snprintf(f->last_type, sizeof(f->last_type), "%s",
		 json_string_value(json_object_get(env, "type")));
	if (strcmp(f->last_type, "ctld.ping") == 0) {
		json_t *r = drv_reply_new(json_integer_value(json_object_get(env, "id")),
					  0, NULL, json_pack("{s:s}", "host", "h"));
		assert_int_equal(drv_conn_send(c, r, mac_ok), 0);
		json_decref(r);
	}
}

static void on_close(struct drv_conn *c, void *arg)
{
	struct fixture *f = arg;
	f->closed = true;
	f->conn = NULL;
}

static int setup(void **state)
{
	static struct fixture f;
	int sv[2];
	memset(&f, 0, sizeof(f));
	f.base = event_base_new();
	if (!f.base || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	f.conn = drv_conn_new(f.base, sv[0], &ring_a, MAX, on_msg, on_close, &f);
	f.peer = sv[1];
	*state = &f;
	return f.conn ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	drv_conn_free(f->conn);
	close(f->peer);
	event_base_free(f->base);
	return 0;
}

/* Runs the loop until pred(f) or 3 s pass. */
static bool pump(struct fixture *f, bool (*pred)(struct fixture *))
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		event_base_loop(f->base, EVLOOP_NONBLOCK);
		if (pred(f))
			return true;
		struct pollfd p = {.fd = f->peer, .events = POLLIN};
		poll(&p, 1, 5);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 3);
	return false;
}

static bool peer_readable(struct fixture *f)
{
	struct pollfd p = {.fd = f->peer, .events = POLLIN};
	return poll(&p, 1, 0) == 1;
}

static bool is_closed(struct fixture *f)
{
	return f->closed;
}

static void send_raw(struct fixture *f, const void *buf, size_t len)
{
	assert_int_equal(write(f->peer, buf, len), (ssize_t)len);
}

static void send_json(struct fixture *f, const char *json, const struct drv_key *key)
{
	json_error_t jerr;
	json_t *env = json_loads(json, 0, &jerr);
	char *frame;
	size_t len;
	if (env) {
		assert_int_equal(drv_frame_build(env, key, MAX, &frame, &len), 0);
		json_decref(env);
	} else { /* not JSON at all: frame the bytes by hand */
		len = 4 + strlen(json);
		frame = malloc(len);
		uint32_t n = htonl((uint32_t)strlen(json));
		memcpy(frame, &n, 4);
		memcpy(frame + 4, json, strlen(json));
	}
	send_raw(f, frame, len);
	free(frame);
}

/* Reads one frame from the raw end; returns the envelope (or NULL at EOF). */
static json_t *recv_env(struct fixture *f, bool *has_mac)
{
	if (!pump(f, peer_readable))
		fail_msg("no reply");
	unsigned char hdr[4];
	ssize_t n = read(f->peer, hdr, 4);
	if (n == 0)
		return NULL;
	assert_int_equal(n, 4);
	size_t len;
	struct drv_error err;
	assert_int_equal(drv_frame_header(hdr, MAX, &len, has_mac, &err), 0);
	char buf[MAX + DRV_MAC_LEN];
	size_t want = len + (*has_mac ? DRV_MAC_LEN : 0), got = 0;
	while (got < want) {
		pump(f, peer_readable);
		n = read(f->peer, buf + got, want - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	json_t *env;
	assert_int_equal(drv_envelope_parse(buf, len, &env, &err), 0);
	return env;
}

static void expect_error_reply(struct fixture *f, int64_t id, const char *want)
{
	bool has_mac;
	json_t *r = recv_env(f, &has_mac);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), id);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), DRV_RC_PROTOCOL);
	const char *e = json_string_value(json_object_get(r, "error"));
	if (!e || !strstr(e, want))
		fail_msg("error '%s', want '%s'", e ? e : "(none)", want);
	json_decref(r);
}

/* A frame MACed for a link: over the receiver's nonce and seq as well. */
static void send_bound(struct fixture *f, const char *json, const unsigned char nonce[32],
		       uint64_t seq, char **copy, size_t *copy_len)
{
	unsigned char ctx[40];
	memcpy(ctx, nonce, 32);
	for (int i = 0; i < 8; i++)
		ctx[32 + i] = (unsigned char)(seq >> (56 - 8 * i));
	json_t *env = json_loads(json, 0, NULL);
	char *frame;
	size_t len;
	assert_int_equal(
	    drv_frame_build_bound(env, &key_a, ctx, sizeof(ctx), MAX, &frame, &len), 0);
	json_decref(env);
	send_raw(f, frame, len);
	if (copy) {
		*copy = frame;
		*copy_len = len;
	} else {
		free(frame);
	}
}

/* Opens the link as a dialling daemon would: our conn.hello, then the
 * conn's own, whose nonce our frames must be bound to. */
static void handshake(struct fixture *f, unsigned char conn_nonce[32])
{
	int before = f->n_msgs;
	send_json(
	    f,
	    "{\"v\":1,\"type\":\"conn.hello\",\"id\":0,\"body\":{\"nonce\":"
	    "\"0101010101010101010101010101010101010101010101010101010101010101\"}}",
	    &key_a);
	bool has_mac;
	json_t *h = recv_env(f, &has_mac);
	assert_true(has_mac);
	assert_string_equal(json_string_value(json_object_get(h, "type")), "conn.hello");
	const char *hex =
	    json_string_value(json_object_get(json_object_get(h, "body"), "nonce"));
	size_t n = 0;
	assert_int_equal(sodium_hex2bin(conn_nonce, 32, hex, strlen(hex), NULL, &n, NULL),
			 0);
	assert_int_equal(n, 32);
	json_decref(h);
	assert_int_equal(f->n_msgs,
			 before); /* the hello is the link's, not the owner's */
}

static void test_good_frames(void **state)
{
	struct fixture *f = *state;
	bool has_mac;
	send_json(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":5,\"body\":{}}", NULL);
	json_t *r = recv_env(f, &has_mac);
	assert_int_equal(f->n_msgs, 1);
	assert_false(f->last_mac_ok);
	assert_false(has_mac);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 5);
	json_decref(r);
	unsigned char nonce[32];
	handshake(f, nonce);
	send_bound(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":6,\"body\":{}}", nonce, 1,
		   NULL, NULL);
	r = recv_env(f, &has_mac);
	assert_true(f->last_mac_ok);
	assert_true(has_mac);
	json_decref(r);
	send_bound(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":7,\"body\":{}}", nonce, 2,
		   NULL, NULL);
	r = recv_env(f, &has_mac);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 7);
	json_decref(r);
	assert_false(f->closed);
}

/* A daemon frame replayed on its link, or one bound to another link's
 * nonce, fails its MAC: the link is closed and the owner sees nothing. */
static void test_replayed_link_frame_closes(void **state)
{
	struct fixture *f = *state;
	unsigned char nonce[32];
	char *frame;
	size_t len;
	bool has_mac;
	handshake(f, nonce);
	send_bound(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":6,\"body\":{}}", nonce, 1,
		   &frame, &len);
	json_decref(recv_env(f, &has_mac));
	assert_int_equal(f->n_msgs, 1);
	send_raw(f, frame, len); /* the same bytes again */
	free(frame);
	assert_true(pump(f, is_closed));
	assert_int_equal(f->n_msgs, 1);
}

static void test_frame_of_another_link_closes(void **state)
{
	struct fixture *f = *state;
	unsigned char nonce[32], other[32] = {9};
	handshake(f, nonce);
	send_bound(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":6,\"body\":{}}", other, 1,
		   NULL, NULL);
	assert_true(pump(f, is_closed));
	assert_int_equal(f->n_msgs, 0);
}

static void test_malformed_keeps_conn(void **state)
{
	struct fixture *f = *state;
	send_json(f, "this is not json", NULL);
	expect_error_reply(f, 0, "not JSON");
	send_json(f, "{\"v\":1,\"type\":\"job.nope\",\"id\":9,\"body\":{}}", NULL);
	expect_error_reply(f, 9, "undeclared message type 'job.nope'");
	send_json(
	    f,
	    "{\"v\":1,\"type\":\"job.cancel\",\"id\":10,\"body\":{\"job_ids\":[\"x\"]}}",
	    NULL);
	expect_error_reply(f, 10, "job.cancel: field 'job_ids[0]': must be an integer");
	/* a malformed reply is not answered */
	send_json(f, "{\"v\":1,\"type\":\"reply\",\"id\":11}", NULL);
	send_json(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":12,\"body\":{}}", NULL);
	bool has_mac;
	json_t *r = recv_env(f, &has_mac);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 12);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), 0);
	json_decref(r);
	assert_int_equal(f->n_msgs, 1);
	assert_false(f->closed);
}

static void test_oversize_closes(void **state)
{
	struct fixture *f = *state;
	unsigned char hdr[4] = {0, 0, 0x10, 0x01}; /* 4097 > MAX */
	send_raw(f, hdr, 4);
	expect_error_reply(f, 0, "message of 4097 bytes exceeds MaxMessageSize 4096");
	assert_true(pump(f, is_closed));
	bool has_mac;
	assert_null(recv_env(f, &has_mac)); /* EOF */
	assert_int_equal(f->n_msgs, 0);
}

static void test_bad_mac_closes(void **state)
{
	struct fixture *f = *state;
	send_json(f, "{\"v\":1,\"type\":\"ctld.ping\",\"id\":5,\"body\":{}}", &key_b);
	assert_true(pump(f, is_closed));
	assert_int_equal(f->n_msgs, 0);
	bool has_mac;
	assert_null(recv_env(f, &has_mac));
}

static void test_truncated_at_eof(void **state)
{
	struct fixture *f = *state;
	unsigned char part[6] = {0, 0, 0, 40, '{', '"'};
	send_raw(f, part, sizeof(part));
	shutdown(f->peer, SHUT_WR);
	assert_true(pump(f, is_closed));
	assert_int_equal(f->n_msgs, 0);
}

static void test_garbage_never_crashes(void **state)
{
	struct fixture *f = *state;
	unsigned char buf[512];
	srand(42);
	for (int round = 0; round < 50 && !f->closed; round++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)rand();
		buf[0] = 0;
		buf[1] = 0; /* mostly plausible lengths */
		send_raw(f, buf, sizeof(buf));
		event_base_loop(f->base, EVLOOP_NONBLOCK);
		char sink[8192];
		while (peer_readable(f) && read(f->peer, sink, sizeof(sink)) > 0)
			;
	}
}

/* --- TCP: listener + drv_conn_connect, MACed both ways ---------------- */

struct tcp_fixture {
	struct event_base *base;
	struct drv_conn *server, *client;
	bool got_reply, client_closed;
};

static void srv_msg(struct drv_conn *c, json_t *env, bool mac_ok, void *arg)
{
	json_t *r = drv_reply_new(json_integer_value(json_object_get(env, "id")), 0, NULL,
				  json_pack("{s:b}", "mac_ok", mac_ok));
	drv_conn_send(c, r, true);
	json_decref(r);
}

static void srv_close(struct drv_conn *c, void *arg)
{
	struct tcp_fixture *t = arg;
	t->server = NULL;
}

static void cli_msg(struct drv_conn *c, json_t *env, bool mac_ok, void *arg)
{
	struct tcp_fixture *t = arg;
	t->got_reply =
	    mac_ok &&
	    json_is_true(json_object_get(json_object_get(env, "body"), "mac_ok"));
	drv_conn_free(c); /* freeing from inside the callback is allowed */
	t->client = NULL;
}

static void cli_close(struct drv_conn *c, void *arg)
{
	struct tcp_fixture *t = arg;
	t->client_closed = true;
	t->client = NULL;
}

static void on_accept(int fd, const char *peer, void *arg)
{
	struct tcp_fixture *t = arg;
	assert_non_null(strstr(peer, "127.0.0.1:"));
	t->server = drv_conn_new(t->base, fd, &ring_a, MAX, srv_msg, srv_close, t);
}

static void run_until(struct event_base *base, bool *flag)
{
	for (int i = 0; i < 3000 && !*flag; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
}

static void test_tcp(void **state)
{
	struct tcp_fixture t = {.base = event_base_new()};
	struct drv_error err;
	int port = 0;
	struct evconnlistener *lev =
	    drv_listen_tcp(t.base, "127.0.0.1", 0, on_accept, &t, &port, &err);
	assert_non_null(lev);
	assert_true(port > 0);
	t.client = drv_conn_connect(t.base, "127.0.0.1", port, &ring_a, MAX, cli_msg,
				    cli_close, &t);
	assert_non_null(t.client);
	json_t *req = drv_request_new("ctld.ping", 1, NULL);
	assert_int_equal(drv_conn_send(t.client, req, true), 0);
	json_decref(req);
	run_until(t.base, &t.got_reply);
	assert_true(t.got_reply);
	assert_false(t.client_closed); /* freed by us: no close callback */
	drv_listener_free(lev);

	/* nothing listens there now: the close callback reports the failure */
	t.client = drv_conn_connect(t.base, "127.0.0.1", port, &ring_a, MAX, cli_msg,
				    cli_close, &t);
	assert_non_null(t.client);
	run_until(t.base, &t.client_closed);
	assert_true(t.client_closed);
	drv_conn_free(t.server);
	event_base_free(t.base);
}

int main(void)
{
	drv_log_init("test_net", DRV_LOG_ERROR);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_good_frames, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_keeps_conn, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_oversize_closes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_mac_closes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replayed_link_frame_closes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_frame_of_another_link_closes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_truncated_at_eof, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_garbage_never_crashes, setup, teardown),
	    cmocka_unit_test(test_tcp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
