/* sstat_fields.c — sstat's fields, in Slurm 22.05's order (which decides
 * what a name prefix selects) with its default widths, and the value of
 * each for one running step (step.stat's row). What Drover does not
 * gather (disk, pages, CPU frequency, energy) prints as Slurm prints it
 * without that plugin: blank, 0 or Unknown. */
#include "cli/sstat.h"

#include <stdio.h>
#include <string.h>

#include "cli/usage_fmt.h"

/* clang-format off */
const struct cli_field_def sstat_fields[] = {
    {"AveCPU", "AveCPU", 10, SS_AVE_CPU, 0},
    {"AveCPUFreq", "AveCPUFreq", 10, SS_ZERO, 0},
    {"AveDiskRead", "AveDiskRead", 12, SS_BLANK, 0},
    {"AveDiskWrite", "AveDiskWrite", 12, SS_BLANK, 0},
    {"AvePages", "AvePages", 10, SS_BLANK, 0},
    {"AveRSS", "AveRSS", 10, SS_AVE_RSS, 0},
    {"AveVMSize", "AveVMSize", 10, SS_AVE_VSIZE, 0},
    {"ConsumedEnergy", "ConsumedEnergy", 14, SS_ZERO, 0},
    {"ConsumedEnergyRaw", "ConsumedEnergyRaw", 17, SS_ZERO, 0},
    {"JobID", "JobID", -12, SS_JOBID, 0},
    {"MaxDiskRead", "MaxDiskRead", 12, SS_BLANK, 0},
    {"MaxDiskReadNode", "MaxDiskReadNode", 15, SS_BLANK, 0},
    {"MaxDiskReadTask", "MaxDiskReadTask", 15, SS_BLANK, 0},
    {"MaxDiskWrite", "MaxDiskWrite", 12, SS_BLANK, 0},
    {"MaxDiskWriteNode", "MaxDiskWriteNode", 16, SS_BLANK, 0},
    {"MaxDiskWriteTask", "MaxDiskWriteTask", 16, SS_BLANK, 0},
    {"MaxPages", "MaxPages", 8, SS_BLANK, 0},
    {"MaxPagesNode", "MaxPagesNode", 12, SS_BLANK, 0},
    {"MaxPagesTask", "MaxPagesTask", 14, SS_BLANK, 0},
    {"MaxRSS", "MaxRSS", 10, SS_MAX_RSS, 0},
    {"MaxRSSNode", "MaxRSSNode", 10, SS_MAX_RSS_NODE, 0},
    {"MaxRSSTask", "MaxRSSTask", 10, SS_MAX_RSS_TASK, 0},
    {"MaxVMSize", "MaxVMSize", 10, SS_MAX_VSIZE, 0},
    {"MaxVMSizeNode", "MaxVMSizeNode", 14, SS_MAX_VSIZE_NODE, 0},
    {"MaxVMSizeTask", "MaxVMSizeTask", 14, SS_MAX_VSIZE_TASK, 0},
    {"MinCPU", "MinCPU", 10, SS_MIN_CPU, 0},
    {"MinCPUNode", "MinCPUNode", 10, SS_MIN_CPU_NODE, 0},
    {"MinCPUTask", "MinCPUTask", 10, SS_MIN_CPU_TASK, 0},
    {"Nodelist", "Nodelist", 20, SS_NODELIST, 0},
    {"NTasks", "NTasks", 8, SS_NTASKS, 0},
    {"Pids", "Pids", 20, SS_PIDS, 0},
    {"ReqCPUFreq", "ReqCPUFreq", 10, SS_UNKNOWN, 0},
    {"ReqCPUFreqMin", "ReqCPUFreqMin", 13, SS_UNKNOWN, 0},
    {"ReqCPUFreqMax", "ReqCPUFreqMax", 13, SS_UNKNOWN, 0},
    {"ReqCPUFreqGov", "ReqCPUFreqGov", 13, SS_UNKNOWN, 0},
    {"TRESUsageInAve", "TRESUsageInAve", 14, SS_TRES_IN + USAGE_TRES_AVE, 0},
    {"TRESUsageInMax", "TRESUsageInMax", 14, SS_TRES_IN + USAGE_TRES_MAX, 0},
    {"TRESUsageInMaxNode", "TRESUsageInMaxNode", 18, SS_TRES_IN + USAGE_TRES_MAX_NODE, 0},
    {"TRESUsageInMaxTask", "TRESUsageInMaxTask", 18, SS_TRES_IN + USAGE_TRES_MAX_TASK, 0},
    {"TRESUsageInMin", "TRESUsageInMin", 14, SS_TRES_IN + USAGE_TRES_MIN, 0},
    {"TRESUsageInMinNode", "TRESUsageInMinNode", 18, SS_TRES_IN + USAGE_TRES_MIN_NODE, 0},
    {"TRESUsageInMinTask", "TRESUsageInMinTask", 18, SS_TRES_IN + USAGE_TRES_MIN_TASK, 0},
    {"TRESUsageInTot", "TRESUsageInTot", 14, SS_TRES_IN + USAGE_TRES_TOT, 0},
    {"TRESUsageOutAve", "TRESUsageOutAve", 15, SS_ENERGY, 0},
    {"TRESUsageOutMax", "TRESUsageOutMax", 15, SS_ENERGY, 0},
    {"TRESUsageOutMaxNode", "TRESUsageOutMaxNode", 19, SS_BLANK, 0},
    {"TRESUsageOutMaxTask", "TRESUsageOutMaxTask", 19, SS_BLANK, 0},
    {"TRESUsageOutMin", "TRESUsageOutMin", 15, SS_ENERGY, 0},
    {"TRESUsageOutMinNode", "TRESUsageOutMinNode", 19, SS_BLANK, 0},
    {"TRESUsageOutMinTask", "TRESUsageOutMinTask", 19, SS_BLANK, 0},
    {"TRESUsageOutTot", "TRESUsageOutTot", 15, SS_ENERGY, 0},
    {0, 0, 0, 0, 0},
};
/* clang-format on */

