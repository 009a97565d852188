/* acct_tables.h — the policy's tables as sacctmgr and sshare read them:
 * one assoc.query (clusters, accounts, users, associations parents before
 * children, QOS), decoded into the declared records, and the lookups and
 * inheritance the listings need (Slurm shows an association's Max* limits,
 * QOS and DefaultQOS as its parents give them, unless WOPLimits). */
#ifndef DRV_CLI_ACCT_TABLES_H
#define DRV_CLI_ACCT_TABLES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"
#include "common/proto_gen.h"
#include "common/tres.h"

struct cli_acct {
	json_t *json;			/* the reply the records borrow from */
	struct drv_assoc_query_reply r; /* its records */
};

/* Asks ctld for the tables. 0, or what cli_call returns with err filled.
 * Free with cli_acct_fini (also after a failure). */
int cli_acct_load(const struct drv_conf *conf, struct cli_acct *t, struct drv_error *err);
void cli_acct_fini(struct cli_acct *t);

/* Lookups, borrowed; NULL when none. QOS names compare in any case. */
const struct drv_rec_acct_account *cli_acct_account(const struct cli_acct *t,
						    const char *name);
const struct drv_rec_acct_user *cli_acct_user(const struct cli_acct *t, const char *name);
const struct drv_rec_acct_qos *cli_acct_qos(const struct cli_acct *t, const char *name);
const struct drv_rec_acct_cluster *cli_acct_cluster(const struct cli_acct *t,
						    const char *name);
/* The account association (cluster, account), or NULL. */
const struct drv_rec_acct_assoc *cli_acct_account_assoc(const struct cli_acct *t,
							const char *cluster,
							const char *account);
/* a's parent association (the account's for a user), NULL for a root. */
const struct drv_rec_acct_assoc *cli_acct_parent(const struct cli_acct *t,
						 const struct drv_rec_acct_assoc *a);
int cli_acct_depth(const struct cli_acct *t, const struct drv_rec_acct_assoc *a);

/* What an association shows: its own values, or with inherit its parents'
 * where it sets none. */
struct cli_acct_eff {
	int64_t max_jobs, max_submit_jobs, max_wall; /* -1: none */
	struct drv_tres max_tres_per_job, grp_tres;
	const char *const *qos; /* NULL (n_qos 0): none */
	size_t n_qos;
	const char *default_qos;
};
void cli_acct_effective(const struct cli_acct *t, const struct drv_rec_acct_assoc *a,
			bool inherit, struct cli_acct_eff *out);

/* All the QOS names, joined by ',' (Slurm's "Valid QOS's are ..."); into
 * buf of len bytes. */
void cli_acct_qos_names(const struct cli_acct *t, char *buf, size_t len);

#endif
