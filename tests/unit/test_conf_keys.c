/* test_conf_keys.c — config errors are errors: a key unknown to Slurm is
 * fatal with file:line and the nearest known key; a Slurm key harmless
 * under Drover is accepted, a value Drover would not honour is refused
 * naming key and value; a missing value is named; docs/compat.md lists
 * every Slurm key Drover accepts without acting on it, once. */
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
#include "common/conf_internal.h"

#define CTLD "SlurmctldHost=head\n"

/* Expects text refused with exactly "path:line: what". */
static void refused(struct fixture *f, const char *text, int line, const char *what)
{
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	char want[PATH_MAX + 300];
	assert_int_equal(load(f, text, &c, &err), -EINVAL);
	assert_null(c);
	snprintf(want, sizeof(want), "%s:%d: %s", f->path, line, what);
	assert_string_equal(err.text, want);
}

static void test_unknown_key_suggests(void **state)
{
	struct fixture *f = *state;
	refused(f, CTLD "SlurmdTimout=30\n", 2,
		"Parsing error at unrecognized key: SlurmdTimout (did you mean "
		"SlurmdTimeout?)");
	refused(f, CTLD "\nkillwiat=5\n", 3,
		"Parsing error at unrecognized key: killwiat (did you mean KillWait?)");
	refused(f, CTLD "NodeNme=n1\n", 2,
		"Parsing error at unrecognized key: NodeNme (did you mean NodeName?)");
	refused(f, CTLD "NodeName=n1 CPUx=2 RealMemory=4096\n", 2,
		"Parsing error at unrecognized key: CPUx (did you mean CPUs?)");
	refused(f, CTLD "NodeName=n1\nPartitionName=p Nodez=n1\n", 3,
		"Parsing error at unrecognized key: Nodez (did you mean Nodes?)");
	/* nothing near: no guess */
	refused(f, CTLD "Zyxwvu=1\n", 2, "Parsing error at unrecognized key: Zyxwvu");
}

static void test_missing_value(void **state)
{
	struct fixture *f = *state;
	refused(f, CTLD "NodeName=x CPUs= RealMemory=4096\n", 2,
		"the value of CPUs is missing");
	refused(f, CTLD "MinJobAge=\n", 2, "the value of MinJobAge is missing");
	refused(f, CTLD "TaskPlugin=\n", 2, "the value of TaskPlugin is missing");
	refused(f, CTLD "DebugFlags= \n", 2, "the value of DebugFlags is missing");
	/* spaces around '=' before a value are still allowed */
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	assert_int_equal(load(f, CTLD "NodeName=x CPUs= 4 RealMemory = 4096\n", &c, &err),
			 0);
	assert_int_equal(drv_conf_node(c, "x")->cpus, 4);
	assert_int_equal(drv_conf_node(c, "x")->real_memory, 4096);
	drv_conf_free(c);
}

/* A slurm.conf's keys that are harmless or equivalent under Drover. */
static void test_harmless_keys_accepted(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	int rc =
	    load(f,
		 CTLD "TaskPlugin=task/affinity,task/cgroup\n"
		      "ProctrackType=proctrack/cgroup\nMpiDefault=none\n"
		      "SelectType=select/cons_tres\nSwitchType=switch/none\n"
		      "JobAcctGatherType=jobacct_gather/linux\n"
		      "JobAcctGatherFrequency=task=2\n"
		      "AccountingStorageType=accounting_storage/slurmdbd\n"
		      "SlurmctldDebug=info\nReturnToService=2\nInactiveLimit=0\n"
		      "OverTimeLimit=0\nPreemptType=preempt/none\nPreemptMode=OFF\n"
		      "CredType=cred/munge\nGresTypes=gpu\nMaxJobCount=50000\n"
		      "NodeName=n1 CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 "
		      "ThreadsPerCore=1 RealMemory=8192\n"
		      "PartitionName=p Nodes=n1 RootOnly=NO OverTimeLimit=0 LLN=YES\n",
		 &c, &err);
	if (rc)
		fail_msg("refused: %s", err.text);
	drv_conf_free(c);
}

