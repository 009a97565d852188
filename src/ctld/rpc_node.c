/* rpc_node.c — client requests about nodes, partitions and the controller:
 * node.query, node.update (scontrol update NodeName=...), part.query,
 * ctld.ping and conf.query. */
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

void rpc_node_query(struct rpc_req *r)
{
	const struct drv_node_query *m = r->msg;
	json_t *out = json_array();
	for (size_t i = 0; i < r->c->nodes.n; i++) {
		const struct node *n = &r->c->nodes.nodes[i];
		if (name_wanted(m->has_names ? m->names : NULL, m->n_names,
				n->conf->name))
			json_array_append_new(out, node_to_record(n, r->c->conf));
	}
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
	if (!rpc_is_admin(r)) {
		rpc_reply(r, DRV_RC_ACCESS_DENIED, drv_rc_text(DRV_RC_ACCESS_DENIED),
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

static struct drv_rec_partition part_record(const struct ctld *c, const struct part *p)
{
	const struct drv_conf *cf = c->conf;
	struct drv_rec_partition o = {
	    .name = p->conf->name,
	    .nodes = p->conf->nodes,
	    .is_default = p->conf->is_default,
	    .max_time = p->conf->max_time,
	    .default_time = p->conf->default_time,
	    .state = p->conf->state,
	    .total_nodes = p->n_nodes,
	};
	for (uint32_t k = 0; k < p->n_nodes; k++) {
		const struct node *n = &c->nodes.nodes[p->node_idx[k]];
		o.total_cpus += n->conf->cpus;
		o.total_memory += (int64_t)n->conf->real_memory;
		o.total_gpus += n->n_gpus;
	}
	/* scontrol's DefMemPerCPU= / DefMemPerNode= (0: UNLIMITED) */
	if (cf->def_mem_per_cpu) {
		o.has_def_mem_per_cpu = true;
		o.def_mem_per_cpu = (int64_t)cf->def_mem_per_cpu;
	} else {
		o.has_def_mem_per_node = true;
		o.def_mem_per_node = (int64_t)cf->def_mem_per_node;
	}
	return o;
}

void rpc_part_query(struct rpc_req *r)
{
	const struct drv_part_query *m = r->msg;
	struct drv_part_query_reply reply = {0};
	reply.partitions =
	    calloc(r->c->n_parts ? r->c->n_parts : 1, sizeof(*reply.partitions));
	if (!reply.partitions)
		abort();
	for (size_t i = 0; i < r->c->n_parts; i++) {
		const struct part *p = &r->c->parts[i];
		if (name_wanted(m->has_names ? m->names : NULL, m->n_names,
				p->conf->name))
			reply.partitions[reply.n_partitions++] = part_record(r->c, p);
	}
	json_t *body = drv_part_query_reply_encode(&reply);
	free(reply.partitions);
	rpc_reply(r, 0, NULL, body);
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
