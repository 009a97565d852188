/* scontrol_show.c — formats job, node, partition and step records as scontrol
 * shows them. Fields Drover does not track print the value Slurm prints
 * when they are unset, so parsers that expect the key find it. */
#include "cli/scontrol_show.h"

#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/common.h"
#include "cli/timeshow.h"
#include "common/cpuset.h"
#include "common/hostlist.h"
#include "common/timefmt.h"

#define NL "\n   "

static const char *or_null(const char *s)
{
	return s && *s ? s : "(null)";
}

static void iso(int64_t t, char *buf, size_t len)
{
	cli_fmt_time((time_t)(t > 0 ? t : 0), buf, len);
}

static void group_name(int64_t gid, char *buf, size_t len)
{
	struct group *gr = getgrgid((gid_t)gid);

	if (gr)
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%" PRId64, gid);
}

/* The end time scontrol shows: the real end, or start + limit while the
 * job runs, or Unknown. */
static int64_t shown_end(const struct cli_job *j)
{
	if (j->end_time > 0)
		return j->end_time;
	int64_t end = cli_job_limit_end(j);
	return end > 0 ? end : 0;
}

static void print_job_head(FILE *out, const struct cli_job *j, bool detail)
{
	char grp[64];

	group_name(j->gid, grp, sizeof(grp));
	fprintf(out, "JobId=%" PRId64 " ", j->job_id);
	if (j->array_job_id > 0 && j->array_task_str)
		fprintf(out, "ArrayJobId=%" PRId64 " ArrayTaskId=%s ", j->array_job_id,
			j->array_task_str);
	else if (j->array_job_id > 0)
		fprintf(out, "ArrayJobId=%" PRId64 " ArrayTaskId=%" PRId64 " ",
			j->array_job_id, j->array_task_id);
	if (j->array_job_id > 0 && j->array_max_tasks > 0)
		fprintf(out, "ArrayTaskThrottle=%" PRId64 " ", j->array_max_tasks);
	fprintf(out, "JobName=%s" NL, j->name);
	fprintf(out, "UserId=%s(%" PRId64 ") GroupId=%s(%" PRId64 ") MCS_label=N/A" NL,
		j->user, j->uid, grp, j->gid);
	fprintf(out, "Priority=%" PRId64 " Nice=%" PRId64 " Account=%s QOS=%s" NL,
		j->priority, j->nice, or_null(j->account), j->qos ? j->qos : "normal");
	/* Slurm keeps the line one word per key: "ReqNodeNotAvail,_Unavail..." */
	char reason[256];
	snprintf(reason, sizeof(reason), "%s", j->reason);
	for (char *p = reason; *p; p++)
		if (*p == ' ')
			*p = '_';
	fprintf(out, "JobState=%s Reason=%s Dependency=%s", j->state, reason,
		or_null(j->dependency));
	if (j->lacks) /* Drover's: what a job waiting for Resources is short of */
		fprintf(out, " Lacks=%s", j->lacks);
	fprintf(out, NL);
	fprintf(out,
		"Requeue=%d Restarts=%" PRId64 " BatchFlag=%d Reboot=0 ExitCode=%" PRId64
		":%" PRId64 NL,
		j->requeue ? 1 : 0, j->restart_count, j->interactive ? 0 : 1,
		j->exit_code, j->exit_signal);
	if (detail)
		fprintf(out, "DerivedExitCode=0:0" NL);
}

