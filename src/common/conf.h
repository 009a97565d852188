/* conf.h — drover.conf in slurm.conf syntax, parsed by one table-driven parser.
 *
 * Every key is declared once in conf_keys.c (name, type, default, bounds).
 * The parsed result is a plain struct handed to the modules that need it;
 * there is no global config. */
#ifndef DRV_CONF_H
#define DRV_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/tres.h"

#define DRV_INFINITE (-1) /* time limits: UNLIMITED / INFINITE */
/* The largest local job id Slurm allows (MAX_JOB_ID, 26 bits: the rest is
 * its federation's cluster id); MaxJobId may not exceed it. */
#define DRV_JOB_ID_MAX 0x03ffffff
#define DRV_NO_VAL (-2) /* a value that was not given */

struct drv_node_conf {
	char *name;	      /* one per node: NodeName lists are expanded */
	char *hostname;	      /* NodeHostname, default: name */
	char *addr;	      /* NodeAddr, default: hostname */
	int port;	      /* Port, default: SlurmdPort */
	int cpus;	      /* CPUs, default 1 */
	uint64_t real_memory; /* RealMemory in MiB, default 1 */
	uint64_t tmp_disk;    /* TmpDisk in MB, default 0 */
	char *gres;	      /* Gres= as written ("gpu:4", "gpu:a100:2"), or NULL */
	char *features;	      /* Features= as written, or NULL */
	char *state;	      /* State= upper-cased ("DRAIN", "DOWN", ...), or NULL */
	uint32_t weight;      /* Weight=, default 1: lower weights are filled first */
};

#define DRV_UNLIMITED32 UINT32_MAX /* MaxNodes=, MaxCPUsPerNode= UNLIMITED */

/* OverSubscribe= (or its old name Shared=) of a partition. */
enum drv_oversubscribe {
	DRV_OS_NO,	  /* the default: jobs share nodes, never a CPU */
	DRV_OS_EXCLUSIVE, /* every job gets whole nodes */
	DRV_OS_YES,	  /* up to oversubscribe_max jobs per CPU when they ask */
	DRV_OS_FORCE,	  /* up to oversubscribe_max jobs per CPU always */
};

/* One partition's settings: a PartitionName= line, or what `scontrol
 * create|update PartitionName=` made of one (drv_part_conf_set). The keys
 * and their bounds are declared once, in conf_part.c. */
struct drv_part_conf {
	char *name;
	char *nodes;	   /* compressed hostlist of its nodes */
	char **node_names; /* expanded, in config order */
	size_t n_nodes;
	bool is_default;	    /* Default=YES */
	int64_t max_time;	    /* seconds, DRV_INFINITE by default */
	int64_t default_time;	    /* seconds, DRV_NO_VAL when not set */
	char *state;		    /* "UP" (default), "DOWN", "DRAIN", "INACTIVE" */
	uint32_t max_nodes;	    /* MaxNodes, DRV_UNLIMITED32 by default */
	uint32_t min_nodes;	    /* MinNodes, 0 by default */
	uint32_t max_cpus_per_node; /* MaxCPUsPerNode, DRV_UNLIMITED32 by default */
	uint64_t max_mem_per_node;  /* MaxMemPerNode in MiB, 0: UNLIMITED */
	/* DefMemPerCPU / DefMemPerNode in MiB, 0: not set (the cluster's
	 * apply); DefMemPerNode wins when both are set, as in Slurm */
	uint64_t def_mem_per_cpu, def_mem_per_node;
	uint64_t def_cpu_per_gpu,
	    def_mem_per_gpu; /* DefCpuPerGPU, DefMemPerGPU (MiB); 0: not set */
	/* AllowAccounts, AllowQos (lower-cased) and AllowGroups as comma
	 * lists, NULL for ALL; DenyAccounts, DenyQos (lower-cased), NULL for
	 * none. An Allow list makes its Deny list ignored, as in Slurm. */
	char *allow_accounts, *deny_accounts, *allow_groups, *allow_qos, *deny_qos;
	char *qos;			      /* QOS=: the partition's QOS, NULL: none */
	uint32_t priority_tier;		      /* PriorityTier, 1 by default */
	uint32_t priority_job_factor;	      /* PriorityJobFactor, 1 by default */
	enum drv_oversubscribe oversubscribe; /* NO by default */
	uint32_t oversubscribe_max; /* YES:N / FORCE:N's N (4 without one); 1 for NO */
	/* TRESBillingWeights: what a job's usage is billed at (fair share);
	 * unset: its CPUs */
	struct drv_tres_weights billing_weights;
};

