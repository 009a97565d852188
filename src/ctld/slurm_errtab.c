/* slurm_errtab.c — the Slurm error codes a submit policy returns, with
 * Slurm's texts: the ones about jobs, partitions, accounts, QOS, limits
 * and resources (slurm_errno.h). Owns nothing else; the texts are what
 * sbatch prints after "Batch job submission failed: ". */
#include "ctld/slurm_errtab.h"

#include <string.h>

#define E(name, code, text)                                                              \
	{                                                                                \
#name, code, text                                                        \
	}

/* clang-format off */
const struct slurm_err slurm_errtab[] = {
	E(ESLURM_INVALID_PARTITION_NAME, 2000, "Invalid partition name specified"),
	E(ESLURM_DEFAULT_PARTITION_NOT_SET, 2001, "No partition specified or system default partition"),
	E(ESLURM_ACCESS_DENIED, 2002, "Access/permission denied"),
	E(ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP, 2003, "User's group not permitted to use this partition"),
	E(ESLURM_REQUESTED_NODES_NOT_IN_PARTITION, 2004, "Requested nodes not in this partition"),
	E(ESLURM_TOO_MANY_REQUESTED_CPUS, 2005, "More processors requested than permitted"),
	E(ESLURM_INVALID_NODE_COUNT, 2006, "Node count specification invalid"),
	E(ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, 2007, "Unable to create job record, try again"),
	E(ESLURM_JOB_MISSING_SIZE_SPECIFICATION, 2008, "Job size specification needs to be provided"),
	E(ESLURM_JOB_SCRIPT_MISSING, 2009, "Job script not specified"),
	E(ESLURM_USER_ID_MISSING, 2010, "Invalid user id"),
	E(ESLURM_PATHNAME_TOO_LONG, 2012, "Pathname of a file, directory or other parameter too long"),
	E(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, 2014, "Requested node configuration is not available"),
	E(ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE, 2015, "Requested partition configuration not available now"),
	E(ESLURM_NODES_BUSY, 2016, "Requested nodes are busy"),
	E(ESLURM_INVALID_JOB_ID, 2017, "Invalid job id specified"),
	E(ESLURM_INVALID_NODE_NAME, 2018, "Invalid node name specified"),
	E(ESLURM_TRANSITION_STATE_NO_UPDATE, 2020, "Job can not be altered now, try again later"),
	E(ESLURM_ALREADY_DONE, 2021, "Job/step already completing or completed"),
	E(ESLURM_BAD_DIST, 2023, "Task distribution specification invalid"),
	E(ESLURM_JOB_PENDING, 2024, "Job is pending execution"),
	E(ESLURM_BAD_TASK_COUNT, 2025, "Task count specification invalid"),
	E(ESLURM_INVALID_FEATURE, 2029, "Invalid feature specification"),
	E(ESLURM_NOT_SUPPORTED, 2036, "Requested operation not supported on this system"),
	E(ESLURM_DISABLED, 2037, "Requested operation is presently disabled"),
	E(ESLURM_DEPENDENCY, 2038, "Job dependency problem"),
	E(ESLURM_BATCH_ONLY, 2039, "Only batch jobs are accepted or processed"),
	E(ESLURM_JOB_HELD, 2042, "Job is in held state, pending scheduler release"),
	E(ESLURM_INVALID_TASK_MEMORY, 2044, "Memory required by task is not available"),
	E(ESLURM_INVALID_ACCOUNT, 2045, "Invalid account or account/partition combination specified"),
	E(ESLURM_INVALID_LICENSES, 2048, "Invalid license specification"),
	E(ESLURM_ACCOUNTING_POLICY, 2050, "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"),
	E(ESLURM_INVALID_TIME_LIMIT, 2051, "Requested time limit is invalid (missing or exceeds some limit)"),
	E(ESLURM_RESERVATION_ACCESS, 2052, "Access denied to requested reservation"),
	E(ESLURM_RESERVATION_INVALID, 2053, "Requested reservation is invalid"),
	E(ESLURM_INVALID_TIME_VALUE, 2054, "Invalid time specified"),
	E(ESLURM_RESERVATION_NOT_USABLE, 2056, "Requested reservation not usable now"),
	E(ESLURM_INVALID_WCKEY, 2057, "Invalid wckey specification"),
	E(ESLURM_INVALID_QOS, 2066, "Invalid qos specification"),
	E(ESLURM_NODE_NOT_AVAIL, 2068, "Required node not available (down, drained or reserved)"),
	E(ESLURM_INVALID_CPU_COUNT, 2069, "CPU count specification invalid"),
	E(ESLURM_PARTITION_NOT_AVAIL, 2070, "Required partition not available (inactive or drain)"),
	E(ESLURM_CIRCULAR_DEPENDENCY, 2071, "Circular job dependency"),
	E(ESLURM_INVALID_GRES, 2072, "Invalid generic resource (gres) specification"),
	E(ESLURM_JOB_NOT_PENDING, 2073, "Job is no longer pending execution"),
	E(ESLURM_QOS_THRES, 2074, "Requested account has breached requested QOS usage threshold"),
	E(ESLURM_CAN_NOT_START_IMMEDIATELY, 2078, "Job can not start immediately"),
	E(ESLURM_INVALID_ARRAY, 2081, "Invalid job array specification"),
	E(ESLURM_JOB_STARTED, 2083, "Job has already started"),
	E(ESLURM_JOB_FINISHED, 2084, "Job has already finished"),
	E(ESLURM_JOB_NOT_RUNNING, 2085, "Job is not running"),
	E(ESLURM_INTERNAL, 2090, "Slurm internal error, contact system administrator"),
	E(ESLURM_BURST_BUFFER_PERMISSION, 2092, "Burst Buffer permission denied"),
	E(ESLURM_INVALID_BURST_BUFFER_REQUEST, 2094, "Burst Buffer request invalid"),
	E(ESLURM_PARTITION_DOWN, 2101, "Partition in DOWN state"),
	E(ESLURM_SUBMISSIONS_DISABLED, 2105, "System submissions disabled"),
	E(ESLURM_GROUP_ID_MISSING, 2113, "Invalid group id"),
	E(ESLURM_BATCH_CONSTRAINT, 2114, "Job --batch option is invalid or not a subset of --constraints"),
	E(ESLURM_INVALID_TRES, 2115, "Invalid Trackable RESource (TRES) specification"),
	E(ESLURM_INVALID_GRES_TYPE, 2119, "Invalid GRES specification (with and without type identification)"),
	E(ESLURM_INVALID_NICE, 2123, "Invalid --nice value"),
	E(ESLURM_INVALID_TIME_MIN_LIMIT, 2124, "Invalid time-min specification (exceeds job's time or other limits)"),
	E(ESLURM_ENVIRONMENT_MISSING, 2127, "Environment is missing in job"),
	E(ESLURM_MISSING_TIME_LIMIT, 8000, "Time limit specification required, but not provided"),
};
/* clang-format on */
const size_t slurm_errtab_len = sizeof(slurm_errtab) / sizeof(slurm_errtab[0]);

const char *slurm_err_text(int rc)
{
	if (rc == 0)
		return "No error";
	if (rc == -1)
		return "Unspecified error";
	for (size_t i = 0; i < slurm_errtab_len; i++)
		if (slurm_errtab[i].code == rc)
			return slurm_errtab[i].text;
	if (rc > 0 && rc < 1000)
		return strerror(rc);
	return NULL;
}
