/* Unit tests for cli/scontrol_show.c: the exact bytes of scontrol's job,
 * node and partition records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/scontrol_show.h"

static char *job_text(const struct cli_job *j, int64_t now, bool detail)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	scs_print_job(m, j, now, detail);
	fclose(m);
	return out;
}

static struct cli_job pending(void)
{
	struct cli_job j = {0};

	j.job_id = 12;
	j.name = "hello";
	j.user = "root";
	j.partition = "debug";
	j.state = "PENDING";
	j.reason = "Priority";
	j.nodelist = "";
	j.batch_host = "";
	j.workdir = "/home/u";
	j.submit_host = "login";
	j.command = "/home/u/job.sh";
	j.num_nodes = 1;
	j.cpus = 1;
	j.priority = 100;
	j.time_limit = 300;
	j.submit_time = j.eligible_time = 86400;
	j.requeue = true;
	return j;
}

static void test_pending_job(void **state)
{
	struct cli_job j = pending();
	char *t = job_text(&j, 86400, false);
	const char *want =
	    "JobId=12 JobName=hello\n"
	    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
	    "   Priority=100 Nice=0 Account=(null) QOS=normal\n"
	    "   JobState=PENDING Reason=Priority Dependency=(null)\n"
	    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
	    "   RunTime=00:00:00 TimeLimit=00:05:00 TimeMin=N/A\n"
	    "   SubmitTime=1970-01-02T00:00:00 EligibleTime=1970-01-02T00:00:00\n"
	    "   AccrueTime=1970-01-02T00:00:00\n"
	    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
	    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=1970-01-02T00:00:00 "
	    "Scheduler=Main\n"
	    "   Partition=debug AllocNode:Sid=login:0\n"
	    "   ReqNodeList=(null) ExcNodeList=(null)\n"
	    "   NodeList=\n"
	    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
	    "   TRES=cpu=1,node=1,billing=1\n"
	    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
	    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
	    "   Features=(null) DelayBoot=00:00:00\n"
	    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
	    "   Command=/home/u/job.sh\n"
	    "   WorkDir=/home/u\n"
	    "   StdErr=/home/u/slurm-12.out\n"
	    "   StdIn=/dev/null\n"
	    "   StdOut=/home/u/slurm-12.out\n"
	    "   Power=\n"
	    "   \n"
	    "\n";

	assert_string_equal(t, want);
	free(t);
}

static void test_finished_job(void **state)
{
	struct cli_job j = pending();
	char *t;

	j.state = "FAILED";
	j.reason = "NonZeroExitCode";
	j.nodelist = j.batch_host = "n1";
	j.start_time = 86400 + 10;
	j.end_time = 86400 + 75;
	j.exit_code = 3;
	j.std_out = "out-%j-%x.txt";
	j.std_err = "/abs/%u.%A.err%%";
	j.comment = "hi there";
	j.command = "";
	t = job_text(&j, 200000, true);
	assert_non_null(strstr(t, "JobState=FAILED Reason=NonZeroExitCode"));
	assert_non_null(strstr(t, "ExitCode=3:0\n   DerivedExitCode=0:0\n"));
	assert_non_null(strstr(t, "RunTime=00:01:05 TimeLimit=00:05:00"));
	assert_non_null(strstr(t, "EndTime=1970-01-02T00:01:15 "));
	assert_non_null(strstr(t, "NodeList=n1\n   BatchHost=n1\n"));
	assert_non_null(strstr(t, "Command=(null)\n"));
	assert_non_null(strstr(t, "WorkDir=/home/u\n   Comment=hi there \n"));
	assert_non_null(strstr(t, "StdErr=/abs/root.12.err%\n"));
	assert_non_null(strstr(t, "StdOut=/home/u/out-12-hello.txt\n"));
	free(t);
}

static void test_node_and_partition(void **state)
{
	json_t *n = json_pack("{s:s, s:s, s:b, s:b, s:i, s:i, s:s, s:i, s:[s]}", "name",
			      "n1", "state", "IDLE", "drain", 1, "not_responding", 0,
			      "cpus", 4, "real_memory", 1000, "reason", "maint",
			      "reason_time", 86400, "partitions", "debug");
	json_t *p =
	    json_pack("{s:s, s:s, s:b, s:i, s:i, s:s, s:i, s:i}", "name", "debug",
		      "nodes", "n[1-2]", "is_default", 1, "max_time", -1, "default_time",
		      600, "state", "UP", "total_nodes", 2, "total_cpus", 8);
	char *out = NULL, state_s[64];
	size_t len = 0;
	struct drv_rec_node nr;
	struct drv_rec_partition pr;
	struct drv_error err = {{0}};
	assert_int_equal(drv_rec_node_decode(n, &nr, &err), 0);
	assert_int_equal(drv_rec_partition_decode(p, &pr, &err), 0);
	FILE *m = open_memstream(&out, &len);

	scs_node_state(&nr, state_s, sizeof(state_s));
	assert_string_equal(state_s, "IDLE+DRAIN");
	scs_print_node(m, &nr);
	scs_print_part(m, &pr);
	fclose(m);
	assert_non_null(strstr(out, "NodeName=n1 Arch="));
	assert_non_null(strstr(out, "   State=IDLE+DRAIN ThreadsPerCore=1"));
	assert_non_null(strstr(out, "   Partitions=debug \n"));
	assert_non_null(strstr(out, "   Reason=maint [root@1970-01-02T00:00:00]\n\n"));
	assert_non_null(strstr(out, "PartitionName=debug\n   AllowGroups=ALL"));
	assert_non_null(strstr(out, "Default=YES QoS=N/A\n   DefaultTime=00:10:00 "));
	assert_non_null(strstr(out, "MaxTime=UNLIMITED "));
	assert_non_null(strstr(out, "   State=UP TotalCPUs=8 TotalNodes=2 "));
	free(out);
	drv_rec_node_free(&nr);
	drv_rec_partition_free(&pr);
	json_decref(n);
	json_decref(p);
}

/* A partition with every setting Drover keeps, byte for byte as Slurm
 * 22.05 prints it: DenyAccounts/DenyQos replace the Allow keys when only
 * they are set, JobDefaults lists DefCpuPerGPU then DefMemPerGPU. */
