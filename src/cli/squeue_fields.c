/* squeue_fields.c — every squeue field once: its -o letter and -O name, its
 * header, whether Slurm cuts it, its value and the record fields it needs.
 * Values follow Slurm 22.05's squeue, checked against a real one; fields
 * Drover has no notion of print what Slurm prints when they are unset. */
#include "cli/squeue_fields.h"

#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/state.h"
#include "cli/timeshow.h"
#include "common/timefmt.h"

#define YEAR_SECONDS (365 * 24 * 3600)

static bool is(const struct cli_job *j, const char *state)
{
	return !strcmp(j->state, state);
}

int64_t sq_job_start(const struct cli_job *j)
{
	if (j->start_time <= 0 && j->end_time > 0 && !is(j, "PENDING"))
		return j->end_time;
	return j->start_time;
}

int64_t sq_job_end(const struct cli_job *j)
{
	if (j->end_time > 0 || is(j, "PENDING") || !cli_state_is_active(j->state))
		return j->end_time;
	return cli_job_limit_end(j);
}

/* Slurm's _print_secs: out of range is "INVALID". */
static void secs(int64_t s, char *b, size_t l)
{
	if (s < 0 || s > YEAR_SECONDS)
		snprintf(b, l, "INVALID");
	else
		drv_time_fmt_elapsed(s, b, l);
}

static void stamp(int64_t t, char *b, size_t l)
{
	if (t <= 0)
		snprintf(b, l, "N/A");
	else
		cli_fmt_time((time_t)t, b, l);
}

static void str(const char *s, const char *unset, char *b, size_t l)
{
	snprintf(b, l, "%s", s && *s ? s : unset);
}

#define V(fname)                                                                         \
	static void fname(const struct cli_job *j, int64_t now, char *b, size_t l)

V(f_id)
{
	snprintf(b, l, "%" PRId64, j->job_id);
}

/* %i: "123_4" for an array task, "123_[5-9]" for the pending rest of an
 * array, the plain id otherwise. */
V(f_job_array_id)
{
	if (j->array_job_id > 0 && j->array_task_str)
		snprintf(b, l, "%" PRId64 "_[%s]", j->array_job_id, j->array_task_str);
	else if (j->array_job_id > 0 && j->array_task_id >= 0)
		snprintf(b, l, "%" PRId64 "_%" PRId64, j->array_job_id, j->array_task_id);
	else
		f_id(j, now, b, l);
}

V(f_array_job)
{
	snprintf(b, l, "%" PRId64, j->array_job_id > 0 ? j->array_job_id : j->job_id);
}

V(f_partition)
{
	str(j->partition, "", b, l);
}

V(f_name)
{
	str(j->name, "", b, l);
}

V(f_user)
{
	str(j->user, "", b, l);
}

V(f_uid)
{
	snprintf(b, l, "%" PRId64, j->uid);
}

V(f_gid)
{
	snprintf(b, l, "%" PRId64, j->gid);
}

V(f_group)
{
	const struct group *g = getgrgid((gid_t)j->gid);

	if (g)
		snprintf(b, l, "%s", g->gr_name);
	else
		snprintf(b, l, "%" PRId64, j->gid);
}

V(f_compact)
{
	snprintf(b, l, "%s", cli_state_compact(j->state));
}

V(f_state)
{
	snprintf(b, l, "%s", j->state);
}

V(f_used)
{
	secs(cli_job_elapsed(j, now), b, l);
}

V(f_limit)
{
	if (j->time_limit == -1)
		snprintf(b, l, "UNLIMITED");
	else if (j->time_limit < 0)
		snprintf(b, l, "NOT_SET");
	else
		secs(j->time_limit, b, l);
}

V(f_left)
{
	if (j->time_limit < 0)
		f_limit(j, now, b, l);
	else
		secs(j->time_limit - cli_job_elapsed(j, now), b, l);
}

V(f_nodes)
{
	snprintf(b, l, "%" PRId64, j->num_nodes);
}

