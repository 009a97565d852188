/* client.c — one blocking request and reply, for the client commands.
 *
 * Owns the client's side of principle 4: get a credential from authd bound
 * to the request, send the request to the first ctld that answers, read the
 * reply and have authd vouch for the reply's credential. All I/O is blocking
 * with deadlines (poll on non-blocking sockets); no event loop, no logging —
 * the command prints err once. */
#include "common/client.h"

/* The largest reply a command reads (a listing of a million jobs fits). */
#define DRV_MAX_REPLY (512ULL << 20)

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/auth.h"
#include "common/auth_munge.h"
#include "common/proto.h"
#include "common/proto_gen.h"

#define CONNECT_TIMEOUT_MS 5000
#define REPLY_TIMEOUT_MS 30000
#define AUTHD_TIMEOUT_MS 10000
#define AUTHD_MAX_MSG 65536

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until deadline (CLOCK_MONOTONIC ms). 0 or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd pfd = {.fd = fd, .events = events};
		int n = poll(&pfd, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int rc = wait_fd(fd, POLLOUT, deadline);
			if (rc < 0)
				return rc;
		} else {
			return n < 0 ? -errno : -EPIPE;
		}
	}
	return 0;
}

static int recv_all(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;
	while (len > 0) {
		ssize_t n = recv(fd, p, len, 0);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n == 0) {
			return -ECONNRESET;
		} else if (errno == EAGAIN || errno == EINTR) {
			int rc = wait_fd(fd, POLLIN, deadline);
			if (rc < 0)
				return rc;
		} else {
			return -errno;
		}
	}
	return 0;
}

/* ctld writes listings in canonical form (keys sorted, so "body" first)
 * with the credential appended as the last member, after exactly the bytes
 * it hashed (rpc_reply_text in ctld). When a reply looks that way, its
 * digest is the hash of those bytes, and the tree need not be dumped again
 * to find it: the credential binds that hash, and the parser refused
 * duplicate keys, so the prefix is the whole reply but the credential.
 * hex is "" otherwise (the canonical dump then decides; it also decides
 * when the fast digest is not the one the credential names). */
static void raw_reply_digest(const char *text, size_t len, json_t *cred, char hex[65])
{
	static const char key[] = ",\"cred\":";
	char *c = cred ? json_dumps(cred, JSON_COMPACT) : NULL;
	size_t klen = sizeof(key) - 1, clen = c ? strlen(c) : 0, slen = klen + clen + 1;

	hex[0] = '\0';
	if (c && len > slen && !strncmp(text, "{\"body\":", 8) && text[len - 1] == '}' &&
	    !memcmp(text + len - slen, key, klen) &&
	    !memcmp(text + len - slen + klen, c, clen)) {
		unsigned char h[crypto_hash_sha256_BYTES];
		crypto_hash_sha256_state st;
		crypto_hash_sha256_init(&st);
		crypto_hash_sha256_update(&st, (const unsigned char *)text, len - slen);
		crypto_hash_sha256_update(&st, (const unsigned char *)"}", 1);
		crypto_hash_sha256_final(&st, h);
		sodium_bin2hex(hex, 65, h, sizeof(h));
	}
	free(c);
}

/* Reads one unsigned frame and parses its envelope (new reference) into
 * *env and *e (borrowing from *env); raw_digest as raw_reply_digest() finds
 * it. */