/* One cluster-wide license: Licenses=name[:count],... */
struct drv_license_conf {
	char *name;
	uint32_t total;
};

/* EnforcePartLimits: what a job must satisfy at submit. */
enum drv_enforce_part {
	DRV_ENFORCE_NO,	 /* NO (the default): jobs wait instead */
	DRV_ENFORCE_ANY, /* ANY: the limits of one of its partitions */
	DRV_ENFORCE_ALL, /* ALL or YES: the limits of every partition it names */
};

/* SchedulerType and SchedulerParameters: how ctld drives the scheduler
 * (docs/scheduler.md). Times in seconds. */
struct drv_sched_conf {
	bool backfill;		  /* SchedulerType=sched/backfill (the default) */
	int bf_interval;	  /* seconds between backfill passes, 30 */
	int64_t bf_window;	  /* seconds planned ahead: bf_window minutes, 1 day */
	int bf_resolution;	  /* seconds, 60 */
	uint32_t bf_max_job_test; /* 500 */
	uint32_t bf_max_job_user; /* 0: none */
	int bf_max_time;	  /* seconds a backfill pass may run; bf_interval */
	bool bf_continue;	  /* the next pass goes on where one stopped */
	uint32_t default_queue_depth; /* jobs a quick pass tries, 100 */
	bool kill_invalid_depend;
	int64_t max_script_size; /* bytes a batch script may have, 4 MiB */
};

/* SlurmctldParameters=rl_enable,rl_*: the per-user RPC rate limit, a token
 * bucket per uid (ctld/rate_limit.c), with Slurm's defaults. */
struct drv_rl_conf {
	bool enable;		/* rl_enable */
	uint32_t bucket_size;	/* rl_bucket_size, 30 */
	uint32_t refill_rate;	/* rl_refill_rate: tokens a period, 2 */
	uint32_t refill_period; /* rl_refill_period: seconds, 1 */
	uint32_t table_size;	/* rl_table_size: uids the table holds, 8192 */
	int log_freq; /* rl_log_freq: seconds between log lines per uid, 0; -1: none */
};

/* PriorityUsageResetPeriod. */
enum drv_prio_reset {
	DRV_PRIO_RESET_NONE,
	DRV_PRIO_RESET_NOW, /* once, at start */
	DRV_PRIO_RESET_DAILY,
	DRV_PRIO_RESET_WEEKLY,
	DRV_PRIO_RESET_MONTHLY,
	DRV_PRIO_RESET_QUARTERLY,
	DRV_PRIO_RESET_YEARLY,
};

/* PriorityFlags, Slurm's names. */
enum {
	DRV_PRIO_ACCRUE_ALWAYS = 1u << 0,
	DRV_PRIO_SMALL_RELATIVE_TO_TIME = 1u << 1,
	DRV_PRIO_CALCULATE_RUNNING = 1u << 2,
	DRV_PRIO_DEPTH_OBLIVIOUS = 1u << 3, /* accepted; classic fair share */
	DRV_PRIO_NO_FAIR_TREE = 1u << 4,
	DRV_PRIO_INCR_ONLY = 1u << 5,	    /* accepted, not acted on */
	DRV_PRIO_MAX_TRES = 1u << 6,	    /* accepted, not acted on */
	DRV_PRIO_NO_NORMAL_ASSOC = 1u << 7, /* the NO_NORMAL_*: accepted, not */
	DRV_PRIO_NO_NORMAL_PART = 1u << 8,  /* acted on (docs/compat.md) */
	DRV_PRIO_NO_NORMAL_QOS = 1u << 9,
	DRV_PRIO_NO_NORMAL_TRES = 1u << 10,
};