/* JobAcctGatherFrequency: seconds, or Slurm's task= among other types. */
static void test_acct_gather_freq(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *value;
		int want; /* -1: refused */
	} cases[] = {
	    {"30", 30},	     {"task=2", 2}, {"energy=5,task=1", 1}, {"network=9", 30},
	    {"0", 0},	     {"bogus", -1}, {"task=x", -1},	    {"foo=3", -1},
	    {"task=-1", -1}, {"70000", -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		struct drv_conf *c = NULL;
		struct drv_error err = {{0}};
		snprintf(text, sizeof(text), CTLD "JobAcctGatherFrequency=%s\n",
			 cases[i].value);
		int rc = load(f, text, &c, &err);
		if (cases[i].want < 0) {
			assert_int_not_equal(rc, 0);
			assert_non_null(strstr(err.text, "JobAcctGatherFrequency"));
			continue;
		}
		if (rc)
			fail_msg("%s refused: %s", cases[i].value, err.text);
		assert_int_equal(c->acct_gather_freq, cases[i].want);
		drv_conf_free(c);
	}
}

static void test_unhonoured_values_refused(void **state)
{
	struct fixture *f = *state;
	refused(f, CTLD "TaskPlugin=task/affinity,task/bogus\n", 2,
		"TaskPlugin=task/affinity,task/bogus: Drover does not do what this "
		"asks; it takes task/affinity, task/cgroup, task/none (docs/compat.md)");
	refused(f, CTLD "PreemptType=preempt/qos\n", 2,
		"PreemptType=preempt/qos: Drover does not do what this asks; it takes "
		"preempt/none (docs/compat.md)");
	refused(f, CTLD "OverTimeLimit=5\n", 2,
		"OverTimeLimit=5: Drover does not do what this asks; it takes 0 "
		"(docs/compat.md)");
	refused(f, CTLD "RebootProgram=/usr/sbin/reboot\n", 2,
		"RebootProgram=/usr/sbin/reboot: Drover does not do what this asks; "
		"remove the line (docs/compat.md)");
	refused(f, CTLD "NodeName=n1 CoreSpecCount=2\n", 2,
		"CoreSpecCount=2: Drover does not do what this asks; it takes 0 "
		"(docs/compat.md)");
	refused(f, CTLD "NodeName=n1\nPartitionName=p Nodes=n1 RootOnly=YES\n", 3,
		"RootOnly=YES: Drover does not do what this asks; it takes NO "
		"(docs/compat.md)");
	/* the same table checks `scontrol update PartitionName=` */
	struct drv_part_conf pc;
	struct drv_error err = {{0}};
	assert_int_equal(drv_part_conf_init(&pc, "p"), 0);
	assert_int_equal(drv_part_conf_set(&pc, "rootonly", "yes", &err), -EINVAL);
	assert_string_equal(err.text, "RootOnly=yes: Drover does not do what this asks; "
				      "it takes NO (docs/compat.md)");
	assert_int_equal(drv_part_conf_set(&pc, "Hidden", "YES", &err), 0);
	drv_part_conf_fini(&pc);
}

/* How often `key` appears in text as `Key` (backquoted). */
static int mentions(const char *text, const char *key)
{
	char want[96];
	int n = 0;
	snprintf(want, sizeof(want), "`%s`", key);
	for (const char *p = text; (p = strstr(p, want)); p += strlen(want))
		n++;
	return n;
}

/* docs/compat.md's section on Slurm keys names each CONF_OTHER row once. */
static void test_compat_lists_each_key_once(void **state)
{
	(void)state;
	const char *root = getenv("DROVER_SOURCE_ROOT");
	char path[PATH_MAX];
	if (!root)
		skip();
	snprintf(path, sizeof(path), "%s/docs/compat.md", root);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[n] = '\0';
	const char *sec =
	    strstr(text, "\n## Slurm keys Drover accepts without acting on them");
	assert_non_null(sec);
	const char *end = strstr(sec + 1, "\n## ");
	size_t len = end ? (size_t)(end - sec) : strlen(sec);
	char *body = strndup(sec, len);
	const struct conf_key *tables[] = {conf_global_keys, conf_node_keys,
					   conf_part_keys};
	for (size_t t = 0; t < 3; t++)
		for (const struct conf_key *k = tables[t]; k->name; k++) {
			if (k->type != CONF_OTHER)
				continue;
			int m = mentions(body, k->name);
			if (m != 1)
				fail_msg("docs/compat.md names `%s` %d times", k->name,
					 m);
		}
	free(body);
}

static struct drv_conf *load_text(struct fixture *f, const char *text)
{
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	if (load(f, text, &c, &err))
		fail_msg("refused: %s", err.text);
	return c;
}

