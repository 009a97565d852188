/* test_conf_part.c — the partition keys of drover.conf (limits, access
 * lists, PriorityTier, OverSubscribe, State, memory and GPU defaults) with
 * their defaults, DEFAULT lines and bad values; node Weight=; Licenses=;
 * and the same keys applied to a live partition (drv_part_conf_set). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf_fixture.h"

#include "common/conf.h"

#define CTLD "SlurmctldHost=head\nNodeName=n[1-4]\n"

static void test_partition_defaults(void **state)
{
	struct drv_conf *c = load_ok(*state, CTLD "PartitionName=p Nodes=n1\n");
	const struct drv_part_conf *p = drv_conf_part(c, "p");
	char os[32];
	assert_int_equal(p->max_nodes, DRV_UNLIMITED32);
	assert_int_equal(p->min_nodes, 0);
	assert_int_equal(p->max_cpus_per_node, DRV_UNLIMITED32);
	assert_int_equal(p->max_mem_per_node, 0);
	assert_int_equal(p->def_mem_per_cpu, 0);
	assert_int_equal(p->def_mem_per_node, 0);
	assert_int_equal(p->def_cpu_per_gpu, 0);
	assert_int_equal(p->def_mem_per_gpu, 0);
	assert_null(p->allow_accounts);
	assert_null(p->deny_accounts);
	assert_null(p->allow_groups);
	assert_null(p->allow_qos);
	assert_null(p->deny_qos);
	assert_null(p->qos);
	assert_int_equal(p->priority_tier, 1);
	assert_int_equal(p->priority_job_factor, 1);
	assert_int_equal(p->oversubscribe, DRV_OS_NO);
	drv_part_oversubscribe_str(p, os, sizeof(os));
	assert_string_equal(os, "NO");
	assert_string_equal(p->state, "UP");
	assert_int_equal(c->nodes[0].weight, 1);
	assert_int_equal(c->n_licenses, 0);
	assert_int_equal(c->enforce_part_limits, DRV_ENFORCE_NO);
	drv_conf_free(c);
}

static void test_partition_keys(void **state)
{
	struct drv_conf *c = load_ok(
	    *state, CTLD "PartitionName=DEFAULT PriorityTier=5 AllowQos=Normal,HIGH\n"
			 "PartitionName=a Nodes=n[1-2] MaxNodes=2 MinNodes=1 "
			 "MaxCPUsPerNode=8 MaxMemPerNode=4096 DefMemPerCPU=100 "
			 "DefCpuPerGPU=4 DefMemPerGPU=2048 AllowAccounts=Phys,chem "
			 "AllowGroups=wheel,Staff QOS=part PriorityJobFactor=7 "
			 "OverSubscribe=YES:8 State=DRAIN\n"
			 "PartitionName=b Nodes=n3 DenyAccounts=Bad DenyQos=Slow "
			 "AllowQos=ALL Shared=FORCE State=inactive MaxNodes=INFINITE "
			 "Priority=9 DefMemPerNode=512\n"
			 "PartitionName=c Nodes=n4 OverSubscribe=EXCLUSIVE "
			 "AllowAccounts=ALL AllowGroups=all MaxMemPerNode=UNLIMITED\n");
	const struct drv_part_conf *a = drv_conf_part(c, "a");
	char os[32];
	assert_int_equal(a->max_nodes, 2);
	assert_int_equal(a->min_nodes, 1);
	assert_int_equal(a->max_cpus_per_node, 8);
	assert_int_equal(a->max_mem_per_node, 4096);
	assert_int_equal(a->def_mem_per_cpu, 100);
	assert_int_equal(a->def_cpu_per_gpu, 4);
	assert_int_equal(a->def_mem_per_gpu, 2048);
	assert_string_equal(a->allow_accounts, "phys,chem"); /* lower-cased */
	assert_string_equal(a->allow_groups, "wheel,Staff"); /* as written */
	assert_string_equal(a->allow_qos, "normal,high");    /* from DEFAULT */
	assert_string_equal(a->qos, "part");
	assert_int_equal(a->priority_tier, 5);
	assert_int_equal(a->priority_job_factor, 7);
	assert_int_equal(a->oversubscribe, DRV_OS_YES);
	drv_part_oversubscribe_str(a, os, sizeof(os));
	assert_string_equal(os, "YES:8");
	assert_string_equal(a->state, "DRAIN");
	assert_false(drv_part_state_submit(a->state));
	assert_true(drv_part_state_sched(a->state));

	const struct drv_part_conf *b = drv_conf_part(c, "b");
	assert_string_equal(b->deny_accounts, "bad");
	assert_string_equal(b->deny_qos, "slow");
	assert_null(b->allow_qos); /* ALL over the DEFAULT line's list */
	assert_int_equal(b->max_nodes, DRV_UNLIMITED32);
	assert_int_equal(b->priority_tier, 9); /* Priority= sets both */
	assert_int_equal(b->priority_job_factor, 9);
	assert_int_equal(b->def_mem_per_node, 512);
	drv_part_oversubscribe_str(b, os, sizeof(os));
	assert_string_equal(os, "FORCE:4");
	assert_string_equal(b->state, "INACTIVE");
	assert_false(drv_part_state_submit(b->state));
	assert_false(drv_part_state_sched(b->state));

	const struct drv_part_conf *p = drv_conf_part(c, "c");
	drv_part_oversubscribe_str(p, os, sizeof(os));
	assert_string_equal(os, "EXCLUSIVE");
	assert_null(p->allow_accounts);
	assert_null(p->allow_groups);
	assert_int_equal(p->max_mem_per_node, 0);
	assert_true(drv_part_state_submit("DOWN"));
	assert_false(drv_part_state_sched("DOWN"));
	drv_conf_free(c);
}

