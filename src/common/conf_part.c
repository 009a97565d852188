/* conf_part.c — the keys of a PartitionName= line, declared once, and the
 * API that applies the same keys to a partition ctld changes live
 * (`scontrol create|update PartitionName=...`): one table, so a value the
 * config refuses is refused live with the same words, and the reverse.
 *
 * Owns struct drv_part_conf's defaults, copies and frees. Knows nothing of
 * nodes (Nodes= stays text here: conf.c resolves it against the config,
 * ctld against its node table) nor of jobs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/hostlist.h"

#define FIELD(field) offsetof(struct drv_part_conf, field)

static const char *const part_states[] = {"UP", "DOWN", "DRAIN", "INACTIVE", NULL};

/* OverSubscribe=NO|EXCLUSIVE|YES[:N]|FORCE[:N] (and its old name Shared=).
 * N defaults to 4, as Slurm's; YES:N needs N >= 2 and FORCE:N N >= 1
 * (Slurm logs and uses NO otherwise; a config Drover reads says so). */
static int apply_oversubscribe(struct conf_parser *p, const struct conf_key *k,
			       void *target, const char *value, struct drv_error *err)
{
	struct drv_part_conf *pc = target;
	const char *colon = strchr(value, ':');
	size_t word = colon ? (size_t)(colon - value) : strlen(value);
	enum drv_oversubscribe mode;
	long n = 4;
	if (word == 2 && !strncasecmp(value, "NO", 2) && !colon)
		mode = DRV_OS_NO;
	else if (word == 9 && !strncasecmp(value, "EXCLUSIVE", 9) && !colon)
		mode = DRV_OS_EXCLUSIVE;
	else if (word == 3 && !strncasecmp(value, "YES", 3))
		mode = DRV_OS_YES;
	else if (word == 5 && !strncasecmp(value, "FORCE", 5))
		mode = DRV_OS_FORCE;
	else
		goto bad;
	if (colon) {
		char *end;
		n = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || n > 65535 ||
		    n < (mode == DRV_OS_YES ? 2 : 1))
			goto bad;
	}
	pc->oversubscribe = mode;
	pc->oversubscribe_max =
	    mode == DRV_OS_NO || mode == DRV_OS_EXCLUSIVE ? 1 : (uint32_t)n;
	return 0;
bad:
	return drv_error_set(err, EINVAL,
			     "%s: '%.60s' is not NO, EXCLUSIVE, YES[:N>1] or FORCE[:N]",
			     k->name, value);
}

/* Priority=N: Slurm's old key, both PriorityTier and PriorityJobFactor. */
static int apply_priority(struct conf_parser *p, const struct conf_key *k, void *target,
			  const char *value, struct drv_error *err)
{
	struct drv_part_conf *pc = target;
	char *end;
	long v = strtol(value, &end, 10);
	if (end == value || *end || v < 0 || v > 65535)
		return drv_error_set(err, EINVAL, "%s: '%.60s' is not 0-65535", k->name,
				     value);
	pc->priority_tier = pc->priority_job_factor = (uint32_t)v;
	return 0;
}

/* MaxMemPerNode: MiB, or UNLIMITED / INFINITE (0, as Slurm shows it). */
static int apply_max_mem(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err)
{
	struct drv_part_conf *pc = target;
	char *end;
	if (!strcasecmp(value, "UNLIMITED") || !strcasecmp(value, "INFINITE")) {
		pc->max_mem_per_node = 0;
		return 0;
	}
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (end == value || *end || errno || value[0] == '-' || v > (1ULL << 40))
		return drv_error_set(err, EINVAL, "%s: '%.60s' is not a size in MiB",
				     k->name, value);
	pc->max_mem_per_node = v;
	return 0;
}

#define OTHER(key)                                                                       \
	{                                                                                \
		.name = key, .type = CONF_OTHER, .reload = true                          \
	}
