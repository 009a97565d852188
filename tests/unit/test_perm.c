/* test_perm.c — who may do what (ctld/perm.c, perm_acctmgr.c) without a
 * daemon: the roles (SlurmUser level, AdminLevel, coordinators of an
 * account and the accounts below it), acting on a job, Slurm's time-limit
 * rule, what PrivateData=jobs lets a user see, and sacctmgr's rules. User
 * names and partitions come from the stubs below, not from the system. */
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
#include "ctld/ctld.h"
#include "ctld/perm.h"

enum { ROOT = 0, CTLD_UID = 500, ALICE = 1001, BOB = 1002, CAROL = 1003, OPER = 1004 };

/* identity.c's, over a fixed table */
char *identity_user_name(uid_t uid)
{
	const char *n = uid == ALICE   ? "alice"
			: uid == BOB   ? "bob"
			: uid == CAROL ? "carol"
			: uid == OPER  ? "oper"
				       : "nobody";
	return strdup(n);
}

/* part.c's: one partition, "p", MaxTime 30 minutes */
static struct drv_part_conf p_conf = {.name = "p", .max_time = 1800};
static struct part p_part = {.conf = &p_conf};
struct part *part_find(const struct ctld *c, const char *name)
{
	(void)c;
	return !strcmp(name, "p") ? &p_part : NULL;
}

static void account(struct acct_db *db, const char *name, const char *parent)
{
	assert_non_null(acct_add_account(db, name));
	struct acct_assoc *a = acct_add_assoc(db, "c1", name, NULL, NULL);
	assert_non_null(a);
	assert_int_equal(acct_set_str(&a->parent, parent), 0);
}

static struct acct_user *user(struct acct_db *db, const char *name, const char *acct)
{
	struct acct_user *u = acct_find_user(db, name);
	if (!u)
		u = acct_add_user(db, name);
	assert_non_null(u);
	assert_non_null(acct_add_assoc(db, "c1", acct, name, NULL));
	return u;
}

struct world {
	struct ctld c;
	struct drv_conf conf;
};

/* root > physics > theory; chem. alice coordinates physics; bob in theory;
 * carol in chem; oper an Operator. */
static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	w->conf.cluster_name = "c1";
	w->c.conf = &w->conf;
	w->c.owner_uid = CTLD_UID;
	w->c.slurm_uid = CTLD_UID;
	struct acct_db *db = acct_db_new();
	assert_int_equal(acct_db_ensure_defaults(db, "c1"), 0);
	account(db, "physics", "root");
	account(db, "theory", "physics");
	account(db, "chem", "root");
	assert_int_equal(acct_strs_add(&user(db, "alice", "chem")->coord, "physics"), 0);
	user(db, "bob", "theory");
	user(db, "carol", "chem");
	user(db, "oper", "chem")->admin = ACCT_ADMIN_OPERATOR;
	w->c.acct = db;
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	acct_db_free(w->c.acct);
	free(w);
	return 0;
}

static struct perm who(struct world *w, uid_t uid)
{
	struct perm p;
	perm_of(&w->c, uid, false, &p);
	return p;
}

static struct job job_of(uid_t uid, const char *account, enum job_state st)
{
	struct job j = {.uid = uid, .state = st, .partition = "p", .time_limit = 600};
	j.req.account = (char *)account;
	return j;
}

static void test_roles(void **state)
{
	struct world *w = *state;
	struct perm p = who(w, ROOT);
	assert_true(perm_is_slurm_user(&p) && perm_is_admin(&p) && perm_is_operator(&p));
	p = who(w, CTLD_UID);
	assert_true(perm_is_admin(&p));
	perm_of(&w->c, 4242, true, &p); /* a daemon's frame */
	assert_true(perm_is_slurm_user(&p));
	p = who(w, OPER);
	assert_true(perm_is_operator(&p));
	assert_false(perm_is_admin(&p) || perm_is_slurm_user(&p));
	acct_find_user(w->c.acct, "oper")->admin = ACCT_ADMIN_ADMINISTRATOR;
	p = who(w, OPER);
	assert_true(perm_is_admin(&p));
	assert_false(perm_is_slurm_user(&p));
	p = who(w, ALICE);
	assert_false(perm_is_operator(&p));
	assert_true(perm_is_coord(&p, "physics"));
	assert_true(perm_is_coord(&p, "theory")); /* below what she coordinates */
	assert_false(perm_is_coord(&p, "chem"));
	assert_false(perm_is_coord(&p, "root"));
	assert_false(perm_is_coord(&p, NULL));
	p = who(w, 4242); /* no sacctmgr user at all */
	assert_false(perm_is_operator(&p) || perm_is_coord(&p, "physics"));
}

