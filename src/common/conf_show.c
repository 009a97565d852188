/* conf_show.c — the lines of `scontrol show config`: Slurm 22.05's keys in
 * the order it prints them, each with the value Drover runs with, or the
 * one Slurm prints for a key left unset, in Slurm's format ("30 sec",
 * "UNLIMITED", "(null)"). It reads a parsed config and never changes it;
 * what only the running controller knows comes in struct drv_conf_live.
 *
 * A key Drover does not act on shows what Drover does, never the text the
 * config wrote (which only had to be harmless under Drover).
 *
 * The keys themselves (type, default, bounds) are declared in conf_keys.c;
 * this table declares only how each is shown, which is a different thing:
 * Slurm shows computed values (MaxDBDMsgs, BOOT_TIME) and prints units the
 * config file never carries. */
#include <ctype.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_internal.h"
#include "common/timefmt.h"

/* How a value read as text from the config is shown. */
enum unit { U_NONE, U_SEC, U_MIN, U_USEC, U_PERCENT, U_NPM, U_YESNO, U_UPPER };

struct show_ctx {
	const struct drv_conf *conf;
	const struct drv_conf_live *live;
	drv_conf_show_f emit;
	void *arg;
};

struct row;
typedef void (*show_get_f)(const struct show_ctx *x, const struct row *r);

struct row {
	const char *key; /* as Slurm prints it; also the config key */
	enum unit unit;	 /* for values written in the config */
	const char *def; /* what Drover does, in Slurm's words; NULL: omit */
	show_get_f get;	 /* Drover's own value; NULL: def (or, for W rows, the
			  * config text Drover acts on, else def) */
	size_t off;	 /* the drv_conf field, for the generic getters */
};

#define FIELD(f) offsetof(struct drv_conf, f)

