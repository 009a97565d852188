/* identity.c — who a job runs as, from the credential alone.
 *
 * A client's request body may claim anything; the credential's uid and gid
 * are what authd learnt from the kernel (SO_PEERCRED). So the job's user
 * name comes from the uid here, and its supplementary groups are looked up
 * here when it is launched (Slurm's send_gids) and handed to the shepherd,
 * which sets exactly that list and never looks a name up itself. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"

/* Enough for any real account; a longer list is cut (and the job still runs
 * with its primary group). */
#define MAX_GROUPS 1024

char *identity_user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	if (pw)
		return strdup(pw->pw_name);
	/* An account without a passwd entry (a container's bare uid) is
	 * named by its number, as ls and ps show it. */
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", (unsigned)uid);
	return strdup(buf);
}

uint32_t *identity_groups(const char *user, gid_t gid, size_t *n_out)
{
	gid_t groups[MAX_GROUPS];
	int n = MAX_GROUPS;
	if (!user || !*user || getgrouplist(user, gid, groups, &n) < 0 || n < 1) {
		groups[0] = gid;
		n = 1;
	}
	uint32_t *out = calloc((size_t)n, sizeof(*out));
	if (!out)
		abort();
	for (int i = 0; i < n; i++)
		out[i] = groups[i];
	*n_out = (size_t)n;
	return out;
}