static void test_act_on_jobs(void **state)
{
	struct world *w = *state;
	struct job bobs = job_of(BOB, "theory", JOB_PENDING);
	struct job carols = job_of(CAROL, "chem", JOB_PENDING);
	struct perm alice = who(w, ALICE), bob = who(w, BOB), carol = who(w, CAROL);
	struct perm oper = who(w, OPER);
	assert_true(perm_may_act_on(&bob, &bobs));
	assert_true(perm_may_act_on(&alice, &bobs)); /* coordinator of physics */
	assert_false(perm_may_act_on(&alice, &carols));
	assert_false(perm_may_act_on(&carol, &bobs));
	assert_true(perm_may_act_on(&oper, &carols));
	/* PrivateData=jobs: the same people see the job; without it, all */
	assert_true(perm_may_see_job(&carol, &bobs));
	w->conf.private_data = DRV_PRIVATE_JOBS;
	assert_false(perm_may_see_job(&carol, &bobs));
	assert_true(perm_may_see_job(&alice, &bobs));
	assert_true(perm_may_see_job(&oper, &bobs));
	struct perm_scope s;
	assert_int_equal(perm_job_scope(&alice, &s), 0);
	assert_false(s.all);
	assert_true(perm_scope_has(&s, ALICE, "chem"));	 /* her own */
	assert_true(perm_scope_has(&s, BOB, "theory"));	 /* coordinated */
	assert_false(perm_scope_has(&s, CAROL, "chem")); /* neither */
	assert_false(perm_scope_has(&s, CAROL, NULL));
	perm_scope_fini(&s);
	assert_int_equal(perm_job_scope(&oper, &s), 0);
	assert_true(s.all);
	perm_scope_fini(&s);
	w->conf.private_data = 0;
}

static void test_time_limit(void **state)
{
	struct world *w = *state;
	struct perm bob = who(w, BOB), oper = who(w, OPER);
	struct job pend = job_of(BOB, "theory", JOB_PENDING);
	struct job run = job_of(BOB, "theory", JOB_RUNNING);
	assert_true(perm_may_set_time_limit(&bob, &pend, 300));	  /* lower */
	assert_true(perm_may_set_time_limit(&bob, &pend, 1800));  /* up to MaxTime */
	assert_false(perm_may_set_time_limit(&bob, &pend, 1860)); /* past it */
	assert_false(perm_may_set_time_limit(&bob, &pend, DRV_INFINITE));
	assert_true(perm_may_set_time_limit(&bob, &run, 300));
	assert_false(perm_may_set_time_limit(&bob, &run, 900)); /* running: no raise */
	assert_true(perm_may_set_time_limit(&oper, &run, DRV_INFINITE));
	pend.time_limit = DRV_INFINITE;
	assert_true(perm_may_set_time_limit(&bob, &pend, 60)); /* any limit is lower */
	pend.partition = "gone"; /* no MaxTime to check against */
	pend.time_limit = 600;
	assert_true(perm_may_set_time_limit(&bob, &pend, 99999));
}

static bool may(struct world *w, uid_t uid, const char *action, const char *entity,
		struct drv_rec_acct_cond cond, struct drv_rec_acct_change ch)
{
	struct drv_assoc_update m = {
	    .action = action, .entity = entity, .cond = cond, .change = ch};
	struct perm p = who(w, uid);
	return perm_may_update_acct(&p, &m);
}

static void test_sacctmgr(void **state)
{
	struct world *w = *state;
	const char *physics[] = {"physics"}, *chem[] = {"chem"}, *bob[] = {"bob"},
		   *alice[] = {"alice"}, *qcd[] = {"qcd"};
	struct drv_rec_acct_cond none = {0};
	struct drv_rec_acct_change nothing = {0};
	struct drv_rec_acct_cond in_physics = {
	    .accounts = physics, .n_accounts = 1, .names = bob, .n_names = 1};
	struct drv_rec_acct_cond in_chem = {
	    .accounts = chem, .n_accounts = 1, .names = bob, .n_names = 1};
	struct drv_rec_acct_cond name_qcd = {.names = qcd, .n_names = 1};
	struct drv_rec_acct_change under_physics = {.parent = "physics"};
	struct drv_rec_acct_change operator= {.admin_level = "Operator"};
	/* administrators: anything; operators: all but QOS, clusters, levels */
	assert_true(may(w, ROOT, "add", "qos", name_qcd, nothing));
	assert_false(may(w, OPER, "add", "qos", name_qcd, nothing));
	assert_true(may(w, OPER, "add", "account", name_qcd, nothing));
	assert_true(may(w, OPER, "add", "user", in_chem, operator));
	assert_false(may(w, OPER, "modify", "user", in_chem, operator));
	/* a coordinator, within the accounts it coordinates */
	assert_true(may(w, ALICE, "add", "account", name_qcd, under_physics));
	assert_false(may(w, ALICE, "add", "account", name_qcd, nothing)); /* under root */
	assert_true(may(w, ALICE, "add", "user", in_physics, nothing));
	assert_false(may(w, ALICE, "add", "user", in_chem, nothing));
	assert_false(may(w, ALICE, "add", "user", in_physics, operator));
	assert_true(may(w, ALICE, "delete", "user", in_physics, nothing));
	assert_true(may(w, ALICE, "add", "coordinator", in_physics, nothing));
	assert_false(may(w, ALICE, "modify", "account", name_qcd, nothing));
	assert_false(may(w, ALICE, "delete", "user", none, nothing));
	/* anyone: their own default account, nothing else */
	struct drv_rec_acct_cond me = {.names = alice, .n_names = 1};
	struct drv_rec_acct_change def = {.default_account = "chem"};
	assert_true(may(w, ALICE, "modify", "user", me, def));
	assert_false(may(w, CAROL, "modify", "user", me, def));
	assert_false(may(w, CAROL, "add", "account", name_qcd, nothing));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_roles),
	    T(test_act_on_jobs),
	    T(test_time_limit),
	    T(test_sacctmgr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
