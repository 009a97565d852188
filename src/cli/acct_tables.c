/* acct_tables.c — assoc.query for sacctmgr and sshare (acct_tables.h). */
#include "cli/acct_tables.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"

int cli_acct_load(const struct drv_conf *conf, struct cli_acct *t, struct drv_error *err)
{
	struct drv_assoc_query q = {0};
	json_t *body = drv_assoc_query_encode(&q);
	*t = (struct cli_acct){0};
	int rc = cli_call(conf, "assoc.query", body, &t->json, err);
	if (rc != 0)
		return rc;
	if ((rc = drv_assoc_query_reply_decode(t->json, &t->r, err)) < 0) {
		json_decref(t->json);
		t->json = NULL;
	}
	return rc;
}

void cli_acct_fini(struct cli_acct *t)
{
	if (t->json)
		drv_assoc_query_reply_free(&t->r);
	json_decref(t->json);
	*t = (struct cli_acct){0};
}

const struct drv_rec_acct_account *cli_acct_account(const struct cli_acct *t,
						    const char *name)
{
	for (size_t i = 0; name && i < t->r.n_accounts; i++)
		if (!strcmp(t->r.accounts[i].name, name))
			return &t->r.accounts[i];
	return NULL;
}

const struct drv_rec_acct_user *cli_acct_user(const struct cli_acct *t, const char *name)
{
	for (size_t i = 0; name && i < t->r.n_users; i++)
		if (!strcmp(t->r.users[i].name, name))
			return &t->r.users[i];
	return NULL;
}

const struct drv_rec_acct_qos *cli_acct_qos(const struct cli_acct *t, const char *name)
{
	for (size_t i = 0; name && i < t->r.n_qos; i++)
		if (!strcasecmp(t->r.qos[i].name, name))
			return &t->r.qos[i];
	return NULL;
}

const struct drv_rec_acct_cluster *cli_acct_cluster(const struct cli_acct *t,
						    const char *name)
{
	for (size_t i = 0; name && i < t->r.n_clusters; i++)
		if (!strcmp(t->r.clusters[i].name, name))
			return &t->r.clusters[i];
	return NULL;
}

const struct drv_rec_acct_assoc *
cli_acct_account_assoc(const struct cli_acct *t, const char *cluster, const char *account)
{
	for (size_t i = 0; account && i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		if (!a->user && !strcmp(a->cluster, cluster) &&
		    !strcmp(a->account, account))
			return a;
	}
	return NULL;
}

const struct drv_rec_acct_assoc *cli_acct_parent(const struct cli_acct *t,
						 const struct drv_rec_acct_assoc *a)
{
	return cli_acct_account_assoc(t, a->cluster, a->user ? a->account : a->parent);
}

int cli_acct_depth(const struct cli_acct *t, const struct drv_rec_acct_assoc *a)
{
	int depth = 0;
	for (a = cli_acct_parent(t, a); a && depth <= (int)t->r.n_assocs;
	     a = cli_acct_parent(t, a))
		depth++;
	return depth;
}

static void tres_of(const char *text, struct drv_tres *t)
{
	struct drv_error err;
	if (drv_tres_parse(text, t, &err) < 0)
		drv_tres_init(t);
}

void cli_acct_effective(const struct cli_acct *t, const struct drv_rec_acct_assoc *a,
			bool inherit, struct cli_acct_eff *out)
{
	*out =
	    (struct cli_acct_eff){.max_jobs = -1, .max_submit_jobs = -1, .max_wall = -1};
	drv_tres_init(&out->max_tres_per_job);
	tres_of(a->grp_tres, &out->grp_tres);
	for (size_t hops = 0; a && hops <= t->r.n_assocs; hops++) {
		struct drv_tres own;
		tres_of(a->max_tres_per_job, &own);
		for (int i = 0; i < DRV_TRES_COUNT; i++)
			if (out->max_tres_per_job.v[i] == DRV_TRES_NONE)
				out->max_tres_per_job.v[i] = own.v[i];
		if (out->max_jobs < 0)
			out->max_jobs = a->max_jobs;
		if (out->max_submit_jobs < 0)
			out->max_submit_jobs = a->max_submit_jobs;
		if (out->max_wall < 0)
			out->max_wall = a->max_wall;
		if (!out->qos && a->has_qos) {
			out->qos = a->qos;
			out->n_qos = a->n_qos;
		}
		if (!out->default_qos)
			out->default_qos = a->default_qos;
		if (!inherit)
			break;
		a = cli_acct_parent(t, a);
	}
}

void cli_acct_qos_names(const struct cli_acct *t, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < t->r.n_qos && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "",
					 t->r.qos[i].name);
}
