/* conf_acct.c — JobAcctGatherFrequency: how often each step's processes
 * are sampled for usage (sstat, sacct's MaxRSS and MaxVMSize). Slurm's
 * syntax: a number of seconds, or "task=N" among other "type=N" items
 * (energy, network, filesystem: read and ignored, Drover gathers none of
 * them); 0 turns sampling off (usage is then measured at the end only). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_internal.h"

/* One "N" or "type=N" item; -1 when it is not one. */
static long item_seconds(const char *s, size_t n)
{
	char buf[32];
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 10);
	return errno || end == buf || *end || v < 0 || v > 65535 ? -1 : v;
}

int conf_apply_acct_freq(struct conf_parser *p, const struct conf_key *k, void *target,
			 const char *value, struct drv_error *err)
{
	static const char *const types[] = {"task", "energy", "network", "filesystem"};
	struct drv_conf *c = target;
	int task = 30; /* Slurm's default */
	for (const char *s = value; *s;) {
		size_t n = strcspn(s, ",");
		const char *eq = memchr(s, '=', n);
		long v = item_seconds(eq ? eq + 1 : s, eq ? n - (size_t)(eq + 1 - s) : n);
		bool known = !eq;
		for (size_t i = 0; eq && i < sizeof(types) / sizeof(types[0]); i++)
			known |= strlen(types[i]) == (size_t)(eq - s) &&
				 !strncasecmp(s, types[i], (size_t)(eq - s));
		if (v < 0 || !known)
			return drv_error_set(
			    err, EINVAL,
			    "JobAcctGatherFrequency=%.60s: expected seconds "
			    "or task=SECONDS",
			    value);
		if (!eq || !strncasecmp(s, "task", 4))
			task = (int)v;
		s += n;
		if (*s == ',')
			s++;
	}
	c->acct_gather_freq = task;
	return 0;
}