/* scontrol reconfigure: live keys change, others are refused, all or none. */
static void test_reload(void **state)
{
	struct fixture *f = *state;
	struct drv_error err = {{0}};
	char applied[256];
	struct drv_conf *c = load_text(f, CTLD "MinJobAge=10\nSchedulerParameters="
					       "bf_interval=5\nNodeName=n1\n");
	struct drv_conf *fresh = load_text(f, CTLD "MinJobAge=20\nMaxArraySize=7\n"
						   "NodeName=n1\n");
	/* SchedulerParameters removed: it has no default to go back to */
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err),
			 -EPERM);
	assert_string_equal(err.text, "SchedulerParameters cannot be removed live: "
				      "restart drover-ctld");
	assert_int_equal(c->min_job_age, 10);
	drv_conf_free(fresh);
	fresh = load_text(f, CTLD "MinJobAge=20\nMaxArraySize=7\nSchedulerParameters="
				  "bf_continue\nNodeName=n1\n");
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err), 0);
	assert_string_equal(applied, "MinJobAge,MaxArraySize,SchedulerParameters");
	assert_int_equal(c->min_job_age, 20);
	assert_int_equal(c->max_array_size, 7);
	assert_int_equal(c->sched.bf_interval, 30); /* the new line whole */
	assert_true(c->sched.bf_continue);
	/* again: nothing changed */
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err), 0);
	assert_string_equal(applied, "");
	drv_conf_free(fresh);
	fresh = load_text(f, CTLD "MinJobAge=30\nSlurmctldPort=7000\nNodeName=n1\n");
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err),
			 -EPERM);
	assert_string_equal(err.text,
			    "SlurmctldPort cannot change live: restart drover-ctld");
	assert_int_equal(c->min_job_age, 20);
	drv_conf_free(fresh);
	fresh = load_text(f, CTLD "MinJobAge=20\nMaxArraySize=7\nSchedulerParameters="
				  "bf_continue\nNodeName=n1 CPUs=2\n");
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err),
			 -EPERM);
	assert_string_equal(err.text,
			    "NodeName lines cannot change live: restart drover-ctld");
	drv_conf_free(fresh);
	/* a repeatable key: its second value counts too */
	fresh = load_text(f, CTLD "SlurmctldHost=backup2\nMinJobAge=20\nMaxArraySize=7\n"
				  "SchedulerParameters=bf_continue\nNodeName=n1\n");
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err),
			 -EPERM);
	assert_string_equal(err.text,
			    "SlurmctldHost cannot change live: restart drover-ctld");
	drv_conf_free(fresh);
	drv_conf_free(c);
}

/* SlurmctldParameters: the rl_* options with Slurm's defaults and checks,
 * the other options kept as text; MaxJobCount and max_script_size with
 * Slurm's defaults. */
static void test_limits(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_text(f, CTLD);
	assert_false(c->rl.enable);
	assert_int_equal(c->rl.bucket_size, 30);
	assert_int_equal(c->rl.refill_rate, 2);
	assert_int_equal(c->rl.refill_period, 1);
	assert_int_equal(c->rl.table_size, 8192);
	assert_int_equal(c->rl.log_freq, 0);
	assert_int_equal(c->max_job_count, 10000);
	assert_int_equal(c->sched.max_script_size, 4 << 20);
	drv_conf_free(c);
	c = load_text(f, CTLD "SlurmctldParameters=enable_configless,RL_ENABLE,"
			      "rl_bucket_size=5,rl_refill_rate=3,rl_refill_period=7,"
			      "rl_table_size=16,rl_log_freq=-1\n"
			      "MaxJobCount=3\nSchedulerParameters=max_script_size=100\n");
	assert_true(c->rl.enable);
	assert_int_equal(c->rl.bucket_size, 5);
	assert_int_equal(c->rl.refill_rate, 3);
	assert_int_equal(c->rl.refill_period, 7);
	assert_int_equal(c->rl.table_size, 16);
	assert_int_equal(c->rl.log_freq, -1);
	assert_int_equal(c->max_job_count, 3);
	assert_int_equal(c->sched.max_script_size, 100);
	drv_conf_free(c);
	refused(f, CTLD "SlurmctldParameters=rl_enable,rl_bucket_size=0\n", 2,
		"SlurmctldParameters: rl_bucket_size=0 is invalid, must be a positive "
		"non-zero integer");
	refused(f, CTLD "SlurmctldParameters=rl_refill_period=x\n", 2,
		"SlurmctldParameters: rl_refill_period=x is invalid, must be a positive "
		"non-zero integer");
	refused(f, CTLD "SlurmctldParameters=rl_log_freq=-2\n", 2,
		"SlurmctldParameters: rl_log_freq=-2 is invalid, must be -1, 0, or a "
		"positive integer");
}