static void print_job_times(FILE *out, const struct cli_job *j, int64_t now)
{
	char a[64], b[64];
	int64_t end = shown_end(j);

	drv_time_fmt_limit(cli_job_elapsed(j, now), a, sizeof(a));
	if (j->time_limit == DRV_NO_VAL)
		snprintf(b, sizeof(b), "Partition_Limit");
	else
		drv_time_fmt_limit(j->time_limit, b, sizeof(b));
	fprintf(out, "RunTime=%s TimeLimit=%s TimeMin=", a, b);
	if (j->time_min > 0) {
		drv_time_fmt_limit(j->time_min, a, sizeof(a));
		fprintf(out, "%s" NL, a);
	} else {
		fprintf(out, "N/A" NL);
	}
	iso(j->submit_time, a, sizeof(a));
	iso(j->eligible_time, b, sizeof(b));
	fprintf(out, "SubmitTime=%s EligibleTime=%s" NL, a, b);
	fprintf(out, "AccrueTime=%s" NL, b);
	iso(j->start_time, a, sizeof(a));
	iso(end, b, sizeof(b));
	if (j->time_limit == DRV_INFINITE && end > now)
		snprintf(b, sizeof(b), "Unknown");
	if (j->deadline > 0) {
		char d[64];
		iso(j->deadline, d, sizeof(d));
		fprintf(out, "StartTime=%s EndTime=%s Deadline=%s" NL, a, b, d);
	} else {
		fprintf(out, "StartTime=%s EndTime=%s Deadline=N/A" NL, a, b);
	}
	/* a pending job's StartTime is its begin time, not an evaluation */
	iso(j->start_time > 0 && strcmp(j->state, "PENDING") ? j->start_time
							     : j->submit_time,
	    a, sizeof(a));
	if (j->suspend_time > 0)
		iso(j->suspend_time, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "None");
	fprintf(out,
		"SuspendTime=%s SecsPreSuspend=%" PRId64
		" LastSchedEval=%s Scheduler=Main" NL,
		b, j->pre_sus_time, a);
}

/* TRES= as Slurm prints it: ctld's string, else made from CPUs, memory,
 * nodes and GPUs. */
static void job_tres(const struct cli_job *j, char *buf, size_t len)
{
	char mem[32];
	int64_t mib =
	    j->mem_per_cpu ? j->min_memory * j->cpus : j->min_memory * j->num_nodes;
	int n;

	if (j->tres && *j->tres) {
		snprintf(buf, len, "%s", j->tres);
		return;
	}
	cli_mem_fmt(mib, mem, sizeof(mem));
	n = snprintf(buf, len, "cpu=%" PRId64 "%s%s,node=%" PRId64 ",billing=%" PRId64,
		     j->cpus, mib > 0 ? ",mem=" : "", mib > 0 ? mem : "", j->num_nodes,
		     j->cpus);
	if (j->gpus > 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",gres/gpu=%" PRId64, j->gpus);
}

/* Slurm's per-node GRES of the detail lines: "gpu:2(IDX:0-1)", "" none. */
static void node_gres(const struct drv_rec_job_alloc *a, char *buf, size_t len)
{
	uint64_t bits = (uint64_t)a->gpus;
	char idx[256];
	buf[0] = '\0';
	if (!bits)
		return;
	drv_cpuset_format(&bits, 64, idx, sizeof(idx));
	snprintf(buf, len, "gpu:%u(IDX:%s)", drv_cpuset_count(&bits, 64), idx);
}

/* -d: JOB_GRES= and one "  Nodes=... CPU_IDs=... Mem=... GRES=..." line
 * for each run of nodes alike, as Slurm groups them. */
static void print_job_nodes(FILE *out, const struct cli_job *j)
{
	const struct drv_rec_job_alloc *d = j->node_detail;
	uint32_t gpus = 0; /* Slurm's JOB_GRES: the job's whole, "gpu:2" */
	for (size_t i = 0; i < j->n_node_detail; i++) {
		uint64_t bits = (uint64_t)d[i].gpus;
		gpus += drv_cpuset_count(&bits, 64);
	}
	if (gpus)
		fprintf(out, "JOB_GRES=gpu:%u" NL, gpus);
	else
		fprintf(out, "JOB_GRES=(null)" NL);
	for (size_t i = 0, k; i < j->n_node_detail; i = k) {
		char gres[300], other[300];
		node_gres(&d[i], gres, sizeof(gres));
		char **names = calloc(j->n_node_detail - i, sizeof(*names));
		size_t n = 0;
		for (k = i; names && k < j->n_node_detail; k++) {
			node_gres(&d[k], other, sizeof(other));
			if (strcmp(other, gres) || d[k].mem != d[i].mem ||
			    strcmp(d[k].cpu_ids ? d[k].cpu_ids : "",
				   d[i].cpu_ids ? d[i].cpu_ids : ""))
				break;
			names[n++] = (char *)d[k].node;
		}
		char *hosts = names ? drv_hostlist_compress(names, n) : NULL;
		fprintf(out, "  Nodes=%s CPU_IDs=%s Mem=%" PRIu64 " GRES=%s" NL,
			hosts ? hosts : d[i].node, d[i].cpu_ids ? d[i].cpu_ids : "",
			d[i].mem, gres);
		free(hosts);
		free(names);
		if (k == i)
			k = i + 1; /* out of memory: one line a node */
	}
}