static int read_reply(int fd, uint64_t max, int64_t deadline, json_t **env,
		      struct drv_rec_envelope *e, char raw_digest[65],
		      struct drv_error *err)
{
	unsigned char hdr[4];
	size_t len;
	bool has_mac;
	int rc = recv_all(fd, hdr, 4, deadline);
	if (rc < 0)
		return drv_error_set(err, -rc, "no reply: %s", strerror(-rc));
	rc = drv_frame_header(hdr, max, &len, &has_mac, err);
	if (rc < 0)
		return rc;
	if (has_mac)
		return drv_error_set(err, EPROTO,
				     "reply is signed with the cluster key, "
				     "which a client cannot check");
	char *json = malloc(len ? len : 1);
	if (!json)
		return drv_error_set(err, ENOMEM, "out of memory");
	rc = recv_all(fd, json, len, deadline);
	if (rc < 0) {
		free(json);
		return drv_error_set(err, -rc, "truncated reply: %s", strerror(-rc));
	}
	rc = drv_envelope_parse(json, len, env, err);
	if (rc == 0 && drv_rec_envelope_decode(*env, e, err) < 0) {
		json_decref(*env);
		rc = -EPROTO;
	}
	if (rc == 0)
		raw_reply_digest(json, len, e->cred, raw_digest);
	free(json);
	return rc;
}

/* Sends request (its id is id) and reads the reply with the same id, as
 * read_reply() does. 0 or -errno. */
static int exchange(int fd, json_t *req, int64_t id, uint64_t max, int timeout_ms,
		    json_t **reply, struct drv_rec_envelope *e, char raw_digest[65],
		    struct drv_error *err)
{
	char *frame;
	size_t len;
	int64_t deadline = now_ms() + timeout_ms;
	int rc = drv_frame_build(req, NULL, max, &frame, &len);
	if (rc < 0)
		return drv_error_set(err, -rc, "request too large (MaxMessageSize %llu)",
				     (unsigned long long)max);
	rc = send_all(fd, frame, len, deadline);
	free(frame);
	if (rc < 0)
		return drv_error_set(err, -rc, "cannot send request: %s", strerror(-rc));
	json_t *env;
	/* Listings may be larger than any request: allow replies a generous bound. */
	rc = read_reply(fd, max > DRV_MAX_REPLY ? max : DRV_MAX_REPLY, deadline, &env, e,
			raw_digest, err);
	if (rc < 0)
		return rc;
	if (strcmp(e->type, "reply") != 0 || e->id != id) {
		json_decref(env);
		return drv_error_set(err, EPROTO,
				     "unexpected message instead of a reply");
	}
	*reply = env;
	return 0;
}

static int64_t new_id(void)
{
	return (int64_t)randombytes_uniform(INT32_MAX) + 1;
}

/* --- authd ----------------------------------------------------------- */

