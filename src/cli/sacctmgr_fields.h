/* sacctmgr_fields.h — sacctmgr's columns (sacctmgr_fields.c): the field
 * table, and one row of any listing. */
#ifndef DRV_CLI_SACCTMGR_FIELDS_H
#define DRV_CLI_SACCTMGR_FIELDS_H

#include "cli/acct_tables.h"
#include "cli/fields.h"
#include "common/conf.h"

enum sm_field {
	F_BLANK,
	F_ACCOUNT,
	F_ADMIN,
	F_CLUSTER,
	F_COORD,
	F_CHOST,
	F_CPORT,
	F_DACCT,
	F_DQOS,
	F_DESC,
	F_FLAGS,
	F_GRACE,
	F_GRPCPUS,
	F_GRPTRES,
	F_GRPJOBS,
	F_GRPMEM,
	F_GRPNODES,
	F_GRPSUBMIT,
	F_ID,
	F_MAXCPUS,
	F_MAXTRES,
	F_MAXTRESPU,
	F_MAXJOBS,
	F_MAXJOBSPU,
	F_MAXNODES,
	F_MAXSUBMIT,
	F_MAXSUBMITPU,
	F_MAXWALL,
	F_NAME,
	F_ORG,
	F_PARENTID,
	F_PARENTNAME,
	F_PARTITION,
	F_PREEMPTMODE,
	F_PREEMPT,
	F_PRIORITY,
	F_QOS,
	F_RPC,
	F_SHARE,
	F_USAGEFACTOR,
	F_USER,
	F_GRPWALL,    /* not kept: empty, but 0 for an account without associations */
	F_GRPCPUMINS, /* the same */
	F_MAXCPUMINS, /* the same */
};

extern const struct cli_field_def sm_fields[];

/* Parses a format= list into fl (Account wider and left-justified in a
 * tree). 0, or -1 after Slurm's "Unknown field 'x'". */
int sm_parse_format(const char *spec, bool tree, struct cli_fields *fl);

/* Names joined by ',' into buf (sorted first when sort, Slurm's order for
 * lists), cut at len; returns buf. */
const char *sm_joined(const char *const *v, size_t n, bool sort, char *buf, size_t len);

/* What one row shows; all borrowed, any may be NULL. */
struct sm_row {
	const struct cli_acct *t;
	const struct drv_conf *conf;
	const struct drv_rec_acct_assoc *assoc;
	const struct cli_acct_eff *eff; /* set with assoc */
	const struct drv_rec_acct_user *user;
	const struct drv_rec_acct_account *account;
	const struct drv_rec_acct_qos *qos;
	const struct drv_rec_acct_cluster *cluster;
	const char *tree_account; /* the account, indented by its depth */
	const char *coords;	  /* an account's coordinators, joined */
	const char *def_acct;	  /* the user's default account as shown */
	bool zeros;		  /* withassoc, an account without associations:
				   * Slurm prints its numbers as 0 */
};

void sm_print_row(const struct cli_fields *fl, enum cli_fields_mode mode,
		  const struct sm_row *r);

#endif