static void print_job_alloc(FILE *out, const struct cli_job *j, bool detail)
{
	char tres[512], mem[32];
	int64_t cpt = j->cpus_per_task > 0 ? j->cpus_per_task : 1;
	int64_t tpn = j->ntasks_per_node > 0 ? j->ntasks_per_node : 0;

	fprintf(out, "Partition=%s AllocNode:Sid=%s:0" NL, j->partition, j->submit_host);
	fprintf(out, "ReqNodeList=%s ExcNodeList=%s" NL, or_null(j->req_nodes),
		or_null(j->exc_nodes));
	fprintf(out, "NodeList=%s", j->nodelist); /* empty until it runs */
	if (j->sched_nodes)			  /* where backfill plans to start it */
		fprintf(out, " SchedNodeList=%s", j->sched_nodes);
	fprintf(out, NL);
	if (*j->batch_host)
		fprintf(out, "BatchHost=%s" NL, j->batch_host);
	/* Pending with -N, Slurm shows the range it asked for: "1-2", "2-2". */
	char nodes[48];
	int n = snprintf(nodes, sizeof(nodes), "%" PRId64, j->num_nodes);
	if (!strcmp(j->state, "PENDING") && j->max_nodes > 0 && n > 0)
		snprintf(nodes + n, sizeof(nodes) - (size_t)n, "-%" PRId64,
			 j->max_nodes > j->num_nodes ? j->max_nodes : j->num_nodes);
	fprintf(out,
		"NumNodes=%s NumCPUs=%" PRId64 " NumTasks=%" PRId64 " CPUs/Task=%" PRId64
		" ReqB:S:C:T=0:0:*:*" NL,
		nodes, j->cpus, j->ntasks > 0 ? j->ntasks : 1, cpt);
	job_tres(j, tres, sizeof(tres));
	fprintf(out, "TRES=%s" NL, tres);
	fprintf(out, "Socks/Node=* NtasksPerN:B:S:C=%" PRId64 ":0:*:* CoreSpec=*" NL,
		tpn);
	if (detail && j->n_node_detail)
		print_job_nodes(out, j);
	if (j->min_memory_text)
		snprintf(mem, sizeof(mem), "%s", j->min_memory_text);
	else
		cli_mem_fmt(j->min_memory, mem, sizeof(mem));
	int64_t min_cpus = cpt * (tpn ? tpn : 1);
	char tmp[32] = "0";
	if (j->min_tmp > 0)
		cli_mem_fmt(j->min_tmp, tmp, sizeof(tmp));
	fprintf(out, "MinCPUsNode=%" PRId64 " MinMemory%s=%s MinTmpDiskNode=%s" NL,
		j->min_cpus > min_cpus ? j->min_cpus : min_cpus,
		j->mem_per_cpu ? "CPU" : "Node", mem, tmp);
	fprintf(out, "Features=%s DelayBoot=00:00:00" NL, or_null(j->features));
	fprintf(out, "OverSubscribe=%s Contiguous=0 Licenses=%s Network=(null)" NL,
		j->exclusive ? "NO" : "OK", or_null(j->licenses));
}