/* PriorityType and the settings of priority/multifactor (conf_prio.c).
 * Times are seconds: Slurm's minutes keys take its time syntax, so "5" is
 * five minutes and "0:10" ten seconds. */
struct drv_prio_conf {
	bool multifactor; /* PriorityType=priority/multifactor; else basic */
	uint32_t weight_age, weight_assoc, weight_fairshare, weight_job_size;
	uint32_t weight_partition, weight_qos;
	struct drv_tres_weights weight_tres; /* PriorityWeightTRES */
	int64_t max_age;		     /* PriorityMaxAge, 7 days */
	int64_t decay_half_life;	     /* PriorityDecayHalfLife, 7 days; 0: none */
	int64_t calc_period;		     /* PriorityCalcPeriod, 5 minutes */
	enum drv_prio_reset reset_period;    /* PriorityUsageResetPeriod, NONE */
	bool reset_given;		     /* PriorityUsageResetPeriod was written */
	bool favor_small;		     /* PriorityFavorSmall */
	unsigned flags;			     /* PriorityFlags: DRV_PRIO_* */
};

struct drv_ctld_host {
	char *name;
	char *addr; /* from name(addr); default: name */
};

/* A key Drover read but keeps only as text (for `scontrol show config`). */
struct drv_conf_kv {
	char *key;
	char *value;
};

/* AccountingStorageEnforce's parts, as Slurm implies them: limits, qos,
 * safe and wckeys each enforce associations too, safe enforces limits. */
enum {
	DRV_ENFORCE_ASSOCS = 1u << 0,
	DRV_ENFORCE_LIMITS = 1u << 1,
	DRV_ENFORCE_QOS = 1u << 2,
	DRV_ENFORCE_SAFE = 1u << 3,
	DRV_ENFORCE_WCKEYS = 1u << 4,
};

/* PrivateData's parts (slurm.conf): what regular users may not see of
 * others; root, SlurmUser and operators see everything. */
enum {
	DRV_PRIVATE_ACCOUNTS = 1u << 0,
	DRV_PRIVATE_EVENTS = 1u << 1,
	DRV_PRIVATE_JOBS = 1u << 2,
	DRV_PRIVATE_NODES = 1u << 3,
	DRV_PRIVATE_PARTITIONS = 1u << 4,
	DRV_PRIVATE_RESERVATIONS = 1u << 5,
	DRV_PRIVATE_USAGE = 1u << 6,
	DRV_PRIVATE_USERS = 1u << 7,
	DRV_PRIVATE_ALL = 0xffu,
};
/* HealthCheckNodeState's words, as Slurm's bits: ANY is IDLE, ALLOC, MIXED
 * and NONDRAINED_IDLE together; CYCLE spreads the nodes' runs over the
 * interval instead of running all at once. */
#define DRV_HC_IDLE 0x01u
#define DRV_HC_ALLOC 0x02u
#define DRV_HC_MIXED 0x04u
#define DRV_HC_NONDRAINED_IDLE 0x08u
#define DRV_HC_ANY 0x0fu
#define DRV_HC_CYCLE 0x10u
/* cgroup.conf (Slurm's keys, Drover's PidsLimit and GpuDeviceFiles): how
 * noded's shepherds confine each job. Percentages are of the job's memory
 * (Allowed*) or of the node's RealMemory (MaxRAMPercent). */
struct drv_cgroup_conf {
	char *path;	  /* the cgroup.conf read; NULL when there is none */
	char *plugin;	  /* autodetect, cgroup/v1, cgroup/v2 or disabled */
	char *mountpoint; /* default /sys/fs/cgroup */
	bool constrain_cores, constrain_ram, constrain_swap, constrain_devices;
	double allowed_ram, allowed_swap, max_ram_percent; /* 0..100 */
	uint32_t pids_limit;				   /* 0: none */
	char *gpu_device_files; /* hostlist of device files: GPU i is the i-th */
};

