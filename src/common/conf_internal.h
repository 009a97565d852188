/* conf_internal.h — what conf.c (the reader) and conf_keys.c (the key tables
 * and the code that applies each key) share. Nothing outside these two files
 * includes it. */
#ifndef DRV_CONF_INTERNAL_H
#define DRV_CONF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"

/* How a key's value is checked and stored into its target struct. */
enum conf_type {
	CONF_STR,	  /* char *, as written */
	CONF_STR_LOWER,	  /* char *, lower-cased (ClusterName, as Slurm does) */
	CONF_PATH,	  /* char *, relative paths resolved against the config dir */
	CONF_INT,	  /* int within [min, max] */
	CONF_U64,	  /* uint64_t within [min, max] */
	CONF_TIME,	  /* int64_t seconds, Slurm time-limit syntax */
	CONF_BOOL,	  /* bool: YES/NO, TRUE/FALSE, 1/0 */
	CONF_ENUM,	  /* char *, upper-cased, one of choices */
	CONF_NAMES,	  /* char *, a comma list as written; "ALL" (any case): NULL */
	CONF_NAMES_LOWER, /* char *, the same lower-cased (account, QOS names) */
	CONF_U32,	  /* uint32_t within [min, max] */
	CONF_U32_UNLIM,	  /* uint32_t within [min, max], or UNLIMITED/INFINITE:
			   * DRV_UNLIMITED32 */
	CONF_CUSTOM,	  /* apply() does the work */
	CONF_OTHER,	  /* known to Slurm, not acted on by Drover: kept as text;
			   * accepted only with a value in choices (below) */
};

struct conf_parser;
struct conf_key;

/* Applies value to target. On error fills err with "Key: what" (the caller
 * adds "file:line: ") and returns -EINVAL; target is unchanged then. */
typedef int (*conf_apply_f)(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err);

/* One declared key: the whole truth about it. */
struct conf_key {
	const char *name; /* matched case-insensitively */
	enum conf_type type;
	size_t off;	  /* field offset in the target struct */
	const char *def;  /* default, parsed like a value; NULL: none */
	int64_t min, max; /* bounds for CONF_INT / CONF_U64 */
	/* CONF_ENUM: the values, NULL-terminated. CONF_OTHER: the values that
	 * are harmless or equivalent under Drover, matched case-insensitively
	 * against each item of a comma list; a value outside them is an error,
	 * since Drover would silently not do what it asks. NULL: any value is
	 * harmless; an empty list ({NULL}): the key may not be set at all. */
	const char *const *choices;
	bool reload;	    /* may change on reconfigure without restart */
	conf_apply_f apply; /* for CONF_CUSTOM */
};

/* What one NodeName= line (or NodeName=DEFAULT) says, before expansion. */
struct conf_node_line {
	char *names;	 /* NodeName hostlist */
	char *hostnames; /* NodeHostname hostlist, or NULL */
	char *addrs;	 /* NodeAddr hostlist, or NULL */
	char *ports;	 /* Port, a number or a range "[7001-7004]", or NULL */
	int cpus;
	uint64_t real_memory;
	uint64_t tmp_disk;
	char *gres;
	char *features;
	char *state;
	uint32_t weight;
};

/* Slurm's defaults of SchedulerParameters (conf_keys.c). */
void conf_sched_defaults(struct drv_sched_conf *s);

/* conf_ctld_params.c: SlurmctldParameters (the rl_* options, Slurm's
 * defaults from conf_rl_defaults; the rest kept as text), the apply of its
 * row. */
void conf_rl_defaults(struct drv_rl_conf *rl);
int conf_apply_ctld_params(struct conf_parser *p, const struct conf_key *k, void *target,
			   const char *value, struct drv_error *err);

/* conf_prio.c: the priority keys. Slurm's defaults (the keys' rows have
 * none, so that an unwritten key stays out of `scontrol show config`); the
 * apply of every Priority* row of the global table (by the row's name) and
 * of a partition's TRESBillingWeights; the checks that need several keys,
 * once the whole file is read. */
void conf_prio_defaults(struct drv_prio_conf *p);
int conf_apply_prio(struct conf_parser *p, const struct conf_key *k, void *target,
		    const char *value, struct drv_error *err);
