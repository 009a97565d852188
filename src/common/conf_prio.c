/* conf_prio.c — the values of the priority keys (PriorityType and the
 * settings of priority/multifactor) and of a partition's
 * TRESBillingWeights: how each is read, Slurm's defaults and the checks
 * that need several keys. The keys themselves are rows of conf_keys.c's
 * and conf_part.c's tables; each row here keeps its text for `scontrol show
 * config` too (as the rows Drover does not act on do), so that a config
 * shows as it did before these keys were acted on.
 *
 * Times are kept in seconds. Slurm reads PriorityCalcPeriod in minutes and
 * PriorityMaxAge / PriorityDecayHalfLife as minutes-based time strings;
 * Drover reads all three as Slurm's time syntax to the second ("5" is five
 * minutes, "0:10" ten seconds), so that tests can run on seconds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/timefmt.h"

#define DAY (24 * 3600)

void conf_prio_defaults(struct drv_prio_conf *p)
{
	*p = (struct drv_prio_conf){
	    .max_age = 7 * DAY,
	    .decay_half_life = 7 * DAY,
	    .calc_period = 300,
	    .reset_period = DRV_PRIO_RESET_NONE,
	};
}

static int apply_type(struct drv_prio_conf *p, const char *key, const char *value,
		      struct drv_error *err)
{
	if (!strcasecmp(value, "priority/basic"))
		p->multifactor = false;
	else if (!strcasecmp(value, "priority/multifactor"))
		p->multifactor = true;
	else
		return drv_error_set(err, EINVAL,
				     "%s: '%.60s' is not supported; Drover has "
				     "priority/basic and priority/multifactor",
				     key, value);
	return 0;
}

/* Slurm's s_p_handle_uint32, its words. */
static int parse_u32(const char *key, const char *value, uint32_t *out,
		     struct drv_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (end == value || *end)
		return drv_error_set(
		    err, EINVAL, "%s value (%.60s) is not a valid number", key, value);
	if (value[0] == '-')
		return drv_error_set(err, EINVAL, "%s value (%.60s) is less than zero",
				     key, value);
	if (errno == ERANGE || v > 0xffffffffULL)
		return drv_error_set(err, EINVAL,
				     "%s value (%.60s) is greater than 4294967295", key,
				     value);
	*out = (uint32_t)v;
	return 0;
}

/* A time in Slurm's syntax; UNLIMITED/INFINITE as the longest time a
 * 32-bit Slurm keeps. min: the least accepted. */
static int parse_time(const char *key, const char *value, int64_t min, int64_t *out,
		      struct drv_error *err)
{
	int64_t v;
	if (drv_time_parse_limit(value, &v) < 0 || (v != DRV_INFINITE && v < min))
		return drv_error_set(err, EINVAL, "Bad value \"%.60s\" for %s", value,
				     key);
	*out = v == DRV_INFINITE ? INT32_MAX : v;
	return 0;
}

static int apply_reset(struct drv_prio_conf *p, const char *key, const char *value,
		       struct drv_error *err)
{
	static const char *const names[] = {
	    [DRV_PRIO_RESET_NONE] = "NONE",
	    [DRV_PRIO_RESET_NOW] = "NOW",
	    [DRV_PRIO_RESET_DAILY] = "DAILY",
	    [DRV_PRIO_RESET_WEEKLY] = "WEEKLY",
	    [DRV_PRIO_RESET_MONTHLY] = "MONTHLY",
	    [DRV_PRIO_RESET_QUARTERLY] = "QUARTERLY",
	    [DRV_PRIO_RESET_YEARLY] = "YEARLY",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(value, names[i])) {
			p->reset_period = (enum drv_prio_reset)i;
			p->reset_given = true;
			return 0;
		}
	return drv_error_set(err, EINVAL, "Bad value \"%.60s\" for %s", value, key);
}

/* PriorityFlags: Slurm's names, comma-separated; DEPTH_OBLIVIOUS implies
 * NO_FAIR_TREE and NO_NORMAL_ALL all NO_NORMAL_*, as in Slurm. Slurm finds
 * names anywhere in the text; Drover refuses a name it does not know, and
 * one it does not act on (the priorities would silently differ). */
static int apply_flags(struct drv_prio_conf *p, const char *key, const char *value,
		       struct drv_error *err)
{
	static const struct {
		const char *name;
		unsigned bits;
	} flags[] = {
	    {"ACCRUE_ALWAYS", DRV_PRIO_ACCRUE_ALWAYS},
	    {"SMALL_RELATIVE_TO_TIME", DRV_PRIO_SMALL_RELATIVE_TO_TIME},
	    {"CALCULATE_RUNNING", DRV_PRIO_CALCULATE_RUNNING},
	    {"DEPTH_OBLIVIOUS", DRV_PRIO_DEPTH_OBLIVIOUS | DRV_PRIO_NO_FAIR_TREE},
	    {"NO_FAIR_TREE", DRV_PRIO_NO_FAIR_TREE},
	    {"FAIR_TREE", 0}, /* the default since 19.05 */
	    {"INCR_ONLY", DRV_PRIO_INCR_ONLY},
	    {"MAX_TRES", DRV_PRIO_MAX_TRES},
	    {"NO_NORMAL_ALL", DRV_PRIO_NO_NORMAL_ASSOC | DRV_PRIO_NO_NORMAL_PART |
				  DRV_PRIO_NO_NORMAL_QOS | DRV_PRIO_NO_NORMAL_TRES},
	    {"NO_NORMAL_ASSOC", DRV_PRIO_NO_NORMAL_ASSOC},
	    {"NO_NORMAL_PART", DRV_PRIO_NO_NORMAL_PART},
	    {"NO_NORMAL_QOS", DRV_PRIO_NO_NORMAL_QOS},
	    {"NO_NORMAL_TRES", DRV_PRIO_NO_NORMAL_TRES},
	};
	const unsigned not_acted_on = DRV_PRIO_INCR_ONLY | DRV_PRIO_MAX_TRES |
				      DRV_PRIO_NO_NORMAL_ASSOC | DRV_PRIO_NO_NORMAL_PART |
				      DRV_PRIO_NO_NORMAL_QOS | DRV_PRIO_NO_NORMAL_TRES;
	unsigned bits = 0;
	for (const char *s = value; *s;) {
		size_t n = strcspn(s, ","), i;
		for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (strlen(flags[i].name) == n &&
			    !strncasecmp(flags[i].name, s, n))
				break;
		if (n && i == sizeof(flags) / sizeof(flags[0]))
			return drv_error_set(err, EINVAL,
					     "%s: '%.*s' is not a priority flag", key,
					     (int)(n < 60 ? n : 60), s);
		if (n && (flags[i].bits & not_acted_on))
			return drv_error_set(err, EINVAL,
					     "%s=%.60s: Drover does not do what %s asks "
					     "(docs/compat.md)",
					     key, value, flags[i].name);
		if (n)
			bits |= flags[i].bits;
		s += n + (s[n] == ',');
	}
	p->flags = bits;
	return 0;
}

