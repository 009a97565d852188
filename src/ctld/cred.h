/* cred.h — ctld's side of client credentials, whichever AuthType is set:
 * checking a request's and signing a reply's (cred.c). */
#ifndef DRV_CTLD_CRED_H
#define DRV_CTLD_CRED_H

#include <jansson.h>
#include <stdint.h>

#include "common/auth.h"
#include "common/error.h"

struct ctld;

/* At start (before the loop runs): with auth/munge, munged must answer on
 * AuthInfo's socket; 0, or -errno with err naming the socket. */
int ctld_cred_start(struct ctld *c, struct drv_error *err);

/* Checks a request's credential (borrowed) against its digest: auth/drover
 * by the cluster key, auth/munge through munged. 0 with *info filled, or
 * -errno with err saying why (auth.h, auth_munge.h). Replays of a nonce
 * already seen are the caller's to refuse (the nonce cache). */
int ctld_cred_check(struct ctld *c, json_t *cred, const char *digest, int64_t now,
		    struct drv_cred_info *info, struct drv_error *err);

/* A credential bound to a reply's digest, issued as ctld's own identity (a
 * new reference), or NULL when none could be made (logged here). */
json_t *ctld_cred_issue(struct ctld *c, const char *digest);

#endif