int conf_apply_billing(struct conf_parser *p, const struct conf_key *k, void *target,
		       const char *value, struct drv_error *err);
int conf_prio_check(const struct drv_conf *c, struct drv_error *err);

/* conf_auth.c: AuthType and AuthInfo. */
int conf_apply_auth_type(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err);
int conf_apply_auth_info(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err);
/* conf_private.c: PrivateData=jobs,usage,... into drv_conf.private_data. */
int conf_apply_private_data(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err);

/* conf_health.c: HealthCheckNodeState into drv_conf.health_check_node_state;
 * and its bits in Slurm's words ("ANY", "CYCLE,IDLE") into buf. */
int conf_apply_health_state(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err);
void conf_health_state_text(unsigned mask, char *buf, size_t len);

/* conf_acct.c: JobAcctGatherFrequency. */
int conf_apply_acct_freq(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err);

/* conf_cgroup.c: cgroup.conf's table; the apply of drover.conf's old
 * cgroup rows (into conf->cgroup, with a warning); cgroup.conf's path in
 * dir (malloc'd, NULL on ENOMEM); a deep copy (to's old strings freed; 0 or
 * -ENOMEM, to unchanged then); freeing the strings. */
extern const struct conf_key conf_cgroup_keys[];
int conf_apply_cgroup_legacy(struct conf_parser *p, const struct conf_key *k,
			     void *target, const char *value, struct drv_error *err);
char *conf_cgroup_path(const char *dir);
int conf_cgroup_copy(struct drv_cgroup_conf *to, const struct drv_cgroup_conf *from);
void conf_cgroup_free(struct drv_cgroup_conf *c);

/* The parser's state while one drv_conf_load runs; never outlives it. */
struct conf_parser {
	struct drv_conf *conf; /* being built; freed on failure */
	drv_conf_warn_f warn;
	void *warn_arg;
	const char *file; /* file of the line being applied */
	int line;
};

extern const struct conf_key conf_global_keys[];
extern const struct conf_key conf_node_keys[];
/* PartitionName= lines (conf_part.c): their target is a struct
 * drv_part_conf, whose nodes field holds Nodes= as written (a hostlist or
 * ALL) until conf.c resolves it once every node is known. */
extern const struct conf_key conf_part_keys[];

/* Finds name (case-insensitive) in a table; NULL when unknown. */
const struct conf_key *conf_key_find(const struct conf_key *table, const char *name);

/* The known key nearest to name (edit distance, case-insensitive) among a
 * table's rows and, if not NULL, the NULL-terminated extra names; NULL when
 * none is close enough to be a likely typo. Borrowed from the table. */
const char *conf_key_nearest(const struct conf_key *table, const char *const *extra,
			     const char *name);

/* Applies one key (value NULL: its default) to target. */
int conf_key_apply(struct conf_parser *p, const struct conf_key *k, void *target,
		   const char *value, struct drv_error *err);

/* Applies every default of a table to target. */
int conf_keys_defaults(struct conf_parser *p, const struct conf_key *table, void *target,
		       struct drv_error *err);

/* Frees every string field of a table's target struct. */
void conf_keys_free(const struct conf_key *table, void *target);

/* Copies the string fields of a table's target struct (after a memcpy). */
int conf_keys_dup(const struct conf_key *table, void *target);

/* Records key=value in conf->other, replacing an earlier value of the key. */
int conf_other_set(struct drv_conf *conf, const char *key, const char *value);

/* Records what the file wrote in conf->written: a global key's value
 * (replacing an earlier one), or (append) a whole line of a line kind. */
int conf_written_add(struct drv_conf *conf, const char *key, const char *value,
		     bool append);

/* Returns a malloc'd path: path itself if absolute, else dir/path. */
char *conf_resolve(const char *dir, const char *path);

/* AuthInfo's default socket= (authd's), and munged's own, which
 * AuthType=auth/munge uses instead when AuthInfo names no socket. The key
 * table spells AuthInfo's default out as one string literal (gen-man reads
 * it from there for drover.conf(5)): keep the two the same. */
#define CONF_AUTHD_SOCKET "/run/drover/authd.sock"
#define CONF_MUNGED_SOCKET "/run/munge/munge.socket.2"

#endif
