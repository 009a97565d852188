/* rpc_part.c — client requests about partitions and licenses: part.query
 * (sinfo, scontrol show partition), part.update (scontrol create|update
 * PartitionName=, admin only, replied once durable), part.delete and
 * lic.query (scontrol show licenses). What the changes do is part.c's. */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"
#include "ctld/lic.h"
#include "ctld/prio.h"
#include "ctld/rpc_handlers.h"

/* names: the request's list, or NULL for all. */
static bool name_wanted(const char *const *names, size_t n, const char *name)
{
	if (!names)
		return true;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

void rpc_part_query(struct rpc_req *r)
{
	const struct drv_part_query *m = r->msg;
	struct drv_part_query_reply reply = {0};
	if (rpc_hides(r, DRV_PRIVATE_PARTITIONS)) {
		rpc_reply(r, DRV_RC_ACCESS_DENIED, drv_rc_text(DRV_RC_ACCESS_DENIED),
			  NULL);
		return;
	}
	size_t n = r->c->n_parts ? r->c->n_parts : 1;
	char(*os)[24] = calloc(n, sizeof(*os));
	reply.partitions = calloc(n, sizeof(*reply.partitions));
	if (!reply.partitions || !os)
		abort();
	for (size_t i = 0; i < r->c->n_parts; i++) {
		const struct part *p = &r->c->parts[i];
		if (name_wanted(m->has_names ? m->names : NULL, m->n_names,
				p->conf->name))
			reply.partitions[reply.n_partitions++] =
			    part_record(r->c, p, false, os[i]);
	}
	json_t *body = drv_part_query_reply_encode(&reply);
	free(reply.partitions);
	free(os);
	rpc_reply(r, 0, NULL, body);
}

void rpc_part_update(struct rpc_req *r)
{
	const struct drv_part_update *m = r->msg;
	struct drv_error err = {{0}};
	if (!rpc_is_admin(r)) { /* Slurm's validate_super_user */
		log_warn("Security violation, %s RPC from uid=%u", r->type,
			 (unsigned)r->cred.uid);
		rpc_reply(r, DRV_RC_USER_ID_MISSING, drv_rc_text(DRV_RC_USER_ID_MISSING),
			  NULL);
		return;
	}
	int rc = part_update(r->c, m->name, m->create, (const char *const *)m->settings,
			     m->n_settings, &err);
	if (rc) {
		rpc_reply(r, rc, err.text[0] ? err.text : drv_rc_text(rc), NULL);
		return;
	}
	log_info("partition %s %s by uid=%u", m->name, m->create ? "created" : "updated",
		 (unsigned)r->cred.uid);
	prio_changed(r->c); /* PriorityJobFactor, nodes: the factors move */
	rpc_reply_durable(r, 0, NULL, NULL);
}

void rpc_part_delete(struct rpc_req *r)
{
	const struct drv_part_delete *m = r->msg;
	if (!rpc_is_admin(r)) { /* Slurm's validate_super_user */
		log_warn("Security violation, %s RPC from uid=%u", r->type,
			 (unsigned)r->cred.uid);
		rpc_reply(r, DRV_RC_USER_ID_MISSING, drv_rc_text(DRV_RC_USER_ID_MISSING),
			  NULL);
		return;
	}
	int rc = part_delete(r->c, m->name);
	if (rc) {
		rpc_reply(r, rc, drv_rc_text(rc), NULL);
		return;
	}
	log_info("partition %s deleted by uid=%u", m->name, (unsigned)r->cred.uid);
	prio_changed(r->c);
	rpc_reply_durable(r, 0, NULL, NULL);
}

void rpc_lic_query(struct rpc_req *r)
{
	const struct drv_lic_query *m = r->msg;
	const struct drv_conf *cf = r->c->conf;
	size_t n = cf->n_licenses ? cf->n_licenses : 1;
	uint32_t *used = calloc(n, sizeof(*used));
	struct drv_lic_query_reply reply = {.licenses =
						calloc(n, sizeof(*reply.licenses))};
	if (!used || !reply.licenses)
		abort();
	lic_used(r->c, used);
	for (size_t i = 0; i < cf->n_licenses; i++)
		if (name_wanted(m->has_names ? m->names : NULL, m->n_names,
				cf->licenses[i].name))
			reply.licenses[reply.n_licenses++] = (struct drv_rec_license){
			    .name = cf->licenses[i].name,
			    .total = cf->licenses[i].total,
			    .used = used[i],
			};
	json_t *body = drv_lic_query_reply_encode(&reply);
	free(reply.licenses);
	free(used);
	rpc_reply(r, 0, NULL, body);
}
