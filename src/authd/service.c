/* service.c — drover-authd's socket: who is calling, and signing or checking
 * credentials for them.
 *
 * The caller's uid/gid come from SO_PEERCRED on the UNIX socket, never from
 * the message: that is the whole point of authd. Its pid, from the same
 * place, names the Drover job it runs in (its /proc/PID/cgroup), which goes
 * into the credentials it is issued. Only auth.sign and
 * auth.verify are served; anything else gets an error reply. Each verified
 * credential's nonce is remembered, so a credential is vouched for once, in
 * the verifying caller's share of the nonce cache (so that no user can fill
 * it for the others). Each uid may hold MaxConnectionsPerUser connections; at
 * MaxConnections the uid holding the most gives up its oldest. */
#include "authd/authd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/listener.h>
#include <event2/util.h>

#include "common/cgroup.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/net.h"
#include "common/proto.h"
#include "common/proto_gen.h"

#define AUTHD_MAX_MSG 65536 /* auth messages are a few hundred bytes */
#define AUTHD_IDLE_S 30

struct authd_session {
	struct authd_session *next, *prev;
	struct authd *a;
	struct drv_conn *conn;
	uid_t uid;
	gid_t gid;
	uint32_t job_id; /* the Drover job the caller runs in, 0: none */
};

static void session_unlink(struct authd_session *s)
{
	s->a->n_sessions--;
	if (s->prev)
		s->prev->next = s->next;
	else
		s->a->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

static json_t *do_sign(struct authd_session *s, int64_t id, const struct drv_auth_sign *m)
{
	json_t *cred =
	    drv_cred_issue_job(&s->a->keys.cur, s->uid, s->gid, s->a->host, m->digest,
			       (int64_t)time(NULL), s->a->policy.lifetime, s->job_id);
	if (!cred)
		return drv_reply_new(id, DRV_RC_ERROR, "cannot issue a credential", NULL);
	log_debug("signed a credential for uid=%u gid=%u job=%u", (unsigned)s->uid,
		  (unsigned)s->gid, (unsigned)s->job_id);
	struct drv_auth_sign_reply r = {.cred = cred};
	json_t *body = drv_auth_sign_reply_encode(&r);
	json_decref(cred);
	return drv_reply_new(id, 0, NULL, body);
}

static json_t *do_verify(struct authd_session *s, int64_t id,
			 const struct drv_auth_verify *m)
{
	struct drv_error err;
	struct drv_cred_info info;
	int64_t now = (int64_t)time(NULL);
	int rc = drv_keyring_check_cred(&s->a->keys, m->cred, m->digest, &s->a->policy,
					now, &info, &err);
	if (rc == 0) {
		rc = drv_nonce_cache_add(s->a->nonces, s->uid, info.nonce,
					 info.valid_until, now);
		if (rc == -EEXIST)
			drv_error_set(&err, EPERM, "credential replayed");
		else if (rc == -EDQUOT)
			drv_error_set(&err, EPERM,
				      "too many credentials verified for uid %u "
				      "(NonceCachePerUser)",
				      (unsigned)s->uid);
		else if (rc < 0)
			drv_error_set(&err, -rc, "cannot remember nonce: %s",
				      strerror(-rc));
	}
	if (rc < 0) {
		char who[32];
		snprintf(who, sizeof(who), "uid %u", (unsigned)s->uid);
		drv_log_warn_limited(who, "refused to verify a credential for uid=%u: %s",
				     (unsigned)s->uid, err.text);
		return drv_reply_new(id, DRV_RC_AUTH, err.text, NULL);
	}
	struct drv_auth_verify_reply r = {
	    .uid = (uint32_t)info.uid, .gid = (uint32_t)info.gid, .host = info.host};
	return drv_reply_new(id, 0, NULL, drv_auth_verify_reply_encode(&r));
}

/* The request's body decoded (it was checked against its declaration when
 * the frame was parsed), and its reply. */
static json_t *serve(struct authd_session *s, const struct drv_rec_envelope *env)
{
	struct drv_error err;
	if (strcmp(env->type, "auth.sign") == 0) {
		struct drv_auth_sign m;
		if (drv_auth_sign_decode(env->body, &m, &err) < 0)
			return drv_reply_new(env->id, DRV_RC_PROTOCOL, err.text, NULL);
		json_t *reply = do_sign(s, env->id, &m);
		drv_auth_sign_free(&m);
		return reply;
	}
	if (strcmp(env->type, "auth.verify") == 0) {
		struct drv_auth_verify m;
		if (drv_auth_verify_decode(env->body, &m, &err) < 0)
			return drv_reply_new(env->id, DRV_RC_PROTOCOL, err.text, NULL);
		json_t *reply = do_verify(s, env->id, &m);
		drv_auth_verify_free(&m);
		return reply;
	}
	return drv_reply_new(env->id, DRV_RC_PROTOCOL,
			     "authd serves only auth.sign and auth.verify", NULL);
}

static void on_msg(struct drv_conn *c, json_t *env_json, bool mac_ok, void *arg)
{
	struct authd_session *s = arg;
	struct drv_rec_envelope env;
	struct drv_error err;
	if (drv_rec_envelope_decode(env_json, &env, &err) < 0)
		return; /* drv_envelope_parse let it through: cannot happen */
	if (strcmp(env.type, "reply") == 0)
		return; /* authd asks nothing, so it awaits no reply */
	json_t *reply = serve(s, &env);
	if (!reply || drv_conn_send(c, reply, false) < 0)
		log_debug("cannot reply to uid=%u", (unsigned)s->uid);
	json_decref(reply);
}

static void on_close(struct drv_conn *c, void *arg)
{
	struct authd_session *s = arg;
	session_unlink(s);
	free(s);
}

static size_t uid_sessions(const struct authd *a, uid_t uid,
			   struct authd_session **oldest)
{
	size_t n = 0;
	for (struct authd_session *s = a->sessions; s; s = s->next)
		if (s->uid == uid) {
			n++;
			*oldest = s;
		}
	return n;
}

static void session_drop(struct authd_session *s)
{
	drv_conn_free(s->conn);
	session_unlink(s);
	free(s);
}

/* Whether uid may open one more session; makes room when the total is full. */
static bool admit(struct authd *a, uid_t uid)
{
	struct authd_session *oldest = NULL, *victim = NULL;
	if (uid_sessions(a, uid, &oldest) >= a->max_sessions_per_uid) {
		char who[32];
		snprintf(who, sizeof(who), "uid %u", (unsigned)uid);
		drv_log_warn_limited(who,
				     "refused a connection from uid %u: "
				     "MaxConnectionsPerUser reached",
				     (unsigned)uid);
		return false;
	}
	if (a->n_sessions < a->max_sessions)
		return true;
	size_t most = 0;
	for (struct authd_session *s = a->sessions; s; s = s->next) {
		size_t n = uid_sessions(a, s->uid, &oldest);
		if (n > most) {
			most = n;
			victim = oldest;
		}
	}
	if (victim)
		session_drop(victim);
	return true;
}

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
		      int socklen, void *arg)
{
	struct authd *a = arg;
	struct ucred uc;
	socklen_t len = sizeof(uc);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0) {
		log_warn("cannot learn the caller's uid (SO_PEERCRED): %s",
			 strerror(errno));
		close(fd);
		return;
	}
	if (!admit(a, uc.uid)) {
		close(fd);
		return;
	}
	struct authd_session *s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return;
	}
	s->a = a;
	s->uid = uc.uid;
	s->gid = uc.gid;
	/* the job the caller runs in, by its cgroup (the anomaly policy's
	 * SecurityViolation counts refusals per job): none when it is in no
	 * Drover job or is gone already */
	if (uc.pid <= 0 || cg_job_of_pid(uc.pid, &s->job_id) < 0)
		s->job_id = 0;
	s->conn = drv_conn_new(a->base, fd, NULL, AUTHD_MAX_MSG, on_msg, on_close, s);
	if (!s->conn) {
		free(s);
		return;
	}
	drv_conn_set_timeout(s->conn, AUTHD_IDLE_S);
	s->next = a->sessions;
	if (s->next)
		s->next->prev = s;
	a->sessions = s;
	a->n_sessions++;
}