static int authd_connect(const char *path, struct drv_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return drv_error_set(err, ENAMETOOLONG,
				     "Unable to contact authd at %s: %s", path,
				     strerror(ENAMETOOLONG));
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return drv_error_set(err, e, "Unable to contact authd at %s: %s", path,
				     strerror(e));
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* One request to authd (body stolen); returns the reply envelope, read
 * into *e, or NULL with *rc. */
static json_t *authd_call(const char *path, const char *type, json_t *body,
			  struct drv_rec_envelope *e, int *rc, struct drv_error *err)
{
	if (sodium_init() < 0) {
		json_decref(body);
		*rc = drv_error_set(err, EIO, "libsodium failed to initialise");
		return NULL;
	}
	int fd = authd_connect(path, err);
	if (fd < 0) {
		json_decref(body);
		*rc = fd;
		return NULL;
	}
	int64_t id = new_id();
	json_t *req = drv_request_new(type, id, body);
	json_t *reply = NULL;
	char unused[65];
	*rc = exchange(fd, req, id, AUTHD_MAX_MSG, AUTHD_TIMEOUT_MS, &reply, e, unused,
		       err);
	if (*rc < 0) {
		char why[sizeof(err->text)];
		snprintf(why, sizeof(why), "%s", err ? err->text : "");
		drv_error_set(err, -*rc, "authd at %s: %s", path, why);
	}
	json_decref(req);
	close(fd);
	return reply;
}

static const char *reply_error(const struct drv_rec_envelope *e)
{
	return e->error ? e->error : drv_rc_text(e->rc);
}

json_t *drv_authd_sign(const char *socket_path, const char *digest, struct drv_error *err)
{
	int rc;
	struct drv_rec_envelope e;
	struct drv_auth_sign req = {.digest = digest};
	struct drv_auth_sign_reply r;
	struct drv_error derr = {{0}};
	json_t *reply = authd_call(socket_path, "auth.sign", drv_auth_sign_encode(&req),
				   &e, &rc, err);
	if (!reply) {
		errno = -rc;
		return NULL;
	}
	json_t *cred = NULL;
	if (e.rc != 0) {
		drv_error_set(err, EPERM, "authd refused to sign: %s", reply_error(&e));
		errno = EPERM;
	} else if (drv_auth_sign_reply_decode(e.body, &r, &derr) == 0 &&
		   json_is_object(r.cred)) {
		cred = json_incref(r.cred);
	} else {
		drv_error_set(err, EPROTO, "authd replied without a credential");
		errno = EPROTO;
	}
	json_decref(reply);
	return cred;
}

int drv_authd_verify(const char *socket_path, json_t *cred, const char *digest,
		     uid_t *issued_to, struct drv_error *err)
{
	int rc;
	struct drv_rec_envelope e;
	struct drv_auth_verify req = {.cred = cred, .digest = digest};
	struct drv_auth_verify_reply r;
	struct drv_error derr = {{0}};
	json_t *body = cred ? drv_auth_verify_encode(&req) : NULL;
	if (!body)
		return drv_error_set(err, EINVAL, "malformed credential");
	json_t *reply = authd_call(socket_path, "auth.verify", body, &e, &rc, err);
	if (!reply)
		return rc;
	rc = 0;
	if (e.rc == DRV_RC_AUTH)
		rc = drv_error_set(err, EPERM, "%s", reply_error(&e));
	else if (e.rc != 0)
		rc = drv_error_set(err, EPROTO, "authd: %s", reply_error(&e));
	else if (drv_auth_verify_reply_decode(e.body, &r, &derr) < 0)
		rc = drv_error_set(err, EPROTO, "authd vouched without naming a uid");
	else if (issued_to)
		*issued_to = (uid_t)r.uid;
	json_decref(reply);
	return rc;
}

/* --- ctld ------------------------------------------------------------ */

/* Connects to host:port within CONNECT_TIMEOUT_MS; fd or -errno. */
static int tcp_connect(const char *host, int port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	struct addrinfo *res;
	char portstr[16];
	snprintf(portstr, sizeof(portstr), "%d", port);
	if (getaddrinfo(host, portstr, &hints, &res) != 0)
		return -EHOSTUNREACH;
	int rc = -ECONNREFUSED;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int fd =
		    socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
		    errno != EINPROGRESS) {
			close(fd);
			continue;
		}
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (wait_fd(fd, POLLOUT, now_ms() + CONNECT_TIMEOUT_MS) == 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 &&
		    soerr == 0) {
			rc = fd;
			break;
		}
		close(fd);
	}
	freeaddrinfo(res);
	return rc;
}

