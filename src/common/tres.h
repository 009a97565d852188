/* tres.h — trackable resources as Slurm's limits write them:
 * "cpu=4,mem=10G,gres/gpu=2,node=1,billing=8" (GrpTRES=, MaxTRESPerJob=,
 * MaxTRESPerUser=). A list holds one count per TRES Drover knows, or none;
 * counts of mem are MiB. Text comes in two forms: the canonical one that the
 * store and the protocol carry (names sorted, plain numbers) and the one
 * sacctmgr prints (mem with an exact unit: 10G, 1500M). Pure: no I/O. */
#ifndef DRV_TRES_H
#define DRV_TRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Slurm's default TRES and gres/gpu, in the order of their names (the order
 * Slurm prints them in). */
enum drv_tres_id {
	DRV_TRES_BILLING,
	DRV_TRES_CPU,
	DRV_TRES_ENERGY,
	DRV_TRES_FS_DISK,
	DRV_TRES_GPU, /* gres/gpu */
	DRV_TRES_MEM, /* MiB */
	DRV_TRES_NODE,
	DRV_TRES_PAGES,
	DRV_TRES_VMEM,
	DRV_TRES_COUNT,
};

#define DRV_TRES_NONE (-1)  /* no count: no limit on it */
#define DRV_TRES_CLEAR (-2) /* a change's "name=-1": remove that limit */

struct drv_tres {
	int64_t v[DRV_TRES_COUNT]; /* a count, DRV_TRES_NONE or DRV_TRES_CLEAR */
};

/* Every count DRV_TRES_NONE. */
void drv_tres_init(struct drv_tres *t);
bool drv_tres_empty(const struct drv_tres *t);

/* Slurm's name of id ("cpu", "gres/gpu"); static. */
const char *drv_tres_name(enum drv_tres_id id);

/* Parses text ("name=count[unit],..."; units K, M, G, T, P as Slurm scales
 * them: mem counts MiB, so 10G is 10240; a count of -1 is DRV_TRES_CLEAR)
 * into *out. Returns 0, or -EINVAL with err holding Slurm's sacctmgr error
 * ("Invalid unit type 'x'. Possible options are 'KMGTP'", "no TRES known
 * by type foo", ...); *out is unchanged then. NULL or "" is an empty list. */
int drv_tres_parse(const char *text, struct drv_tres *out, struct drv_error *err);

/* Applies change to t: a count replaces, DRV_TRES_CLEAR removes, NONE keeps. */
void drv_tres_merge(struct drv_tres *t, const struct drv_tres *change);

/* Writes t into buf (len bytes, always terminated): canonical with units
 * false, as sacctmgr prints it with units true; "" when t has no count. A
 * DRV_TRES_CLEAR count is written as -1 in the canonical form (changes
 * travel so) and as NONE in sacctmgr's. Returns the length the whole text
 * needs (as snprintf). */
size_t drv_tres_format(const struct drv_tres *t, bool units, char *buf, size_t len);

/* One MiB count as Slurm prints memory in TRES ("10G", "1500M", "0"). */
void drv_tres_mem_text(int64_t mib, char *buf, size_t len);

/* A weight per TRES, as PriorityWeightTRES and a partition's
 * TRESBillingWeights write them: "CPU=1.0,Mem=0.25G,GRES/gpu=2.0" (names in
 * any case, reals, negative allowed). A unit letter K, M, G, T, P after a
 * weight makes it a weight per that unit, as Slurm: mem's base unit is the
 * MiB ("Mem=0.25G" is 0.25 per GiB), every other TRES counts (K: per 1024).
 * Plain data, copied by assignment. */
struct drv_tres_weights {
	bool set;		  /* a list was given (an empty one is not) */
	double w[DRV_TRES_COUNT]; /* per unit of the TRES (mem: per MiB); 0 unset */
	char text[256];		  /* the list as written, for show commands */
};

/* Parses text into *out. 0; -EINVAL with err holding Slurm's words ("\"x\"
 * is an invalid TRES weight entry", "TRES weight 'foo' is not a configured
 * TRES type.", "Invalid unit type 'x'. Possible options are 'KMGTP'"),
 * *out unchanged. NULL or "" gives an unset list. */
int drv_tres_weights_parse(const char *text, struct drv_tres_weights *out,
			   struct drv_error *err);

#endif
