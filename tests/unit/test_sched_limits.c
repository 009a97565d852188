/* test_sched_limits.c — association and QOS limits in the pure scheduler:
 * each limit holds a job with Slurm's reason, counts grow as a pass starts
 * jobs, Grp limits count a whole subtree, the partition's QOS wins over the
 * job's, AccountingStorageEnforce decides what counts, and a held job is
 * neither planned nor in anyone's way. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_fixture.h"

static struct sched_tres_vec unlimited(void)
{
	struct sched_tres_vec v;
	for (int k = 0; k < SCHED_TRES_COUNT; k++)
		v.v[k] = SCHED_UNLIMITED;
	return v;
}

static void qos_init(struct sched_qos *q, const char *name)
{
	*q = (struct sched_qos){.name = name,
				.usage_factor = 1.0,
				.max_wall = SCHED_NEVER,
				.max_jobs_per_user = SCHED_NONE,
				.grp_jobs = SCHED_NONE,
				.max_tres_per_user = unlimited(),
				.max_tres_per_job = unlimited(),
				.grp_tres = unlimited()};
}

static void assoc_init(struct sched_assoc *a, uint32_t parent, uint32_t uid)
{
	*a = (struct sched_assoc){.parent = parent,
				  .uid = uid,
				  .shares = 1,
				  .grp_jobs = SCHED_NONE,
				  .max_jobs = SCHED_NONE,
				  .grp_tres = unlimited(),
				  .max_tres_per_job = unlimited(),
				  .max_wall = SCHED_NEVER};
}

/* Two nodes of 16 CPUs, 4096 MiB, 4 GPUs; QOS 0 (normal) and 1 (part);
 * associations root(0) > acct(1) > users 1000 (2) and 2000 (3). User
 * 1000 runs job 90 (2 CPUs, 1000 MiB, 1 GPU); job 1 of user 1000 asks
 * for the same. */
static struct fx *setup(void)
{
	struct fx *f = fx_new(0);
	fx_node(f, 16, 4096, 4, NULL);
	fx_node(f, 16, 4096, 4, NULL);
	uint32_t p = fx_part(f, 0, 1);
	qos_init(&f->qos[0], "normal");
	qos_init(&f->qos[1], "part");
	assoc_init(&f->assocs[0], SCHED_NONE, SCHED_NONE);
	assoc_init(&f->assocs[1], 0, SCHED_NONE);
	assoc_init(&f->assocs[2], 1, 1000);
	assoc_init(&f->assocs[3], 1, 2000);
	f->policy = (struct sched_policy){f->qos, 2, f->assocs, 4, true, true};
	f->snap.policy = &f->policy;
	struct sched_running *r = fx_run(f, 90, p, 5000, 0, 0x3);
	r->qos = 0, r->assoc = 2, r->uid = 1000;
	f->ralloc[0][0].mem = 1000;
	f->runits[0][0][0] = 1;
	struct sched_pending *j = fx_job(f, 1, 9, p, 2, 1, 600);
	j->qos = 0, j->assoc = 2, j->uid = 1000;
	fx_req(f, j)->mem_per_node = 1000;
	fx_req(f, j)->gpus_per_node = 1;
	return f;
}

enum where { QOS_GRP, QOS_USER, QOS_JOB, ACCT_GRP, USER_JOB };

static void set_tres(struct fx *f, enum where w, int tres, uint64_t v)
{
	struct sched_tres_vec *t = w == QOS_GRP	   ? &f->qos[0].grp_tres
				   : w == QOS_USER ? &f->qos[0].max_tres_per_user
				   : w == QOS_JOB  ? &f->qos[0].max_tres_per_job
				   : w == ACCT_GRP ? &f->assocs[1].grp_tres
						   : &f->assocs[2].max_tres_per_job;
	t->v[tres] = v;
}