static void put(const struct show_ctx *x, const char *key, const char *value)
{
	x->emit(key, value, x->arg);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A config value with Slurm's unit: "30" -> "30 sec". */
static void with_unit(const char *v, enum unit u, char *buf, size_t len)
{
	static const char *const names[] = {
	    [U_SEC] = "sec",	     [U_MIN] = "min",	    [U_USEC] = "usec",
	    [U_PERCENT] = "percent", [U_NPM] = "nodes/min",
	};

	if (u == U_YESNO) {
		bool yes = !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
			   (all_digits(v) && strtoll(v, NULL, 10) != 0);
		snprintf(buf, len, "%s", yes ? "Yes" : "No");
	} else if (u == U_UPPER) {
		size_t i;
		for (i = 0; v[i] && i + 1 < len; i++)
			buf[i] = (char)toupper((unsigned char)v[i]);
		buf[i] = '\0';
	} else if (u != U_NONE && all_digits(v)) {
		snprintf(buf, len, "%s %s", v, names[u]);
	} else {
		snprintf(buf, len, "%s", v);
	}
}

static const char *other(const struct drv_conf *c, const char *key)
{
	for (size_t i = 0; i < c->n_other; i++)
		if (!strcasecmp(c->other[i].key, key))
			return c->other[i].value;
	return NULL;
}

/* A key Drover does not act on: the line says what Drover does, whatever
 * the config wrote (it accepted only values harmless under Drover), so
 * that no line claims a behaviour Drover lacks. */
static void get_fixed(const struct show_ctx *x, const struct row *r)
{
	if (r->def)
		put(x, r->key, r->def);
}

/* A key Drover acts on but keeps as text: as written, else the default. */
static void get_text(const struct show_ctx *x, const struct row *r)
{
	const char *v = other(x->conf, r->key);
	char buf[512];

	if (!v) {
		if (r->def)
			put(x, r->key, r->def);
		return;
	}
	with_unit(v, r->unit, buf, sizeof(buf));
	put(x, r->key, buf);
}

static void get_str(const struct show_ctx *x, const struct row *r)
{
	const char *v = *(char *const *)(const void *)((const char *)x->conf + r->off);

	put(x, r->key, v ? v : "(null)");
}

static void get_int(const struct show_ctx *x, const struct row *r)
{
	int v = *(const int *)(const void *)((const char *)x->conf + r->off);
	char buf[32];

	snprintf(buf, sizeof(buf), "%d%s", v, r->unit == U_SEC ? " sec" : "");
	put(x, r->key, buf);
}

static void get_health_state(const struct show_ctx *x, const struct row *r)
{
	char buf[64];

	conf_health_state_text(x->conf->health_check_node_state, buf, sizeof(buf));
	put(x, r->key, buf);
}

static void get_u64(const struct show_ctx *x, const struct row *r)
{
	uint64_t v = *(const uint64_t *)(const void *)((const char *)x->conf + r->off);
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	put(x, r->key, buf);
}

static void get_auth_info(const struct show_ctx *x, const struct row *r)
{
	char buf[1024];
	const struct drv_conf *c = x->conf;

	int n =
	    snprintf(buf, sizeof(buf), "socket=%s,key=%s", c->auth_socket, c->auth_key);
	if (c->cred_expire != 120 && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ",cred_expire=%d",
			      c->cred_expire);
	if (c->clock_skew != 10 && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ",clock_skew=%d",
			      c->clock_skew);
	if (c->key_grace != 300 && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ",key_grace=%d", c->key_grace);
	put(x, r->key, buf);
}

/* DefMemPerCPU when set, else DefMemPerNode (UNLIMITED: the whole node). */
static void get_def_mem(const struct show_ctx *x, const struct row *r)
{
	char buf[32];

	if (x->conf->def_mem_per_cpu) {
		snprintf(buf, sizeof(buf), "%" PRIu64, x->conf->def_mem_per_cpu);
		put(x, "DefMemPerCPU", buf);
	} else if (x->conf->def_mem_per_node) {
		snprintf(buf, sizeof(buf), "%" PRIu64, x->conf->def_mem_per_node);
		put(x, r->key, buf);
	} else {
		put(x, r->key, "UNLIMITED");
	}
}

static void get_max_mem(const struct show_ctx *x, const struct row *r)
{
	const char *cpu = other(x->conf, "MaxMemPerCPU");
	const char *node = other(x->conf, "MaxMemPerNode");

	if (cpu && strcmp(cpu, "0"))
		put(x, "MaxMemPerCPU", cpu);
	else
		put(x, r->key, node && strcmp(node, "0") ? node : "UNLIMITED");
}

static void get_enforce(const struct show_ctx *x, const struct row *r)
{
	static const char *const names[] = {"NO", "ANY", "ALL"};
	put(x, r->key, names[x->conf->enforce_part_limits]);
}

/* Slurm's order; "none" when nothing is enforced. */
static void get_acct_enforce(const struct show_ctx *x, const struct row *r)
{
	static const struct {
		unsigned bit;
		const char *name;
	} parts[] = {{DRV_ENFORCE_ASSOCS, "associations"},
		     {DRV_ENFORCE_LIMITS, "limits"},
		     {DRV_ENFORCE_QOS, "qos"},
		     {DRV_ENFORCE_SAFE, "safe"},
		     {DRV_ENFORCE_WCKEYS, "wckeys"}};
	char buf[80] = "";
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (x->conf->acct_enforce & parts[i].bit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? "," : "", parts[i].name);
	put(x, r->key, buf[0] ? buf : "none");
}

static void get_private_data(const struct show_ctx *x, const struct row *r)
{
	char buf[96];
	drv_private_data_str(x->conf->private_data, buf, sizeof(buf));
	put(x, r->key, buf);
}

static void get_select_params(const struct show_ctx *x, const struct row *r)
{
	put(x, r->key, x->conf->cr_memory ? "CR_CORE_MEMORY" : "CR_CORE");
}

/* Slurm's default: twice MaxJobCount plus four per node, at least 10000. */
static void get_dbd_msgs(const struct show_ctx *x, const struct row *r)
{
	const char *set = other(x->conf, r->key);
	long long n =
	    (long long)x->conf->max_job_count * 2 + 4 * (long long)x->conf->n_nodes;
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", n < 10000 ? 10000 : n);
	put(x, r->key, set ? set : buf);
}

static void get_node_count(const struct show_ctx *x, const struct row *r)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", x->conf->n_nodes);
	put(x, r->key, buf);
}

static void get_boot_time(const struct show_ctx *x, const struct row *r)
{
	char buf[64];

	if (x->live && x->live->boot_time > 0) {
		drv_time_fmt_iso((time_t)x->live->boot_time, buf, sizeof(buf));
		put(x, r->key, buf);
	}
}

static void get_next_job_id(const struct show_ctx *x, const struct row *r)
{
	char buf[32];

	if (x->live && x->live->next_job_id > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64, x->live->next_job_id);
		put(x, r->key, buf);
	}
}

