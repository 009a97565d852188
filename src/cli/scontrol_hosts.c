/* scontrol_hosts.c — `scontrol show hostnames|hostname|hostlist|
 * hostlistsorted`: expands or compresses a hostlist given on the command
 * line or found in the job's environment, with the messages and the exit
 * status Slurm 22.05 gives for a bad one (it reports and exits 0). Talks to
 * no daemon. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/scontrol.h"
#include "common/hostlist.h"

/* Slurm's hostlist refuses a bracket range naming more hosts than this. */
#define SLURM_MAX_RANGE 65536

/* Checks one bracket item ("3", "1-4") as Slurm's _parse_single_range. */
static int range_diag(const char *s, size_t n, char *buf, size_t len)
{
	const char *dash = memchr(s, '-', n);
	size_t lo_len = dash ? (size_t)(dash - s) : n;
	unsigned long long lo = 0, hi;
	bool ok = lo_len > 0 && lo_len <= 18;

	for (size_t i = 0; ok && i < lo_len; i++) {
		ok = isdigit((unsigned char)s[i]);
		lo = lo * 10 + (unsigned long long)(s[i] - '0');
	}
	hi = lo;
	if (ok && dash) {
		size_t hi_len = n - lo_len - 1;
		ok = hi_len <= 18;
		hi = 0;
		for (size_t i = lo_len + 1; ok && i < n; i++) {
			ok = isdigit((unsigned char)s[i]);
			hi = hi * 10 + (unsigned long long)(s[i] - '0');
		}
		if (hi_len == 0)
			hi = lo; /* "2-" is 2 to Slurm */
	}
	if (!ok || hi < lo) {
		snprintf(buf, len, "_parse_single_range: Invalid range: `%.*s'", (int)n,
			 s);
		return -1;
	}
	if (hi - lo + 1 > SLURM_MAX_RANGE) {
		snprintf(buf, len, "_parse_single_range: Too many hosts in range `%.*s'",
			 (int)n, s);
		return -1;
	}
	return 0;
}

int sctl_hostlist_diag(const char *expr, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const char *p = expr; *p; p++) {
		const char *close;

		if (*p != '[')
			continue;
		close = strchr(p, ']');
		if (!close)
			return 0;
		for (const char *s = p + 1; s <= close;) {
			size_t n = strcspn(s, ",]");
			if (range_diag(s, n, buf, len) < 0)
				return -1;
			s += n + 1;
		}
		p = close;
	}
	return 0;
}

/* Slurm's text for a refused list: its diagnostic (when there is one) as an
 * error, then "Invalid hostlist: X" bare. */
static void bad_hostlist(const char *expr, const char *diag)
{
	if (diag[0])
		cli_error("%s", diag);
	fprintf(stderr, "Invalid hostlist: %s\n", expr);
}

static bool only_separators(const char *s)
{
	return s[strspn(s, ", \t\n")] == '\0';
}

int sctl_show_hosts(const char *expr, bool compress)
{
	struct drv_error err = {{0}};
	char diag[160];
	char **names = NULL;
	size_t n = 0;

	if (!expr)
		expr = getenv("SLURM_JOB_NODELIST");
	if (!expr)
		expr = getenv("SLURM_NODELIST"); /* what Slurm 22.05 itself reads */
	if (!expr) {
		cli_error("host list is empty");
		return 0;
	}
	if (only_separators(expr))
		return 0;
	if (sctl_hostlist_diag(expr, diag, sizeof(diag)) < 0 ||
	    drv_hostlist_expand(expr, &names, &n, &err) < 0) {
		bad_hostlist(expr, diag);
		return 0;
	}
	if (compress) {
		char *c = drv_hostlist_compress(names, n);
		printf("%s\n", c ? c : "");
		free(c);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", names[i]);
	}
	drv_strv_free(names, n);
	return 0;
}
