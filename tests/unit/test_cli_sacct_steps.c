/* Unit tests for sacct's srun step rows: a job record's "steps" as
 * cli_jobs_from_reply reads them (cli/jobrec), the rows -j and -X select
 * (cli/sacct_select) and the bytes of each step row (cli/sacct_values).
 * Expected texts are what Slurm 22.05's sacct printed for a batch job with
 * three sruns (hostname; exit 2; -N2 -n4 sleep 1) and for a cancelled
 * step, with ids and times substituted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/common.h"
#include "cli/jobrec.h"
#include "cli/sacct_format.h"
#include "cli/sacct_json.h"
#include "cli/sacct_opts.h"
#include "cli/sacct_select.h"
#include "cli/sacct_values.h"

/* 2026-11-30T15:20:16 UTC */
#define NOW ((time_t)1796052016)

/* Job 23368 as acct.query returns it: started at NOW-2, ended at NOW. */
static const char reply_text[] =
    "{\"jobs\":[{\"job_id\":23368,\"name\":\"stepjob\",\"user\":\"root\","
    "\"uid\":0,\"gid\":0,\"partition\":\"batch\",\"account\":\"root\","
    "\"state\":\"COMPLETED\",\"nodelist\":\"n[1-2]\",\"batch_host\":\"n1\","
    "\"num_nodes\":2,\"cpus\":4,\"ntasks\":4,\"cpus_per_node\":\"3,1\","
    "\"submit_time\":1796052013,\"eligible_time\":1796052013,"
    "\"start_time\":1796052014,\"end_time\":1796052016,\"workdir\":\"/tmp\","
    "\"req_tres\":\"billing=4,cpu=4,mem=400M,node=2\","
    "\"alloc_tres\":\"billing=4,cpu=4,mem=400M,node=2\",\"steps\":["
    "{\"step_id\":0,\"name\":\"hostname\",\"state\":\"COMPLETED\","
    "\"exit_code\":0,\"exit_signal\":0,\"start_time\":1796052014,"
    "\"end_time\":1796052014,\"nodelist\":\"n1\",\"num_nodes\":1,\"ntasks\":1,"
    "\"cpus\":3,\"alloc_tres\":\"cpu=3,mem=300M,node=1\",\"cancel_uid\":-1,"
    "\"tasks_per_node\":\"1\",\"distribution\":\"Cyclic\"},"
    "{\"step_id\":1,\"name\":\"bash\",\"state\":\"FAILED\",\"exit_code\":2,"
    "\"exit_signal\":0,\"start_time\":1796052014,\"end_time\":1796052015,"
    "\"nodelist\":\"n1\",\"num_nodes\":1,\"ntasks\":1,\"cpus\":3,"
    "\"alloc_tres\":\"cpu=3,mem=300M,node=1\",\"cancel_uid\":-1,"
    "\"tasks_per_node\":\"1\",\"distribution\":\"Cyclic\"},"
    "{\"step_id\":2,\"name\":\"sleep\",\"state\":\"COMPLETED\",\"exit_code\":0,"
    "\"exit_signal\":0,\"start_time\":1796052015,\"end_time\":1796052016,"
    "\"nodelist\":\"n[1-2]\",\"num_nodes\":2,\"ntasks\":4,\"cpus\":4,"
    "\"alloc_tres\":\"cpu=4,mem=400M,node=2\",\"cancel_uid\":-1,"
    "\"tasks_per_node\":\"2(x2)\",\"distribution\":\"Block\"}]},"
    "{\"job_id\":23370,\"name\":\"old\",\"state\":\"COMPLETED\","
    "\"start_time\":1796052014,\"end_time\":1796052016}]}";

/* What sacct prints for the first job of the reply with these options
 * (NULL-terminated), as sacct.c's print_rows does. */
