/* rpc.c — request dispatch: authenticates every inbound message, routes it to
 * its handler by type, and sends replies (immediately for reads, after the
 * commit for writes). Handlers live in rpc_job.c, rpc_node.c, node_link.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/jsonw.h"
#include "common/keyring.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/proto_gen.h"
#include "ctld/cred.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"
#include "ctld/rate_limit.h"
#include "ctld/rpc_handlers.h"
#include "ctld/step.h"

struct handler {
	const char *type;
	void (*fn)(struct rpc_req *r);
	bool daemon_only;
	/* changes state: its credential's nonce is stored with the turn's
	 * commit, so that a replay is refused also after a restart (reads
	 * never wait for a commit, and a replayed read changes nothing) */
	bool writes;
};

/* clang-format off */
static const struct handler handlers[] = {
	{"job.submit", rpc_job_submit, false, true},
	{"job.query", rpc_job_query, false, false},
	{"acct.query", rpc_acct_query, false, false},
	{"assoc.query", rpc_assoc_query, false, false},
	{"assoc.update", rpc_assoc_update, false, true},
	{"prio.query", rpc_prio_query, false, false},
	{"job.top", rpc_job_top, false, true},
	{"job.cancel", rpc_job_cancel, false, true},
	{"job.release", rpc_job_release, false, true},
	{"job.hold", rpc_job_hold, false, true},
	{"job.requeue", rpc_job_requeue, false, true},
	{"job.suspend", rpc_job_suspend, false, true},
	{"job.update", rpc_job_update, false, true},
	{"node.query", rpc_node_query, false, false},
	{"node.update", rpc_node_update, false, true},
	{"part.query", rpc_part_query, false, false},
	{"part.update", rpc_part_update, false, true},
	{"part.delete", rpc_part_delete, false, true},
	{"lic.query", rpc_lic_query, false, false},
	{"ctld.ping", rpc_ctld_ping, false, false},
	{"conf.query", rpc_conf_query, false, false},
	{"ctld.reconfigure", rpc_ctld_reconfigure, false, false},
	{"node.register", link_node_register, true, false},
	{"node.ping", link_node_ping, true, false},
	{"node.drain", link_node_drain, true, false},
	{"job.complete", link_job_complete, true, false},
	{"job.anomaly", link_job_anomaly, true, false},
	{"step.create", rpc_step_create, false, true},
	{"alloc.complete", rpc_alloc_complete, false, true},
	{"step.attach", rpc_step_attach, false, false},
	{"step.complete", link_step_complete, true, false},
	{"job.notify", rpc_job_notify, false, false},
	{"job.script", rpc_job_script, false, false},
	{"stats.query", rpc_stats_query, false, false},
	{"bcast.block", rpc_bcast_block, false, false},
	{"step.stat", rpc_step_stat, false, false},
};
/* clang-format on */

static const struct handler *find_handler(const char *type)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (!strcmp(handlers[i].type, type))
			return &handlers[i];
	return NULL;
}

/* A client request must carry a credential from authd (or munged) that is
 * bound to this very request, unexpired and never seen before. */
static int check_client(struct rpc_req *r, json_t *env, json_t *cred, const char *peer)
{
	struct drv_error err = {{0}};
	char digest[65];
	drv_envelope_digest(env, digest);
	int64_t now = time(NULL);
	if (ctld_cred_check(r->c, cred, digest, now, &r->cred, &err) < 0) {
		drv_log_warn_limited(peer, "refused %s from %s: %s", r->type, peer,
				     err.text);
		return -1;
	}
	int rc = drv_nonce_cache_add(r->c->nonces, r->cred.uid, r->cred.nonce,
				     r->cred.valid_until, now);
	if (rc < 0)
		drv_log_warn_limited(
		    peer, "refused %s from %s (uid %u): %s", r->type, peer,
		    (unsigned)r->cred.uid,
		    rc == -EEXIST   ? "replayed credential"
		    : rc == -EDQUOT ? "this uid holds NonceCachePerUser live credentials"
		    : rc == -ENOSPC ? "NonceCacheSize live credentials held"
				    : "cannot remember the nonce");
	return rc < 0 ? -1 : 0;
}

/* SlurmctldParameters=rl_enable: whether this client request is over its
 * uid's rate (rate_limit.c), and then refused with Slurm's back-off code.
 * Root and SlurmUser are never limited, as in Slurm (daemons neither:
 * their frames are MACed, and the caller skips them). */
