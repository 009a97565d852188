/* sacct_fields.c — the field table, in Slurm 22.05's order (which decides
 * what a name prefix selects) with its default widths as the real sacct
 * prints them, and --helpformat drawn from it. */
#include "cli/sacct_fields.h"

#include <strings.h>

/* clang-format off */
static const struct sacct_field fields[] = {
    {"Account", 10, SF_STR, sacct_v_account, false},
    {"AdminComment", 15, SF_STR, sacct_v_blank, false},
    {"AllocCPUS", 10, SF_NUM, sacct_v_alloc_cpus, false},
    {"AllocNodes", 10, SF_STR, sacct_v_alloc_nodes, false},
    {"AllocTRES", 10, SF_STR, sacct_v_alloc_tres, false},
    {"AssocID", 7, SF_NUM, sacct_v_blank, false},
    {"AveCPU", 10, SF_STR, sacct_v_ave_cpu, false},
    {"AveCPUFreq", 10, SF_STR, sacct_v_step_zero, false},
    {"AveDiskRead", 14, SF_STR, sacct_v_blank, false},
    {"AveDiskWrite", 14, SF_STR, sacct_v_blank, false},
    {"AvePages", 10, SF_STR, sacct_v_blank, false},
    {"AveRSS", 10, SF_STR, sacct_v_ave_rss, false},
    {"AveVMSize", 10, SF_STR, sacct_v_ave_vsize, false},
    {"BlockID", 16, SF_STR, sacct_v_blank, false},
    {"Cluster", 10, SF_STR, sacct_v_cluster, false},
    {"Comment", 14, SF_STR, sacct_v_comment, false},
    {"Constraints", 19, SF_STR, sacct_v_constraints, false},
    {"ConsumedEnergy", 14, SF_STR, sacct_v_energy, false},
    {"ConsumedEnergyRaw", 17, SF_NUM, sacct_v_energy, false},
    {"Container", 19, SF_STR, sacct_v_blank, false},
    {"CPUTime", 10, SF_TIME, sacct_v_cputime, false},
    {"CPUTimeRAW", 10, SF_NUM, sacct_v_cputime_raw, false},
    {"DBIndex", -10, SF_NUM, sacct_v_dbindex, false},
    {"DerivedExitCode", 15, SF_STR, sacct_v_derived_ec, false},
    {"Elapsed", 10, SF_TIME, sacct_v_elapsed, false},
    {"ElapsedRaw", 10, SF_NUM, sacct_v_elapsed_raw, false},
    {"Eligible", 19, SF_DATE, sacct_v_eligible, false},
    {"End", 19, SF_DATE, sacct_v_end, false},
    {"ExitCode", 8, SF_STR, sacct_v_exitcode, false},
    {"Flags", 19, SF_STR, sacct_v_flags, false},
    {"GID", 6, SF_NUM, sacct_v_gid, false},
    {"Group", 9, SF_STR, sacct_v_group, false},
    {"JobID", -12, SF_STR, sacct_v_jobid, false},
    {"JobIDRaw", -12, SF_STR, sacct_v_jobidraw, false},
    {"JobName", 10, SF_STR, sacct_v_jobname, false},
    {"Layout", 9, SF_STR, sacct_v_layout, false},
    {"MaxDiskRead", 12, SF_STR, sacct_v_blank, false},
    {"MaxDiskReadNode", 15, SF_STR, sacct_v_blank, false},
    {"MaxDiskReadTask", 15, SF_NUM, sacct_v_blank, false},
    {"MaxDiskWrite", 12, SF_STR, sacct_v_blank, false},
    {"MaxDiskWriteNode", 16, SF_STR, sacct_v_blank, false},
    {"MaxDiskWriteTask", 16, SF_NUM, sacct_v_blank, false},
    {"MaxPages", 8, SF_STR, sacct_v_blank, false},
    {"MaxPagesNode", 12, SF_STR, sacct_v_blank, false},
    {"MaxPagesTask", 14, SF_NUM, sacct_v_blank, false},
    {"MaxRSS", 10, SF_STR, sacct_v_max_rss, false},
    {"MaxRSSNode", 10, SF_STR, sacct_v_max_rss_node, false},
    {"MaxRSSTask", 10, SF_NUM, sacct_v_max_rss_task, false},
    {"MaxVMSize", 10, SF_STR, sacct_v_max_vsize, false},
    {"MaxVMSizeNode", 14, SF_STR, sacct_v_max_vsize_node, false},
    {"MaxVMSizeTask", 14, SF_NUM, sacct_v_max_vsize_task, false},
    {"McsLabel", 12, SF_STR, sacct_v_blank, false},
    {"MinCPU", 10, SF_STR, sacct_v_min_cpu, false},
    {"MinCPUNode", 10, SF_STR, sacct_v_min_cpu_node, false},
    {"MinCPUTask", 10, SF_NUM, sacct_v_min_cpu_task, false},
    {"NCPUS", 10, SF_NUM, sacct_v_alloc_cpus, false},
    {"NNodes", 8, SF_NUM, sacct_v_nnodes, false},
    {"NodeList", 15, SF_STR, sacct_v_nodelist, false},
    {"NTasks", 8, SF_NUM, sacct_v_ntasks, false},
    {"Partition", 10, SF_STR, sacct_v_partition, false},
    {"Priority", 10, SF_NUM, sacct_v_priority, false},
    {"QOS", 10, SF_STR, sacct_v_qos, false},
    {"QOSRAW", 6, SF_NUM, sacct_v_blank, false},
    {"Reason", 22, SF_STR, sacct_v_reason, false},
    {"ReqCPUFreq", 10, SF_STR, sacct_v_cpufreq, false},
    {"ReqCPUFreqGov", 13, SF_STR, sacct_v_cpufreq, false},
    {"ReqCPUFreqMax", 13, SF_STR, sacct_v_cpufreq, false},
    {"ReqCPUFreqMin", 13, SF_STR, sacct_v_cpufreq, false},
    {"ReqCPUS", 8, SF_NUM, sacct_v_req_cpus, false},
    {"ReqMem", 10, SF_STR, sacct_v_req_mem, false},
    {"ReqNodes", 8, SF_STR, sacct_v_req_nodes, false},
    {"ReqTRES", 10, SF_STR, sacct_v_req_tres, false},
    {"Reservation", 20, SF_STR, sacct_v_blank, false},
    {"ReservationId", 8, SF_NUM, sacct_v_blank, false},
    {"Reserved", 10, SF_TIME, sacct_v_reserved, false},
    {"ResvCPU", 10, SF_TIME, sacct_v_resv_cpu, false},
    {"ResvCPURAW", 10, SF_NUM, sacct_v_resv_cpu_raw, false},
    {"Start", 19, SF_DATE, sacct_v_start, false},
    {"State", 10, SF_STR, sacct_v_state, false},
    {"Submit", 19, SF_DATE, sacct_v_submit, false},
    {"SubmitLine", 20, SF_STR, sacct_v_blank, false},
    {"Suspended", 10, SF_TIME, sacct_v_suspended, false},
    {"SystemComment", 15, SF_STR, sacct_v_blank, false},
    {"SystemCPU", 10, SF_STR, sacct_v_sys_cpu, false},
    {"Timelimit", 10, SF_STR, sacct_v_timelimit, false},
    {"TimelimitRaw", 10, SF_STR, sacct_v_timelimit_raw, false},
    {"TotalCPU", 10, SF_STR, sacct_v_total_cpu, false},
    {"TRESUsageInAve", 14, SF_STR, sacct_v_tres_in_ave, false},
    {"TRESUsageInMax", 14, SF_STR, sacct_v_tres_in_max, false},
    {"TRESUsageInMaxNode", 18, SF_STR, sacct_v_tres_in_max_node, false},
    {"TRESUsageInMaxTask", 18, SF_STR, sacct_v_tres_in_max_task, false},
    {"TRESUsageInMin", 14, SF_STR, sacct_v_tres_in_min, false},
    {"TRESUsageInMinNode", 18, SF_STR, sacct_v_tres_in_min_node, false},
    {"TRESUsageInMinTask", 18, SF_STR, sacct_v_tres_in_min_task, false},
    {"TRESUsageInTot", 14, SF_STR, sacct_v_tres_in_tot, false},
    {"TRESUsageOutAve", 15, SF_STR, sacct_v_usage_energy, false},
    {"TRESUsageOutMax", 15, SF_STR, sacct_v_blank, false},
    {"TRESUsageOutMaxNode", 19, SF_STR, sacct_v_blank, false},
    {"TRESUsageOutMaxTask", 19, SF_STR, sacct_v_blank, false},
    {"TRESUsageOutMin", 15, SF_STR, sacct_v_blank, false},
    {"TRESUsageOutMinNode", 19, SF_STR, sacct_v_blank, false},
    {"TRESUsageOutMinTask", 19, SF_STR, sacct_v_blank, false},
    {"TRESUsageOutTot", 15, SF_STR, sacct_v_usage_energy, false},
    {"UID", 6, SF_NUM, sacct_v_uid, false},
    {"User", 9, SF_STR, sacct_v_user, false},
    {"UserCPU", 10, SF_STR, sacct_v_user_cpu, false},
    {"WCKey", 10, SF_STR, sacct_v_blank, false},
    {"WCKeyID", 10, SF_NUM, sacct_v_wckeyid, false},
    {"WorkDir", 20, SF_STR, sacct_v_workdir, false},
    /* Drover's additions (later Slurm versions have them) */
    {"Restarts", 8, SF_NUM, sacct_v_restarts, true},
};
/* clang-format on */

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

const struct sacct_field *sacct_fields(size_t *n)
{
	*n = N_FIELDS;
	return fields;
}

int sacct_field_find(const char *name, size_t len)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (!strncasecmp(fields[i].name, name, len))
			return (int)i;
	return -1;
}

void sacct_print_helpformat(FILE *f)
{
	int shown = 0;
	for (size_t i = 0; i < N_FIELDS; i++) {
		if (fields[i].extra)
			continue;
		if (shown & 3)
			fputc(' ', f);
		else if (shown)
			fputc('\n', f);
		fprintf(f, "%-19s", fields[i].name);
		shown++;
	}
	fputc('\n', f);
}