static void test_partition_bad_values(void **state)
{
	struct fixture *f = *state;
	load_bad(f, CTLD "PartitionName=p MaxNodes=-1\n", 3, "MaxNodes");
	load_bad(f, CTLD "PartitionName=p MaxNodes=lots\n", 3, "MaxNodes: 'lots'");
	load_bad(f, CTLD "PartitionName=p MinNodes=UNLIMITED\n", 3, "MinNodes");
	load_bad(f, CTLD "PartitionName=p MaxCPUsPerNode=0\n", 3, "MaxCPUsPerNode");
	load_bad(f, CTLD "PartitionName=p MaxMemPerNode=1G\n", 3, "MaxMemPerNode");
	load_bad(f, CTLD "PartitionName=p PriorityTier=65536\n", 3, "PriorityTier");
	load_bad(f, CTLD "PartitionName=p PriorityJobFactor=x\n", 3, "PriorityJobFactor");
	load_bad(f, CTLD "PartitionName=p OverSubscribe=MAYBE\n", 3, "OverSubscribe");
	load_bad(f, CTLD "PartitionName=p OverSubscribe=YES:1\n", 3, "OverSubscribe");
	load_bad(f, CTLD "PartitionName=p OverSubscribe=FORCE:0\n", 3, "OverSubscribe");
	load_bad(f, CTLD "PartitionName=p OverSubscribe=NO:2\n", 3, "OverSubscribe");
	load_bad(f, CTLD "PartitionName=p State=SLEEPING\n", 3, "State");
	load_bad(f, CTLD "PartitionName=p AllowAccounts=a,,b\n", 3, "AllowAccounts");
	load_bad(f, CTLD "PartitionName=p DefCpuPerGPU=many\n", 3, "DefCpuPerGPU");
	load_bad(f, CTLD "PartitionName=p DefMemPerGPU=-2\n", 3, "DefMemPerGPU");
	load_bad(f, CTLD "PartitionName=p Priority=70000\n", 3, "Priority");
}

static void test_node_weight(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, "SlurmctldHost=head\n"
					"NodeName=DEFAULT Weight=10\n"
					"NodeName=a[1-2]\n"
					"NodeName=b Weight=0\n"
					"NodeName=c Weight=4294967294\n");
	assert_int_equal(drv_conf_node(c, "a2")->weight, 10);
	assert_int_equal(drv_conf_node(c, "b")->weight, 0);
	assert_int_equal(drv_conf_node(c, "c")->weight, 4294967294u);
	drv_conf_free(c);
	load_bad(f, "SlurmctldHost=head\nNodeName=n Weight=heavy\n", 2, "Weight");
	load_bad(f, "SlurmctldHost=head\nNodeName=n Weight=4294967295\n", 2, "Weight");
}

