/* usage_fmt.c — see usage_fmt.h. The TRES strings list their keys in
 * Slurm's (alphabetical) order: cpu, energy, mem, vmem. */
#include "cli/usage_fmt.h"

#include <stdio.h>

bool usage_sampled(const struct cli_usage *u)
{
	return u->has && u->max_vsize_kib > 0;
}

const char *usage_fmt_kib(int64_t kib, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = 0;
	if (kib <= 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (kib % 1024 == 0 && units[u + 1]) { /* exact multiples only */
		kib /= 1024;
		u++;
	}
	snprintf(buf, len, "%lld%c", (long long)kib, units[u]);
	return buf;
}

const char *usage_fmt_secs(int64_t usec, char *buf, size_t len)
{
	long long s = usec / 1000000;
	long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;
	if (d)
		snprintf(buf, len, "%lld-%2.2lld:%2.2lld:%2.2lld", d, h, m, s % 60);
	else
		snprintf(buf, len, "%2.2lld:%2.2lld:%2.2lld", h, m, s % 60);
	return buf;
}

const char *usage_fmt_ave_cpu(const struct cli_usage *u, char *buf, size_t len)
{
	int64_t n = u->ntasks > 0 ? u->ntasks : 1;
	return usage_fmt_secs((u->user_usec + u->sys_usec) / n, buf, len);
}

/* "cpu=C,energy=E,mem=M,vmem=V". */
static const char *four(char *buf, size_t len, const char *c, const char *e,
			const char *m, const char *v)
{
	snprintf(buf, len, "cpu=%s,energy=%s,mem=%s,vmem=%s", c, e, m, v);
	return buf;
}

const char *usage_fmt_tres(const struct cli_usage *u, enum usage_tres which, char *buf,
			   size_t len)
{
	char c[32], m[32], v[32];
	int64_t n = u->ntasks > 0 ? u->ntasks : 1;
	switch (which) {
	case USAGE_TRES_AVE:
		return four(buf, len, usage_fmt_ave_cpu(u, c, sizeof(c)), "0",
			    usage_fmt_kib(u->ave_rss_kib, m, sizeof(m)),
			    usage_fmt_kib(u->ave_vsize_kib, v, sizeof(v)));
	case USAGE_TRES_MAX:
		return four(buf, len, usage_fmt_secs(u->max_cpu_usec, c, sizeof(c)), "0",
			    usage_fmt_kib(u->max_rss_kib, m, sizeof(m)),
			    usage_fmt_kib(u->max_vsize_kib, v, sizeof(v)));
	case USAGE_TRES_MAX_NODE:
		return four(buf, len, u->max_cpu_node, u->max_rss_node, u->max_rss_node,
			    u->max_vsize_node);
	case USAGE_TRES_MAX_TASK:
		snprintf(buf, len, "cpu=%lld,mem=%lld,vmem=%lld",
			 (long long)u->max_cpu_task, (long long)u->max_rss_task,
			 (long long)u->max_vsize_task);
		return buf;
	case USAGE_TRES_MIN:
		snprintf(buf, len, "cpu=%s,energy=0",
			 usage_fmt_secs(u->min_cpu_usec, c, sizeof(c)));
		return buf;
	case USAGE_TRES_MIN_NODE:
		snprintf(buf, len, "cpu=%s,energy=%s", u->min_cpu_node, u->min_cpu_node);
		return buf;
	case USAGE_TRES_MIN_TASK:
		snprintf(buf, len, "cpu=%lld", (long long)u->min_cpu_task);
		return buf;
	case USAGE_TRES_TOT:
		return four(buf, len,
			    usage_fmt_secs(u->user_usec + u->sys_usec, c, sizeof(c)), "0",
			    usage_fmt_kib(u->ave_rss_kib * n, m, sizeof(m)),
			    usage_fmt_kib(u->ave_vsize_kib * n, v, sizeof(v)));
	}
	buf[0] = '\0';
	return buf;
}
