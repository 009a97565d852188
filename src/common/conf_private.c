/* conf_private.c — slurm.conf's PrivateData: the list of what regular users
 * may not see of other users' (jobs, usage, users, accounts, ...), read into
 * bits and written back in Slurm's order for `scontrol show config`. What
 * each bit hides is ctld's business (ctld/perm.c); this file only parses.
 * PrologFlags, another comma list of names, is looked up here too. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_internal.h"

/* Slurm's names in the order it prints them; a singular is taken too, as
 * Slurm matches "job" inside "jobs". */
static const struct {
	const char *name;
	unsigned bit;
} names[] = {
    {"accounts", DRV_PRIVATE_ACCOUNTS},
    {"events", DRV_PRIVATE_EVENTS},
    {"jobs", DRV_PRIVATE_JOBS},
    {"nodes", DRV_PRIVATE_NODES},
    {"partitions", DRV_PRIVATE_PARTITIONS},
    {"reservations", DRV_PRIVATE_RESERVATIONS},
    {"usage", DRV_PRIVATE_USAGE},
    {"users", DRV_PRIVATE_USERS},
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

/* The bits of one item ("jobs", "job", "all", "none", "cloud"), or -1. */
static long item_bits(const char *s, size_t len)
{
	if (len == 3 && !strncasecmp(s, "all", 3))
		return DRV_PRIVATE_ALL;
	/* none is Slurm's default as shown; cloud is an old part Slurm now
	 * ignores (a CLOUD node is always shown) */
	if ((len == 4 && !strncasecmp(s, "none", 4)) ||
	    (len == 5 && !strncasecmp(s, "cloud", 5)))
		return 0;
	for (size_t i = 0; i < N_NAMES; i++) {
		size_t n = strlen(names[i].name);
		if ((len == n || len == n - 1) && !strncasecmp(names[i].name, s, len))
			return names[i].bit;
	}
	return -1;
}

int conf_apply_private_data(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err)
{
	(void)p;
	(void)k;
	struct drv_conf *c = target;
	unsigned bits = 0;
	for (const char *s = value; *s;) {
		size_t len = strcspn(s, ",");
		long b = item_bits(s, len);
		if (b < 0)
			return drv_error_set(
			    err, EINVAL,
			    "Invalid parameter for PrivateData: %.*s "
			    "(accounts, events, jobs, nodes, partitions, "
			    "reservations, usage, users, all, none)",
			    (int)(len < 60 ? len : 60), s);
		bits |= (unsigned)b;
		s += len + (s[len] == ',');
	}
	c->private_data = bits;
	return 0;
}

void drv_private_data_str(unsigned bits, char *buf, size_t len)
{
	size_t at = 0;
	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < N_NAMES; i++)
		if ((bits & names[i].bit) && at < len) {
			int n = snprintf(buf + at, len - at, "%s%s", at ? "," : "",
					 names[i].name);
			at += n > 0 ? (size_t)n : 0;
		}
	if (!at)
		snprintf(buf, len, "none");
}

bool drv_prolog_flag(const char *prolog_flags, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = prolog_flags; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncasecmp(p, flag, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}