V(f_cpus)
{
	snprintf(b, l, "%" PRId64, j->cpus);
}

V(f_nodelist)
{
	str(j->nodelist, "", b, l);
}

V(f_schednodes) /* where backfill plans to start it, "(null)" when nowhere */
{
	str(j->sched_nodes, "(null)", b, l);
}

V(f_reason)
{
	str(j->reason, "None", b, l);
}

/* %R: the reason in parentheses while pending and for the ends Slurm
 * explains (FAILED, TIMEOUT, OUT_OF_MEMORY, DEADLINE), else the nodes. */
V(f_reason_list)
{
	static const char *const with_reason[] = {"PENDING", "FAILED", "TIMEOUT",
						  "OUT_OF_MEMORY", "DEADLINE"};

	for (size_t i = 0; i < sizeof(with_reason) / sizeof(with_reason[0]); i++) {
		if (is(j, with_reason[i])) {
			snprintf(b, l, "(%s)", j->reason);
			return;
		}
	}
	str(j->nodelist, "", b, l);
}

V(f_priority)
{
	snprintf(b, l, "%" PRId64, j->priority);
}

V(f_priority_norm)
{
	snprintf(b, l, "%.14f", (double)j->priority / 4294967295.0);
}

V(f_workdir)
{
	str(j->workdir, "", b, l);
}

V(f_comment)
{
	str(j->comment, "(null)", b, l);
}

V(f_command)
{
	str(j->command, "(null)", b, l);
}

V(f_submit)
{
	stamp(j->submit_time, b, l);
}

V(f_eligible)
{
	stamp(is(j, "PENDING") && j->hold ? 0 : j->eligible_time, b, l);
}

V(f_start)
{
	stamp(sq_job_start(j), b, l);
}

V(f_end)
{
	int64_t end = sq_job_end(j);

	/* a pending job with a begin time ends, at the earliest, a limit later */
	if (is(j, "PENDING") && j->start_time > 0)
		end = j->time_limit < 0 ? -1 : j->start_time + j->time_limit;
	if (is(j, "PENDING") && j->start_time <= 0)
		snprintf(b, l, "N/A");
	else if (end == -1)
		snprintf(b, l, "NONE");
	else
		stamp(end, b, l);
}

V(f_pending)
{
	int64_t start = sq_job_start(j),
		from = j->eligible_time > 0 ? j->eligible_time : j->submit_time;

	if (start > 0)
		snprintf(b, l, "%" PRId64, start > from ? start - from : 0);
	else
		snprintf(b, l, "%" PRId64, now > from && from > 0 ? now - from : 0);
}

V(f_account)
{
	str(j->account, "(null)", b, l);
}

V(f_qos)
{
	str(j->qos, "normal", b, l);
}

V(f_nice)
{
	snprintf(b, l, "%" PRId64, j->nice);
}

V(f_min_memory)
{
	if (j->min_memory_text)
		snprintf(b, l, "%s", j->min_memory_text);
	else
		cli_mem_fmt(j->min_memory, b, l);
}

V(f_tres_per_node)
{
	if (j->gres && *j->gres)
		snprintf(b, l, "gres:%s", j->gres);
	else
		snprintf(b, l, "N/A");
}

V(f_min_cpus)
{
	int64_t cpt = j->cpus_per_task > 0 ? j->cpus_per_task : 1;
	snprintf(b, l, "%" PRId64, j->min_cpus > cpt ? j->min_cpus : cpt);
}

V(f_min_tmp)
{
	if (j->min_tmp > 0)
		cli_mem_fmt(j->min_tmp, b, l);
	else
		snprintf(b, l, "0");
}

V(f_features)
{
	str(j->features, "(null)", b, l);
}

V(f_req_nodes)
{
	str(j->req_nodes, "", b, l);
}

V(f_exc_nodes)
{
	str(j->exc_nodes, "", b, l);
}

V(f_ntasks)
{
	snprintf(b, l, "%" PRId64, j->ntasks > 0 ? j->ntasks : 1);
}

