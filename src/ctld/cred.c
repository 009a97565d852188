/* cred.c — which AuthType checks the credential of a client's request and
 * signs ctld's reply: auth/drover with the cluster key (common/auth.c),
 * auth/munge through munged on AuthInfo's socket (common/auth_munge.c).
 * Frames between daemons are not here: they carry the cluster key's HMAC
 * whatever AuthType says (MUNGE authenticates users, the key daemons).
 *
 * munged answers over a local UNIX socket within microseconds, so ctld asks
 * it from the loop thread, as it hashes and MACs there for auth/drover. */
#include "ctld/cred.h"

#include <errno.h>
#include <time.h>

#include "common/auth_munge.h"
#include "common/keyring.h"
#include "common/log.h"
#include "ctld/ctld.h"

int ctld_cred_start(struct ctld *c, struct drv_error *err)
{
	if (!drv_auth_munge(c->conf))
		return 0;
	return drv_munge_probe(c->conf->auth_socket, err);
}

int ctld_cred_check(struct ctld *c, json_t *cred, const char *digest, int64_t now,
		    struct drv_cred_info *info, struct drv_error *err)
{
	if (!drv_auth_munge(c->conf)) {
		struct drv_cred_policy pol = {.lifetime = c->conf->cred_expire,
					      .skew = c->conf->clock_skew};
		return drv_keyring_check_cred(&c->keys, cred, digest, &pol, now, info,
					      err);
	}
	int rc = drv_munge_check(c->conf->auth_socket, cred, digest, info, err);
	if (rc == -ENOTCONN) /* not the client's fault: say so where admins look */
		drv_log_warn_limited("munged", "%s", err->text);
	if (rc == 0)
		info->valid_until = info->expires; /* munged allows its own skew */
	return rc;
}

json_t *ctld_cred_issue(struct ctld *c, const char *digest)
{
	if (!drv_auth_munge(c->conf))
		return drv_cred_issue(&c->keys.cur, c->owner_uid, c->owner_gid, c->host,
				      digest, time(NULL), c->conf->cred_expire);
	struct drv_error err = {{0}};
	json_t *cred = drv_munge_sign(c->conf->auth_socket, digest, &err);
	if (!cred)
		drv_log_warn_limited("munged", "cannot sign a reply: %s", err.text);
	return cred;
}