static void print_job_files(FILE *out, const struct cli_job *j)
{
	char *err = cli_job_stdio_path(j, j->std_err ? j->std_err : j->std_out);
	char *outp = cli_job_stdio_path(j, j->std_out);
	char *inp = j->std_in ? cli_job_stdio_path(j, j->std_in) : NULL;

	fprintf(out, "Command=%s" NL, *j->command ? j->command : "(null)");
	fprintf(out, "WorkDir=%s", j->workdir);
	if (j->comment)
		fprintf(out, NL "Comment=%s ", j->comment);
	fprintf(out, NL "StdErr=%s", err ? err : "");
	fprintf(out, NL "StdIn=%s", inp ? inp : "/dev/null");
	fprintf(out, NL "StdOut=%s", outp ? outp : "");
	fprintf(out, NL "Power=");
	if (j->gres && *j->gres)
		fprintf(out, NL "TresPerNode=gres:%s", j->gres);
	fprintf(out, NL "\n\n");
	free(inp);
	free(err);
	free(outp);
}

void scs_print_job(FILE *out, const struct cli_job *job, int64_t now, bool detail)
{
	print_job_head(out, job, detail);
	print_job_times(out, job, now);
	print_job_alloc(out, job, detail);
	print_job_files(out, job);
}

void scs_node_state(const struct drv_rec_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", n->state, n->drain ? "+DRAIN" : "",
		 n->not_responding ? "+NOT_RESPONDING" : "");
}

static void partitions_of(const struct drv_rec_node *n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n->n_partitions && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "",
					 n->partitions[i]);
}

/* CfgTRES= and AllocTRES= (cpu, mem, gres/gpu as Slurm 22.05 lists them). */
static void print_node_tres(FILE *out, const struct drv_rec_node *n)
{
	char mem[32];
	int64_t acpu = n->alloc_cpus, amem = n->alloc_memory, agpu = n->alloc_gpus;

	cli_mem_fmt(n->real_memory, mem, sizeof(mem));
	fprintf(out, "CfgTRES=cpu=%" PRIu32 ",mem=%s,billing=%" PRIu32, n->cpus, mem,
		n->cpus);
	if (n->gpus > 0)
		fprintf(out, ",gres/gpu=%" PRIu32, n->gpus);
	fprintf(out, NL "AllocTRES=");
	if (acpu > 0)
		fprintf(out, "cpu=%" PRId64, acpu);
	if (amem > 0) {
		cli_mem_fmt(amem, mem, sizeof(mem));
		fprintf(out, "%smem=%s", acpu > 0 ? "," : "", mem);
	}
	if (agpu > 0)
		fprintf(out, "%sgres/gpu=%" PRId64, acpu + amem > 0 ? "," : "", agpu);
	fprintf(out, NL);
}

static void print_node_tail(FILE *out, const struct drv_rec_node *n)
{
	char t1[64], t2[64];

	/* BootTime: the host's; SlurmdStartTime: its noded's start;
	 * LastBusyTime: the last time it had jobs (Unknown before it registered) */
	iso(n->boot_time, t1, sizeof(t1));
	iso(n->slurmd_start_time, t2, sizeof(t2));
	fprintf(out, "BootTime=%s SlurmdStartTime=%s" NL, n->boot_time ? t1 : "None",
		n->slurmd_start_time ? t2 : "None");
	iso(n->last_busy, t1, sizeof(t1));
	fprintf(out, "LastBusyTime=%s" NL, n->last_busy ? t1 : "Unknown");
	print_node_tres(out, n);
	fprintf(out, "CapWatts=n/a" NL "CurrentWatts=0 AveWatts=0" NL);
	fprintf(out, "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
	if (n->reason && *n->reason) {
		fprintf(out, NL "Reason=%s", n->reason);
		if (n->reason_time > 0) {
			iso(n->reason_time, t1, sizeof(t1));
			fprintf(out, " [%s@%s]", n->reason_user ? n->reason_user : "root",
				t1);
		}
	}
	fprintf(out, "\n\n");
}

void scs_print_node(FILE *out, const struct drv_rec_node *n)
{
	char state[96], parts[1024];
	const char *host = n->hostname ? n->hostname : n->name;
	struct utsname u;

	if (uname(&u) != 0)
		snprintf(u.machine, sizeof(u.machine), "x86_64");
	scs_node_state(n, state, sizeof(state));
	partitions_of(n, parts, sizeof(parts));
	fprintf(out, "NodeName=%s Arch=%s CoresPerSocket=1 " NL, n->name, u.machine);
	fprintf(out,
		"CPUAlloc=%" PRIu32 " CPUEfctv=%" PRIu32 " CPUTot=%" PRIu32
		" CPULoad=0.00" NL,
		n->alloc_cpus, n->cpus, n->cpus);
	fprintf(out, "AvailableFeatures=%s" NL, or_null(n->features));
	fprintf(out, "ActiveFeatures=%s" NL, or_null(n->features));
	fprintf(out, "Gres=%s" NL, or_null(n->gres));
	fprintf(out, "NodeAddr=%s NodeHostName=%s Version=22.05.8" NL,
		n->addr ? n->addr : host, host);
	fprintf(out,
		"RealMemory=%" PRId64 " AllocMem=%" PRId64 " FreeMem=N/A Sockets=%" PRIu32
		" Boards=1" NL,
		n->real_memory, n->alloc_memory, n->cpus);
	fprintf(out,
		"State=%s ThreadsPerCore=1 TmpDisk=%" PRId64 " Weight=%" PRIu32
		" Owner=N/A MCS_label=N/A" NL,
		state, n->tmp_disk, n->weight);
	if (parts[0])
		fprintf(out, "Partitions=%s " NL, parts);
	print_node_tail(out, n);
}

/* MaxNodes=, MaxCPUsPerNode=: a number or UNLIMITED (-1). */
static void count_str(int64_t v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "UNLIMITED");
	else
		snprintf(buf, len, "%" PRId64, v);
}