V(f_ntasks_per_node)
{
	snprintf(b, l, "%" PRId64, j->ntasks_per_node > 0 ? j->ntasks_per_node : 0);
}

V(f_dependency)
{
	str(j->dependency, "(null)", b, l);
}

V(f_oversubscribe)
{
	snprintf(b, l, "%s", j->exclusive ? "NO" : j->oversubscribe ? "YES" : "OK");
}

V(f_array_task)
{
	if (j->array_job_id > 0 && j->array_task_str)
		snprintf(b, l, "%s", j->array_task_str);
	else if (j->array_job_id > 0 && j->array_task_id >= 0)
		snprintf(b, l, "%" PRId64, j->array_task_id);
	else
		snprintf(b, l, "N/A");
}

V(f_exec_host)
{
	str(j->batch_host, "n/a", b, l);
}

V(f_exit_code)
{
	snprintf(b, l, "%" PRId64, (j->exit_code & 0xff) << 8 | (j->exit_signal & 0x7f));
}

static void stdio_path(const struct cli_job *j, const char *pattern, char *b, size_t l)
{
	char *p = cli_job_stdio_path(j, pattern);

	str(p, "", b, l);
	free(p);
}

V(f_stdout)
{
	stdio_path(j, j->std_out, b, l);
}

V(f_stderr)
{
	stdio_path(j, j->std_err ? j->std_err : j->std_out, b, l);
}

V(f_stdin)
{
	if (j->std_in)
		stdio_path(j, j->std_in, b, l);
	else
		snprintf(b, l, "/dev/null");
}

V(f_tres)
{
	if (j->tres)
		snprintf(b, l, "%s", j->tres);
	else
		snprintf(b, l, "cpu=%" PRId64 ",node=%" PRId64, j->cpus, j->num_nodes);
}

V(f_licenses)
{
	snprintf(b, l, "%s", j->licenses && *j->licenses ? j->licenses : "(null)");
}

#define CONST_V(fname, text)                                                             \
	V(fname)                                                                         \
	{                                                                                \
		snprintf(b, l, "%s", text);                                              \
	}

CONST_V(f_empty, "")
CONST_V(f_null, "(null)")
CONST_V(f_zero, "0")
CONST_V(f_star, "*")
CONST_V(f_na, "N/A")
CONST_V(f_sct, "*:*:*")

/* The record fields a value reads, by the record's index; -1 ends them. */
#define W(...)                                                                           \
	(const int[])                                                                    \
	{                                                                                \
		__VA_ARGS__, -1                                                          \
	}

#define TIMES W(DRV_REC_JOB__START_TIME, DRV_REC_JOB__END_TIME, DRV_REC_JOB__TIME_LIMIT)
#define STDIO                                                                            \
	W(DRV_REC_JOB__STDOUT, DRV_REC_JOB__STDERR, DRV_REC_JOB__STDIN,                  \
	  DRV_REC_JOB__WORKDIR, DRV_REC_JOB__NAME, DRV_REC_JOB__USER)
#define ARRAY                                                                            \
	W(DRV_REC_JOB__ARRAY_JOB_ID, DRV_REC_JOB__ARRAY_TASK_ID,                         \
	  DRV_REC_JOB__ARRAY_TASK_STR)

