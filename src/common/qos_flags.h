/* qos_flags.h — Slurm's QOS Flags= names, in the order Slurm prints them
 * (slurmdb_qos_flags_str), shared by ctld's tables and sacctmgr. Pure. */
#ifndef DRV_QOS_FLAGS_H
#define DRV_QOS_FLAGS_H

#include <stdint.h>

#define DRV_QOS_FLAG_COUNT 10
#define DRV_QOS_DENY_ON_LIMIT (1u << 0) /* Flags=DenyOnLimit: the first name */

/* The bit of one flag name (any case), 0 when Slurm knows no such flag. */
uint32_t drv_qos_flag_parse(const char *name);
/* The name of bit i (0..DRV_QOS_FLAG_COUNT-1); static. */
const char *drv_qos_flag_name(unsigned i);

#endif