/* SlurmUser/SlurmdUser: "name(uid)" as written; else SlurmUser is who the
 * controller runs as, and SlurmdUser root (Slurm's default). */
static void get_user(const struct show_ctx *x, const struct row *r)
{
	const char *name =
	    strcmp(r->key, "SlurmUser") ? x->conf->slurmd_user : x->conf->slurm_user;
	struct passwd *pw = name ? getpwnam(name) : NULL;
	char buf[128];

	if (pw)
		snprintf(buf, sizeof(buf), "%s(%u)", pw->pw_name, (unsigned)pw->pw_uid);
	else if (name)
		snprintf(buf, sizeof(buf), "%s", name);
	else
		snprintf(buf, sizeof(buf), "%s",
			 x->live && x->live->user && !strcmp(r->key, "SlurmUser")
			     ? x->live->user
			     : "root(0)");
	put(x, r->key, buf);
}

/* TaskPlugin and ProctrackType: what the shepherd does, by cgroups unless
 * CgroupPlugin=disabled (then by the job's process group). */
static void get_task_plugin(const struct show_ctx *x, const struct row *r)
{
	bool cg = !x->conf->cgroup.plugin || strcmp(x->conf->cgroup.plugin, "disabled");
	bool task = !strcmp(r->key, "TaskPlugin");
	put(x, r->key,
	    task ? (cg ? "task/cgroup" : "task/none")
		 : (cg ? "proctrack/cgroup" : "proctrack/pgid"));
}

static void get_ctld_hosts(const struct show_ctx *x, const struct row *r)
{
	char key[48], buf[512];

	for (size_t i = 0; i < x->conf->n_ctld_hosts; i++) {
		const struct drv_ctld_host *h = &x->conf->ctld_hosts[i];

		snprintf(key, sizeof(key), "SlurmctldHost[%zu]", i);
		if (strcmp(h->name, h->addr))
			snprintf(buf, sizeof(buf), "%s(%s)", h->name, h->addr);
		else
			snprintf(buf, sizeof(buf), "%s", h->name);
		put(x, key, buf);
	}
}

/* clang-format off */
#define T(k, u, d) {k, u, d, get_fixed, 0}
#define W(k, u, d) {k, u, d, get_text, 0}
#define G(k, fn, off, u) {k, u, NULL, fn, off}

/* Slurm 22.05's `scontrol show config` with priority/basic, no multifactor
 * keys; defaults from slurm.conf(5). */
