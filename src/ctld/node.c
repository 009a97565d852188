/* node.c — the node table and its JSON encodings. No transitions here:
 * those are in node_state.c. */
#include "ctld/node.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/job.h"

int node_table_init(struct node_table *t, const struct drv_conf *conf, int64_t now)
{
	memset(t, 0, sizeof(*t));
	t->nodes = calloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*t->nodes));
	t->names = calloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*t->names));
	if (!t->nodes || !t->names) {
		free(t->nodes);
		free(t->names);
		return -ENOMEM;
	}
	t->n = conf->n_nodes;
	for (size_t i = 0; i < t->n; i++) {
		struct node *n = &t->nodes[i];
		n->conf = &conf->nodes[i];
		n->idx = (uint32_t)i;
		n->cpus = n->conf->cpus;
		n->real_memory = n->conf->real_memory;
		/* A node gets SlurmdTimeout from ctld's start to register, so a
		 * restart of ctld alone never marks nodes DOWN. */
		n->last_seen = now;
		const char *st = n->conf->state;
		if (st && (!strcmp(st, "DRAIN") || !strcmp(st, "DRAINED"))) {
			n->drain = true;
			snprintf(n->reason, sizeof(n->reason), "State=%s in the config",
				 st);
		} else if (st && !strcmp(st, "DOWN")) {
			n->down = n->down_by_admin = true;
			snprintf(n->reason, sizeof(n->reason),
				 "State=DOWN in the config");
		}
		t->names[i] = n->conf->name;
	}
	return 0;
}

void node_table_fini(struct node_table *t)
{
	free(t->nodes);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

struct node *node_find(const struct node_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->nodes[i].conf->name, name))
			return &t->nodes[i];
	return NULL;
}

const char *node_base_state(const struct node *n)
{
	if (n->down)
		return "DOWN";
	if (n->job)
		return "ALLOCATED";
	if (!n->registered)
		return "UNKNOWN";
	return "IDLE";
}

bool node_usable(const struct node *n)
{
	return n->registered && !n->down && !n->drain;
}

static json_t *parts_of(const struct node *n, const struct drv_conf *conf)
{
	json_t *a = json_array();
	for (size_t p = 0; p < conf->n_parts; p++)
		for (size_t i = 0; i < conf->parts[p].n_nodes; i++)
			if (!strcmp(conf->parts[p].node_names[i], n->conf->name)) {
				json_array_append_new(a,
						      json_string(conf->parts[p].name));
				break;
			}
	return a;
}

json_t *node_to_record(const struct node *n, const struct drv_conf *conf)
{
	json_t *r = json_object();
	const struct drv_node_conf *nc = n->conf;
	json_object_set_new(r, "name", json_string(nc->name));
	json_object_set_new(r, "state", json_string(node_base_state(n)));
	json_object_set_new(r, "drain", json_boolean(n->drain));
	json_object_set_new(r, "not_responding",
			    json_boolean(n->registered && !n->peer && !n->down));
	json_object_set_new(r, "reason", json_string(n->reason));
	json_object_set_new(r, "reason_time", json_integer(n->reason_time));
	json_object_set_new(r, "reason_uid", json_integer(n->reason_uid));
	struct passwd *pw = n->reason_time ? getpwuid(n->reason_uid) : NULL;
	json_object_set_new(r, "reason_user", json_string(pw ? pw->pw_name : "root"));
	json_object_set_new(r, "cpus", json_integer(nc->cpus));
	json_object_set_new(r, "alloc_cpus", json_integer(n->job ? nc->cpus : 0));
	json_object_set_new(r, "real_memory", json_integer((json_int_t)nc->real_memory));
	json_object_set_new(r, "gres", nc->gres ? json_string(nc->gres) : json_null());
	json_object_set_new(r, "features",
			    nc->features ? json_string(nc->features) : json_null());
	json_object_set_new(r, "addr", json_string(nc->addr));
	json_object_set_new(r, "hostname", json_string(nc->hostname));
	json_object_set_new(r, "port", json_integer(nc->port));
	json_object_set_new(r, "boot_time", json_integer(n->boot_time));
	json_object_set_new(r, "last_seen", json_integer(n->last_seen));
	json_object_set_new(r, "slurmd_start_time", json_integer(n->registered_time));
	json_object_set_new(r, "partitions", parts_of(n, conf));
	return r;
}

/* Only what an admin or a failure decided is stored: the rest is learnt again
 * from noded's registration. */
json_t *node_to_store(const struct node *n)
{
	json_t *r = json_object();
	json_object_set_new(r, "down", json_boolean(n->down));
	json_object_set_new(r, "down_by_admin", json_boolean(n->down_by_admin));
	json_object_set_new(r, "drain", json_boolean(n->drain));
	json_object_set_new(r, "admin_override", json_boolean(n->admin_override));
	json_object_set_new(r, "reason", json_string(n->reason));
	json_object_set_new(r, "reason_time", json_integer(n->reason_time));
	json_object_set_new(r, "reason_uid", json_integer(n->reason_uid));
	return r;
}

void node_apply_store(struct node *n, json_t *rec)
{
	if (!json_is_true(json_object_get(rec, "admin_override")) &&
	    !json_is_true(json_object_get(rec, "down")))
		return; /* nothing an admin decided: the config's State= applies */
	n->admin_override = json_is_true(json_object_get(rec, "admin_override"));
	n->down = json_is_true(json_object_get(rec, "down"));
	n->down_by_admin = json_is_true(json_object_get(rec, "down_by_admin"));
	n->drain = json_is_true(json_object_get(rec, "drain"));
	const char *reason = json_string_value(json_object_get(rec, "reason"));
	snprintf(n->reason, sizeof(n->reason), "%s", reason ? reason : "");
	n->reason_time = json_integer_value(json_object_get(rec, "reason_time"));
	n->reason_uid = (uid_t)json_integer_value(json_object_get(rec, "reason_uid"));
}