static bool rate_limited(struct rpc_req *r, const char *peer)
{
	struct ctld *c = r->c;
	uint32_t uid = (uint32_t)r->cred.uid;
	bool log_now = false;
	if (!c->conf->rl.enable || uid == 0 || uid == (uint32_t)c->owner_uid)
		return false;
	enum rate_verdict v =
	    rate_limit_check(c->rl, &c->conf->rl, uid, time(NULL), &log_now);
	if (v == RATE_UNTRACKED && log_now)
		log_error("RPC Rate Limiting: ran out of user table space "
			  "(rl_table_size=%u). User will not be limited.",
			  (unsigned)c->conf->rl.table_size);
	if (v != RATE_LIMITED)
		return false;
	if (log_now)
		log_info("RPC rate limit exceeded by uid %u with %s from %s, telling to "
			 "back off",
			 (unsigned)uid, r->type, peer);
	rpc_reply(r, DRV_RC_BACKOFF, drv_rc_text(DRV_RC_BACKOFF), NULL);
	return true;
}

/* Runs h with the body decoded into its declared struct. The frame was
 * validated when it was parsed, so only memory can fail here. */
static void run_handler(const struct handler *h, struct rpc_req *r)
{
	const struct drv_msg_decl *d = drv_msg_decl_find(r->type);
	struct drv_error err = {{0}};
	void *msg = d ? calloc(1, d->body->size) : NULL;
	if (!msg || drv_shape_decode_valid(d->body, r->body, msg, &err) < 0) {
		free(msg);
		rpc_reply(r, DRV_RC_PROTOCOL, msg ? err.text : "out of memory", NULL);
		return;
	}
	r->msg = msg;
	h->fn(r);
	drv_shape_free(d->body, msg);
	free(msg);
}

