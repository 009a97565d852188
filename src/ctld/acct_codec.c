/* acct_codec.c — the policy's tables as records (store.schema's acct_*):
 * encoded for the store and for assoc.query's reply, decoded at recovery,
 * and the store writes one table set needs to become another (a diff by
 * kind and name, so that an update commits exactly what it changed). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto_gen.h"
#include "ctld/acct.h"
#include "ctld/acct_tree.h"
#include "ctld/store.h"

/* --- encoding ---------------------------------------------------------------- */

json_t *acct_cluster_record(const struct acct_db *db, const struct acct_cluster *c)
{
	struct drv_rec_acct_cluster r = {.name = c->name,
					 .next_assoc_id = db->next_assoc_id,
					 .next_qos_id = db->next_qos_id};
	return drv_shape_encode(&drv_shape_rec_acct_cluster, &r, 0);
}

json_t *acct_account_record(const struct acct_account *a)
{
	struct drv_rec_acct_account r = {.name = a->name,
					 .description = a->description,
					 .organization = a->organization};
	return drv_shape_encode(&drv_shape_rec_acct_account, &r, 0);
}

json_t *acct_user_record(const struct acct_user *u)
{
	struct drv_rec_acct_user r = {.name = u->name,
				      .default_account = u->default_account,
				      .admin_level = acct_admin_name(u->admin),
				      .coord_accounts = (const char **)u->coord.v,
				      .n_coord_accounts = u->coord.n};
	return drv_shape_encode(&drv_shape_rec_acct_user, &r, 0);
}

/* A TRES list's canonical text in buf, or NULL when it has no count. */
static const char *tres_text(const struct drv_tres *t, char *buf, size_t len)
{
	if (drv_tres_empty(t))
		return NULL;
	drv_tres_format(t, false, buf, len);
	return buf;
}

json_t *acct_assoc_record(const struct acct_assoc *a, bool for_store)
{
	char grp[512], max[512];
	struct drv_rec_acct_assoc r = {
	    .id = a->id,
	    .cluster = a->cluster,
	    .account = a->account,
	    .user = a->user,
	    .partition = a->partition,
	    .parent = a->parent,
	    .shares = a->shares,
	    .grp_tres = tres_text(&a->grp_tres, grp, sizeof(grp)),
	    .grp_jobs = a->grp_jobs,
	    .grp_submit_jobs = a->grp_submit_jobs,
	    .max_jobs = a->max_jobs,
	    .max_submit_jobs = a->max_submit_jobs,
	    .max_tres_per_job = tres_text(&a->max_tres_per_job, max, sizeof(max)),
	    .max_wall = a->max_wall,
	    .qos = (const char **)a->qos.v,
	    .n_qos = a->qos.n,
	    .has_qos = a->qos_set,
	    .default_qos = a->default_qos,
	    .raw_usage = (int64_t)a->usage,
	};
	return drv_shape_encode(&drv_shape_rec_acct_assoc, &r,
				for_store ? DRV_ENC_EXCEPT | DRV_FL_USER : 0);
}

json_t *acct_qos_record(const struct acct_qos *q)
{
	char per_user[512], per_job[512], grp[512];
	const char *flags[32];
	size_t n_flags = 0;
	for (uint32_t bit = 1; bit; bit <<= 1)
		if ((q->flags & bit) && acct_qos_flag_name(bit))
			flags[n_flags++] = acct_qos_flag_name(bit);
	struct drv_rec_acct_qos r = {
	    .id = q->id,
	    .name = q->name,
	    .description = q->description,
	    .priority = q->priority,
	    .grace_time = q->grace_time,
	    .max_wall = q->max_wall,
	    .max_tres_per_user =
		tres_text(&q->max_tres_per_user, per_user, sizeof(per_user)),
	    .max_jobs_per_user = q->max_jobs_per_user,
	    .max_submit_jobs_per_user = q->max_submit_jobs_per_user,
	    .max_tres_per_job = tres_text(&q->max_tres_per_job, per_job, sizeof(per_job)),
	    .grp_tres = tres_text(&q->grp_tres, grp, sizeof(grp)),
	    .grp_jobs = q->grp_jobs,
	    .grp_submit_jobs = q->grp_submit_jobs,
	    .usage_factor = q->usage_factor,
	    .flags = flags,
	    .n_flags = n_flags,
	    .preempt = (const char **)q->preempt.v,
	    .n_preempt = q->preempt.n,
	    .preempt_mode = q->preempt_mode,
	};
	return drv_shape_encode(&drv_shape_rec_acct_qos, &r, 0);
}

