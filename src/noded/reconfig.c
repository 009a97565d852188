/* reconfig.c — node.reconfigure: noded reads its drover.conf again when
 * ctld was reconfigured, and takes the keys that may change live (the
 * reload column of conf_keys.c: Prolog, Epilog, TaskProlog, KillWait, ...),
 * which noded reads where it uses them. All or nothing, as in ctld: a file
 * that does not load, or that changes what cannot change live, is logged
 * and the config stays as it was. */
#include <errno.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

int noded_reconfigure(struct noded *nd, struct drv_error *err)
{
	struct drv_conf *fresh = NULL;
	char applied[1024];
	int rc = drv_conf_load(nd->conf_path, NULL, NULL, &fresh, err);
	if (rc == 0)
		rc = drv_conf_reload(nd->conf, fresh, applied, sizeof(applied), err);
	drv_conf_free(fresh);
	if (rc < 0) {
		log_warn("node=%s reconfigure refused, the config stays as it was: %s",
			 nd->name, err->text);
		return DRV_RC_ERROR;
	}
	health_reconfigured(nd);
	log_info("node=%s reconfigure: %s", nd->name,
		 applied[0] ? applied : "nothing changed");
	return 0;
}
