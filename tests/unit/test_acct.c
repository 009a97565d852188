/* test_acct.c — ctld's policy tables without a daemon: the defaults that
 * always exist, Slurm's inheritance of Max* limits, QOS and DefaultQOS down
 * the association tree, the scheduler's view of it (parents before
 * children, lookups), the tree's orders, sacctmgr's changes (assoc.update
 * on the tables) and the diff that commits exactly what changed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/proto_gen.h"
#include "ctld/acct.h"
#include "ctld/acct_tree.h"
#include "ctld/store.h"

static struct acct_assoc *account(struct acct_db *db, const char *name,
				  const char *parent)
{
	assert_non_null(acct_add_account(db, name));
	struct acct_assoc *a = acct_add_assoc(db, "c1", name, NULL, NULL);
	assert_non_null(a);
	assert_int_equal(acct_set_str(&a->parent, parent), 0);
	return a;
}

static struct acct_assoc *user(struct acct_db *db, const char *name, const char *acct,
			       const char *part)
{
	if (!acct_find_user(db, name))
		assert_non_null(acct_add_user(db, name));
	struct acct_assoc *a = acct_add_assoc(db, "c1", acct, name, part);
	assert_non_null(a);
	return a;
}

/* root → physics (limits) → chem → alice; bob in physics. */
static struct acct_db *sample(void)
{
	struct acct_db *db = acct_db_new();
	struct drv_error err;
	assert_int_equal(acct_db_ensure_defaults(db, "c1"), 0);
	assert_non_null(acct_add_qos(db, "high"));
	struct acct_assoc *phys = account(db, "physics", "root");
	phys->max_jobs = 5;
	phys->max_wall = 60;
	phys->grp_jobs = 9;
	assert_int_equal(drv_tres_parse("cpu=4,mem=2G", &phys->max_tres_per_job, &err),
			 0);
	phys->qos_set = true;
	assert_int_equal(acct_strs_add(&phys->qos, "high"), 0);
	assert_int_equal(acct_strs_add(&phys->qos, "normal"), 0);
	assert_int_equal(acct_set_str(&phys->default_qos, "high"), 0);
	struct acct_assoc *chem = account(db, "chem", "physics");
	chem->max_jobs = 2;
	assert_int_equal(drv_tres_parse("mem=1G", &chem->max_tres_per_job, &err), 0);
	user(db, "alice", "chem", NULL);
	struct acct_assoc *bob = user(db, "bob", "physics", NULL);
	bob->max_wall = 10;
	user(db, "bob", "physics", "gpu");
	return db;
}

static void test_defaults(void **state)
{
	struct acct_db *db = acct_db_new();
	assert_int_equal(acct_db_ensure_defaults(db, "c1"), 0);
	assert_int_equal(acct_db_ensure_defaults(db, "c1"), 0); /* once */
	assert_int_equal(db->n_accounts, 1);
	assert_string_equal(acct_find_account(db, "root")->description,
			    "default root account");
	assert_int_equal(acct_find_user(db, "root")->admin, ACCT_ADMIN_ADMINISTRATOR);
	assert_non_null(acct_find_qos(db, "NORMAL")); /* QOS names in any case */
	assert_int_equal(db->n_assocs, 2);
	struct acct_assoc *top = acct_find_assoc(db, "c1", "root", NULL, NULL);
	assert_true(top->qos_set && acct_strs_has(&top->qos, "normal"));
	assert_null(acct_parent(db, top));
	assert_ptr_equal(acct_parent(db, acct_find_assoc(db, "c1", "root", "root", NULL)),
			 top);
	acct_db_free(db);
}

static void test_inheritance(void **state)
{
	struct acct_db *db = sample();
	struct acct_effective e;
	acct_effective(db, acct_find_assoc(db, "c1", "chem", "alice", NULL), &e);
	assert_int_equal(e.max_jobs, 2);  /* chem's */
	assert_int_equal(e.max_wall, 60); /* physics' */
	assert_int_equal(e.max_submit_jobs, ACCT_UNSET);
	assert_int_equal(e.max_tres_per_job.v[DRV_TRES_MEM], 1024); /* per TRES: chem's */
	assert_int_equal(e.max_tres_per_job.v[DRV_TRES_CPU], 4);    /* and physics' */
	assert_true(e.qos && e.qos->n == 2);
	assert_string_equal(e.default_qos, "high");
	acct_effective(db, acct_find_assoc(db, "c1", "physics", "bob", NULL), &e);
	assert_int_equal(e.max_wall, 10); /* its own wins */
	assert_int_equal(e.max_jobs, 5);
	/* the root's QOS list reaches everything without one */
	acct_effective(db, acct_find_assoc(db, "c1", "root", "root", NULL), &e);
	assert_true(e.qos && acct_strs_has(e.qos, "normal"));
	assert_null(e.default_qos);
	acct_db_free(db);
}