static char *sacct_out(const struct cli_job *j, ...)
{
	struct sacct_opts o;
	char *argv[32] = {"sacct"}, *out = NULL;
	int argc = 1;
	size_t len = 0;
	bool job_row, batch_row;
	struct sacct_ctx c = {NOW, "peer", NULL, false};
	va_list ap;
	va_start(ap, j);
	for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	assert_int_equal(sacct_opts_parse(argc, argv, NOW, &o), 0);
	FILE *m = open_memstream(&out, &len);
	sacct_print_header(&o.fmt, m);
	sacct_job_rows(&o, j, &job_row, &batch_row);
	if (job_row)
		sacct_print_row(&o.fmt, &(struct sacct_row){j, false, NULL}, &c, m);
	if (batch_row)
		sacct_print_row(&o.fmt, &(struct sacct_row){j, true, NULL}, &c, m);
	for (size_t k = 0; k < j->n_steps; k++)
		if (sacct_step_row(&o, j, &j->steps[k]))
			sacct_print_row(
			    &o.fmt, &(struct sacct_row){j, true, &j->steps[k]}, &c, m);
	fclose(m);
	sacct_opts_fini(&o);
	return out;
}

static json_t *reply;
static struct cli_job *jobs;

static int setup(void **state)
{
	reply = json_loads(reply_text, 0, NULL);
	assert_non_null(reply);
	assert_int_equal(cli_jobs_from_reply(reply, &jobs, NULL), 2);
	return 0;
}

static int teardown(void **state)
{
	free(jobs);
	json_decref(reply);
	return 0;
}

static void test_steps_read(void **state)
{
	assert_int_equal(jobs[0].n_steps, 3);
	assert_int_equal(jobs[0].steps[2].step_id, 2);
	assert_string_equal(jobs[0].steps[2].tasks_per_node, "2(x2)");
	assert_int_equal(jobs[0].steps[1].exit_code, 2);
	/* a record without "steps" has none */
	assert_int_equal(jobs[1].n_steps, 0);
	assert_null(jobs[1].steps);
}

static void test_compact_rows_steps(void **state)
{
	json_t *r =
	    json_loads("{\"fields\":[\"job_id\",\"steps\"],\"rows\":"
		       "[[7,[{\"step_id\":0,\"name\":\"a\",\"state\":\"RUNNING\"},"
		       "{\"step_id\":3,\"name\":\"b\",\"state\":\"RUNNING\"}]],"
		       "[8,null]]}",
		       0, NULL);
	struct cli_job *j = NULL;
	assert_int_equal(cli_jobs_from_reply(r, &j, NULL), 2);
	assert_int_equal(j[0].n_steps, 2);
	assert_int_equal(j[0].steps[1].step_id, 3);
	assert_string_equal(j[0].steps[1].name, "b");
	assert_string_equal(j[0].steps[1].state, "RUNNING");
	assert_int_equal(j[0].steps[1].cancel_uid, -1);
	assert_int_equal(j[1].n_steps, 0);
	free(j);
	json_decref(r);
}

/* A compact row decodes field by field onto the record's defaults: a
 * column it does not know is skipped, a value that breaks its declaration
 * keeps the default, and what the row leaves out reads as for a record. */
static void test_compact_rows_defaults(void **state)
{
	json_t *r = json_loads("{\"fields\":[\"job_id\",\"bogus\",\"state\",\"cpus\"],"
			       "\"now\":77,\"rows\":[[9,1,\"RUNNING\",\"x\"]]}",
			       0, NULL);
	struct cli_job *j = NULL;
	int64_t now = 0;
	assert_int_equal(cli_jobs_from_reply(r, &j, &now), 1);
	assert_int_equal(now, 77);
	assert_int_equal(j[0].job_id, 9);
	assert_string_equal(j[0].state, "RUNNING");
	assert_int_equal(j[0].cpus, 0);
	assert_string_equal(j[0].reason, "None");
	assert_string_equal(j[0].qos, "normal");
	assert_int_equal(j[0].time_limit, -1);
	assert_int_equal(j[0].cpus_per_task, -1);
	assert_null(j[0].account);
	free(j);
	json_decref(r);
}

/* PrologFlags=Contain: ID.extern, shaped as Slurm prints it (the job's
 * span on the batch host, 0:0), selected by -j ID.extern and by the whole
 * job, left out by -X, by another step's id and without Contain. */
