/* conf_ctld_params.c — SlurmctldParameters: the options Drover acts on
 * (today the per-user RPC rate limit, rl_*), read with Slurm's defaults and
 * its checks; every other option is kept as text for `scontrol show
 * config` and otherwise ignored, as Slurm ignores the ones it does not know.
 * ctld/rate_limit.c applies the result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"

void conf_rl_defaults(struct drv_rl_conf *rl)
{
	*rl = (struct drv_rl_conf){
	    .enable = false,
	    .bucket_size = 30,
	    .refill_rate = 2,
	    .refill_period = 1,
	    .table_size = 8192,
	    .log_freq = 0,
	};
}

/* Whether opt (len bytes, one comma item) is name=...; *val then points
 * past the '='. */
static bool opt_is(const char *opt, size_t len, const char *name, const char **val)
{
	size_t n = strlen(name);
	if (len <= n || opt[n] != '=' || strncasecmp(opt, name, n))
		return false;
	*val = opt + n + 1;
	return true;
}

/* The number in val (up to the end of the item) within [min, max]. */
static int opt_num(const char *name, const char *val, size_t len, long long min,
		   long long max, long long *out, struct drv_error *err)
{
	char num[24] = "";
	char *end;
	if (len >= sizeof(num))
		len = sizeof(num) - 1;
	memcpy(num, val, len);
	long long v = strtoll(num, &end, 10);
	if (!*num || *end || v < min || v > max) {
		/* Slurm's words (its slurmctld stops on them) */
		if (min == 1)
			return drv_error_set(
			    err, EINVAL,
			    "SlurmctldParameters: %s=%s is invalid, must "
			    "be a positive non-zero integer",
			    name, num);
		return drv_error_set(err, EINVAL,
				     "SlurmctldParameters: %s=%s is invalid, must be "
				     "-1, 0, or a positive integer",
				     name, num);
	}
	*out = v;
	return 0;
}

/* One rl_* option into *rl; 0 for an option that is not one of them. */
static int rl_opt(struct drv_rl_conf *rl, const char *opt, size_t len,
		  struct drv_error *err)
{
	static const struct {
		const char *name;
		long long min;
		size_t off;
	} nums[] = {
	    {"rl_bucket_size", 1, offsetof(struct drv_rl_conf, bucket_size)},
	    {"rl_refill_rate", 1, offsetof(struct drv_rl_conf, refill_rate)},
	    {"rl_refill_period", 1, offsetof(struct drv_rl_conf, refill_period)},
	    {"rl_table_size", 1, offsetof(struct drv_rl_conf, table_size)},
	};
	const char *val;
	long long v;
	if (len == strlen("rl_enable") && !strncasecmp(opt, "rl_enable", len)) {
		rl->enable = true;
		return 0;
	}
	if (opt_is(opt, len, "rl_log_freq", &val)) {
		int rc = opt_num("rl_log_freq", val, len - (size_t)(val - opt), -1,
				 1000000000, &v, err);
		if (rc == 0)
			rl->log_freq = (int)v;
		return rc;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (!opt_is(opt, len, nums[i].name, &val))
			continue;
		/* the table is allocated whole: 16 million uids is plenty */
		long long max =
		    !strcmp(nums[i].name, "rl_table_size") ? 1 << 24 : 4294967295LL;
		int rc = opt_num(nums[i].name, val, len - (size_t)(val - opt),
				 nums[i].min, max, &v, err);
		if (rc == 0)
			*(uint32_t *)(void *)((char *)rl + nums[i].off) = (uint32_t)v;
		return rc;
	}
	return 0;
}

int conf_apply_ctld_params(struct conf_parser *p, const struct conf_key *k, void *target,
			   const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	struct drv_rl_conf rl;
	conf_rl_defaults(&rl); /* the last line wins whole, also on reconfigure */
	for (const char *o = value; *o;) {
		size_t len = strcspn(o, ",");
		if (rl_opt(&rl, o, len, err) < 0)
			return -EINVAL;
		o += len + (o[len] == ',');
	}
	int rc = conf_other_set(c, k->name, value);
	if (rc == 0)
		c->rl = rl;
	return rc;
}