static void test_policy(void **state)
{
	struct acct_db *db = sample();
	assert_int_equal(acct_db_ensure_defaults(db, "c2"), 0); /* another tree */
	struct acct_policy p;
	assert_int_equal(acct_policy_build(db, "c1", 0x7, &p), 0);
	assert_true(p.enforce_limits && p.enforce_qos);
	assert_int_equal(p.n_assocs, 7); /* c1's: root, root/root, 2 accounts, 3 users */
	for (uint32_t i = 0; i < p.n_assocs; i++)
		assert_true(p.assocs[i].parent == ACCT_POLICY_NONE ||
			    p.assocs[i].parent < i);
	uint32_t alice = acct_policy_assoc_index(&p, "alice", "chem", NULL);
	assert_int_not_equal(alice, ACCT_POLICY_NONE);
	const struct acct_policy_assoc *a = &p.assocs[alice];
	assert_int_equal(a->max_jobs, 2);
	assert_int_equal(a->max_wall, 3600);	   /* seconds */
	assert_int_equal(a->grp_jobs, ACCT_UNSET); /* Grp* are not inherited */
	assert_int_equal(a->max_tres_per_job.v[DRV_TRES_CPU], 4);
	assert_string_equal(p.assocs[a->parent].account, "chem");
	assert_int_equal(p.assocs[p.assocs[a->parent].parent].grp_jobs, 9);
	assert_string_equal(p.qos[a->default_qos].name, "high");
	/* a partition's association, else the one without */
	uint32_t gpu = acct_policy_assoc_index(&p, "bob", "physics", "gpu");
	uint32_t any = acct_policy_assoc_index(&p, "bob", "physics", "batch");
	assert_int_not_equal(gpu, any);
	assert_string_equal(p.assocs[gpu].partition, "gpu");
	assert_null(p.assocs[any].partition);
	assert_int_equal(acct_policy_assoc_index(&p, "carol", "physics", NULL),
			 ACCT_POLICY_NONE);
	assert_int_equal(acct_policy_assoc_index(&p, "alice", "physics", NULL),
			 ACCT_POLICY_NONE);
	assert_int_not_equal(acct_policy_qos_index(&p, "HIGH"), ACCT_POLICY_NONE);
	assert_int_equal(acct_policy_qos_index(&p, "nope"), ACCT_POLICY_NONE);
	acct_policy_fini(&p);
	acct_policy_fini(&p); /* a zeroed one too */
	acct_db_free(db);
}

static void test_orders(void **state)
{
	struct acct_db *db = sample();
	account(db, "astro", "root"); /* newest account under root */
	struct acct_assoc **v = acct_tree_order(db);
	const char *want[] = {"root/",	     "root/root",   "astro/", "physics/",
			      "physics/bob", "physics/bob", "chem/",  "chem/alice"};
	for (size_t i = 0; i < db->n_assocs; i++) {
		char got[64];
		snprintf(got, sizeof(got), "%s/%s", v[i]->account,
			 v[i]->user ? v[i]->user : "");
		assert_string_equal(got, want[i]);
	}
	assert_int_equal(acct_tree_depth(db, v[7]), 3);
	free(v);
	/* Slurm's database order: siblings newest first, users and accounts
	 * alike (root's own user is its oldest child) */
	v = acct_lft_order(db);
	assert_string_equal(v[1]->account, "astro");
	assert_string_equal(v[2]->account, "physics");
	assert_string_equal(v[3]->partition, "gpu"); /* bob's newest */
	assert_string_equal(v[5]->account, "chem");
	assert_string_equal(v[7]->user, "root");
	free(v);
	acct_db_free(db);
}

/* --- assoc.update on the tables -------------------------------------------- */

static int update(struct acct_db *db, const char *action, const char *entity,
		  struct drv_rec_acct_cond *cond, struct drv_rec_acct_change *ch,
		  struct acct_result *r)
{
	struct drv_assoc_update m = {.action = action, .entity = entity};
	if (cond) {
		m.cond = *cond;
		m.has_cond = true;
	}
	if (ch) {
		m.change = *ch;
		m.has_change = true;
	}
	*r = (struct acct_result){0};
	return acct_update(db, "c1", &m, r);
}

