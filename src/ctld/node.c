/* node.c — the node table and its JSON encodings. No transitions here:
 * those are in node_state.c. */
#include "ctld/node.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	if (drv_gres_total(g, k, "gpu", DRV_MAX_NODE_GPUS, &total) < 0) {
		free(g);
		return drv_error_set(err, EINVAL, "node %s: at most %d GPUs per node",
				     n->conf->name, DRV_MAX_NODE_GPUS);
	}
	n->gpu_type = calloc(total ? total : 1, sizeof(char *));
	n->sched_gpus = calloc(total ? total : 1, sizeof(*n->sched_gpus));
	for (size_t i = 0; n->gpu_type && n->sched_gpus && i < k; i++)
		for (uint64_t c = 0; !strcmp(g[i].name, "gpu") && c < g[i].count; c++) {
			n->gpu_type[n->n_gpus] = g[i].type[0] ? strdup(g[i].type) : NULL;
			n->sched_gpus[n->n_gpus] =
			    (struct sched_gpu){n->gpu_type[n->n_gpus], 1};
			n->n_gpus++;
		}
	free(g);
	return n->gpu_type && n->sched_gpus ? 0
					    : drv_error_set(err, ENOMEM, "out of memory");
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
		free(t->nodes[i].sched_gpus);
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
	n->last_busy = time(NULL);
	return 0;
}

void node_remove_job(struct node *n, struct job *j)
{
	for (uint32_t i = 0; i < n->n_jobs; i++)
		if (n->jobs[i] == j) {
			n->jobs[i] = n->jobs[--n->n_jobs];
			n->last_busy = time(NULL); /* it had this job until now */
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

/* "gpu:a100:1(IDX:0),gpu:v100:0(IDX:N/A)" as scontrol's GresUsed, into buf;
 * NULL without GPUs. Types in the order the node declares them. */
static const char *node_gres_used(const struct node *n, char *buf, size_t size)
{
	if (!n->n_gpus)
		return NULL;
	char idx[512];
	size_t len = 0;
	buf[0] = '\0';
	for (uint32_t i = 0, used; i < n->n_gpus;) {
		const char *type = n->gpu_type[i];
		i = gpu_run(n, i, idx, sizeof(idx), &used);
		len += (size_t)snprintf(buf + len, size - len, "%sgpu%s%s:%u(IDX:%s)",
					len ? "," : "", type ? ":" : "", type ? type : "",
					used, used ? idx : "N/A");
	}
	return buf;
}

json_t *node_to_record(const struct node *n, const char **parts, size_t n_parts)
{
	const struct drv_node_conf *nc = n->conf;
	struct passwd *pw = n->reason_time ? getpwuid(n->reason_uid) : NULL;
	char gres_used[1024];
	struct drv_rec_node r = {
	    .name = nc->name,
	    .state = node_base_state(n),
	    .drain = n->drain,
	    .not_responding = n->registered && !n->peer && !n->down,
	    .reason = n->reason,
	    .reason_time = n->reason_time,
	    .reason_uid = n->reason_uid,
	    .reason_user = pw ? pw->pw_name : "root",
	    .cpus = nc->cpus,
	    .alloc_cpus = n->cpus_alloc,
	    .real_memory = (int64_t)nc->real_memory,
	    .tmp_disk = (int64_t)nc->tmp_disk,
	    .alloc_memory = (int64_t)n->mem_alloc,
	    .gpus = n->n_gpus,
	    .alloc_gpus = (uint32_t)__builtin_popcountll(n->gpus_alloc),
	    .gres_used = node_gres_used(n, gres_used, sizeof(gres_used)),
	    .gres = nc->gres,
	    .features = nc->features,
	    .addr = nc->addr,
	    .hostname = nc->hostname,
	    .port = (uint16_t)nc->port,
	    .boot_time = n->boot_time,
	    .last_seen = n->last_seen,
	    .slurmd_start_time = n->slurmd_start_time,
	    .last_busy = n->last_busy,
	    .partitions = parts,
	    .n_partitions = n_parts,
	    .weight = nc->weight,
	};
	return drv_rec_node_encode(&r);
}

json_t *node_to_store(const struct node *n)
{
	struct drv_rec_node_store r = {
	    .down = n->down,
	    .down_by_admin = n->down_by_admin,
	    .drain = n->drain,
	    .admin_override = n->admin_override,
	    .reason = n->reason,
	    .reason_time = n->reason_time,
	    .reason_uid = n->reason_uid,
	};
	return drv_rec_node_store_encode(&r);
}

void node_apply_store(struct node *n, const struct drv_rec_node_store *r)
{
	if (!r->admin_override && !r->down)
		return; /* nothing an admin decided: the config's State= applies */
	n->admin_override = r->admin_override;
	n->down = r->down;
	n->down_by_admin = r->down_by_admin;
	n->drain = r->drain;
	snprintf(n->reason, sizeof(n->reason), "%s", r->reason ? r->reason : "");
	n->reason_time = r->reason_time;
	n->reason_uid = (uid_t)r->reason_uid;
}