static void test_extern_step(void **state)
{
	struct sacct_ctx c = {NOW, "peer", NULL, true};
	struct cli_step ext;
	char tres[SACCT_VALUE_MAX], *out = NULL;
	size_t len = 0;
	assert_true(sacct_extern_step(&c, &jobs[0], &ext, tres));
	struct sacct_opts o;
	char *argv[] = {"sacct",
			"-P",
			"-n",
			"-j",
			"23368.extern",
			"-o",
			"JobID,JobName,State,ExitCode,NodeList,AllocCPUS,Elapsed",
			NULL};
	assert_int_equal(sacct_opts_parse(7, argv, NOW, &o), 0);
	assert_true(sacct_step_row(&o, &jobs[0], &ext));
	FILE *m = open_memstream(&out, &len);
	sacct_print_row(&o.fmt, &(struct sacct_row){&jobs[0], true, &ext}, &c, m);
	fclose(m);
	assert_string_equal(out, "23368.extern|extern|COMPLETED|0:0|n1|3|00:00:02\n");
	free(out);
	sacct_opts_fini(&o);
	char *argv2[] = {"sacct", "-j", "23368.0", NULL};
	assert_int_equal(sacct_opts_parse(3, argv2, NOW, &o), 0);
	assert_false(sacct_step_row(&o, &jobs[0], &ext));
	sacct_opts_fini(&o);
	char *argv3[] = {"sacct", "-X", NULL};
	assert_int_equal(sacct_opts_parse(2, argv3, NOW, &o), 0);
	assert_false(sacct_step_row(&o, &jobs[0], &ext));
	sacct_opts_fini(&o);
	/* a running job's step runs; a job that never started has none */
	struct cli_job run = jobs[0];
	run.state = "RUNNING";
	run.end_time = 0;
	assert_true(sacct_extern_step(&c, &run, &ext, tres));
	assert_string_equal(ext.state, "RUNNING");
	assert_int_equal(ext.end_time, 0);
	run.start_time = 0;
	run.state = "PENDING";
	assert_false(sacct_extern_step(&c, &run, &ext, tres));
	c.contain = false;
	assert_false(sacct_extern_step(&c, &jobs[0], &ext, tres));
}

static void test_default_rows(void **state)
{
	char *out = sacct_out(&jobs[0], "-j", "23368", NULL);
	assert_string_equal(
	    out, "JobID           JobName  Partition    Account  AllocCPUS  "
		 "    State ExitCode \n"
		 "------------ ---------- ---------- ---------- ---------- "
		 "---------- -------- \n"
		 "23368           stepjob      batch       root          4  "
		 "COMPLETED      0:0 \n"
		 "23368.batch       batch                  root          3  "
		 "COMPLETED      0:0 \n"
		 "23368.0        hostname                  root          3  "
		 "COMPLETED      0:0 \n"
		 "23368.1            bash                  root          3     "
		 "FAILED      2:0 \n"
		 "23368.2           sleep                  root          4  "
		 "COMPLETED      0:0 \n");
	free(out);
}

#define MANY                                                                             \
	"JobID,JobIDRaw,JobName,Partition,Account,AllocCPUS,NCPUS,NNodes,NTasks,State,"  \
	"ExitCode,NodeList,Start,End,Elapsed,User,ReqMem,AllocTRES,Reason,Timelimit"

