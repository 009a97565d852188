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

static bool name_wanted(json_t *names, const char *name)
{
	if (!names)
		return true;
	size_t i;
	json_t *x;
	json_array_foreach(names, i,
			   x) if (!strcmp(json_string_value(x) ?: "", name)) return true;
	return false;
}

void rpc_node_query(struct rpc_req *r)
{
	json_t *names = json_object_get(r->body, "names");
	json_t *out = json_array();
	for (size_t i = 0; i < r->c->nodes.n; i++) {
		const struct node *n = &r->c->nodes.nodes[i];
		if (name_wanted(names, n->conf->name))
			json_array_append_new(out, node_to_record(n, r->c->conf));
	}
	rpc_reply(r, 0, NULL,
		  json_pack("{s:o,s:I}", "nodes", out, "now", (json_int_t)time(NULL)));
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
	const char *expr = json_string_value(json_object_get(r->body, "nodes"));
	const char *state = json_string_value(json_object_get(r->body, "state"));
	const char *reason = json_string_value(json_object_get(r->body, "reason"));
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

void rpc_part_query(struct rpc_req *r)
{
	const struct drv_conf *cf = r->c->conf;
	json_t *names = json_object_get(r->body, "names");
	json_t *out = json_array();
	for (size_t i = 0; i < r->c->n_parts; i++) {
		const struct part *p = &r->c->parts[i];
		if (!name_wanted(names, p->conf->name))
			continue;
		json_int_t cpus = 0, mem = 0, gpus = 0;
		for (uint32_t k = 0; k < p->n_nodes; k++) {
			const struct node *n = &r->c->nodes.nodes[p->node_idx[k]];
			cpus += n->conf->cpus;
			mem += (json_int_t)n->conf->real_memory;
			gpus += n->n_gpus;
		}
		json_t *rec = json_pack(
		    "{s:s,s:s,s:b,s:I,s:I,s:s,s:i,s:I,s:I,s:I}", "name", p->conf->name,
		    "nodes", p->conf->nodes, "is_default", p->conf->is_default,
		    "max_time", (json_int_t)p->conf->max_time, "default_time",
		    (json_int_t)p->conf->default_time, "state", p->conf->state,
		    "total_nodes", (int)p->n_nodes, "total_cpus", cpus, "total_memory",
		    mem, "total_gpus", gpus);
		/* scontrol's DefMemPerCPU= / DefMemPerNode= (0: UNLIMITED) */
		if (cf->def_mem_per_cpu)
			json_object_set_new(
			    rec, "def_mem_per_cpu",
			    json_integer((json_int_t)cf->def_mem_per_cpu));
		else
			json_object_set_new(
			    rec, "def_mem_per_node",
			    json_integer((json_int_t)cf->def_mem_per_node));
		json_array_append_new(out, rec);
	}
	rpc_reply(r, 0, NULL, json_pack("{s:o}", "partitions", out));
}

void rpc_ctld_ping(struct rpc_req *r)
{
	rpc_reply(r, 0, NULL,
		  json_pack("{s:s,s:s}", "host", r->c->conf->ctld_hosts[0].name,
			    "cluster", r->c->conf->cluster_name));
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
	rpc_reply(r, 0, NULL, json_pack("{s:o}", "config", a));
}