static const struct row show_rows[] = {
	T("AccountingStorageBackupHost", U_NONE, "(null)"),
	G("AccountingStorageEnforce", get_acct_enforce, 0, U_NONE),
	T("AccountingStorageHost", U_NONE, "localhost"),
	T("AccountingStorageExternalHost", U_NONE, "(null)"),
	T("AccountingStorageParameters", U_NONE, "(null)"),
	T("AccountingStoragePort", U_NONE, "0"),
	T("AccountingStorageTRES", U_NONE, "cpu,mem,energy,node,billing,fs/disk,vmem,pages,gres/gpu"),
	T("AccountingStorageType", U_NONE, "accounting_storage/drover"),
	T("AccountingStorageUser", U_NONE, "N/A"),
	T("AccountingStoreFlags", U_NONE, "(null)"),
	T("AcctGatherEnergyType", U_NONE, "acct_gather_energy/none"),
	T("AcctGatherFilesystemType", U_NONE, "acct_gather_filesystem/none"),
	T("AcctGatherInterconnectType", U_NONE, "acct_gather_interconnect/none"),
	T("AcctGatherNodeFreq", U_SEC, "0 sec"),
	T("AcctGatherProfileType", U_NONE, "acct_gather_profile/none"),
	T("AllowSpecResourcesUsage", U_YESNO, "No"),
	T("AuthAltTypes", U_NONE, "(null)"),
	T("AuthAltParameters", U_NONE, "(null)"),
	G("AuthInfo", get_auth_info, 0, U_NONE),
	G("AuthType", get_str, FIELD(auth_type), U_NONE),
	T("BatchStartTimeout", U_SEC, "10 sec"),
	T("BcastExclude", U_NONE, "/lib,/usr/lib,/lib64,/usr/lib64"),
	T("BcastParameters", U_NONE, "(null)"),
	G("BOOT_TIME", get_boot_time, 0, U_NONE),
	T("BurstBufferType", U_NONE, "(null)"),
	T("CliFilterPlugins", U_NONE, "(null)"),
	G("ClusterName", get_str, FIELD(cluster_name), U_NONE),
	T("CommunicationParameters", U_NONE, "(null)"),
	T("CompleteWait", U_SEC, "0 sec"),
	T("CoreSpecPlugin", U_NONE, "core_spec/none"),
	T("CpuFreqDef", U_NONE, "Unknown"),
	T("CpuFreqGovernors", U_NONE, "OnDemand,Performance,UserSpace"),
	T("CredType", U_NONE, "cred/drover"),
	T("DebugFlags", U_NONE, "(null)"),
	G("DefMemPerNode", get_def_mem, 0, U_NONE),
	T("DependencyParameters", U_NONE, "(null)"),
	T("DisableRootJobs", U_YESNO, "No"),
	T("EioTimeout", U_NONE, "60"),
	G("EnforcePartLimits", get_enforce, 0, U_NONE),
	G("Epilog", get_str, FIELD(epilog), U_NONE),
	T("EpilogMsgTime", U_USEC, "2000 usec"),
	G("EpilogSlurmctld", get_str, FIELD(epilog_slurmctld), U_NONE),
	T("ExtSensorsType", U_NONE, "ext_sensors/none"),
	T("ExtSensorsFreq", U_SEC, "0 sec"),
	T("FederationParameters", U_NONE, "(null)"),
	G("FirstJobId", get_int, FIELD(first_job_id), U_NONE),
	T("GetEnvTimeout", U_SEC, "2 sec"),
	T("GresTypes", U_NONE, "gpu"),
	T("GpuFreqDef", U_NONE, "high,memory=high"),
	T("GroupUpdateForce", U_NONE, "1"),
	T("GroupUpdateTime", U_SEC, "600 sec"),
	G("HealthCheckInterval", get_int, FIELD(health_check_interval), U_SEC),
	G("HealthCheckNodeState", get_health_state, 0, U_NONE),
	G("HealthCheckProgram", get_str, FIELD(health_check_program), U_NONE),
	T("InactiveLimit", U_SEC, "0 sec"),
	T("InteractiveStepOptions", U_NONE, "--interactive --preserve-env --pty $SHELL"),
	G("JobAcctGatherFrequency", get_int, FIELD(acct_gather_freq), U_NONE),
	T("JobAcctGatherType", U_NONE, "jobacct_gather/none"),
	T("JobAcctGatherParams", U_NONE, "(null)"),
	T("JobCompHost", U_NONE, "localhost"),
	T("JobCompLoc", U_NONE, "/var/log/slurm_jobcomp.log"),
	T("JobCompPort", U_NONE, "0"),
	T("JobCompType", U_NONE, "jobcomp/none"),
	T("JobCompUser", U_NONE, "root"),
	G("JobContainerType", get_str, FIELD(job_container_type), U_NONE),
	T("JobCredentialPrivateKey", U_NONE, "(null)"),
	T("JobCredentialPublicCertificate", U_NONE, "(null)"),
	T("JobDefaults", U_NONE, "(null)"),
	T("JobFileAppend", U_NONE, "0"),
	G("JobRequeue", get_int, FIELD(job_requeue), U_NONE),
	W("JobSubmitPlugins", U_NONE, "(null)"),
	T("KillOnBadExit", U_NONE, "0"),
	G("KillWait", get_int, FIELD(kill_wait), U_SEC),
	T("LaunchParameters", U_NONE, "(null)"),
	T("LaunchType", U_NONE, "launch/slurm"),
	W("Licenses", U_NONE, "(null)"),
	T("LogTimeFormat", U_NONE, "iso8601_ms"),
	T("MailDomain", U_NONE, "(null)"),
	T("MailProg", U_NONE, "(null)"), /* Drover sends no mail */
	G("MaxArraySize", get_int, FIELD(max_array_size), U_NONE),
	G("MaxDBDMsgs", get_dbd_msgs, 0, U_NONE),
	G("MaxJobCount", get_int, FIELD(max_job_count), U_NONE),
	G("MaxJobId", get_int, FIELD(max_job_id), U_NONE),
	G("MaxMemPerNode", get_max_mem, 0, U_NONE),
	G("MaxMessageSize", get_u64, FIELD(max_message_size), U_NONE),
	G("MaxNodeCount", get_node_count, 0, U_NONE),
	T("MaxStepCount", U_NONE, "40000"),
	T("MaxTasksPerNode", U_NONE, "512"),
	T("MCSPlugin", U_NONE, "mcs/none"),
	T("MCSParameters", U_NONE, "(null)"),
	T("MessageTimeout", U_SEC, "10 sec"),
	G("MinJobAge", get_int, FIELD(min_job_age), U_SEC),
	T("MpiDefault", U_NONE, "none"),
	T("MpiParams", U_NONE, "(null)"),
	T("MULTIPLE_SLURMD", U_NONE, "Yes"),
	G("NEXT_JOB_ID", get_next_job_id, 0, U_NONE),
	T("NodeFeaturesPlugins", U_NONE, "(null)"),
	T("OverTimeLimit", U_MIN, "0 min"),
	T("PluginDir", U_NONE, "(null)"),
	T("PlugStackConfig", U_NONE, "(null)"),
	T("PowerParameters", U_NONE, "(null)"),
	T("PowerPlugin", U_NONE, ""),
	T("PreemptMode", U_UPPER, "OFF"),
	T("PreemptType", U_NONE, "preempt/none"),
	T("PreemptExemptTime", U_NONE, "00:00:00"),
	T("PrEpParameters", U_NONE, "(null)"),
	T("PrEpPlugins", U_NONE, "prep/script"),
	T("PriorityParameters", U_NONE, "(null)"),
	T("PrioritySiteFactorParameters", U_NONE, "(null)"),
	T("PrioritySiteFactorPlugin", U_NONE, "(null)"),
	W("PriorityType", U_NONE, "priority/basic"),
	G("PrivateData", get_private_data, 0, U_NONE),
	G("ProctrackType", get_task_plugin, 0, U_NONE),
	G("Prolog", get_str, FIELD(prolog), U_NONE),
	G("PrologEpilogTimeout", get_int, FIELD(prolog_epilog_timeout), U_NONE),
	G("PrologSlurmctld", get_str, FIELD(prolog_slurmctld), U_NONE),
	G("PrologFlags", get_str, FIELD(prolog_flags), U_NONE),
	T("PropagatePrioProcess", U_NONE, "0"),
	T("PropagateResourceLimits", U_NONE, "NONE"), /* jobs get the daemons' limits */
	T("PropagateResourceLimitsExcept", U_NONE, "(null)"),
	T("RebootProgram", U_NONE, "(null)"),
	T("ReconfigFlags", U_NONE, "(null)"),
	T("RequeueExit", U_NONE, "(null)"),
	T("RequeueExitHold", U_NONE, "(null)"),
	T("ResumeFailProgram", U_NONE, "(null)"),
	T("ResumeProgram", U_NONE, "(null)"),
	T("ResumeRate", U_NPM, "300 nodes/min"),
	T("ResumeTimeout", U_SEC, "60 sec"),
	T("ResvEpilog", U_NONE, "(null)"),
	T("ResvOverRun", U_MIN, "0 min"),
	T("ResvProlog", U_NONE, "(null)"),
	T("ReturnToService", U_NONE, "1"),
	T("RoutePlugin", U_NONE, "route/default"),
	W("SchedulerParameters", U_NONE, "(null)"),
	T("SchedulerTimeSlice", U_SEC, "30 sec"),
	W("SchedulerType", U_NONE, "sched/backfill"),
	T("ScronParameters", U_NONE, "(null)"),
	T("SelectType", U_NONE, "select/cons_tres"),
	G("SelectTypeParameters", get_select_params, 0, U_NONE),
	G("SlurmUser", get_user, 0, U_NONE),
	T("SlurmctldAddr", U_NONE, "(null)"),
	T("SlurmctldDebug", U_NONE, "info"),
	G("SlurmctldHost", get_ctld_hosts, 0, U_NONE),
	G("SlurmctldLogFile", get_str, FIELD(ctld_log_file), U_NONE),
	G("SlurmctldPort", get_int, FIELD(ctld_port), U_NONE),
	T("SlurmctldSyslogDebug", U_NONE, "(null)"),
	T("SlurmctldPrimaryOffProg", U_NONE, "(null)"),
	T("SlurmctldPrimaryOnProg", U_NONE, "(null)"),
	T("SlurmctldTimeout", U_SEC, "120 sec"),
	W("SlurmctldParameters", U_NONE, "(null)"),
	T("SlurmdDebug", U_NONE, "info"),
	G("SlurmdLogFile", get_str, FIELD(slurmd_log_file), U_NONE),
	W("SlurmdParameters", U_NONE, "(null)"),
	G("SlurmdPidFile", get_str, FIELD(slurmd_pid_file), U_NONE),
	G("SlurmdPort", get_int, FIELD(slurmd_port), U_NONE),
	G("SlurmdSpoolDir", get_str, FIELD(slurmd_spool_dir), U_NONE),
	T("SlurmdSyslogDebug", U_NONE, "(null)"),
	G("SlurmdTimeout", get_int, FIELD(slurmd_timeout), U_SEC),
	G("SlurmdUser", get_user, 0, U_NONE),
	T("SlurmSchedLogFile", U_NONE, "(null)"),
	T("SlurmSchedLogLevel", U_NONE, "0"),
	G("SlurmctldPidFile", get_str, FIELD(ctld_pid_file), U_NONE),
	T("SlurmctldPlugstack", U_NONE, "(null)"),
	G("SLURM_CONF", get_str, FIELD(path), U_NONE),
	T("SLURM_VERSION", U_NONE, "22.05.8"),
	T("SrunEpilog", U_NONE, "(null)"),
	T("SrunPortRange", U_NONE, "0-0"),
	T("SrunProlog", U_NONE, "(null)"),
	G("StateSaveLocation", get_str, FIELD(state_save_location), U_NONE),
	T("SuspendExcNodes", U_NONE, "(null)"),
	T("SuspendExcParts", U_NONE, "(null)"),
	T("SuspendProgram", U_NONE, "(null)"),
	T("SuspendRate", U_NPM, "60 nodes/min"),
	T("SuspendTime", U_SEC, "INFINITE"),
	T("SuspendTimeout", U_SEC, "30 sec"),
	T("SwitchParameters", U_NONE, "(null)"),
	T("SwitchType", U_NONE, "switch/none"),
	G("TaskEpilog", get_str, FIELD(task_epilog), U_NONE),
	G("TaskPlugin", get_task_plugin, 0, U_NONE),
	T("TaskPluginParam", U_NONE, "(null type)"),
	G("TaskProlog", get_str, FIELD(task_prolog), U_NONE),
	T("TCPTimeout", U_SEC, "2 sec"),
	T("TmpFS", U_NONE, "/tmp"),
	T("TopologyParam", U_NONE, "(null)"),
	T("TopologyPlugin", U_NONE, "topology/none"),
	T("TrackWCKey", U_YESNO, "No"),
	T("TreeWidth", U_NONE, "50"),
	T("UsePam", U_YESNO, "No"),
	T("UnkillableStepProgram", U_NONE, "(null)"),
	G("UnkillableStepTimeout", get_int, FIELD(unkillable_step_timeout), U_SEC),
	T("VSizeFactor", U_PERCENT, "0 percent"),
	T("WaitTime", U_SEC, "0 sec"),
	T("X11Parameters", U_NONE, "(null)"),
	{0},
};
/* clang-format on */

static bool has_row(const char *key)
{
	for (const struct row *r = show_rows; r->key; r++)
		if (!strcasecmp(r->key, key))
			return true;
	return !strcasecmp(key, "MaxMemPerCPU");
}

/* Keys Slurm never shows because they hold secrets. */
static bool secret(const char *key)
{
	size_t n = strlen(key);

	return n >= 4 && !strcasecmp(key + n - 4, "Pass");
}

void drv_conf_show(const struct drv_conf *conf, const struct drv_conf_live *live,
		   drv_conf_show_f emit, void *arg)
{
	struct show_ctx x = {conf, live, emit, arg};

	for (const struct row *r = show_rows; r->key; r++)
		(r->get ? r->get : get_text)(&x, r);
	/* Keys Drover acts on that Slurm does not show here (the priority
	 * weights), as written; keys Drover does not act on claim nothing. */
	for (size_t i = 0; i < conf->n_other; i++) {
		const struct conf_key *k =
		    conf_key_find(conf_global_keys, conf->other[i].key);
		if (!has_row(conf->other[i].key) && !secret(conf->other[i].key) &&
		    !(k && k->type == CONF_OTHER))
			put(&x, conf->other[i].key, conf->other[i].value);
	}
}