static void test_many_fields(void **state)
{
	/* (the batch row between the job's and the steps' is left out: Drover
	 * gives a mem-per-CPU job's batch step mem=200M where Slurm says 300M) */
	char *out =
	    sacct_out(&jobs[0], "-j", "23368", "-X", "-P", "--format=" MANY, NULL);
	assert_string_equal(
	    out,
	    "JobID|JobIDRaw|JobName|Partition|Account|AllocCPUS|NCPUS|NNodes|NTasks|"
	    "State|"
	    "ExitCode|NodeList|Start|End|Elapsed|User|ReqMem|AllocTRES|Reason|Timelimit\n"
	    "23368|23368|stepjob|batch|root|4|4|2||COMPLETED|0:0|n[1-2]|2026-11-30T15:20:"
	    "14|"
	    "2026-11-30T15:20:16|00:00:02|root|400M|billing=4,cpu=4,mem=400M,node=2|None|"
	    "UNLIMITED\n");
	free(out);
	out = sacct_out(&jobs[0], "-j", "23368.0,23368.1,23368.2", "-P", "--format=" MANY,
			NULL);
	assert_string_equal(
	    out,
	    "JobID|JobIDRaw|JobName|Partition|Account|AllocCPUS|NCPUS|NNodes|NTasks|"
	    "State|"
	    "ExitCode|NodeList|Start|End|Elapsed|User|ReqMem|AllocTRES|Reason|Timelimit\n"
	    "23368.0|23368.0|hostname||root|3|3|1|1|COMPLETED|0:0|n1|2026-11-30T15:20:14|"
	    "2026-11-30T15:20:14|00:00:00|||cpu=3,mem=300M,node=1||\n"
	    "23368.1|23368.1|bash||root|3|3|1|1|FAILED|2:0|n1|2026-11-30T15:20:14|"
	    "2026-11-30T15:20:15|00:00:01|||cpu=3,mem=300M,node=1||\n"
	    "23368.2|23368.2|sleep||root|4|4|2|4|COMPLETED|0:0|n[1-2]|2026-11-30T15:20:"
	    "15|"
	    "2026-11-30T15:20:16|00:00:01|||cpu=4,mem=400M,node=2||\n");
	free(out);
	out = sacct_out(&jobs[0], "-j", "23368.2", "--format=" MANY, NULL);
	assert_string_equal(
	    out,
	    "JobID        JobIDRaw        JobName  Partition    Account  AllocCPUS      "
	    "NCPUS "
	    "  NNodes   NTasks      State ExitCode        NodeList               Start   "
	    "     "
	    "         End    Elapsed      User     ReqMem  AllocTRES                 "
	    "Reason  "
	    "Timelimit \n"
	    "------------ ------------ ---------- ---------- ---------- ---------- "
	    "---------- "
	    "-------- -------- ---------- -------- --------------- ------------------- "
	    "------------------- ---------- --------- ---------- ---------- "
	    "---------------------- ---------- \n"
	    "23368.2      23368.2           sleep                  root          4       "
	    "   4 "
	    "       2        4  COMPLETED      0:0          n[1-2] 2026-11-30T15:20:15 "
	    "2026-11-30T15:20:16   00:00:01                      cpu=4,mem+              "
	    "   "
	    "                  \n");
	free(out);
}

/* The fields Slurm prints differently on an srun step's row than on the
 * batch step's: Layout, ReqCPUFreq*, NTasks; and the job's DerivedExitCode. */
static void test_step_only_fields(void **state)
{
	char *out =
	    sacct_out(&jobs[0], "-j", "23368", "-P",
		      "--format=JobID,AllocNodes,AveCPUFreq,CPUTimeRAW,"
		      "DerivedExitCode,Eligible,Layout,ReqCPUFreq,ReqCPUS,ReqNodes,"
		      "Submit,TRESUsageInAve,Flags,Priority,QOS,WorkDir",
		      NULL);
	assert_string_equal(
	    out,
	    "JobID|AllocNodes|AveCPUFreq|CPUTimeRAW|DerivedExitCode|Eligible|Layout|"
	    "ReqCPUFreq|ReqCPUS|ReqNodes|Submit|TRESUsageInAve|Flags|Priority|QOS|"
	    "WorkDir\n"
	    "23368|2||8|2:0|2026-11-30T15:20:13||Unknown|4|2|2026-11-30T15:20:13||"
	    "SchedMain,StartRecieved|0|normal|/tmp\n"
	    "23368.batch|1|0|6||2026-11-30T15:20:14|Unknown|0|3|1|2026-11-30T15:20:14|"
	    "energy=0||||\n"
	    "23368.0|1|0|0||2026-11-30T15:20:14|Cyclic|Unknown|3|1|2026-11-30T15:20:14|"
	    "energy=0||||\n"
	    "23368.1|1|0|3||2026-11-30T15:20:14|Cyclic|Unknown|3|1|2026-11-30T15:20:14|"
	    "energy=0||||\n"
	    "23368.2|2|0|4||2026-11-30T15:20:15|Block|Unknown|4|2|2026-11-30T15:20:15|"
	    "energy=0||||\n");
	free(out);
}