void sstat_help_fields(FILE *out)
{
	/* Slurm's _help_fields_msg: four to a line, each in 19 columns */
	for (int i = 0; sstat_fields[i].name; i++) {
		if (i & 3)
			fputc(' ', out);
		else if (i)
			fputc('\n', out);
		fprintf(out, "%-19s", sstat_fields[i].name);
	}
	fputc('\n', out);
}

static const char *num(char *buf, size_t len, long long v)
{
	snprintf(buf, len, "%lld", v);
	return buf;
}

/* The sampled figures; NULL when no node has a sample yet. */
static const char *usage_value(int id, const struct cli_usage *u, char *buf, size_t len)
{
	if (!u->has)
		return NULL;
	if (id >= SS_TRES_IN && id <= SS_TRES_IN + USAGE_TRES_TOT)
		return usage_fmt_tres(u, (enum usage_tres)(id - SS_TRES_IN), buf, len);
	switch (id) {
	case SS_AVE_CPU:
		return usage_fmt_ave_cpu(u, buf, len);
	case SS_AVE_RSS:
		return usage_fmt_kib(u->ave_rss_kib, buf, len);
	case SS_AVE_VSIZE:
		return usage_fmt_kib(u->ave_vsize_kib, buf, len);
	case SS_MAX_RSS:
		return usage_fmt_kib(u->max_rss_kib, buf, len);
	case SS_MAX_RSS_NODE:
		return u->max_rss_node;
	case SS_MAX_RSS_TASK:
		return num(buf, len, u->max_rss_task);
	case SS_MAX_VSIZE:
		return usage_fmt_kib(u->max_vsize_kib, buf, len);
	case SS_MAX_VSIZE_NODE:
		return u->max_vsize_node;
	case SS_MAX_VSIZE_TASK:
		return num(buf, len, u->max_vsize_task);
	case SS_MIN_CPU:
		return usage_fmt_secs(u->min_cpu_usec, buf, len);
	case SS_MIN_CPU_NODE:
		return u->min_cpu_node;
	case SS_MIN_CPU_TASK:
		return num(buf, len, u->min_cpu_task);
	}
	return NULL;
}

const char *sstat_value(int id, const struct sstat_row *r, char *buf, size_t len)
{
	switch (id) {
	case SS_BLANK:
		return NULL;
	case SS_ZERO:
		return "0";
	case SS_UNKNOWN:
		return "Unknown";
	case SS_ENERGY:
		return "energy=0";
	case SS_JOBID:
		if (r->step_id < 0)
			snprintf(buf, len, "%lld.batch", (long long)r->job_id);
		else
			snprintf(buf, len, "%lld.%lld", (long long)r->job_id,
				 (long long)r->step_id);
		return buf;
	case SS_NODELIST:
		return r->nodelist;
	case SS_NTASKS:
		return num(buf, len, r->ntasks);
	case SS_PIDS:
		return r->pids;
	}
	return usage_value(id, &r->usage, buf, len);
}