/* Slurm's -o letters first, then the -O-only names. */
static const struct sq_field fields[] = {
    {'a', "account", "ACCOUNT", true, true, f_account, W(DRV_REC_JOB__ACCOUNT)},
    {'A', "jobid", "JOBID", true, true, f_id, NULL},
    {'b', "tres-per-node", "TRES_PER_NODE", true, true, f_tres_per_node,
     W(DRV_REC_JOB__GRES)},
    {'b', "gres", "TRES_PER_NODE", true, true, f_tres_per_node, W(DRV_REC_JOB__GRES)},
    {'B', "batchhost", "EXEC_HOST", true, true, f_exec_host, W(DRV_REC_JOB__BATCH_HOST)},
    {'c', "mincpus", "MIN_CPUS", true, true, f_min_cpus,
     W(DRV_REC_JOB__CPUS_PER_TASK, DRV_REC_JOB__MIN_CPUS)},
    {'C', "numcpus", "CPUS", true, true, f_cpus, W(DRV_REC_JOB__CPUS)},
    {'d', "mintmpdisk", "MIN_TMP_DISK", true, true, f_min_tmp, W(DRV_REC_JOB__MIN_TMP)},
    {'D', "numnodes", "NODES", true, true, f_nodes, W(DRV_REC_JOB__NUM_NODES)},
    {'e', "endtime", "END_TIME", true, true, f_end, TIMES},
    {'E', "dependency", "DEPENDENCY", true, true, f_dependency,
     W(DRV_REC_JOB__DEPENDENCY)},
    {'f', "feature", "FEATURES", true, true, f_features, W(DRV_REC_JOB__FEATURES)},
    {'F', "arrayjobid", "ARRAY_JOB_ID", true, true, f_array_job, ARRAY},
    {'g', "groupname", "GROUP", true, true, f_group, W(DRV_REC_JOB__GID)},
    {'G', "groupid", "GROUP", true, true, f_gid, W(DRV_REC_JOB__GID)},
    {'h', "oversubscribe", "OVER_SUBSCRIBE", true, true, f_oversubscribe,
     W(DRV_REC_JOB__EXCLUSIVE, DRV_REC_JOB__OVERSUBSCRIBE)},
    {'h', "shared", "OVER_SUBSCRIBE", true, true, f_oversubscribe,
     W(DRV_REC_JOB__EXCLUSIVE, DRV_REC_JOB__OVERSUBSCRIBE)},
    {'H', "sockets", "SOCKETS_PER_NODE", true, true, f_star, NULL},
    {'i', "jobarrayid", "JOBID", true, true, f_job_array_id, ARRAY},
    {'I', "cores", "CORES_PER_SOCKET", true, true, f_star, NULL},
    {'j', "name", "NAME", true, true, f_name, NULL},
    {'J', "threads", "THREADS_PER_CORE", true, true, f_star, NULL},
    {'k', "comment", "COMMENT", true, true, f_comment, W(DRV_REC_JOB__COMMENT)},
    {'K', "arraytaskid", "ARRAY_TASK_ID", true, true, f_array_task, ARRAY},
    {'l', "timelimit", "TIME_LIMIT", true, true, f_limit, W(DRV_REC_JOB__TIME_LIMIT)},
    {'L', "timeleft", "TIME_LEFT", true, true, f_left, TIMES},
    {'m', "minmemory", "MIN_MEMORY", true, true, f_min_memory,
     W(DRV_REC_JOB__MIN_MEMORY, DRV_REC_JOB__MEM_PER_CPU)},
    {'M', "timeused", "TIME", true, true, f_used, TIMES},
    {'n', "reqnodes", "REQ_NODES", true, true, f_req_nodes, W(DRV_REC_JOB__REQ_NODES)},
    {'N', "nodelist", "NODELIST", false, false, f_nodelist, W(DRV_REC_JOB__NODELIST)},
    {'o', "command", "COMMAND", true, true, f_command, W(DRV_REC_JOB__COMMAND)},
    {'O', "contiguous", "CONTIGUOUS", true, true, f_zero, NULL},
    {'p', "priority", "PRIORITY", true, true, f_priority_norm, NULL},
    {'P', "partition", "PARTITION", true, true, f_partition, NULL},
    {'q', "qos", "QOS", true, true, f_qos, W(DRV_REC_JOB__QOS)},
    {'Q', "prioritylong", "PRIORITY", true, true, f_priority, NULL},
    {'r', "reason", "REASON", true, true, f_reason,
     W(DRV_REC_JOB__REASON, DRV_REC_JOB__HOLD)},
    {'R', "reasonlist", "NODELIST(REASON)", true, false, f_reason_list,
     W(DRV_REC_JOB__REASON, DRV_REC_JOB__HOLD, DRV_REC_JOB__NODELIST)},
    {'s', NULL, "", true, true, f_empty, NULL},
    {'S', "starttime", "START_TIME", true, true, f_start,
     W(DRV_REC_JOB__START_TIME, DRV_REC_JOB__END_TIME)},
    {'t', "statecompact", "ST", true, true, f_compact, NULL},
    {'T', "state", "STATE", true, true, f_state, NULL},
    {'u', "username", "USER", true, true, f_user, NULL},
    {'U', "userid", "UID", true, true, f_uid, W(DRV_REC_JOB__UID)},
    {'v', "reservation", "RESERVATION", true, true, f_null, NULL},
    {'V', "submittime", "SUBMIT_TIME", true, true, f_submit, W(DRV_REC_JOB__SUBMIT_TIME)},
    {'w', "wckey", "WCKEY", true, true, f_null, NULL},
    {'W', "licenses", "LICENSES", true, true, f_licenses, W(DRV_REC_JOB__LICENSES)},
    {'x', "excnodes", "EXC_NODES", true, true, f_exc_nodes, W(DRV_REC_JOB__EXC_NODES)},
    {'X', "corespec", "CORE_SPEC", true, true, f_na, NULL},
    {'y', "nice", "NICE", true, true, f_nice, W(DRV_REC_JOB__NICE)},
    {'Y', "schednodes", "SCHEDNODES", true, true, f_schednodes,
     W(DRV_REC_JOB__SCHED_NODES)},
    {'z', "sct", "S:C:T", true, true, f_sct, NULL},
    {'Z', "workdir", "WORK_DIR", true, true, f_workdir, W(DRV_REC_JOB__WORKDIR)},
    {0, "cpus-per-task", "CPUS_PER_TASK", true, true, f_min_cpus,
     W(DRV_REC_JOB__CPUS_PER_TASK)},
    {0, "cpuspertask", "CPUS_PER_TASK", true, true, f_min_cpus,
     W(DRV_REC_JOB__CPUS_PER_TASK)},
    {0, "eligibletime", "ELIGIBLE_TIME", true, true, f_eligible,
     W(DRV_REC_JOB__ELIGIBLE_TIME, DRV_REC_JOB__HOLD)},
    {0, "exit_code", "EXIT_CODE", true, true, f_exit_code,
     W(DRV_REC_JOB__EXIT_CODE, DRV_REC_JOB__EXIT_SIGNAL)},
    {0, "numtasks", "TASKS", true, true, f_ntasks, W(DRV_REC_JOB__NTASKS)},
    {0, "ntpernode", "NTASKS_PER_NODE", true, true, f_ntasks_per_node,
     W(DRV_REC_JOB__NTASKS_PER_NODE)},
    {0, "pendingtime", "PENDING_TIME", true, true, f_pending,
     W(DRV_REC_JOB__SUBMIT_TIME, DRV_REC_JOB__ELIGIBLE_TIME, DRV_REC_JOB__START_TIME,
       DRV_REC_JOB__END_TIME)},
    {0, "stdout", "STDOUT", true, true, f_stdout, STDIO},
    {0, "stderr", "STDERR", true, true, f_stderr, STDIO},
    {0, "stdin", "STDIN", true, true, f_stdin, STDIO},
    {0, "tres-alloc", "TRES_ALLOC", true, true, f_tres,
     W(DRV_REC_JOB__TRES, DRV_REC_JOB__CPUS, DRV_REC_JOB__NUM_NODES)},
};

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

const struct sq_field *sq_field_by_letter(char letter)
{
	for (size_t i = 0; letter && i < N_FIELDS; i++)
		if (fields[i].letter == letter)
			return &fields[i];
	return NULL;
}

const struct sq_field *sq_field_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (fields[i].name && strlen(fields[i].name) == len &&
		    !strncasecmp(fields[i].name, name, len))
			return &fields[i];
	return NULL;
}