static int apply_bool(const char *key, const char *value, bool *out,
		      struct drv_error *err)
{
	if (!strcasecmp(value, "YES") || !strcasecmp(value, "TRUE") ||
	    !strcmp(value, "1"))
		*out = true;
	else if (!strcasecmp(value, "NO") || !strcasecmp(value, "FALSE") ||
		 !strcmp(value, "0"))
		*out = false;
	else
		return drv_error_set(err, EINVAL, "%s: '%.60s' is not YES or NO", key,
				     value);
	return 0;
}

static int apply_tres(const char *key, const char *value, struct drv_tres_weights *out,
		      struct drv_error *err)
{
	struct drv_error why = {{0}};
	if (drv_tres_weights_parse(value, out, &why) < 0)
		return drv_error_set(err, EINVAL, "%s: %s", key, why.text);
	return 0;
}

/* One priority key into p (a copy: the caller keeps it on success). */
static int apply_one(struct drv_prio_conf *p, const char *key, const char *value,
		     struct drv_error *err)
{
	static const struct {
		const char *key;
		size_t off;
	} weights[] = {
	    {"PriorityWeightAge", offsetof(struct drv_prio_conf, weight_age)},
	    {"PriorityWeightAssoc", offsetof(struct drv_prio_conf, weight_assoc)},
	    {"PriorityWeightFairshare", offsetof(struct drv_prio_conf, weight_fairshare)},
	    {"PriorityWeightJobSize", offsetof(struct drv_prio_conf, weight_job_size)},
	    {"PriorityWeightPartition", offsetof(struct drv_prio_conf, weight_partition)},
	    {"PriorityWeightQOS", offsetof(struct drv_prio_conf, weight_qos)},
	};
	for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
		if (!strcasecmp(key, weights[i].key))
			return parse_u32(weights[i].key, value,
					 (uint32_t *)(void *)((char *)p + weights[i].off),
					 err);
	if (!strcasecmp(key, "PriorityType"))
		return apply_type(p, "PriorityType", value, err);
	if (!strcasecmp(key, "PriorityWeightTRES"))
		return apply_tres("PriorityWeightTRES", value, &p->weight_tres, err);
	if (!strcasecmp(key, "PriorityMaxAge"))
		return parse_time("PriorityMaxAge", value, 0, &p->max_age, err);
	if (!strcasecmp(key, "PriorityDecayHalfLife"))
		return parse_time("PriorityDecayHalfLife", value, 0, &p->decay_half_life,
				  err);
	if (!strcasecmp(key, "PriorityCalcPeriod"))
		return parse_time("PriorityCalcPeriod", value, 1, &p->calc_period, err);
	if (!strcasecmp(key, "PriorityUsageResetPeriod"))
		return apply_reset(p, "PriorityUsageResetPeriod", value, err);
	if (!strcasecmp(key, "PriorityFavorSmall"))
		return apply_bool("PriorityFavorSmall", value, &p->favor_small, err);
	if (!strcasecmp(key, "PriorityFlags"))
		return apply_flags(p, "PriorityFlags", value, err);
	return drv_error_set(err, EINVAL, "%s: not a priority key", key);
}

int conf_apply_prio(struct conf_parser *parser, const struct conf_key *k, void *target,
		    const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	struct drv_prio_conf p = c->prio;
	int rc = apply_one(&p, k->name, value, err);
	if (rc == 0)
		rc = conf_other_set(c, k->name, value); /* scontrol show config */
	if (rc == 0)
		c->prio = p;
	return rc;
}

int conf_apply_billing(struct conf_parser *parser, const struct conf_key *k, void *target,
		       const char *value, struct drv_error *err)
{
	struct drv_part_conf *pc = target;
	return apply_tres(k->name, value, &pc->billing_weights, err);
}

int conf_prio_check(const struct drv_conf *c, struct drv_error *err)
{
	/* Slurm's read_config: usage that never decays must be reset */
	if (!c->prio.decay_half_life && !c->prio.reset_given)
		return drv_error_set(
		    err, EINVAL,
		    "%s: You have to either have PriorityDecayHalfLife != 0 "
		    "or PriorityUsageResetPeriod set to something or the "
		    "priority plugin will result in rolling over.",
		    c->path);
	return 0;
}
