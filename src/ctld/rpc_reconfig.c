/* rpc_reconfig.c — ctld.reconfigure (`scontrol reconfigure`): ctld reads
 * its drover.conf again and takes the keys that may change live.
 *
 * All or nothing: a file that does not load, or that changes a key that
 * cannot change live (conf_keys.c's reload column, nodes and partitions),
 * is refused with the reason and ctld goes on with the config it has. The
 * comparison and the change itself are the config module's
 * (drv_conf_reload); this file owns only the request, its checks and what
 * ctld must redo once keys changed. */
#include <errno.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/node.h"
#include "ctld/rpc_handlers.h"
#include "ctld/slurm_errtab.h"

/* Every connected noded reads its own drover.conf again (as slurmd does on
 * Slurm's reconfigure); one that cannot logs why and keeps its config. A
 * noded not connected now reads the file when it starts again. */
static void tell_nodes(struct ctld *c)
{
	for (size_t i = 0; i < c->nodes.n; i++) {
		struct node *n = &c->nodes.nodes[i];
		if (!n->peer)
			continue;
		json_t *req = drv_request_new("node.reconfigure", ctld_next_msg_id(c),
					      json_object());
		peer_send(c, n->peer, req);
		json_decref(req);
	}
}

void rpc_ctld_reconfigure(struct rpc_req *r)
{
	struct ctld *c = r->c;
	struct drv_error err = {{0}};
	struct drv_conf *fresh = NULL;
	char applied[1024];

	if (!rpc_is_admin(r)) { /* Slurm's ESLURM_USER_ID_MISSING, as its ctld */
		log_warn("Security violation, RECONFIGURE RPC from uid=%u",
			 (unsigned)r->cred.uid);
		rpc_reply(r, 2010, slurm_err_text(2010), NULL);
		return;
	}
	int rc = drv_conf_load(c->conf->path, NULL, NULL, &fresh, &err);
	if (rc == 0)
		rc = drv_conf_reload(c->conf, fresh, applied, sizeof(applied), &err);
	drv_conf_free(fresh);
	if (rc < 0) {
		log_warn("reconfigure refused, the config stays as it was: %s", err.text);
		rpc_reply(r, DRV_RC_ERROR, err.text, NULL);
		return;
	}
	log_info("reconfigure: %s", applied[0] ? applied : "nothing changed");
	tell_nodes(c);
	sched_request(c); /* scheduler settings and limits may have changed */
	rpc_reply(r, 0, NULL, NULL);
}
