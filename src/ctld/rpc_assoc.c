/* rpc_assoc.c — assoc.query and assoc.update (sacctmgr, sshare), and the
 * policy's tables' start: loaded from the store, the defaults made (root,
 * ClusterName, normal) and committed.
 *
 * An update runs on a copy of the tables; the copy replaces them only when
 * all of it succeeded, and the reply waits until the records it changed
 * are durable. A dry run (sacctmgr's prompt) answers from the copy and
 * drops it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/acct.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"
#include "ctld/prio.h"
#include "ctld/rpc_handlers.h"

static void put_object(int kind, const char *name, const char *rec_json, void *arg)
{
	commit_object(arg, (enum store_obj_kind)kind, name, rec_json);
}

int acct_start(struct ctld *c, struct drv_error *err)
{
	struct acct_db *loaded = acct_db_new();
	if (!loaded)
		return drv_error_set(err, ENOMEM, "out of memory");
	if (acct_db_load(loaded, c->store) < 0) {
		acct_db_free(loaded);
		return drv_error_set(err, EIO,
				     "store: cannot load the accounting tables");
	}
	struct acct_db *db = acct_db_clone(loaded);
	if (!db || acct_db_ensure_defaults(db, c->conf->cluster_name) < 0) {
		acct_db_free(loaded);
		acct_db_free(db);
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	acct_db_diff(loaded, db, put_object, c); /* the defaults a new store lacks */
	acct_db_free(loaded);
	c->acct = db;
	log_info("recovered %zu accounts, %zu users, %zu associations, %zu QOS",
		 db->n_accounts, db->n_users, db->n_assocs, db->n_qos);
	return 0;
}

void acct_stop(struct ctld *c)
{
	acct_db_free(c->acct);
	c->acct = NULL;
}

void rpc_assoc_query(struct rpc_req *r)
{
	struct perm p;
	perm_of_req(r, &p);
	json_t *body = acct_query_reply(r->c->acct);
	prio_assoc_reply(r->c, body); /* sshare's fair-share figures */
	perm_filter_acct_reply(&p, body);
	rpc_reply(r, 0, NULL, body);
}

static json_t *strs_json(const struct acct_strs *l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

/* The reply: what res says, the added associations as db now has them. */
static json_t *result_json(const struct acct_db *db, const struct acct_result *res)
{
	const struct drv_field *f = drv_shape_assoc_update_reply.fields;
	json_t *body = json_object(), *assocs = json_array();
	if (!body || !assocs)
		abort();
	for (size_t i = 0; i < res->n_added; i++) {
		const struct acct_assoc *a = acct_find_assoc_id(db, res->added[i]);
		if (a)
			json_array_append_new(assocs, acct_assoc_record(a, false));
	}
	json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__NAMES].name,
			    strs_json(&res->names));
	json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__ASSOCS].name, assocs);
	json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__LINES].name,
			    strs_json(&res->lines));
	json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__ORPHANS].name,
			    strs_json(&res->orphans));
	if (res->notice)
		json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__NOTICE].name,
				    json_string(res->notice));
	if (res->error) {
		json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__ERROR].name,
				    json_string(res->error));
		json_object_set_new(body, f[DRV_ASSOC_UPDATE_REPLY__RC].name,
				    json_integer(res->rc ? res->rc : DRV_RC_ERROR));
	}
	return body;
}

/* Slurm keeps the associations jobs still use: a delete that would remove
 * one a job not yet ended runs under is refused, naming the jobs (newest
 * first, as slurmdbd lists them). */
static int check_jobs(const struct ctld *c, const struct acct_db *new,
		      struct acct_result *res)
{
	const struct acct_db *old = c->acct;
	struct acct_strs lines = {0};
	for (const struct job *j = c->jobs.head; j; j = j->next) {
		if (job_state_final(j->state) || !j->user || !j->req.account)
			continue;
		const struct acct_assoc *a = acct_find_assoc(
		    old, c->conf->cluster_name, j->req.account, j->user, j->partition);
		if (!a)
			a = acct_find_assoc(old, c->conf->cluster_name, j->req.account,
					    j->user, NULL);
		if (!a || acct_find_assoc_id(new, a->id))
			continue;
		char id[16], line[512];
		snprintf(id, sizeof(id), "%u", j->id);
		snprintf(line, sizeof(line),
			 "\n  JobID = %-10s C = %-10s A = %-10s U = %-9s%s%s", id,
			 a->cluster, a->account, a->user, a->partition ? " P = " : "",
			 a->partition ? a->partition : "");
		if (acct_strs_add(&lines, line) < 0) {
			acct_strs_clear(&lines);
			return -ENOMEM;
		}
	}
	int rc = 0;
	if (lines.n) {
		size_t len = 0;
		for (size_t i = 0; i < lines.n; i++)
			len += strlen(lines.v[i]);
		char *all = calloc(len + 1, 1);
		for (size_t i = lines.n; all && i > 0; i--)
			strcat(all, lines.v[i - 1]);
		rc = all ? acct_fail(res, DRV_RC_JOBS_RUNNING_ON_ASSOC,
				     " Error with request: %s%s",
				     drv_rc_text(DRV_RC_JOBS_RUNNING_ON_ASSOC), all)
			 : -ENOMEM;
		free(all);
	}
	acct_strs_clear(&lines);
	return rc;
}

void rpc_assoc_update(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_assoc_update *m = r->msg;
	struct perm p;
	perm_of_req(r, &p);
	if (!perm_may_update_acct(&p, m)) {
		log_warn("refused assoc.update (%s %s) from uid %u", m->action, m->entity,
			 (unsigned)r->cred.uid);
		rpc_reply(r, DRV_RC_ACCESS_DENIED, drv_rc_text(DRV_RC_ACCESS_DENIED),
			  NULL);
		return;
	}
	struct acct_db *copy = acct_db_clone(c->acct);
	struct acct_result res = {0};
	int rc = copy ? acct_update(copy, c->conf->cluster_name, m, &res) : -ENOMEM;
	if (rc == 0 && !strcmp(m->action, "delete"))
		rc = check_jobs(c, copy, &res);
	if (rc < 0 && (res.notice || res.error)) {
		/* a refusal: its lines travel in the body (docs/protocol.md) */
		acct_strs_clear(&res.names);
		acct_strs_clear(&res.lines);
		acct_strs_clear(&res.orphans);
		res.n_added = 0;
		rpc_reply(r, 0, NULL, result_json(copy, &res));
	} else if (rc < 0) {
		rpc_reply(r, DRV_RC_ERROR, "out of memory", NULL);
	} else if (m->dry_run) {
		rpc_reply(r, 0, NULL, result_json(copy, &res));
	} else {
		acct_db_diff(c->acct, copy, put_object, c);
		acct_db_free(c->acct);
		c->acct = copy;
		c->acct_gen++;
		copy = NULL;
		log_info("uid %u: %s %s: %zu names, %zu associations added, %zu changed",
			 (unsigned)r->cred.uid, m->action, m->entity, res.names.n,
			 res.n_added, res.lines.n);
		rpc_reply_durable(r, 0, NULL, result_json(c->acct, &res));
		sched_request(c); /* limits may have changed */
		prio_changed(c);  /* QOS Priority, shares: the factors move */
	}
	acct_db_free(copy);
	acct_result_fini(&res);
}
