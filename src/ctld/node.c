/* node.c — the node table and its JSON encodings. No transitions here:
 * those are in node_state.c. */
#include "ctld/node.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "ctld/job.h"
#include "sched/sched.h"

/* A node's GPUs from its Gres= line: "gpu:4" or "gpu:a100:2,gpu:v100:2". */
static int node_gpus(struct node *n, struct drv_error *err)
{
	struct drv_gres *g = NULL;
	size_t k = 0;
	struct drv_error why = {{0}};
	if (drv_gres_parse(n->conf->gres, &g, &k, &why) < 0)
		return drv_error_set(err, EINVAL, "node %s: Gres=%s: %s", n->conf->name,
				     n->conf->gres, why.text);
	uint64_t total = 0;
	for (size_t i = 0; i < k; i++)
		if (!strcmp(g[i].name, "gpu"))
			total += g[i].count;
	if (total > SCHED_MAX_GPUS) {
		free(g);
		return drv_error_set(err, EINVAL, "node %s: at most %d GPUs per node",
				     n->conf->name, SCHED_MAX_GPUS);
	}
	n->gpu_type = calloc(total ? total : 1, sizeof(char *));
	for (size_t i = 0; n->gpu_type && i < k; i++)
		for (uint64_t c = 0; !strcmp(g[i].name, "gpu") && c < g[i].count; c++)
			n->gpu_type[n->n_gpus++] =
			    g[i].type[0] ? strdup(g[i].type) : NULL;
	free(g);
	return n->gpu_type ? 0 : drv_error_set(err, ENOMEM, "out of memory");
}

static void node_init_state(struct node *n)
{
	const char *st = n->conf->state;
	if (st && (!strcmp(st, "DRAIN") || !strcmp(st, "DRAINED"))) {
		n->drain = true;
		snprintf(n->reason, sizeof(n->reason), "State=%s in the config", st);
	} else if (st && !strcmp(st, "DOWN")) {
		n->down = n->down_by_admin = true;
		snprintf(n->reason, sizeof(n->reason), "State=DOWN in the config");
	}
}

int node_table_init(struct node_table *t, const struct drv_conf *conf, int64_t now,
		    struct drv_error *err)
{
	memset(t, 0, sizeof(*t));
	t->nodes = calloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*t->nodes));
	t->names = calloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*t->names));
	if (!t->nodes || !t->names) {
		node_table_fini(t);
		return drv_error_set(err, ENOMEM, "out of memory");
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
		node_init_state(n);
		t->names[i] = n->conf->name;
		if (node_gpus(n, err) < 0) {
			node_table_fini(t);
			return -EINVAL;
		}
	}
	return 0;
}

void node_table_fini(struct node_table *t)
{
	for (size_t i = 0; t->nodes && i < t->n; i++) {
		for (uint32_t g = 0; g < t->nodes[i].n_gpus; g++)
			free(t->nodes[i].gpu_type[g]);
		free(t->nodes[i].gpu_type);
		free(t->nodes[i].jobs);
	}
	free(t->nodes);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

int node_add_job(struct node *n, struct job *j)
{
	if (n->n_jobs == n->cap_jobs) {
		uint32_t cap = n->cap_jobs ? n->cap_jobs * 2 : 4;
		struct job **v = realloc(n->jobs, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		n->jobs = v;
		n->cap_jobs = cap;
	}
	n->jobs[n->n_jobs++] = j;
	return 0;
}

void node_remove_job(struct node *n, struct job *j)
{
	for (uint32_t i = 0; i < n->n_jobs; i++)
		if (n->jobs[i] == j) {
			n->jobs[i] = n->jobs[--n->n_jobs];
			return;
		}
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
	if (n->n_jobs)
		return n->cpus_alloc >= (uint32_t)n->conf->cpus ? "ALLOCATED" : "MIXED";
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

/* The GPUs of one type starting at index i: how many are in use, and which. */
static uint32_t gpu_run(const struct node *n, uint32_t i, char *idx, size_t len,
			uint32_t *used)
{
	const char *type = n->gpu_type[i];
	uint32_t end = i;
	size_t il = 0;
	*used = 0;
	idx[0] = '\0';
	for (; end < n->n_gpus; end++) {
		const char *t = n->gpu_type[end];
		if (type ? !t || strcmp(t, type) : t != NULL)
			break;
		if (n->gpus_alloc >> end & 1) {
			(*used)++;
			il += (size_t)snprintf(idx + il, len - il, "%s%u", il ? "," : "",
					       end);
		}
	}
	return end;
}

/* "gpu:a100:1(IDX:0),gpu:v100:0(IDX:N/A)" as scontrol's GresUsed; null
 * without GPUs. Types in the order the node declares them. */
static json_t *node_gres_used(const struct node *n)
{
	if (!n->n_gpus)
		return json_null();
	char buf[1024] = "", idx[512];
	size_t len = 0;
	for (uint32_t i = 0, used; i < n->n_gpus;) {
		const char *type = n->gpu_type[i];
		i = gpu_run(n, i, idx, sizeof(idx), &used);
		len += (size_t)snprintf(
		    buf + len, sizeof(buf) - len, "%sgpu%s%s:%u(IDX:%s)", len ? "," : "",
		    type ? ":" : "", type ? type : "", used, used ? idx : "N/A");
	}
	return json_string(buf);
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
	json_object_set_new(r, "alloc_cpus", json_integer(n->cpus_alloc));
	json_object_set_new(r, "real_memory", json_integer((json_int_t)nc->real_memory));
	json_object_set_new(r, "tmp_disk", json_integer((json_int_t)nc->tmp_disk));
	json_object_set_new(r, "alloc_memory", json_integer((json_int_t)n->mem_alloc));
	json_object_set_new(r, "gpus", json_integer(n->n_gpus));
	json_object_set_new(r, "alloc_gpus",
			    json_integer(__builtin_popcountll(n->gpus_alloc)));
	json_object_set_new(r, "gres_used", node_gres_used(n));
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