static void test_partition_settings(void **state)
{
	json_t *p = json_loads(
	    "{\"name\":\"gpu\",\"nodes\":\"n[1-2]\",\"max_time\":3600,"
	    "\"default_time\":-2,\"state\":\"DRAIN\",\"total_nodes\":2,\"total_cpus\":8,"
	    "\"total_memory\":2000,\"def_mem_per_cpu\":100,\"max_nodes\":2,"
	    "\"min_nodes\":1,\"max_cpus_per_node\":4,\"max_mem_per_node\":900,"
	    "\"def_cpu_per_gpu\":2,\"def_mem_per_gpu\":512,\"allow_groups\":\"wheel\","
	    "\"deny_accounts\":\"bad\",\"deny_qos\":\"slow\",\"qos\":\"gpuqos\","
	    "\"priority_tier\":5,\"priority_job_factor\":7,"
	    "\"oversubscribe\":\"YES:2\"}",
	    0, NULL);
	struct drv_rec_partition pr;
	struct drv_error err = {{0}};
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(drv_rec_partition_decode(p, &pr, &err), 0);
	FILE *m = open_memstream(&out, &len);
	scs_print_part(m, &pr);
	fclose(m);
	assert_string_equal(
	    out, "PartitionName=gpu\n"
		 "   AllowGroups=wheel DenyAccounts=bad DenyQos=slow\n"
		 "   AllocNodes=ALL Default=NO QoS=gpuqos\n"
		 "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 "
		 "Hidden=NO\n"
		 "   MaxNodes=2 MaxTime=01:00:00 MinNodes=1 LLN=NO MaxCPUsPerNode=4\n"
		 "   Nodes=n[1-2]\n"
		 "   PriorityJobFactor=7 PriorityTier=5 RootOnly=NO ReqResv=NO "
		 "OverSubscribe=YES:2\n"
		 "   OverTimeLimit=NONE PreemptMode=OFF\n"
		 "   State=DRAIN TotalCPUs=8 TotalNodes=2 SelectTypeParameters=NONE\n"
		 "   JobDefaults=DefCpuPerGPU=2,DefMemPerGPU=512\n"
		 "   DefMemPerCPU=100 MaxMemPerNode=900\n"
		 "   TRES=cpu=8,mem=2000M,node=2,billing=8\n\n");
	free(out);
	drv_rec_partition_free(&pr);
	json_decref(p);
}

/* A running batch job with an srun step, as Slurm 22.05's `scontrol show
 * step` printed them (its SrunHost:Pid, which Drover does not know, aside:
 * Slurm prints "vm:12845" there for an srun step). */