/* Each TRES limit, set so that job 1 goes over it by a little. */
static void every_tres_limit_has_its_reason(void **state)
{
	static const struct {
		enum where w;
		int tres;
		uint64_t v;
		const char *reason;
	} cases[] = {
	    {QOS_GRP, SCHED_TRES_CPU, 3, "QOSGrpCpuLimit"},
	    {QOS_GRP, SCHED_TRES_MEM, 1500, "QOSGrpMemLimit"},
	    {QOS_GRP, SCHED_TRES_GPU, 1, "QOSGrpGRES"},
	    {QOS_GRP, SCHED_TRES_NODE, 1, "QOSGrpNodeLimit"},
	    {QOS_GRP, SCHED_TRES_BILLING, 3, "QOSGrpBilling"},
	    {QOS_USER, SCHED_TRES_CPU, 3, "QOSMaxCpuPerUserLimit"},
	    {QOS_USER, SCHED_TRES_MEM, 1500, "QOSMaxMemoryPerUser"},
	    {QOS_USER, SCHED_TRES_GPU, 1, "QOSMaxGRESPerUser"},
	    {QOS_USER, SCHED_TRES_NODE, 1, "QOSMaxNodePerUserLimit"},
	    {QOS_USER, SCHED_TRES_BILLING, 3, "QOSMaxBillingPerUser"},
	    {QOS_JOB, SCHED_TRES_CPU, 1, "QOSMaxCpuPerJobLimit"},
	    {QOS_JOB, SCHED_TRES_MEM, 500, "QOSMaxMemoryPerJob"},
	    {QOS_JOB, SCHED_TRES_GPU, 0, "QOSMaxGRESPerJob"},
	    {QOS_JOB, SCHED_TRES_NODE, 0, "QOSMaxNodePerJobLimit"},
	    {QOS_JOB, SCHED_TRES_BILLING, 1, "QOSMaxBillingPerJob"},
	    {ACCT_GRP, SCHED_TRES_CPU, 3, "AssocGrpCpuLimit"},
	    {ACCT_GRP, SCHED_TRES_MEM, 1500, "AssocGrpMemLimit"},
	    {ACCT_GRP, SCHED_TRES_GPU, 1, "AssocGrpGRES"},
	    {ACCT_GRP, SCHED_TRES_NODE, 1, "AssocGrpNodeLimit"},
	    {ACCT_GRP, SCHED_TRES_BILLING, 3, "AssocGrpBilling"},
	    {USER_JOB, SCHED_TRES_CPU, 1, "AssocMaxCpuPerJobLimit"},
	    {USER_JOB, SCHED_TRES_MEM, 500, "AssocMaxMemPerJob"},
	    {USER_JOB, SCHED_TRES_GPU, 0, "AssocMaxGRESPerJob"},
	    {USER_JOB, SCHED_TRES_NODE, 0, "AssocMaxNodePerJobLimit"},
	    {USER_JOB, SCHED_TRES_BILLING, 1, "AssocMaxBillingPerJob"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx *f = setup();
		set_tres(f, cases[i].w, cases[i].tres, cases[i].v);
		assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
		assert_string_equal(fx_what(f, 1), cases[i].reason);
		assert_int_equal(fx_dec(f, 1)->start, 0); /* held: not planned */
		/* at the limit exactly it starts: its own, plus job 90's for
		 * limits that count what runs */
		static const uint64_t job[SCHED_TRES_COUNT] = {2, 1000, 1, 1, 2};
		bool counts_running = cases[i].w != QOS_JOB && cases[i].w != USER_JOB;
		uint64_t at = job[cases[i].tres] * (counts_running ? 2 : 1);
		set_tres(f, cases[i].w, cases[i].tres, at);
		assert_int_equal(fx_pass(f, SCHED_PASS_BACKFILL), 0);
		assert_string_equal(fx_what(f, 1), "start");
		fx_free(f);
	}
}

static void job_counts_wall_and_enforcement(void **state)
{
	static const char *const want[] = {
	    "QOSMaxJobsPerUserLimit",
	    "QOSGrpJobsLimit",
	    "QOSMaxWallDurationPerJobLimit",
	    "AssocGrpJobsLimit",
	    "AssocMaxJobsLimit",
	    "AssocMaxWallDurationPerJobLimit",
	};
	for (int i = 0; i < 6; i++) {
		struct fx *f = setup();
		switch (i) {
		case 0:
			f->qos[0].max_jobs_per_user = 1;
			break;
		case 1:
			f->qos[0].grp_jobs = 1;
			break;
		case 2:
			f->qos[0].max_wall = 300;
			break;
		case 3:
			f->assocs[1].grp_jobs = 1;
			break; /* the account's subtree */
		case 4:
			f->assocs[2].max_jobs = 1;
			break;
		case 5:
			f->assocs[2].max_wall = 300;
			break;
		}
		assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
		assert_string_equal(fx_what(f, 1), want[i]);
		/* not enforced: not held */
		if (i < 3)
			f->policy.enforce_qos = false;
		else
			f->policy.enforce_limits = false;
		assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
		assert_string_equal(fx_what(f, 1), "start");
		fx_free(f);
	}
}

static void counts_grow_as_the_pass_starts_jobs(void **state)
{
	struct fx *f = setup();
	f->snap.n_running = 0;
	f->qos[0].max_jobs_per_user = 2;
	for (uint32_t id = 2; id <= 3; id++) {
		struct sched_pending *j = fx_job(f, id, 9 - id, 0, 1, 1, 600);
		j->qos = 0, j->assoc = 2, j->uid = 1000;
	}
	struct sched_pending *other = fx_job(f, 4, 1, 0, 1, 1, 600);
	other->qos = 0, other->assoc = 3, other->uid = 2000;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_string_equal(fx_what(f, 2), "start");
	assert_string_equal(fx_what(f, 3), "QOSMaxJobsPerUserLimit");
	assert_string_equal(fx_what(f, 4), "start"); /* another user */
	/* array tasks count one by one */
	f->snap.n_pending = 1;
	f->pending[0].count = 4;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_int_equal(f->res.stats.started, 2);
	assert_string_equal(sched_reason_name(fx_dec_k(f, 1, 2)->reason),
			    "QOSMaxJobsPerUserLimit");
	fx_free(f);
}

static void the_partition_qos_wins_over_the_jobs(void **state)
{
	struct fx *f = setup();
	f->qos[0].max_jobs_per_user = 1;
	f->qos[1].max_jobs_per_user = 2;
	f->parts[0].qos = 1;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "start");
	f->qos[1].max_jobs_per_user = 1;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "QOSMaxJobsPerUserLimit");
	/* a limit only the job's QOS sets still holds */
	f->qos[1].max_jobs_per_user = SCHED_NONE;
	f->qos[0].max_wall = 60;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "QOSMaxWallDurationPerJobLimit");
	fx_free(f);
}

