/* user.c — a forked child becomes the job's user, for good: the uid, gid
 * and supplementary groups ctld put in the spec, nothing looked up here. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

#define MAX_GROUPS 1024 /* as ctld's identity.c sends at most */

/* The groups ctld resolved at launch ("gids"), else the primary one alone:
 * the shepherd never looks a name up, so what ctld decided is what runs. */
static size_t spec_groups(json_t *spec, gid_t gid, gid_t *out, size_t max)
{
	json_t *a = json_object_get(spec, "gids"), *v;
	size_t i, n = 0;
	json_array_foreach(a, i, v)
	{
		json_int_t g = json_integer_value(v);
		if (n < max && json_is_integer(v) && g >= 0 && g < (json_int_t)UINT32_MAX)
			out[n++] = (gid_t)g;
	}
	if (n == 0)
		out[n++] = gid;
	return n;
}

int shepherd_become_user(json_t *spec, uid_t uid, gid_t gid, char *err, size_t len)
{
	gid_t groups[MAX_GROUPS];
	/* Local mode runs every job as the invoking user: nothing to drop; a
	 * shepherd that is not root never runs another user's job as itself. */
	if (geteuid() != 0 && uid != geteuid())
		return snprintf(
			   err, len,
			   "cannot run a job of uid %u: this node daemon runs as uid "
			   "%u, not root (SlurmdUser)",
			   (unsigned)uid, (unsigned)geteuid()),
		       -1;
	if (geteuid() != 0 || uid == 0)
		return 0;
	size_t n = spec_groups(spec, gid, groups, MAX_GROUPS);
	if (setgroups(n, groups) < 0)
		return snprintf(err, len, "setgroups(%zu groups) for uid %u: %s", n,
				(unsigned)uid, strerror(errno)),
		       -1;
	if (setgid(gid) < 0)
		return snprintf(err, len, "setgid(%u): %s", (unsigned)gid,
				strerror(errno)),
		       -1;
	if (setuid(uid) < 0)
		return snprintf(err, len, "setuid(%u): %s", (unsigned)uid,
				strerror(errno)),
		       -1;
	if (setuid(0) == 0)
		return snprintf(err, len, "could regain root after dropping to uid %u",
				(unsigned)uid),
		       -1;
	return 0;
}