/* harmless with these values only (conf_keys.c, ONLY) */
#define ONLY(key, ...)                                                                   \
	{                                                                                \
		.name = key, .type = CONF_OTHER, .reload = true,                         \
		.choices = (const char *const[])                                         \
		{                                                                        \
			__VA_ARGS__, NULL                                                \
		}                                                                        \
	}

/* clang-format off */
const struct conf_key conf_part_keys[] = {
	{"PartitionName", CONF_STR, FIELD(name), NULL, 0, 0, NULL, false, NULL},
	{"Nodes", CONF_STR, FIELD(nodes), NULL, 0, 0, NULL, true, NULL},
	{"Default", CONF_BOOL, FIELD(is_default), "NO", 0, 0, NULL, true, NULL},
	{"MaxTime", CONF_TIME, FIELD(max_time), "UNLIMITED", 0, 0, NULL, true, NULL},
	{"DefaultTime", CONF_TIME, FIELD(default_time), NULL, 0, 0, NULL, true, NULL},
	{"State", CONF_ENUM, FIELD(state), "UP", 0, 0, part_states, true, NULL},
	{"MaxNodes", CONF_U32_UNLIM, FIELD(max_nodes), "UNLIMITED", 0, 4294967294LL, NULL, true, NULL},
	{"MinNodes", CONF_U32, FIELD(min_nodes), "0", 0, 4294967294LL, NULL, true, NULL},
	{"MaxCPUsPerNode", CONF_U32_UNLIM, FIELD(max_cpus_per_node), "UNLIMITED", 1, 4294967294LL, NULL, true, NULL},
	{"MaxMemPerNode", CONF_CUSTOM, 0, "UNLIMITED", 0, 0, NULL, true, apply_max_mem},
	{"DefMemPerCPU", CONF_U64, FIELD(def_mem_per_cpu), "0", 0, 1LL << 40, NULL, true, NULL},
	{"DefMemPerNode", CONF_U64, FIELD(def_mem_per_node), "0", 0, 1LL << 40, NULL, true, NULL},
	{"DefCpuPerGPU", CONF_U64, FIELD(def_cpu_per_gpu), "0", 0, 1048576, NULL, true, NULL},
	{"DefMemPerGPU", CONF_U64, FIELD(def_mem_per_gpu), "0", 0, 1LL << 40, NULL, true, NULL},
	{"AllowAccounts", CONF_NAMES_LOWER, FIELD(allow_accounts), NULL, 0, 0, NULL, true, NULL},
	{"DenyAccounts", CONF_STR_LOWER, FIELD(deny_accounts), NULL, 0, 0, NULL, true, NULL},
	{"AllowGroups", CONF_NAMES, FIELD(allow_groups), NULL, 0, 0, NULL, true, NULL},
	{"AllowQos", CONF_NAMES_LOWER, FIELD(allow_qos), NULL, 0, 0, NULL, true, NULL},
	{"DenyQos", CONF_STR_LOWER, FIELD(deny_qos), NULL, 0, 0, NULL, true, NULL},
	{"QOS", CONF_STR, FIELD(qos), NULL, 0, 0, NULL, true, NULL},
	{"PriorityTier", CONF_U32, FIELD(priority_tier), "1", 0, 65535, NULL, true, NULL},
	{"PriorityJobFactor", CONF_U32, FIELD(priority_job_factor), "1", 0, 65535, NULL, true, NULL},
	{"Priority", CONF_CUSTOM, 0, NULL, 0, 0, NULL, true, apply_priority},
	{"OverSubscribe", CONF_CUSTOM, 0, "NO", 0, 0, NULL, true, apply_oversubscribe},
	{"Shared", CONF_CUSTOM, 0, NULL, 0, 0, NULL, true, apply_oversubscribe},
	{"TRESBillingWeights", CONF_CUSTOM, 0, NULL, 0, 0, NULL, true, conf_apply_billing},
	/* Slurm's partition keys that are harmless or equivalent under Drover */
	OTHER("Alternate"), OTHER("CpuBind"), OTHER("GraceTime"), OTHER("Hidden"),
	OTHER("JobDefaults"), OTHER("LLN"), OTHER("ResumeTimeout"),
	OTHER("SelectTypeParameters"), OTHER("SuspendTime"), OTHER("SuspendTimeout"),
	/* harmless with these values only: others ask for what Drover does not do */
	ONLY("AllocNodes", "ALL"), ONLY("DisableRootJobs", "NO"),
	ONLY("ExclusiveTopo", "NO"), ONLY("ExclusiveUser", "NO"),
	ONLY("MaxCPUsPerSocket", "UNLIMITED"), ONLY("MaxMemPerCPU", "0", "UNLIMITED"),
	ONLY("OverTimeLimit", "0", "NONE"), ONLY("PowerDownOnIdle", "NO"),
	ONLY("PreemptMode", "OFF"), ONLY("ReqResv", "NO"), ONLY("RootOnly", "NO"),
	{0},
};
/* clang-format on */