struct drv_conf {
	char *path;			  /* the file that was loaded */
	char *dir;			  /* its directory */
	char *cluster_name;		  /* ClusterName, default "drover" */
	struct drv_ctld_host *ctld_hosts; /* SlurmctldHost, repeatable */
	size_t n_ctld_hosts;
	int ctld_port;		   /* SlurmctldPort, default 6817 */
	int slurmd_port;	   /* SlurmdPort, default 6818 */
	char *state_save_location; /* default /var/spool/drover/ctld */
	char *slurmd_spool_dir; /* raw, may hold %n/%h; default /var/spool/drover/d/%n */
	char *slurmd_log_file;	/* raw, may hold %n/%h; NULL = stderr */
	char *slurmd_pid_file;	/* raw, may hold %n/%h; NULL = none */
	char *ctld_log_file;	/* NULL = stderr */
	char *ctld_pid_file;	/* NULL = none */
	char *auth_type;	/* "auth/drover" or "auth/munge" */
	char *auth_socket;	/* AuthInfo socket=, default /run/drover/authd.sock
				 * (auth/munge: /run/munge/munge.socket.2) */
	char *auth_key;		/* AuthInfo key=, default drover.key beside the config */
	char *slurm_user;	/* SlurmUser: whom clients believe as ctld; NULL: root */
	char *slurmd_user;	/* SlurmdUser: whom noded runs as; NULL: root, and
				 * then jobs run as their users (multi-user) */
	int slurmd_timeout;	/* seconds, default 300 */
	int kill_wait;		/* seconds, default 30 */
	int unkillable_step_timeout; /* seconds after SIGKILL before a step's
				      * processes count as unkillable (the
				      * node drains), default 60 */
	int min_job_age;	     /* seconds, default 300 */
	int max_array_size;	     /* MaxArraySize, default 1001 */
	int max_job_count;	     /* MaxJobCount, default 10000 */
	struct drv_rl_conf rl;	     /* SlurmctldParameters rl_* */
	int acct_gather_freq;	     /* JobAcctGatherFrequency's task=: seconds between
				      * usage samples, 0 none; default 30 */
	/* job ids run from FirstJobId up to, not including, MaxJobId, then
	 * round again (ctld/job_id.c); Slurm's defaults 1 and 0x03ff0000 */
	int first_job_id, max_job_id;
	uint64_t max_message_size; /* bytes, default 4 MiB */
	bool config_overrides;	   /* SlurmdParameters=config_overrides */
	uint64_t def_mem_per_cpu;  /* DefMemPerCPU in MiB, 0 = not set */
	uint64_t def_mem_per_node; /* DefMemPerNode in MiB, 0 = not set (whole node) */
	uint64_t def_cpu_per_gpu;  /* DefCpuPerGPU, 0 = not set */
	uint64_t def_mem_per_gpu;  /* DefMemPerGPU in MiB, 0 = not set */
	bool cr_memory;		   /* SelectTypeParameters=CR_*_Memory (the default) */
	enum drv_enforce_part enforce_part_limits; /* EnforcePartLimits */
	unsigned acct_enforce;	 /* AccountingStorageEnforce: DRV_ENFORCE_* bits */
	unsigned private_data;	 /* PrivateData: DRV_PRIVATE_* bits */
	int64_t purge_job_after; /* seconds a finished job stays in sacct; 0 = always */
	int job_requeue;	 /* JobRequeue: jobs may be requeued by default (1) */
	int cred_expire;	 /* AuthInfo cred_expire=: a credential's lifetime, and a
				    requeued job waits this + 1 s */
	int clock_skew;		 /* AuthInfo clock_skew=: seconds clocks may disagree */
	int key_grace; /* AuthInfo key_grace=: seconds a rotated-out key lives */
	/* Prolog and epilog programs (absolute paths, NULL: none). noded runs
	 * Prolog before a job's shepherd and Epilog after the job; the shepherd
	 * runs TaskProlog/TaskEpilog as the user around the script. */
	char *prolog, *epilog, *task_prolog, *task_epilog;
	char *prolog_slurmctld, *epilog_slurmctld; /* run by ctld (hook.c) */
	char *prolog_flags;			   /* PrologFlags as given (Alloc) */
	int prolog_epilog_timeout; /* seconds, 65534 (Slurm's default): no limit */
	/* Node health (noded/health.c): the program noded runs every
	 * health_check_interval seconds (0: never) while the node's state is one
	 * of health_check_node_state (DRV_HC_* bits), killed after
	 * health_check_timeout seconds (Drover's own key; Slurm's fixed 60) */
	char *health_check_program;
	int health_check_interval, health_check_timeout;
	unsigned health_check_node_state;
	/* The anomaly freeze (Drover's own keys, docs/anomaly.md): noded
	 * freezes a job whose memory grows faster than anomaly_mem_rate MiB/s
	 * over its last anomaly_mem_samples samples (0: off), or whose RSS
	 * passes anomaly_mem_fraction of RealMemory without a hard memory
	 * limit (0: off); ctld freezes a job whose processes are refused for
	 * permission anomaly_denied_limit times (0: off) within
	 * anomaly_denied_window seconds. */
	int anomaly_mem_rate, anomaly_mem_samples;
	double anomaly_mem_fraction;
	int anomaly_denied_limit, anomaly_denied_window;
	/* cgroup.conf, read from the directory of drover.conf (conf_cgroup.c) */
	struct drv_cgroup_conf cgroup;
	struct drv_sched_conf sched;
	struct drv_prio_conf prio;
	/* JobContainerType: "job_container/none" or "job_container/tmpfs" (each
	 * job's own /tmp and /dev/shm; noded reads job_container.conf) */
	char *job_container_type;
	/* Bounds on what anyone who reaches a daemon can hold (docs/protocol.md,
	 * "Limits"): seconds to complete a first authenticated request, seconds
	 * an authenticated client connection may stay silent (0: no limit),
	 * connections in all and per uid, live credential nonces in all and
	 * per uid. */
	int conn_auth_timeout, conn_idle_timeout;
	int max_connections, max_connections_per_user;
	uint64_t nonce_cache_size, nonce_cache_per_user;
	/* JobSubmitPlugins=lua: ctld runs job_submit.lua from the config's
	 * directory on every submit and update (ctld/job_submit_lua.c) */
	bool job_submit_lua;