static void test_selection(void **state)
{
	char *out = sacct_out(&jobs[0], "-j", "23368.1,23368.2", "-P",
			      "--format=JobID,JobName,State,ExitCode", NULL);
	assert_string_equal(out, "JobID|JobName|State|ExitCode\n"
				 "23368.1|bash|FAILED|2:0\n"
				 "23368.2|sleep|COMPLETED|0:0\n");
	free(out);
	/* -X: the job's row only, even for a step's id */
	out = sacct_out(&jobs[0], "-j", "23368.1", "-X", "-P",
			"--format=JobID,JobName,State,ExitCode", NULL);
	assert_string_equal(out, "JobID|JobName|State|ExitCode\n"
				 "23368|stepjob|COMPLETED|0:0\n");
	free(out);
	out =
	    sacct_out(&jobs[0], "-j", "23368.batch", "-X", "-P", "--format=JobID", NULL);
	assert_string_equal(out, "JobID\n23368\n");
	free(out);
	/* a step the job does not have: nothing */
	out = sacct_out(&jobs[0], "-j", "23368.7", "-P", "--format=JobID", NULL);
	assert_string_equal(out, "JobID\n");
	free(out);
	out = sacct_out(&jobs[0], "-j", "23368.1,23368", "-P", "--format=JobID", NULL);
	assert_string_equal(out,
			    "JobID\n23368\n23368.batch\n23368.0\n23368.1\n23368.2\n");
	free(out);
}

/* A running job whose step 0 was cancelled (scancel ID.0 kills its tasks
 * with SIGKILL) and whose step 1 runs; an array task's step ids. */
static void test_cancelled_and_running(void **state)
{
	struct cli_job j = jobs[0];
	struct cli_step s[2] = {jobs[0].steps[2], jobs[0].steps[0]};
	j.state = "RUNNING";
	j.end_time = 0;
	s[0].step_id = 0;
	s[0].name = "mystep";
	s[0].state = "CANCELLED";
	s[0].cancel_uid = 0;
	s[0].exit_signal = 9;
	s[0].start_time = NOW - 40;
	s[0].end_time = NOW - 3;
	s[1].step_id = 1;
	s[1].name = "sleep";
	s[1].state = "RUNNING";
	s[1].start_time = NOW - 3;
	s[1].end_time = 0;
	j.steps = s;
	j.n_steps = 2;
	char *out =
	    sacct_out(&j, "-j", "23368", "-P",
		      "--format=JobID,JobName,AllocCPUS,NNodes,NTasks,State,ExitCode,"
		      "NodeList,End,Elapsed,DerivedExitCode,Layout",
		      NULL);
	assert_string_equal(
	    out,
	    "JobID|JobName|AllocCPUS|NNodes|NTasks|State|ExitCode|NodeList|End|Elapsed|"
	    "DerivedExitCode|Layout\n"
	    "23368|stepjob|4|2||RUNNING|0:0|n[1-2]|Unknown|00:00:02|0:0|\n"
	    "23368.batch|batch|3|1|1|RUNNING|0:0|n1|Unknown|00:00:02||Unknown\n"
	    "23368.0|mystep|4|2|4|CANCELLED by 0|0:9|n[1-2]|2026-11-30T15:20:13|"
	    "00:00:37||Block\n"
	    "23368.1|sleep|3|1|1|RUNNING|0:0|n1|Unknown|00:00:03||Cyclic\n");
	free(out);
	/* cancelled: the steps its end killed do not count */
	j.state = "CANCELLED";
	j.cancel_uid = 0;
	j.end_time = NOW;
	s[1].state = "CANCELLED";
	s[1].exit_signal = 15;
	s[1].end_time = NOW;
	out = sacct_out(&j, "-j", "23368", "-P", "-X",
			"--format=JobID,State,ExitCode,"
			"DerivedExitCode",
			NULL);
	assert_string_equal(out, "JobID|State|ExitCode|DerivedExitCode\n"
				 "23368|CANCELLED by 0|0:0|0:9\n");
	free(out);
	j.array_job_id = 23300;
	j.array_task_id = 4;
	out = sacct_out(&j, "-j", "23368.1", "-P", "--format=JobID,JobIDRaw", NULL);
	assert_string_equal(out, "JobID|JobIDRaw\n23300_4.1|23368.1\n");
	free(out);
}

/* Usage: jobs 23391 (a batch script that ran python itself, a python
 * step and a `true` step, on n1) and 23393 (one step of 3 tasks on
 * n[1-2]) as Slurm 22.05's sacct printed them, with the microseconds its
 * sacct --json showed. The job row sums the
 * CPU times of all its steps, the batch step's among them, before it
 * truncates to milliseconds, and shows no RSS. */