/* PrivateData: Slurm's names (singular too, any case), all, none; shown
 * in Slurm's order; an unknown part refused; changed live. */
static void test_private_data(void **state)
{
	struct fixture *f = *state;
	char buf[96], applied[256];
	struct drv_error err = {{0}};
	struct drv_conf *c = load_text(f, CTLD "NodeName=n1\n");
	assert_int_equal(c->private_data, 0);
	drv_private_data_str(c->private_data, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	drv_conf_free(c);
	c = load_text(f, CTLD "PrivateData=usage,JOBS,user,account\nNodeName=n1\n");
	assert_int_equal(c->private_data, DRV_PRIVATE_USAGE | DRV_PRIVATE_JOBS |
					      DRV_PRIVATE_USERS | DRV_PRIVATE_ACCOUNTS);
	drv_private_data_str(c->private_data, buf, sizeof(buf));
	assert_string_equal(buf, "accounts,jobs,usage,users");
	struct drv_conf *fresh = load_text(f, CTLD "PrivateData=all\nNodeName=n1\n");
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err), 0);
	assert_string_equal(applied, "PrivateData");
	drv_private_data_str(c->private_data, buf, sizeof(buf));
	assert_string_equal(buf, "accounts,events,jobs,nodes,partitions,reservations,"
				 "usage,users");
	drv_conf_free(fresh);
	drv_conf_free(c);
	refused(f, CTLD "PrivateData=jobs,secrets\n", 2,
		"Invalid parameter for PrivateData: secrets (accounts, events, jobs, "
		"nodes, partitions, reservations, usage, users, all, none)");
}

/* HealthCheck*: the state words into bits, defaults, and a live change. */
static void test_health_check_keys(void **state)
{
	struct fixture *f = *state;
	char applied[256];
	struct drv_error err = {{0}};
	struct drv_conf *c = load_text(f, CTLD "NodeName=n1\n");
	assert_null(c->health_check_program);
	assert_int_equal(c->health_check_interval, 0);
	assert_int_equal(c->health_check_timeout, 60);
	assert_int_equal(c->health_check_node_state, DRV_HC_ANY);
	struct drv_conf *fresh =
	    load_text(f, CTLD "HealthCheckProgram=/usr/sbin/nhc\nHealthCheckInterval=30\n"
			      "HealthCheckNodeState=cycle,Idle,MIXED\nNodeName=n1\n");
	assert_int_equal(fresh->health_check_node_state,
			 DRV_HC_CYCLE | DRV_HC_IDLE | DRV_HC_MIXED);
	assert_int_equal(drv_conf_reload(c, fresh, applied, sizeof(applied), &err), 0);
	assert_string_equal(c->health_check_program, "/usr/sbin/nhc");
	assert_int_equal(c->health_check_interval, 30);
	assert_int_equal(c->health_check_node_state,
			 DRV_HC_CYCLE | DRV_HC_IDLE | DRV_HC_MIXED);
	drv_conf_free(fresh);
	drv_conf_free(c);
	c = load_text(f, CTLD "HealthCheckNodeState=CYCLE\nNodeName=n1\n");
	assert_int_equal(c->health_check_node_state, DRV_HC_CYCLE | DRV_HC_ANY);
	drv_conf_free(c);
	refused(f, CTLD "HealthCheckNodeState=IDLE,,ALLOC\n", 2,
		"HealthCheckNodeState: '' is not ALLOC, ANY, CYCLE, IDLE, MIXED or "
		"NONDRAINED_IDLE");
	refused(f, CTLD "HealthCheckInterval=70000\n", 2,
		"HealthCheckInterval: 70000 is out of range (0-65535)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_unknown_key_suggests),
	    T(test_missing_value),
	    T(test_harmless_keys_accepted),
	    T(test_unhonoured_values_refused),
	    T(test_compat_lists_each_key_once),
	    T(test_reload),
	    T(test_limits),
	    T(test_private_data),
	    T(test_health_check_keys),
	    T(test_acct_gather_freq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