/* --- decoding (recovery) ---------------------------------------------------------- */

static int strs_from(struct acct_strs *l, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (acct_strs_add(l, v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* A stored TRES text; a malformed one (another version's) counts nothing. */
static void tres_from(struct drv_tres *t, const char *text)
{
	struct drv_error err;
	if (drv_tres_parse(text, t, &err) < 0)
		drv_tres_init(t);
}

static int load_cluster(struct acct_db *db, json_t *rec, struct drv_error *err)
{
	struct drv_rec_acct_cluster r;
	int rc = drv_rec_acct_cluster_decode(rec, &r, err);
	if (rc < 0)
		return rc;
	if (!acct_find_cluster(db, r.name) && !acct_add_cluster(db, r.name))
		rc = -ENOMEM;
	if (r.next_assoc_id > db->next_assoc_id)
		db->next_assoc_id = r.next_assoc_id;
	if (r.next_qos_id > db->next_qos_id)
		db->next_qos_id = r.next_qos_id;
	drv_rec_acct_cluster_free(&r);
	return rc;
}

static int load_account(struct acct_db *db, json_t *rec, struct drv_error *err)
{
	struct drv_rec_acct_account r;
	int rc = drv_rec_acct_account_decode(rec, &r, err);
	if (rc < 0)
		return rc;
	struct acct_account *a = acct_add_account(db, r.name);
	if (!a || acct_set_str(&a->description, r.description) < 0 ||
	    acct_set_str(&a->organization, r.organization) < 0)
		rc = -ENOMEM;
	drv_rec_acct_account_free(&r);
	return rc;
}

static int load_user(struct acct_db *db, json_t *rec, struct drv_error *err)
{
	struct drv_rec_acct_user r;
	int rc = drv_rec_acct_user_decode(rec, &r, err);
	if (rc < 0)
		return rc;
	struct acct_user *u = acct_add_user(db, r.name);
	if (!u || acct_set_str(&u->default_account, r.default_account) < 0 ||
	    strs_from(&u->coord, r.coord_accounts, r.n_coord_accounts) < 0)
		rc = -ENOMEM;
	else
		acct_admin_parse(r.admin_level, &u->admin);
	drv_rec_acct_user_free(&r);
	return rc;
}

static int load_assoc(struct acct_db *db, json_t *rec, struct drv_error *err)
{
	struct drv_rec_acct_assoc r;
	int rc = drv_rec_acct_assoc_decode(rec, &r, err);
	if (rc < 0)
		return rc;
	struct acct_assoc *a =
	    acct_add_assoc(db, r.cluster, r.account, r.user, r.partition);
	if (!a || acct_set_str(&a->parent, r.parent) < 0 ||
	    acct_set_str(&a->default_qos, r.default_qos) < 0 ||
	    strs_from(&a->qos, r.qos, r.n_qos) < 0) {
		rc = -ENOMEM;
	} else {
		db->next_assoc_id--; /* the stored id, not a new one */
		a->id = r.id;
		if (r.id >= db->next_assoc_id)
			db->next_assoc_id = r.id + 1;
		a->shares = r.shares;
		tres_from(&a->grp_tres, r.grp_tres);
		tres_from(&a->max_tres_per_job, r.max_tres_per_job);
		a->grp_jobs = r.grp_jobs;
		a->grp_submit_jobs = r.grp_submit_jobs;
		a->max_jobs = r.max_jobs;
		a->max_submit_jobs = r.max_submit_jobs;
		a->max_wall = r.max_wall;
		a->qos_set = r.has_qos;
	}
	drv_rec_acct_assoc_free(&r);
	return rc;
}

static int load_qos(struct acct_db *db, json_t *rec, struct drv_error *err)
{
	struct drv_rec_acct_qos r;
	int rc = drv_rec_acct_qos_decode(rec, &r, err);
	if (rc < 0)
		return rc;
	struct acct_qos *q = acct_add_qos(db, r.name);
	if (!q || acct_set_str(&q->description, r.description) < 0 ||
	    acct_set_str(&q->preempt_mode, r.preempt_mode) < 0 ||
	    strs_from(&q->preempt, r.preempt, r.n_preempt) < 0) {
		rc = -ENOMEM;
	} else {
		db->next_qos_id--;
		q->id = r.id;
		if (r.id >= db->next_qos_id)
			db->next_qos_id = r.id + 1;
		q->priority = r.priority;
		q->grace_time = r.grace_time;
		q->max_wall = r.max_wall;
		tres_from(&q->max_tres_per_user, r.max_tres_per_user);
		tres_from(&q->max_tres_per_job, r.max_tres_per_job);
		tres_from(&q->grp_tres, r.grp_tres);
		q->max_jobs_per_user = r.max_jobs_per_user;
		q->max_submit_jobs_per_user = r.max_submit_jobs_per_user;
		q->grp_jobs = r.grp_jobs;
		q->grp_submit_jobs = r.grp_submit_jobs;
		q->usage_factor = r.usage_factor;
		for (size_t i = 0; i < r.n_flags; i++)
			q->flags |= acct_qos_flag_parse(r.flags[i]);
	}
	drv_rec_acct_qos_free(&r);
	return rc;
}

struct load_ctx {
	struct acct_db *db;
	int rc;
};

static void on_object(enum store_obj_kind kind, const char *name, const char *text,
		      void *arg)
{
	struct load_ctx *x = arg;
	struct drv_error err = {""};
	json_t *rec = json_loads(text, 0, NULL);
	int rc = rec ? 0 : -EBADMSG;
	if (rc == 0)
		switch (kind) {
		case STORE_OBJ_CLUSTER:
			rc = load_cluster(x->db, rec, &err);
			break;
		case STORE_OBJ_ACCOUNT:
			rc = load_account(x->db, rec, &err);
			break;
		case STORE_OBJ_USER:
			rc = load_user(x->db, rec, &err);
			break;
		case STORE_OBJ_ASSOC:
			rc = load_assoc(x->db, rec, &err);
			break;
		case STORE_OBJ_QOS:
			rc = load_qos(x->db, rec, &err);
			break;
		default:
			break; /* another module's kind */
		}
	json_decref(rec);
	if (rc == -ENOMEM)
		x->rc = rc;
	else if (rc < 0)
		log_error("store: object %d/%s has a malformed record: skipped%s%s",
			  (int)kind, name, *err.text ? ": " : "", err.text);
}

static int by_assoc_id(const void *a, const void *b)
{
	uint32_t x = (*(struct acct_assoc *const *)a)->id;
	uint32_t y = (*(struct acct_assoc *const *)b)->id;
	return x < y ? -1 : x > y;
}

static int by_qos_id(const void *a, const void *b)
{
	uint32_t x = (*(struct acct_qos *const *)a)->id;
	uint32_t y = (*(struct acct_qos *const *)b)->id;
	return x < y ? -1 : x > y;
}

int acct_db_load(struct acct_db *db, struct store *s)
{
	struct load_ctx x = {.db = db};
	struct drv_error err = {""};
	int rc = store_load_objects(s, on_object, &x, &err);
	if (rc < 0) {
		log_error("store: cannot load the accounting tables: %s", err.text);
		return rc;
	}
	/* the store gives them by name; the tables keep the order they were
	 * made in (ids only grow), which Slurm's listings show */
	if (db->n_assocs > 1)
		qsort(db->assocs, db->n_assocs, sizeof(*db->assocs), by_assoc_id);
	if (db->n_qos > 1)
		qsort(db->qos, db->n_qos, sizeof(*db->qos), by_qos_id);
	return x.rc;
}

/* --- differences ------------------------------------------------------------------ */

struct named {
	char *name, *text; /* owned */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* Every record of one kind of db, sorted by name (*n of them). */
static struct named *records(const struct acct_db *db, int kind, size_t *n)
{
	size_t count = kind == STORE_OBJ_CLUSTER   ? db->n_clusters
		       : kind == STORE_OBJ_ACCOUNT ? db->n_accounts
		       : kind == STORE_OBJ_USER	   ? db->n_users
		       : kind == STORE_OBJ_ASSOC   ? db->n_assocs
						   : db->n_qos;
	struct named *v = calloc(count ? count : 1, sizeof(*v));
	for (size_t i = 0; v && i < count; i++) {
		json_t *rec = NULL;
		char id[16];
		const char *name = id;
		switch (kind) {
		case STORE_OBJ_CLUSTER:
			rec = acct_cluster_record(db, db->clusters[i]);
			name = db->clusters[i]->name;
			break;
		case STORE_OBJ_ACCOUNT:
			rec = acct_account_record(db->accounts[i]);
			name = db->accounts[i]->name;
			break;
		case STORE_OBJ_USER:
			rec = acct_user_record(db->users[i]);
			name = db->users[i]->name;
			break;
		case STORE_OBJ_ASSOC:
			rec = acct_assoc_record(db->assocs[i], true);
			snprintf(id, sizeof(id), "%u", db->assocs[i]->id);
			break;
		default:
			rec = acct_qos_record(db->qos[i]);
			name = db->qos[i]->name;
		}
		v[i].text = rec ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		v[i].name = strdup(name);
		json_decref(rec);
		if (!v[i].text || !v[i].name)
			abort(); /* out of memory in the daemon: nothing sane to do */
	}
	if (!v)
		abort();
	qsort(v, count, sizeof(*v), by_name);
	*n = count;
	return v;
}

static void named_free(struct named *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].text);
	}
	free(v);
}

static const int kinds[] = {STORE_OBJ_CLUSTER, STORE_OBJ_ACCOUNT, STORE_OBJ_USER,
			    STORE_OBJ_ASSOC, STORE_OBJ_QOS};

void acct_db_diff(const struct acct_db *old, const struct acct_db *new, acct_put_f put,
		  void *arg)
{
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t no = 0, nn = 0, i = 0, j = 0;
		struct named *o = old ? records(old, kinds[k], &no) : NULL;
		struct named *n = records(new, kinds[k], &nn);
		while (i < no || j < nn) {
			int c = i == no ? 1 : j == nn ? -1 : strcmp(o[i].name, n[j].name);
			if (c < 0) {
				put(kinds[k], o[i++].name, NULL, arg);
			} else if (c > 0) {
				put(kinds[k], n[j].name, n[j].text, arg);
				j++;
			} else {
				if (strcmp(o[i].text, n[j].text))
					put(kinds[k], n[j].name, n[j].text, arg);
				i++;
				j++;
			}
		}
		named_free(o, no);
		named_free(n, nn);
	}
}

void acct_db_dump(const struct acct_db *db, acct_put_f put, void *arg)
{
	acct_db_diff(NULL, db, put, arg);
}

/* --- assoc.query ------------------------------------------------------------------ */

static json_t *append(json_t *a, json_t *x)
{
	if (!x || json_array_append_new(a, x) < 0)
		abort();
	return a;
}

json_t *acct_query_reply(const struct acct_db *db)
{
	const struct drv_field *f = drv_shape_assoc_query_reply.fields;
	json_t *clusters = json_array(), *accounts = json_array(), *users = json_array();
	json_t *assocs = json_array(), *qos = json_array(), *body = json_object();
	if (!clusters || !accounts || !users || !assocs || !qos || !body)
		abort();
	for (size_t i = 0; i < db->n_clusters; i++)
		append(clusters, acct_cluster_record(db, db->clusters[i]));
	for (size_t i = 0; i < db->n_accounts; i++)
		append(accounts, acct_account_record(db->accounts[i]));
	for (size_t i = 0; i < db->n_users; i++)
		append(users, acct_user_record(db->users[i]));
	struct acct_assoc **order = acct_tree_order(db);
	for (size_t i = 0; i < db->n_assocs; i++)
		append(assocs, acct_assoc_record(order[i], false));
	free(order);
	for (size_t i = 0; i < db->n_qos; i++)
		append(qos, acct_qos_record(db->qos[i]));
	json_object_set_new(body, f[DRV_ASSOC_QUERY_REPLY__CLUSTERS].name, clusters);
	json_object_set_new(body, f[DRV_ASSOC_QUERY_REPLY__ACCOUNTS].name, accounts);
	json_object_set_new(body, f[DRV_ASSOC_QUERY_REPLY__USERS].name, users);
	json_object_set_new(body, f[DRV_ASSOC_QUERY_REPLY__ASSOCS].name, assocs);
	json_object_set_new(body, f[DRV_ASSOC_QUERY_REPLY__QOS].name, qos);
	return body;
}
