/* rpc_node.c — client requests about nodes, partitions and the controller:
 * node.query, node.update (scontrol update NodeName=...), ctld.ping and
 * conf.query. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pwd.h>
#include <unistd.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/timefmt.h"
#include "ctld/ctld.h"
#include "ctld/perm.h"
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

/* Which partitions each node is in: member[p * nodes + i] for partition
 * p and node i (a new array, the caller's). */
static unsigned char *memberships(const struct ctld *c)
{
	size_t nn = c->nodes.n ? c->nodes.n : 1;
	unsigned char *m = calloc((c->n_parts ? c->n_parts : 1) * nn, 1);
	for (size_t p = 0; m && p < c->n_parts; p++)
		for (uint32_t k = 0; k < c->parts[p].n_nodes; k++)
			m[p * nn + c->parts[p].node_idx[k]] = 1;
	return m;
}

void rpc_node_query(struct rpc_req *r)
{
	const struct drv_node_query *m = r->msg;
	const struct ctld *c = r->c;
	if (rpc_hides(r, DRV_PRIVATE_NODES)) {
		rpc_reply(r, DRV_RC_ACCESS_DENIED, drv_rc_text(DRV_RC_ACCESS_DENIED),
			  NULL);
		return;
	}
	json_t *out = json_array();
	unsigned char *member = memberships(c);
	const char **parts = calloc(c->n_parts ? c->n_parts : 1, sizeof(*parts));
	if (!member || !parts)
		abort();
	size_t nn = c->nodes.n ? c->nodes.n : 1;
	for (size_t i = 0; i < c->nodes.n; i++) {
		const struct node *n = &c->nodes.nodes[i];
		size_t k = 0;
		if (!name_wanted(m->has_names ? m->names : NULL, m->n_names,
				 n->conf->name))
			continue;
		for (size_t p = 0; p < c->n_parts; p++)
			if (member[p * nn + i])
				parts[k++] = c->parts[p].conf->name;
		json_array_append_new(out, node_to_record(n, parts, k));
	}
	free(member);
	free(parts);
	/* the records are trees already: they go in by the declared name */
	struct drv_node_query_reply reply = {.now = time(NULL)};
	json_t *body = drv_node_query_reply_encode(&reply);
	json_object_set_new(
	    body, drv_shape_node_query_reply.fields[DRV_NODE_QUERY_REPLY__NODES].name,
	    out);
	rpc_reply(r, 0, NULL, body);
}

static bool valid_state(const char *s)
{
	static const char *ok[] = {"DRAIN", "RESUME", "DOWN", "UNDRAIN", "IDLE"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(s, ok[i]))
			return true;
	return false;
}

void rpc_node_update(struct rpc_req *r)
{
	struct ctld *c = r->c;
	const struct drv_node_update *m = r->msg;
	const char *expr = m->nodes, *state = m->state, *reason = m->reason;
	char **names = NULL;
	size_t n = 0;
	struct drv_error err = {{0}};
	if (!rpc_is_admin(r)) { /* Slurm's validate_super_user */
		log_warn("Security violation, UPDATE_NODE RPC from uid=%u",
			 (unsigned)r->cred.uid);
		rpc_reply(r, DRV_RC_USER_ID_MISSING, drv_rc_text(DRV_RC_USER_ID_MISSING),
			  NULL);
		return;
	}
	if (!state || !valid_state(state)) {
		rpc_reply(r, DRV_RC_ERROR, "Invalid node state specified", NULL);
		return;
	}
	if (!expr || drv_hostlist_expand(expr, &names, &n, &err) < 0) {
		rpc_reply(r, DRV_RC_INVALID_NODE_NAME,
			  drv_rc_text(DRV_RC_INVALID_NODE_NAME), NULL);
		return;
	}
	/* All names first, so an unknown one changes nothing. */
	for (size_t i = 0; i < n; i++)
		if (!node_find(&c->nodes, names[i])) {
			drv_strv_free(names, n);
			rpc_reply(r, DRV_RC_INVALID_NODE_NAME,
				  drv_rc_text(DRV_RC_INVALID_NODE_NAME), NULL);
			return;
		}
	int64_t now = time(NULL);
	for (size_t i = 0; i < n; i++)
		node_admin_update(c, node_find(&c->nodes, names[i]), state, reason,
				  r->cred.uid, now);
	drv_strv_free(names, n);
	rpc_reply_durable(r, 0, NULL, NULL);
}

void rpc_ctld_ping(struct rpc_req *r)
{
	struct drv_ctld_ping_reply reply = {.host = r->c->conf->ctld_hosts[0].name,
					    .cluster = r->c->conf->cluster_name};
	rpc_reply(r, 0, NULL, drv_ctld_ping_reply_encode(&reply));
}

static void add_line(const char *key, const char *value, void *arg)
{
	json_array_append_new(arg, json_pack("[s,s]", key, value));
}

/* Every line of `scontrol show config`, formatted by drv_conf_show. */
void rpc_conf_query(struct rpc_req *r)
{
	struct passwd *pw = getpwuid(geteuid());
	char user[96];
	json_t *a = json_array();

	snprintf(user, sizeof(user), "%s(%u)", pw ? pw->pw_name : "root",
		 (unsigned)geteuid());
	struct drv_conf_live live = {
	    .boot_time = r->c->start_time,
	    .next_job_id = r->c->jobs.next_id,
	    .user = user,
	};
	drv_conf_show(r->c->conf, &live, add_line, a);
	struct drv_conf_query_reply reply = {.config = a};
	json_t *body = drv_conf_query_reply_encode(&reply);
	json_decref(a);
	rpc_reply(r, 0, NULL, body);
}