static void test_steps(void **state)
{
	struct cli_job j = pending();
	struct cli_step st = {.step_id = 0,
			      .name = "sleep",
			      .state = "RUNNING",
			      .nodelist = "n1",
			      .alloc_tres = "cpu=1,mem=100M,node=1",
			      .tasks_per_node = "1",
			      .distribution = "Cyclic",
			      .start_time = 1796063778,
			      .num_nodes = 1,
			      .ntasks = 1,
			      .cpus = 1,
			      .cancel_uid = -1};
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	j.job_id = 23383;
	j.uid = 0;
	j.partition = "batch";
	j.state = "RUNNING";
	j.nodelist = j.batch_host = "n1";
	j.start_time = 1796063778;
	scs_print_step(m, &j, NULL);
	scs_print_step(m, &j, &st);
	j.array_job_id = 23384;
	j.array_task_id = 1;
	st.name = "first";
	st.step_id = 1;
	st.nodelist = "n[1-2]";
	st.num_nodes = 2;
	st.cpus = st.ntasks = 4;
	st.alloc_tres = "cpu=4,mem=400M,node=2";
	st.distribution = "Block";
	scs_print_step(m, &j, &st);
	fclose(m);
	assert_string_equal(out,
			    "StepId=23383.batch UserId=0 StartTime=2026-11-30T18:36:18 "
			    "TimeLimit=UNLIMITED\n"
			    "   State=RUNNING Partition=batch NodeList=n1\n"
			    "   Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)\n"
			    "   TRES=(null)\n"
			    "   ResvPorts=(null)\n"
			    "   CPUFreqReq=Default\n"
			    "   SrunHost:Pid=(null):0\n"
			    "\n"
			    "StepId=23383.0 UserId=0 StartTime=2026-11-30T18:36:18 "
			    "TimeLimit=UNLIMITED\n"
			    "   State=RUNNING Partition=batch NodeList=n1\n"
			    "   Nodes=1 CPUs=1 Tasks=1 Name=sleep Network=(null)\n"
			    "   TRES=cpu=1,mem=100M,node=1\n"
			    "   ResvPorts=(null)\n"
			    "   CPUFreqReq=Default Dist=Cyclic\n"
			    "   SrunHost:Pid=(null):0\n"
			    "\n"
			    "StepId=23384_1.1 UserId=0 StartTime=2026-11-30T18:36:18 "
			    "TimeLimit=UNLIMITED\n"
			    "   State=RUNNING Partition=batch NodeList=n[1-2]\n"
			    "   Nodes=2 CPUs=4 Tasks=4 Name=first Network=(null)\n"
			    "   TRES=cpu=4,mem=400M,node=2\n"
			    "   ResvPorts=(null)\n"
			    "   CPUFreqReq=Default Dist=Block\n"
			    "   SrunHost:Pid=(null):0\n"
			    "\n");
	free(out);
}

/* -d: Slurm's JOB_GRES= line and one "  Nodes= CPU_IDs= Mem= GRES=" line
 * per run of nodes alike (n[1-2] share one; n3 differs in its CPUs). */
static void test_detail_node_lines(void **state)
{
	struct cli_job j = pending();
	const struct drv_rec_job_alloc nodes[] = {
	    {.node = "n1", .cpu_ids = "0-1", .mem = 100, .gpus = 1},
	    {.node = "n2", .cpu_ids = "0-1", .mem = 100, .gpus = 1},
	    {.node = "n3", .cpu_ids = "4", .mem = 100, .gpus = 6},
	};
	j.state = "RUNNING";
	j.node_detail = nodes;
	j.n_node_detail = 3;
	char *t = job_text(&j, 86400, true);
	assert_non_null(strstr(t,
			       "CoreSpec=*\n"
			       "   JOB_GRES=gpu:4\n"
			       "     Nodes=n[1-2] CPU_IDs=0-1 Mem=100 GRES=gpu:1(IDX:0)\n"
			       "     Nodes=n3 CPU_IDs=4 Mem=100 GRES=gpu:2(IDX:1-2)\n"
			       "   MinCPUsNode=1 "));
	free(t);
	/* without -d, or without GPUs */
	t = job_text(&j, 86400, false);
	assert_null(strstr(t, "JOB_GRES"));
	free(t);
	j.n_node_detail = 1;
	j.node_detail = (const struct drv_rec_job_alloc[]){{.node = "n1", .mem = 50}};
	t = job_text(&j, 86400, true);
	assert_non_null(
	    strstr(t, "   JOB_GRES=(null)\n     Nodes=n1 CPU_IDs= Mem=50 GRES=\n"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pending_job),
	    cmocka_unit_test(test_finished_job),
	    cmocka_unit_test(test_node_and_partition),
	    cmocka_unit_test(test_partition_settings),
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_detail_node_lines),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