/* DefMemPerCPU=, DefMemPerNode=, MaxMemPerNode= and the TRES line. */
static void print_part_tail(FILE *out, const struct drv_rec_partition *p)
{
	int64_t cpus = p->total_cpus, mem = p->total_memory;
	char mems[32];

	if (p->has_def_mem_per_cpu && p->def_mem_per_cpu > 0)
		fprintf(out, "DefMemPerCPU=%" PRId64, p->def_mem_per_cpu);
	else if (p->has_def_mem_per_node && p->def_mem_per_node > 0)
		fprintf(out, "DefMemPerNode=%" PRId64, p->def_mem_per_node);
	else
		fprintf(out, "DefMemPerNode=UNLIMITED");
	if (p->max_mem_per_node > 0)
		fprintf(out, " MaxMemPerNode=%" PRId64 NL, p->max_mem_per_node);
	else
		fprintf(out, " MaxMemPerNode=UNLIMITED" NL);
	cli_mem_fmt(mem, mems, sizeof(mems));
	fprintf(out, "TRES=cpu=%" PRId64 "%s%s,node=%" PRIu32 ",billing=%" PRId64, cpus,
		mem > 0 ? ",mem=" : "", mem > 0 ? mems : "", p->total_nodes, cpus);
	if (p->total_gpus > 0)
		fprintf(out, ",gres/gpu=%" PRId64, p->total_gpus);
	if (p->tres_billing_weights)
		fprintf(out, NL "TRESBillingWeights=%s", p->tres_billing_weights);
	fprintf(out, "\n\n");
}

/* AllowGroups=, then AllowAccounts= unless only a Deny list is set (then
 * DenyAccounts=), the same for QOS, as Slurm prints them. */
static void print_part_access(FILE *out, const struct drv_rec_partition *p)
{
	fprintf(out, "AllowGroups=%s", p->allow_groups ? p->allow_groups : "ALL");
	if (p->allow_accounts || !p->deny_accounts)
		fprintf(out, " AllowAccounts=%s",
			p->allow_accounts ? p->allow_accounts : "ALL");
	else
		fprintf(out, " DenyAccounts=%s", p->deny_accounts);
	if (p->allow_qos || !p->deny_qos)
		fprintf(out, " AllowQos=%s" NL, p->allow_qos ? p->allow_qos : "ALL");
	else
		fprintf(out, " DenyQos=%s" NL, p->deny_qos);
}