static void test_licenses_and_enforce(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD "Licenses=matlab:4,fluent;matlab:2\n"
					     "EnforcePartLimits=ANY\n"
					     "DefCpuPerGPU=2 DefMemPerGPU=1000\n");
	assert_int_equal(c->n_licenses, 2);
	assert_string_equal(c->licenses[0].name, "matlab");
	assert_int_equal(c->licenses[0].total, 6); /* named twice: added up */
	assert_string_equal(c->licenses[1].name, "fluent");
	assert_int_equal(c->licenses[1].total, 1);
	assert_int_equal(c->enforce_part_limits, DRV_ENFORCE_ANY);
	assert_int_equal(c->def_cpu_per_gpu, 2);
	assert_int_equal(c->def_mem_per_gpu, 1000);
	drv_conf_free(c);
	c = load_ok(f, CTLD "EnforcePartLimits=YES\nLicenses=a\nLicenses=b:3\n");
	assert_int_equal(c->enforce_part_limits, DRV_ENFORCE_ALL);
	assert_int_equal(c->n_licenses, 1); /* a later line replaces */
	assert_string_equal(c->licenses[0].name, "b");
	drv_conf_free(c);
	load_bad(f, CTLD "Licenses=matlab:x\n", 3,
		 "Licenses: 'x' is not a license count");
	load_bad(f, CTLD "Licenses=:4\n", 3, "Licenses: a license has no name");
	load_bad(f, CTLD "Licenses=a:-1\n", 3, "Licenses");
	load_bad(f, CTLD "EnforcePartLimits=SOME\n", 3, "EnforcePartLimits");
}

/* The live API: the same table, the same words, and pc unchanged on error. */
static void test_live_set(void **state)
{
	struct drv_part_conf pc, copy;
	struct drv_error err = {{0}};
	assert_int_equal(drv_part_conf_init(&pc, "live"), 0);
	assert_string_equal(pc.name, "live");
	assert_int_equal(pc.max_time, DRV_INFINITE);
	assert_int_equal(pc.default_time, DRV_NO_VAL);
	assert_string_equal(pc.state, "UP");
	assert_int_equal(drv_part_conf_set(&pc, "maxnodes", "3", &err), 0);
	assert_int_equal(pc.max_nodes, 3);
	assert_int_equal(drv_part_conf_set(&pc, "State", "drain", &err), 0);
	assert_string_equal(pc.state, "DRAIN");
	assert_int_equal(drv_part_conf_set(&pc, "Nodes", "n[1-2]", &err), 0);
	assert_string_equal(pc.nodes, "n[1-2]");
	assert_int_equal(drv_part_conf_set(&pc, "AllowQos", "A,b", &err), 0);
	assert_int_equal(drv_part_conf_set(&pc, "Hidden", "YES", &err), 0); /* accepted */

	assert_int_equal(drv_part_conf_set(&pc, "MaxNodes", "x", &err), -EINVAL);
	assert_string_equal(err.text, "MaxNodes: 'x' is not a number");
	assert_int_equal(pc.max_nodes, 3);
	assert_int_equal(drv_part_conf_set(&pc, "State", "ASLEEP", &err), -EINVAL);
	assert_string_equal(pc.state, "DRAIN");
	assert_int_equal(drv_part_conf_set(&pc, "Bogus", "1", &err), -ENOENT);
	assert_int_equal(drv_part_conf_set(&pc, "PartitionName", "x", &err), -ENOENT);
	assert_int_equal(drv_part_conf_set(&pc, "MaxTime", "", &err), -EINVAL);

	assert_int_equal(drv_part_conf_copy(&copy, &pc), 0);
	assert_ptr_not_equal(copy.allow_qos, pc.allow_qos);
	assert_string_equal(copy.allow_qos, "a,b");
	assert_string_equal(copy.name, "live");
	drv_part_conf_fini(&pc);
	assert_string_equal(copy.nodes, "n[1-2]");
	drv_part_conf_fini(&copy);
	drv_part_conf_fini(NULL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_partition_defaults),	  T(test_partition_keys),
	    T(test_partition_bad_values), T(test_node_weight),
	    T(test_licenses_and_enforce), cmocka_unit_test(test_live_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