	struct drv_node_conf *nodes;
	size_t n_nodes;
	struct drv_part_conf *parts;
	size_t n_parts;
	struct drv_license_conf *licenses; /* Licenses=, in the order written */
	size_t n_licenses;

	struct drv_conf_kv *other; /* Slurm keys kept as text, in order */
	size_t n_other;

	/* What the file says, for `scontrol reconfigure` to compare, in order:
	 * each value a global key was given (its name as declared; a key given
	 * twice, as SlurmctldHost may be, twice), and each NodeName,
	 * PartitionName, DownNodes, ... line whole (key: the line kind). */
	struct drv_conf_kv *written;
	size_t n_written;
};

/* Called for each warning with "file:line: message" (none today: a key
 * unknown to Slurm, or a value Drover would not honour, is an error).
 * Daemons and `-t` print these; client commands pass NULL and stay silent. */
typedef void (*drv_conf_warn_f)(const char *msg, void *arg);

/* Which file to read: `explicit_path` (from -f) if not NULL, else $DROVER_CONF,
 * else /etc/drover/drover.conf. Returns a malloc'd string. */
char *drv_conf_resolve_path(const char *explicit_path);

/* Parses path (following Include). On success *out is a new config the caller
 * frees with drv_conf_free(). On failure returns -errno, err names
 * "file:line: what was wrong", and *out is untouched. */
int drv_conf_load(const char *path, drv_conf_warn_f warn, void *warn_arg,
		  struct drv_conf **out, struct drv_error *err);
void drv_conf_free(struct drv_conf *conf);

/* `scontrol reconfigure`: brings the keys of conf that may change live (the
 * reload flag of their row) to what fresh (a new load of the same file)
 * says. When a key that cannot change live differs, returns -EPERM with err
 * naming it and changes nothing. On success (0) `applied` holds the keys
 * that changed, comma-separated ("" when none). fresh is only read. */
int drv_conf_reload(struct drv_conf *conf, const struct drv_conf *fresh, char *applied,
		    size_t applied_len, struct drv_error *err);

/* Lookups; results are borrowed from conf. NULL when not found. */
const struct drv_node_conf *drv_conf_node(const struct drv_conf *conf, const char *name);
const struct drv_part_conf *drv_conf_part(const struct drv_conf *conf, const char *name);
const struct drv_part_conf *drv_conf_default_part(const struct drv_conf *conf);