/* An existing socket file is stale when nothing accepts on it. */
static int clear_stale(const char *path, struct drv_error *err)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : drv_error_set(err, errno, "cannot stat %s: %s",
						       path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return drv_error_set(err, EEXIST, "%s exists and is not a socket", path);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return drv_error_set(err, errno, "socket: %s", strerror(errno));
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int e = errno;
	close(fd);
	if (rc == 0)
		return drv_error_set(err, EADDRINUSE,
				     "another drover-authd is already listening on %s",
				     path);
	if (e != ECONNREFUSED)
		return drv_error_set(err, e, "cannot probe %s: %s", path, strerror(e));
	log_info("removing stale socket %s", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return drv_error_set(err, errno, "cannot remove %s: %s", path,
				     strerror(errno));
	return 0;
}

static int make_dir_of(const char *path, struct drv_error *err)
{
	char *dir = strdup(path);
	if (!dir)
		return drv_error_set(err, ENOMEM, "out of memory");
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		rc = drv_mkdir_p(dir, 0755);
		if (rc < 0)
			drv_error_set(err, -rc, "cannot create %s: %s", dir,
				      strerror(-rc));
	}
	free(dir);
	return rc;
}

int authd_listen(struct authd *a, const char *path, struct drv_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return drv_error_set(err, ENAMETOOLONG, "socket path %s is too long",
				     path);
	strcpy(sa.sun_path, path);
	int rc = make_dir_of(path, err);
	if (rc == 0)
		rc = clear_stale(path, err);
	if (rc < 0)
		return rc;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return drv_error_set(err, errno, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0666) < 0 ||
	    listen(fd, 128) < 0) {
		int e = errno;
		close(fd);
		return drv_error_set(err, e, "cannot listen on %s: %s", path,
				     strerror(e));
	}
	a->lev = evconnlistener_new(a->base, on_accept, a,
				    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (!a->lev) {
		close(fd);
		unlink(path);
		return drv_error_set(err, ENOMEM, "cannot listen on %s", path);
	}
	a->socket_path = strdup(path);
	return 0;
}

void authd_stop(struct authd *a)
{
	while (a->sessions) {
		struct authd_session *s = a->sessions;
		session_unlink(s);
		drv_conn_free(s->conn);
		free(s);
	}
	if (a->lev)
		evconnlistener_free(a->lev);
	a->lev = NULL;
	if (a->socket_path)
		unlink(a->socket_path);
	free(a->socket_path);
	a->socket_path = NULL;
}