static void a_held_job_stands_in_no_ones_way(void **state)
{
	struct fx *f = setup();
	f->assocs[2].max_jobs = 1;
	f->nodes[1].up = false;
	fx_req(f, &f->pending[0])->ntasks = 14; /* the rest of node 0 */
	struct sched_pending *j = fx_job(f, 2, 1, 0, 14, 1, 600);
	j->qos = 0, j->assoc = 3, j->uid = 2000;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "AssocMaxJobsLimit");
	assert_string_equal(fx_what(f, 2), "start");
	fx_free(f);
}

/* An exclusive job holds more than it asks: its limits see what it gets. */
static void limits_see_what_a_job_really_gets(void **state)
{
	struct fx *f = setup();
	f->snap.n_running = 0;
	f->qos[0].grp_tres.v[SCHED_TRES_CPU] = 8;
	fx_req(f, &f->pending[0])->exclusive = true;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "QOSGrpCpuLimit");
	f->qos[0].grp_tres.v[SCHED_TRES_CPU] = 16;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	assert_string_equal(fx_what(f, 1), "start");
	assert_int_equal(fx_alloc(f, fx_dec(f, 1), 0)->cpus, 16);
	fx_free(f);
}

static void reason_names_are_slurms(void **state)
{
	assert_string_equal(sched_reason_name(SCHED_R_PRIORITY), "Priority");
	assert_string_equal(sched_reason_name(SCHED_R_RESOURCES), "Resources");
	assert_string_equal(sched_reason_name(SCHED_R_PART_DOWN), "PartitionDown");
	assert_string_equal(sched_reason_name(SCHED_R_RESERVATION), "Reservation");
	assert_string_equal(sched_reason_name(SCHED_R_NONE), "None");
	assert_string_equal(sched_reason_name(SCHED_R_COUNT), "None");
	for (int r = 1; r < SCHED_R_COUNT; r++)
		assert_string_not_equal(sched_reason_name((enum sched_reason)r), "None");
}

static void a_malformed_policy_is_refused(void **state)
{
	struct fx *f = setup();
	f->assocs[1].parent = 2; /* a parent after its child */
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), -EINVAL);
	f->assocs[1].parent = 0;
	f->pending[0].qos = 5;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), -EINVAL);
	f->pending[0].qos = 0;
	f->running[0].assoc = 9;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), -EINVAL);
	f->running[0].assoc = 2;
	assert_int_equal(fx_pass(f, SCHED_PASS_QUICK), 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_tres_limit_has_its_reason),
	    cmocka_unit_test(job_counts_wall_and_enforcement),
	    cmocka_unit_test(counts_grow_as_the_pass_starts_jobs),
	    cmocka_unit_test(the_partition_qos_wins_over_the_jobs),
	    cmocka_unit_test(a_held_job_stands_in_no_ones_way),
	    cmocka_unit_test(limits_see_what_a_job_really_gets),
	    cmocka_unit_test(reason_names_are_slurms),
	    cmocka_unit_test(a_malformed_policy_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