static void test_changes(void **state)
{
	struct acct_db *db = sample();
	struct acct_result r;
	const char *bio[] = {"bio"};
	struct drv_rec_acct_cond names = {.names = bio, .n_names = 1, .has_names = true};
	struct drv_rec_acct_change ch = {
	    .parent = "chem", .max_jobs = 1, .has_max_jobs = true};
	assert_int_equal(update(db, "add", "account", &names, &ch, &r), 0);
	assert_int_equal(r.names.n, 1);
	assert_int_equal(r.n_added, 1);
	struct acct_assoc *a = acct_find_assoc_id(db, r.added[0]);
	assert_string_equal(a->parent, "chem");
	assert_int_equal(a->max_jobs, 1);
	assert_string_equal(acct_find_account(db, "bio")->organization, "chem");
	acct_result_fini(&r);
	/* a modify names the changed association and the users below that
	 * now inherit the limit */
	const char *physics[] = {"physics"};
	names.names = physics;
	ch = (struct drv_rec_acct_change){.max_submit_jobs = 3,
					  .has_max_submit_jobs = true};
	assert_int_equal(update(db, "modify", "account", &names, &ch, &r), 0);
	assert_int_equal(r.lines.n, 4); /* physics, bob (x2), and chem's alice */
	assert_string_equal(r.lines.v[0], "C = c1         A = physics of root");
	acct_result_fini(&r);
	/* refusals say why */
	const char *nope[] = {"nope"};
	struct drv_rec_acct_cond users = {.names = bio,
					  .n_names = 1,
					  .has_names = true,
					  .accounts = nope,
					  .n_accounts = 1,
					  .has_accounts = true};
	assert_int_equal(update(db, "add", "user", &users, NULL, &r), -EINVAL);
	assert_non_null(strstr(r.error, "This account 'nope' doesn't exist."));
	acct_result_fini(&r);
	ch = (struct drv_rec_acct_change){.grp_tres = "cpu=x"};
	assert_int_equal(update(db, "modify", "account", &names, &ch, &r), -EINVAL);
	assert_non_null(strstr(r.error, "Invalid unit type 'x'"));
	acct_result_fini(&r);
	/* a delete takes the subtree: bio goes with chem, alice's too */
	const char *chem[] = {"chem"};
	names.names = chem;
	assert_int_equal(update(db, "delete", "account", &names, NULL, &r), 0);
	assert_int_equal(r.names.n, 1);
	assert_null(acct_find_assoc(db, "c1", "bio", NULL, NULL));
	assert_null(acct_find_assoc(db, "c1", "chem", "alice", NULL));
	assert_non_null(acct_find_account(db, "bio")); /* as Slurm: the record stays */
	acct_result_fini(&r);
	acct_db_free(db);
}

/* --- commits: the records that differ --------------------------------------- */

struct puts {
	int n, deleted;
	char last[64];
};

static void on_put(int kind, const char *name, const char *rec, void *arg)
{
	struct puts *p = arg;
	p->n++;
	p->deleted += rec == NULL;
	snprintf(p->last, sizeof(p->last), "%d/%s", kind, name);
}

static void test_diff(void **state)
{
	struct acct_db *db = sample();
	struct acct_db *copy = acct_db_clone(db);
	struct puts p = {0};
	acct_db_diff(db, copy, on_put, &p);
	assert_int_equal(p.n, 0); /* a copy is equal */
	acct_find_qos(copy, "high")->priority = 7;
	acct_db_diff(db, copy, on_put, &p);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.last, "5/high");
	acct_remove_user(copy, acct_find_user(copy, "alice"));
	p = (struct puts){0};
	acct_db_diff(db, copy, on_put, &p);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.deleted, 1);
	p = (struct puts){0};
	acct_db_dump(db, on_put, &p);
	assert_int_equal(p.n, (int)(db->n_clusters + db->n_accounts + db->n_users +
				    db->n_assocs + db->n_qos));
	/* the store's record of an association has no usage in it */
	json_t *rec = acct_assoc_record(db->assocs[0], true);
	assert_null(json_object_get(rec, "raw_usage"));
	json_decref(rec);
	acct_db_free(copy);
	acct_db_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults), cmocka_unit_test(test_inheritance),
	    cmocka_unit_test(test_policy),   cmocka_unit_test(test_orders),
	    cmocka_unit_test(test_changes),  cmocka_unit_test(test_diff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