/* JobDefaults=: DefCpuPerGPU, then DefMemPerGPU, or (null). */
static void print_job_defaults(FILE *out, const struct drv_rec_partition *p)
{
	fprintf(out, "JobDefaults=");
	if (p->def_cpu_per_gpu > 0)
		fprintf(out, "DefCpuPerGPU=%" PRId64, p->def_cpu_per_gpu);
	if (p->def_mem_per_gpu > 0)
		fprintf(out, "%sDefMemPerGPU=%" PRId64, p->def_cpu_per_gpu > 0 ? "," : "",
			p->def_mem_per_gpu);
	if (p->def_cpu_per_gpu <= 0 && p->def_mem_per_gpu <= 0)
		fprintf(out, "(null)");
	fprintf(out, NL);
}

void scs_print_part(FILE *out, const struct drv_rec_partition *p)
{
	char maxt[64], deft[64], maxn[24], maxc[24];

	drv_time_fmt_limit(p->max_time, maxt, sizeof(maxt));
	drv_time_fmt_limit(p->default_time, deft, sizeof(deft));
	count_str(p->max_nodes, maxn, sizeof(maxn));
	count_str(p->max_cpus_per_node, maxc, sizeof(maxc));
	fprintf(out, "PartitionName=%s" NL, p->name);
	print_part_access(out, p);
	fprintf(out, "AllocNodes=ALL Default=%s QoS=%s" NL, p->is_default ? "YES" : "NO",
		p->qos ? p->qos : "N/A");
	fprintf(
	    out,
	    "DefaultTime=%s DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO" NL,
	    deft);
	fprintf(out,
		"MaxNodes=%s MaxTime=%s MinNodes=%" PRIu32 " LLN=NO MaxCPUsPerNode=%s" NL,
		maxn, maxt, p->min_nodes, maxc);
	fprintf(out, "Nodes=%s" NL, or_null(p->nodes));
	fprintf(out,
		"PriorityJobFactor=%" PRIu32 " PriorityTier=%" PRIu32
		" RootOnly=NO ReqResv=NO OverSubscribe=%s" NL,
		p->priority_job_factor, p->priority_tier, p->oversubscribe);
	fprintf(out, "OverTimeLimit=NONE PreemptMode=OFF" NL);
	fprintf(out,
		"State=%s TotalCPUs=%" PRId64 " TotalNodes=%" PRIu32
		" SelectTypeParameters=NONE" NL,
		p->state ? p->state : "UP", p->total_cpus, p->total_nodes);
	print_job_defaults(out, p);
	print_part_tail(out, p);
}

void scs_print_step(FILE *out, const struct cli_job *j, const struct cli_step *s)
{
	char id[64], start[64];
	if (j->array_job_id > 0 && j->array_task_id >= 0)
		snprintf(id, sizeof(id), "%lld_%lld", (long long)j->array_job_id,
			 (long long)j->array_task_id);
	else
		snprintf(id, sizeof(id), "%lld", (long long)j->job_id);
	cli_fmt_time((time_t)(s ? s->start_time : j->start_time), start, sizeof(start));
	if (s)
		fprintf(out, "StepId=%s.%lld", id, (long long)s->step_id);
	else
		fprintf(out, "StepId=%s.batch", id);
	fprintf(out, " UserId=%lld StartTime=%s TimeLimit=UNLIMITED\n", (long long)j->uid,
		start);
	fprintf(out, "   State=RUNNING Partition=%s NodeList=%s\n", j->partition,
		s ? s->nodelist : j->batch_host);
	fprintf(out, "   Nodes=%lld CPUs=%lld Tasks=%lld Name=%s Network=(null)\n",
		(long long)(s ? s->num_nodes : 1), (long long)(s ? s->cpus : 0),
		(long long)(s ? s->ntasks : 1), s ? s->name : "batch");
	fprintf(out, "   TRES=%s\n", s && *s->alloc_tres ? s->alloc_tres : "(null)");
	fprintf(out, "   ResvPorts=(null)\n   CPUFreqReq=Default");
	if (s && *s->distribution)
		fprintf(out, " Dist=%s", s->distribution);
	/* Drover does not record where srun runs */
	fprintf(out, "\n   SrunHost:Pid=(null):0\n\n");
}