/* --- a partition's settings, also changed live (scontrol) --------------- */

/* Fills pc with Slurm's defaults for a partition called name (copied).
 * 0 or -ENOMEM (pc then holds nothing to free). */
int drv_part_conf_init(struct drv_part_conf *pc, const char *name);

/* Applies one partition key as slurm.conf and `scontrol update
 * PartitionName=` spell it (any case) to pc: 0; -EINVAL with err
 * "Key: what was wrong" and pc unchanged; -ENOENT for a key partitions do
 * not have (err names it); -ENOMEM. Nodes= is kept as written in pc->nodes
 * (node_names untouched): the caller resolves it. Keys Slurm has that
 * Drover does not act on are accepted and change nothing. */
int drv_part_conf_set(struct drv_part_conf *pc, const char *key, const char *value,
		      struct drv_error *err);

/* A deep copy of src into *dst (overwritten, not freed): 0 or -ENOMEM
 * (dst then holds nothing to free). */
int drv_part_conf_copy(struct drv_part_conf *dst, const struct drv_part_conf *src);
void drv_part_conf_fini(struct drv_part_conf *pc); /* frees what pc owns */

/* Whether a partition in this State= takes new jobs (UP, DOWN) and whether
 * its jobs may start (UP, DRAIN), as Slurm's PARTITION_SUBMIT and _SCHED. */
bool drv_part_state_submit(const char *state);
bool drv_part_state_sched(const char *state);

/* OverSubscribe= as scontrol shows it: "NO", "EXCLUSIVE", "YES:4",
 * "FORCE:4". */
void drv_part_oversubscribe_str(const struct drv_part_conf *pc, char *buf, size_t len);

/* SlurmUser's uid (a name or a number; root when not set). 0, or -ENOENT
 * with err naming the unknown user. */
int drv_conf_slurm_uid(const struct drv_conf *conf, uid_t *uid, struct drv_error *err);

/* SlurmdUser's uid, as drv_conf_slurm_uid. Root (the default) means node
 * daemons can become any user: the cluster runs every user's jobs. */
int drv_conf_slurmd_uid(const struct drv_conf *conf, uid_t *uid, struct drv_error *err);

/* Whether uid may speak as ctld: root or SlurmUser. 0, or -EPERM with err
 * saying whom the credential was issued to and whom the config trusts. */
int drv_conf_check_ctld_uid(const struct drv_conf *conf, uid_t uid,
			    struct drv_error *err);

/* Does PrologFlags (as given, "Alloc,Contain"; NULL: none) name flag
 * (any case)? */
bool drv_prolog_flag(const char *prolog_flags, const char *flag);

/* PrivateData's bits as Slurm writes them ("jobs,usage"; "none") into buf,
 * which holds at least 80 bytes (conf_private.c). */
void drv_private_data_str(unsigned bits, char *buf, size_t len);

/* What only the running controller knows, for `scontrol show config`. */
struct drv_conf_live {
	int64_t boot_time;    /* when ctld started; 0: not shown */
	uint64_t next_job_id; /* 0: not shown */
	const char *user;     /* "name(uid)" ctld runs as; NULL: "root(0)" */
};

/* Called once per line of `scontrol show config`; both strings are
 * borrowed for the call only. */
typedef void (*drv_conf_show_f)(const char *key, const char *value, void *arg);

/* Calls emit for every line Slurm 22.05's `scontrol show config` prints, in
 * its order and its value formats ("30 sec", "UNLIMITED", "(null)"): the
 * value conf holds, else Slurm's default; then Drover's keys that Slurm does
 * not have. live may be NULL. Secrets (keys ending in "Pass") are never
 * shown. */
void drv_conf_show(const struct drv_conf *conf, const struct drv_conf_live *live,
		   drv_conf_show_f emit, void *arg);

/* Expands %n (node name) and %h (node hostname) in a per-node path pattern.
 * Returns a malloc'd string, or NULL if pattern is NULL. */
char *drv_conf_node_path(const char *pattern, const char *node, const char *hostname);

#endif
