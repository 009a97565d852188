/* user.c — a forked child becomes the job's user, for good. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

int shepherd_become_user(const char *user, uid_t uid, gid_t gid, char *err, size_t len)
{
	/* Local mode runs every job as the invoking user: nothing to drop. */
	if (geteuid() != 0 || uid == 0)
		return 0;
	if (initgroups(user, gid) < 0 && setgroups(1, &gid) < 0)
		return snprintf(err, len, "setgroups for %s: %s", user, strerror(errno)),
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