void rpc_dispatch(struct ctld *c, struct peer *p, json_t *env_json, bool mac_ok)
{
	struct rpc_req r = {.c = c, .peer_id = p->id, .daemon = mac_ok};
	struct drv_rec_envelope env;
	struct drv_error err;
	if (drv_rec_envelope_decode(env_json, &env, &err) < 0)
		return; /* drv_envelope_parse let it through: cannot happen */
	r.type = env.type;
	r.id = env.id;
	r.body = env.body;
	if (mac_ok) {
		p->daemon = true;
		peer_authenticated(c, p, true, 0);
	}
	if (!strcmp(r.type, "reply")) {
		if (mac_ok)
			link_reply(c, p, &env);
		return;
	}
	const struct handler *h = find_handler(r.type);
	if (!h) {
		rpc_reply(&r, DRV_RC_NOT_SUPPORTED, "Operation not supported by ctld",
			  NULL);
		return;
	}
	if (!mac_ok && check_client(&r, env_json, env.cred, drv_conn_peer(p->conn)) < 0) {
		rpc_reply(&r, DRV_RC_AUTH, drv_rc_text(DRV_RC_AUTH), NULL);
		return;
	}
	if (!mac_ok && peer_authenticated(c, p, false, r.cred.uid) < 0) {
		drv_log_warn_limited(drv_conn_peer(p->conn),
				     "refused %s from %s: uid %u holds "
				     "MaxConnectionsPerUser connections",
				     r.type, drv_conn_peer(p->conn),
				     (unsigned)r.cred.uid);
		rpc_reply(&r, DRV_RC_ERROR, "Too many connections for this user", NULL);
		drv_conn_close_after_flush(p->conn);
		return;
	}
	if (h->daemon_only && !mac_ok) {
		drv_log_warn_limited(drv_conn_peer(p->conn),
				     "refused %s from %s: daemon message without HMAC",
				     r.type, drv_conn_peer(p->conn));
		rpc_reply(&r, DRV_RC_AUTH, drv_rc_text(DRV_RC_AUTH), NULL);
		return;
	}
	if (!mac_ok && rate_limited(&r, drv_conn_peer(p->conn)))
		return;
	if (!mac_ok && h->writes)
		commit_nonce(c, r.cred.nonce, r.cred.uid, r.cred.valid_until);
	/* decoding fills the defaults in, after the digest covered the body
	 * as sent */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_handler(h, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* sdiag: a daemon's messages count as SlurmUser's, here ctld's own */
	uint32_t uid = mac_ok ? (uint32_t)getuid() : (uint32_t)r.cred.uid;
	int64_t usec =
	    (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
	stats_rpc(&c->stats, h->type, uid, usec > 0 ? (uint64_t)usec : 0);
}

static void send_reply(struct ctld *c, uint64_t peer_id, json_t *env)
{
	struct peer *p = peer_find(c, peer_id);
	if (!p)
		return; /* the client went away; its change is durable anyway */
	if (!p->daemon) {
		char digest[65];
		drv_envelope_digest(env, digest);
		json_object_set_new(
		    env, drv_shape_rec_envelope.fields[DRV_REC_ENVELOPE__CRED].name,
		    ctld_cred_issue(c, digest));
	}
	peer_send(c, p, env);
}

void rpc_reply(const struct rpc_req *r, int rc, const char *error, json_t *body)
{
	anomaly_note_reply(r, rc, body);
	json_t *env = drv_reply_new(r->id, rc, error, body);
	send_reply(r->c, r->peer_id, env);
	json_decref(env);
}

/* A success reply whose body is JSON text already (bulk listings): the
 * envelope is written in canonical form (keys sorted, compact), so its
 * digest is the hash of the text itself; the credential goes in last. */
void rpc_reply_text(const struct rpc_req *r, const char *body, size_t len)
{
	struct ctld *c = r->c;
	struct peer *p = peer_find(c, r->peer_id);
	if (!p)
		return;
	if (p->daemon) { /* daemons' replies are MACed trees; they never list */
		rpc_reply(r, DRV_RC_NOT_SUPPORTED, drv_rc_text(DRV_RC_NOT_SUPPORTED),
			  NULL);
		return;
	}
	const struct drv_field *f = drv_shape_rec_envelope.fields;
	struct drv_jw w;
	drv_jw_init(&w);
	rpc_jw_key(&w, "{", &f[DRV_REC_ENVELOPE__BODY]);
	drv_jw_raw(&w, body, len);
	rpc_jw_key(&w, ",", &f[DRV_REC_ENVELOPE__ID]);
	drv_jw_int(&w, r->id);
	rpc_jw_key(&w, ",", &f[DRV_REC_ENVELOPE__RC]);
	drv_jw_lit(&w, "0");
	rpc_jw_key(&w, ",", &f[DRV_REC_ENVELOPE__TYPE]);
	drv_jw_str(&w, "reply");
	rpc_jw_key(&w, ",", &f[DRV_REC_ENVELOPE__V]);
	drv_jw_int(&w, DRV_PROTO_VERSION);
	drv_jw_lit(&w, "}");
	if (w.oom) {
		drv_jw_fini(&w);
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
		return;
	}
	unsigned char h[crypto_hash_sha256_BYTES];
	char digest[65];
	crypto_hash_sha256(h, (const unsigned char *)w.buf, w.len);
	sodium_bin2hex(digest, sizeof(digest), h, sizeof(h));
	json_t *cred = ctld_cred_issue(c, digest);
	char *ctext = json_dumps(cred, JSON_COMPACT);
	w.len--; /* reopen the envelope for the credential */
	rpc_jw_key(&w, ",", &f[DRV_REC_ENVELOPE__CRED]);
	drv_jw_raw(&w, ctext ? ctext : "null", ctext ? strlen(ctext) : 4);
	drv_jw_lit(&w, "}");
	if (!w.oom)
		drv_conn_send_text(p->conn, w.buf, w.len);
	free(ctext);
	json_decref(cred);
	drv_jw_fini(&w);
}

void rpc_jw_key(struct drv_jw *w, const char *sep, const struct drv_field *f)
{
	drv_jw_raw(w, sep, strlen(sep));
	drv_jw_str(w, f->name);
	drv_jw_lit(w, ":");
}

void rpc_jw_strs(struct drv_jw *w, const char *const *v, size_t n)
{
	drv_jw_lit(w, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			drv_jw_lit(w, ",");
		drv_jw_str(w, v[i]);
	}
	drv_jw_lit(w, "]");
}

struct late_reply {
	uint64_t peer_id;
	json_t *env;
};

static void send_late(struct ctld *c, void *arg)
{
	struct late_reply *l = arg;
	send_reply(c, l->peer_id, l->env);
	json_decref(l->env);
	free(l);
}

void rpc_reply_durable(const struct rpc_req *r, int rc, const char *error, json_t *body)
{
	struct late_reply *l = malloc(sizeof(*l));
	if (!l)
		abort();
	anomaly_note_reply(r, rc, body);
	l->peer_id = r->peer_id;
	l->env = drv_reply_new(r->id, rc, error, body);
	commit_defer(r->c, send_late, l);
}