static const char usage_text[] =
    "{\"jobs\":[{\"job_id\":23391,\"name\":\"job.sh\",\"state\":\"COMPLETED\","
    "\"start_time\":1796052014,\"end_time\":1796052016,\"batch_host\":\"n1\","
    "\"batch_usage\":{\"user_usec\":1005778,\"sys_usec\":601132,"
    "\"max_rss_kib\":12096,\"max_rss_node\":\"n1\",\"max_rss_task\":0,"
    "\"ave_rss_kib\":12096,\"ntasks\":1},\"steps\":["
    "{\"step_id\":0,\"name\":\"python3\",\"state\":\"COMPLETED\","
    "\"user_usec\":861052,\"sys_usec\":576827,\"max_rss_kib\":9636,"
    "\"max_rss_node\":\"n1\",\"max_rss_task\":0,\"ave_rss_kib\":9636},"
    "{\"step_id\":1,\"name\":\"true\",\"state\":\"COMPLETED\","
    "\"user_usec\":12837,\"sys_usec\":4279,\"max_rss_kib\":1024,"
    "\"max_rss_node\":\"n1\",\"max_rss_task\":0,\"ave_rss_kib\":1024}]},"
    "{\"job_id\":23393,\"name\":\"b.sh\",\"state\":\"COMPLETED\","
    "\"start_time\":1796052014,\"end_time\":1796052016,\"batch_host\":\"n1\","
    "\"num_nodes\":2,\"batch_usage\":{\"user_usec\":27121,\"sys_usec\":62465,"
    "\"max_rss_kib\":12340,\"max_rss_node\":\"n1\",\"max_rss_task\":0,"
    "\"ave_rss_kib\":12340,\"ntasks\":1},\"steps\":["
    "{\"step_id\":0,\"name\":\"python3\",\"state\":\"COMPLETED\","
    "\"num_nodes\":2,\"ntasks\":3,\"user_usec\":4346148,\"sys_usec\":1771629,"
    "\"max_rss_kib\":74704,\"max_rss_node\":\"n2\",\"max_rss_task\":2,"
    "\"ave_rss_kib\":54216}]}]}";

#define USAGE "JobID,TotalCPU,UserCPU,SystemCPU,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS"

static void test_usage_fields(void **state)
{
	json_t *r = json_loads(usage_text, 0, NULL);
	struct cli_job *j = NULL;
	assert_int_equal(cli_jobs_from_reply(r, &j, NULL), 2);
	assert_true(j[0].batch_usage.has);
	assert_true(j[0].steps[1].usage.has);
	char *out = sacct_out(&j[0], "-j", "23391", "-P", "--format=" USAGE, NULL);
	/* Slurm printed 23391.1's RSS blank: its samples, taken every 2 s,
	 * never saw `true`; rusage always does (docs/compat.md) */
	assert_string_equal(out,
			    "JobID|TotalCPU|UserCPU|SystemCPU|MaxRSS|MaxRSSNode|"
			    "MaxRSSTask|AveRSS\n"
			    "23391|00:03.061|00:01.879|00:01.182||||\n"
			    "23391.batch|00:01.606|00:01.005|00:00.601|12096K|n1|0|"
			    "12096K\n"
			    "23391.0|00:01.437|00:00.861|00:00.576|9636K|n1|0|9636K\n"
			    "23391.1|00:00.017|00:00.012|00:00.004|1M|n1|0|1M\n");
	free(out);
	out = sacct_out(&j[1], "-j", "23393", "--format=" USAGE, NULL);
	assert_string_equal(
	    out, "JobID          TotalCPU    UserCPU  SystemCPU     MaxRSS MaxRSSNode "
		 "MaxRSSTask     AveRSS \n"
		 "------------ ---------- ---------- ---------- ---------- ---------- "
		 "---------- ---------- \n"
		 "23393         00:06.207  00:04.373  00:01.834                         "
		 "                    \n"
		 "23393.batch   00:00.089  00:00.027  00:00.062     12340K         n1 "
		 "         0     12340K \n"
		 "23393.0       00:06.117  00:04.346  00:01.771     74704K         n2 "
		 "         2     54216K \n");
	free(out);
	free(j);
	json_decref(r);
}