int drv_tcp_dial(const char *host, int port)
{
	int fd = tcp_connect(host, port);
	if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static int ctld_connect(const struct drv_conf *conf, struct drv_error *err)
{
	for (size_t i = 0; i < conf->n_ctld_hosts; i++) {
		const struct drv_ctld_host *h = &conf->ctld_hosts[i];
		int fd = tcp_connect(h->addr ? h->addr : h->name, conf->ctld_port);
		if (fd >= 0)
			return fd;
	}
	return drv_error_set(err, ECONNREFUSED,
			     "Unable to contact slurm controller (connect failure)");
}

/* The reply must carry a credential authd vouches for, issued to ctld's
 * identity: authd signs for any local user who asks, so a credential proves
 * only who asked for it, and only root or SlurmUser may speak as ctld. An
 * error reply without a credential (a malformed-message answer from the
 * framing layer) is believed only as far as "it failed". */
static int check_reply_cred(const struct drv_conf *conf, json_t *reply,
			    const struct drv_rec_envelope *e, const char *raw_digest,
			    struct drv_error *err)
{
	json_t *cred = e->cred;
	if (!cred) {
		if (e->rc != 0)
			return 0;
		return drv_error_set(err, EPERM,
				     "reply from controller carries no credential");
	}
	char digest[65];
	uid_t issued_to = 0;
	int rc = -EPERM;
	if (drv_auth_munge(conf)) { /* munged vouches for it, decoded once */
		rc = drv_munge_check_reply(conf->auth_socket, reply, raw_digest,
					   &issued_to, err);
		return rc < 0 ? rc : drv_conf_check_ctld_uid(conf, issued_to, err);
	}
	if (raw_digest[0])
		rc = drv_authd_verify(conf->auth_socket, cred, raw_digest, &issued_to,
				      err);
	if (rc == -EPERM) {
		drv_envelope_digest(reply, digest);
		rc = drv_authd_verify(conf->auth_socket, cred, digest, &issued_to, err);
	}
	if (rc == -EPERM) {
		char why[sizeof(err->text)];
		snprintf(why, sizeof(why), "%s", err ? err->text : "");
		return drv_error_set(
		    err, EPERM, "reply from controller failed authentication: %s", why);
	}
	if (rc < 0)
		return rc;
	return drv_conf_check_ctld_uid(conf, issued_to, err);
}

/* One request and its reply, as drv_client_call() says. */
static int call_once(const struct drv_conf *conf, const char *type, json_t *body,
		     json_t **reply, struct drv_error *err)
{
	char digest[65];
	int64_t id = new_id();
	json_t *req = drv_request_new(type, id, json_incref(body));
	if (!req)
		return drv_error_set(err, EINVAL, "cannot build a %s request", type);
	drv_envelope_digest(req, digest);
	json_t *cred = drv_auth_munge(conf)
			   ? drv_munge_sign(conf->auth_socket, digest, err)
			   : drv_authd_sign(conf->auth_socket, digest, err);
	if (!cred) {
		int e = errno ? errno : EPERM;
		json_decref(req);
		return -e;
	}
	json_object_set_new(
	    req, drv_shape_rec_envelope.fields[DRV_REC_ENVELOPE__CRED].name, cred);
	int fd = ctld_connect(conf, err);
	if (fd < 0) {
		json_decref(req);
		return fd;
	}
	json_t *env = NULL;
	struct drv_rec_envelope e;
	char raw_digest[65] = "";
	int rc = exchange(fd, req, id, conf->max_message_size, REPLY_TIMEOUT_MS, &env, &e,
			  raw_digest, err);
	close(fd);
	json_decref(req);
	if (rc < 0)
		return rc;
	rc = check_reply_cred(conf, env, &e, raw_digest, err);
	if (rc == 0) {
		rc = e.rc;
		json_t *rbody = e.body;
		struct drv_error verr = {{0}};
		if (rc != 0)
			drv_error_set(err, rc, "%s", reply_error(&e));
		else if (drv_reply_validate(type, rbody, &verr) < 0)
			rc = drv_error_set(err, EBADMSG,
					   "malformed reply from controller: %s",
					   verr.text);
		else
			*reply = json_incref(rbody);
	}
	json_decref(env);
	return rc;
}

static void sleep_seconds(unsigned s)
{
	struct timespec ts = {.tv_sec = s};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int drv_client_call(const struct drv_conf *conf, const char *type, json_t *body,
		    json_t **reply, struct drv_error *err)
{
	/* A rate-limited request (SlurmctldParameters=rl_enable) is sent again
	 * after a sleep a second longer each time, quietly, as Slurm's clients
	 * do; each try is a new request with its own credential. Slurm tries
	 * forever; Drover gives up after RL_MAX_RETRIES (55 s of sleep) with
	 * ctld's message, so a script stuck behind a limit ends (compat.md). */
	for (unsigned tries = 0;; tries++) {
		int rc = call_once(conf, type, body, reply, err);
		if (rc != DRV_RC_BACKOFF || tries == DRV_RL_MAX_RETRIES)
			return rc;
		sleep_seconds(tries + 1);
	}
}
