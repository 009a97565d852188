/* conf_user.c — who the configuration says the controller is.
 *
 * SlurmUser names the account ctld runs as. Clients use it to decide whose
 * signed replies they believe: authd signs for any local user, so the
 * identity in a reply's credential is what tells ctld from an impostor on
 * its port. This file only resolves and compares; it keeps no state. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>

#include "common/conf.h"

/* A user named or numbered (root when unset). */
static int user_uid(const char *key, const char *name, uid_t *uid, struct drv_error *err)
{
	if (!name || !*name) {
		*uid = 0;
		return 0;
	}
	struct passwd *pw = getpwnam(name);
	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long n = strtoull(name, &end, 10);
	if (!errno && *end == '\0' && n <= UINT32_MAX - 1) {
		*uid = (uid_t)n;
		return 0;
	}
	return drv_error_set(err, ENOENT, "%s: no such user '%.64s'", key, name);
}

int drv_conf_slurm_uid(const struct drv_conf *conf, uid_t *uid, struct drv_error *err)
{
	return user_uid("SlurmUser", conf->slurm_user, uid, err);
}

int drv_conf_slurmd_uid(const struct drv_conf *conf, uid_t *uid, struct drv_error *err)
{
	return user_uid("SlurmdUser", conf->slurmd_user, uid, err);
}

int drv_conf_check_ctld_uid(const struct drv_conf *conf, uid_t uid, struct drv_error *err)
{
	uid_t slurm_uid;
	int rc = drv_conf_slurm_uid(conf, &slurm_uid, err);
	if (rc < 0)
		return rc;
	if (uid == 0 || uid == slurm_uid)
		return 0;
	struct passwd *pw = getpwuid(uid);
	return drv_error_set(err, EPERM,
			     "reply from controller refused: signed as uid %u (%s), not "
			     "root or SlurmUser %s",
			     (unsigned)uid, pw ? pw->pw_name : "?",
			     conf->slurm_user ? conf->slurm_user : "root");
}
