/* test_conf_show.c — `scontrol show config`'s lines (common/conf_show.c):
 * Slurm's order and units, the keys client tools read, Drover's own values,
 * values written in the config shown in Slurm's format, and secrets kept
 * out. The config is parsed from a temp file, as ctld reads it. */
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

#include "common/conf.h"

struct lines {
	char text[32768];
	size_t len;
};

static void collect(const char *key, const char *value, void *arg)
{
	struct lines *l = arg;

	l->len += (size_t)snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s=%s\n",
				   key, value);
}

/* Parses text as drover.conf and returns the show lines "Key=value\n". */
static const char *show(const char *text, const struct drv_conf_live *live)
{
	static struct lines l;
	char dir[] = "/tmp/test_conf_show.XXXXXX", path[PATH_MAX];
	struct drv_error err = {{0}};
	struct drv_conf *c = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/drover.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(drv_conf_load(path, NULL, NULL, &c, &err), 0);
	memset(&l, 0, sizeof(l));
	drv_conf_show(c, live, collect, &l);
	drv_conf_free(c);
	unlink(path);
	rmdir(dir);
	return l.text;
}

static void has(const char *text, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(text, want) && strncmp(text, want + 1, strlen(want + 1)))
		fail_msg("missing line '%s' in:\n%s", line, text);
}

static void test_keys_tools_read(void **state)
{
	const char *t = show("SlurmctldHost=head\n", NULL);

	has(t, "SchedulerTimeSlice=30 sec");
	has(t, "AcctGatherNodeFreq=0 sec");
	has(t, "MinJobAge=300 sec");
	has(t, "MaxArraySize=1001");
	has(t, "FirstJobId=1");
	has(t, "MaxJobId=67043328");
	has(t, "KillWait=30 sec");
	has(t, "SlurmctldHost[0]=head");
	has(t, "DefMemPerNode=UNLIMITED");
	has(t, "MaxMemPerNode=UNLIMITED");
	has(t, "SelectTypeParameters=CR_CORE_MEMORY");
	has(t, "SLURM_VERSION=22.05.8");
	has(t, "SlurmUser=root(0)"); /* live absent */
	assert_null(strstr(t, "BOOT_TIME="));
	assert_null(strstr(t, "NEXT_JOB_ID="));
	/* Slurm's order: the first and last keys it prints */
	assert_true(!strncmp(t, "AccountingStorageBackupHost=(null)\n", 35));
	assert_true(strlen(t) > 21 &&
		    !strcmp(t + strlen(t) - 21, "X11Parameters=(null)\n"));
	assert_true(strstr(t, "AccountingStorageHost=") <
		    strstr(t, "AccountingStorageExternalHost="));
}

static void test_written_values(void **state)
{
	const char *t = show("SlurmctldHost=head(10.0.0.1)\nSlurmctldHost=backup\n"
			     "MinJobAge=120\nMaxArraySize=5000\nMessageTimeout=20\n"
			     "FirstJobId=100\nMaxJobId=1000\n"
			     "UsePAM=no\nOverTimeLimit=0\nDefMemPerCPU=512\n"
			     "MaxMemPerCPU=0\nAccountingStoragePass=secret\n"
			     "PreemptMode=off\nSuspendRate=10\nFastSchedule=1\n"
			     "SchedulerType=sched/builtin\n"
			     "TaskPlugin=task/affinity,task/cgroup\n"
			     "ProctrackType=proctrack/linuxproc\n",
			     NULL);

	has(t, "SlurmctldHost[0]=head(10.0.0.1)");
	has(t, "SlurmctldHost[1]=backup");
	has(t, "MinJobAge=120 sec");
	has(t, "MaxArraySize=5000");
	has(t, "FirstJobId=100");
	has(t, "MaxJobId=1000");
	has(t, "UsePam=No");
	has(t, "OverTimeLimit=0 min");
	has(t, "DefMemPerCPU=512");
	has(t, "PreemptMode=OFF");
	has(t, "SchedulerType=sched/builtin"); /* Drover acts on it */
	/* keys Drover does not act on show what Drover does, not the text */
	has(t, "MessageTimeout=10 sec");
	has(t, "SuspendRate=60 nodes/min");
	has(t, "TaskPlugin=task/cgroup");
	has(t, "ProctrackType=proctrack/cgroup");
	assert_null(strstr(t, "FastSchedule"));
	assert_null(strstr(t, "task/affinity"));
	assert_null(strstr(t, "secret"));
	assert_null(strstr(t, "DefMemPerNode="));
	t = show("SlurmctldHost=head\nCgroupPlugin=disabled\n", NULL);
	has(t, "TaskPlugin=task/none");
	has(t, "ProctrackType=proctrack/pgid");
}

static void test_live_values(void **state)
{
	struct drv_conf_live live = {.boot_time = 1, .next_job_id = 42, .user = "u(7)"};
	const char *t = show("SlurmctldHost=head\nSlurmUser=root\n", &live);

	has(t, "NEXT_JOB_ID=42");
	has(t, "SlurmUser=root(0)");  /* as written, resolved */
	has(t, "SlurmdUser=root(0)"); /* unset: Slurm's default, not ctld's user */
	t = show("SlurmctldHost=head\n", &live);
	has(t, "SlurmUser=u(7)"); /* unset: who ctld runs as */
	assert_non_null(strstr(t, "\nBOOT_TIME=19"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys_tools_read),
	    cmocka_unit_test(test_written_values),
	    cmocka_unit_test(test_live_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