int drv_part_conf_init(struct drv_part_conf *pc, const char *name)
{
	struct conf_parser p = {0};
	memset(pc, 0, sizeof(*pc));
	int rc = conf_keys_defaults(&p, conf_part_keys, pc, NULL);
	if (rc == 0 && !(pc->name = strdup(name)))
		rc = -ENOMEM;
	if (rc < 0)
		drv_part_conf_fini(pc);
	return rc;
}

int drv_part_conf_set(struct drv_part_conf *pc, const char *key, const char *value,
		      struct drv_error *err)
{
	const struct conf_key *k = conf_key_find(conf_part_keys, key);
	struct conf_parser p = {0}; /* no config: no paths, nothing kept as text */
	if (!k || !strcasecmp(k->name, "PartitionName"))
		return drv_error_set(err, ENOENT, "%.60s: not a partition key", key);
	if (!*value && k->type != CONF_OTHER)
		return drv_error_set(err, EINVAL, "the value of %s is missing", k->name);
	int rc = conf_key_apply(&p, k, pc, value, err);
	if (rc == -ENOMEM)
		drv_error_set(err, ENOMEM, "out of memory");
	return rc;
}

int drv_part_conf_copy(struct drv_part_conf *dst, const struct drv_part_conf *src)
{
	*dst = *src;
	dst->node_names = NULL;
	dst->n_nodes = 0;
	int rc = conf_keys_dup(conf_part_keys, dst); /* name, nodes, state, the lists */
	dst->node_names = calloc(src->n_nodes ? src->n_nodes : 1, sizeof(char *));
	for (size_t i = 0; dst->node_names && i < src->n_nodes; i++, dst->n_nodes++)
		if (!(dst->node_names[i] = strdup(src->node_names[i])))
			rc = -ENOMEM;
	if (!dst->node_names)
		rc = -ENOMEM;
	if (rc < 0)
		drv_part_conf_fini(dst);
	return rc;
}

void drv_part_conf_fini(struct drv_part_conf *pc)
{
	if (!pc)
		return;
	conf_keys_free(conf_part_keys, pc); /* name is the table's first row */
	drv_strv_free(pc->node_names, pc->n_nodes);
	memset(pc, 0, sizeof(*pc));
}

bool drv_part_state_submit(const char *state)
{
	return !state || !strcmp(state, "UP") || !strcmp(state, "DOWN");
}

bool drv_part_state_sched(const char *state)
{
	return !state || !strcmp(state, "UP") || !strcmp(state, "DRAIN");
}

void drv_part_oversubscribe_str(const struct drv_part_conf *pc, char *buf, size_t len)
{
	switch (pc->oversubscribe) {
	case DRV_OS_EXCLUSIVE:
		snprintf(buf, len, "EXCLUSIVE");
		break;
	case DRV_OS_YES:
		snprintf(buf, len, "YES:%u", pc->oversubscribe_max);
		break;
	case DRV_OS_FORCE:
		snprintf(buf, len, "FORCE:%u", pc->oversubscribe_max);
		break;
	default:
		snprintf(buf, len, "NO");
	}
}
