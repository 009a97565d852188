/* qos_flags.c — Slurm's QOS flag names (qos_flags.h). */
#include "common/qos_flags.h"

#include <strings.h>

static const char *const names[DRV_QOS_FLAG_COUNT] = {
    "DenyOnLimit",	  "EnforceUsageThreshold", "NoReserve",
    "PartitionMaxNodes",  "PartitionMinNodes",	   "OverPartQOS",
    "PartitionTimeLimit", "RequiresReservation",   "NoDecay",
    "UsageFactorSafe",
};

uint32_t drv_qos_flag_parse(const char *name)
{
	for (unsigned i = 0; i < DRV_QOS_FLAG_COUNT; i++)
		if (!strcasecmp(name, names[i]))
			return 1u << i;
	return 0;
}

const char *drv_qos_flag_name(unsigned i)
{
	return i < DRV_QOS_FLAG_COUNT ? names[i] : "";
}
