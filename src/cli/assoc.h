/* assoc.h — the (user, account) pairs sacctmgr and sshare list. Drover has
 * no association table yet: a user's accounts are the distinct accounts
 * their jobs were charged to, over the whole accounting history (ctld's
 * acct.query). */
#ifndef DRV_CLI_ASSOC_H
#define DRV_CLI_ASSOC_H

#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"

struct cli_assoc {
	char *user;    /* owned */
	char *account; /* owned */
	int64_t uid;
};

/* Loads the pairs of the users uids[0..n) (n == 0: every user) into *out
 * (a new array of *count entries, sorted by user then account; free with
 * cli_assoc_free). Returns 0, or what cli_call returns with err filled. */
int cli_assoc_load(const struct drv_conf *conf, const int64_t *uids, size_t n,
		   struct cli_assoc **out, size_t *count, struct drv_error *err);

void cli_assoc_free(struct cli_assoc *a, size_t count);

/* Resolves a comma list of user names (or uids) into uids[0..*n) (at most
 * max). Names that are no user are left out, as Slurm lists nothing for
 * them; *unknown counts them. Pure but for getpwnam. */
void cli_assoc_uids(const char *list, int64_t *uids, size_t max, size_t *n,
		    size_t *unknown);

#endif