/* Without usage (a record from before, or a step still running) the
 * values are the ones Slurm prints for a job with no samples. */
static void test_usage_absent(void **state)
{
	char *out = sacct_out(&jobs[0], "-j", "23368", "-P", "--format=" USAGE, NULL);
	assert_string_equal(out, "JobID|TotalCPU|UserCPU|SystemCPU|MaxRSS|MaxRSSNode|"
				 "MaxRSSTask|AveRSS\n"
				 "23368|00:00:00|00:00:00|00:00:00||||\n"
				 "23368.batch|00:00:00|00:00:00|00:00:00||||\n"
				 "23368.0|00:00:00|00:00:00|00:00:00||||\n"
				 "23368.1|00:00:00|00:00:00|00:00:00||||\n"
				 "23368.2|00:00:00|00:00:00|00:00:00||||\n");
	free(out);
}

/* sacct --json: a step's "time" carries its CPU times as 22.05 printed
 * them for 23393 (total adds seconds and microseconds apart); the job's
 * own stay 0, as there. */
static void test_usage_json(void **state)
{
	json_t *r = json_loads(usage_text, 0, NULL);
	struct cli_job *j = NULL;
	assert_int_equal(cli_jobs_from_reply(r, &j, NULL), 2);
	struct sacct_opts o;
	char *argv[] = {"sacct", "--json", "-j", "23393", NULL};
	assert_int_equal(sacct_opts_parse(4, argv, NOW, &o), 0);
	struct sacct_ctx c = {NOW, "peer", NULL, false};
	bool keep[1] = {true};
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	sacct_json_print(&o, &c, &j[1], keep, 1, 4, argv, m);
	fclose(m);
	json_t *doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	json_t *job = json_array_get(json_object_get(doc, "jobs"), 0);
	json_t *steps = json_object_get(job, "steps");
	const char *want[][2] = {
	    {"{\"seconds\":0,\"microseconds\":62465}",
	     "{\"seconds\":0,\"microseconds\":89586}"},
	    {"{\"seconds\":1,\"microseconds\":771629}",
	     "{\"seconds\":5,\"microseconds\":1117777}"},
	};
	assert_int_equal(json_array_size(steps), 2);
	for (size_t k = 0; k < 2; k++) {
		json_t *t = json_object_get(json_array_get(steps, k), "time");
		char *sys = json_dumps(json_object_get(t, "system"), JSON_COMPACT);
		char *tot = json_dumps(json_object_get(t, "total"), JSON_COMPACT);
		assert_string_equal(sys, want[k][0]);
		assert_string_equal(tot, want[k][1]);
		free(sys);
		free(tot);
	}
	json_t *jt = json_object_get(job, "time");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(jt, "total"), "seconds")),
	    0);
	json_decref(doc);
	free(out);
	sacct_opts_fini(&o);
	free(j);
	json_decref(r);
}

static void test_usage_formats(void **state)
{
	char buf[SACCT_VALUE_MAX];
	assert_string_equal(sacct_fmt_rss(1234, buf, sizeof(buf)), "1234K");
	assert_string_equal(sacct_fmt_rss(61440, buf, sizeof(buf)), "60M");
	assert_string_equal(sacct_fmt_rss(61441, buf, sizeof(buf)), "61441K");
	assert_string_equal(sacct_fmt_rss(2 * 1024 * 1024, buf, sizeof(buf)), "2G");
	assert_string_equal(sacct_fmt_rss(0, buf, sizeof(buf)), "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps_read),
	    cmocka_unit_test(test_compact_rows_steps),
	    cmocka_unit_test(test_compact_rows_defaults),
	    cmocka_unit_test(test_default_rows),
	    cmocka_unit_test(test_many_fields),
	    cmocka_unit_test(test_step_only_fields),
	    cmocka_unit_test(test_selection),
	    cmocka_unit_test(test_cancelled_and_running),
	    cmocka_unit_test(test_usage_fields),
	    cmocka_unit_test(test_usage_absent),
	    cmocka_unit_test(test_usage_json),
	    cmocka_unit_test(test_usage_formats),
	    cmocka_unit_test(test_extern_step),
	};
	cli_init("sacct");
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, setup, teardown);
}
