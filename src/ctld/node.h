/* node.h — the node table: one entry per configured node, in config order.
 * State transitions live in node_state.c only. */
#ifndef CTLD_NODE_H
#define CTLD_NODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/conf.h"

struct peer;
struct job;
struct sched_gpu;

/* ctld keeps a job's GPUs on a node as a 64-bit mask. */
#define DRV_MAX_NODE_GPUS 64

struct node {
	const struct drv_node_conf *conf; /* borrowed from ctld's config */
	uint32_t idx;
	bool registered;     /* has registered since ctld started */
	bool down;	     /* DOWN: not responding or set by an admin */
	bool down_by_admin;  /* an admin set DOWN (registration does not clear it) */
	bool drain;	     /* DRAIN set by an admin or by a failed check */
	bool admin_override; /* runtime admin state wins over the config's State= */
	char reason[256];
	int64_t reason_time;
	uid_t reason_uid;
	int cpus;
	uint64_t real_memory;
	int64_t boot_time, last_seen, registered_time;
	int64_t slurmd_start_time;    /* when its noded started (it says so) */
	int64_t last_busy;	      /* the last time it had jobs; 0: never here */
	uint32_t cpus_alloc;	      /* held by running jobs */
	uint64_t mem_alloc;	      /* MiB */
	uint64_t gpus_alloc;	      /* bit mask */
	uint32_t n_gpus;	      /* from the node's Gres=gpu... */
	char **gpu_type;	      /* n_gpus entries (NULL: untyped); owned */
	struct sched_gpu *sched_gpus; /* the same as the scheduler sees them; owned */
	struct job **jobs;	      /* jobs holding resources here */
	uint32_t n_jobs, cap_jobs;
	struct peer *peer; /* noded's connection, NULL when not connected */
	bool dirty;
};

struct node_table {
	struct node *nodes;
	size_t n;
	char **names; /* names[i] == nodes[i].conf->name, for hostlist helpers */
};

int node_table_init(struct node_table *t, const struct drv_conf *conf, int64_t now,
		    struct drv_error *err);
void node_table_fini(struct node_table *t);
struct node *node_find(const struct node_table *t, const char *name);

/* The jobs holding resources on a node. 0 or -ENOMEM. */
int node_add_job(struct node *n, struct job *j);
void node_remove_job(struct node *n, struct job *j);

/* Slurm's base state name: "IDLE", "MIXED", "ALLOCATED", "DOWN", "UNKNOWN". */
const char *node_base_state(const struct node *n);
bool node_usable(const struct node *n); /* registered, up, not drained */

/* The record users see; parts (n_parts names, borrowed) are the
 * partitions n is in. */
json_t *node_to_record(const struct node *n, const char **parts, size_t n_parts);
json_t *node_to_store(const struct node *n);
struct drv_rec_node_store;
void node_apply_store(struct node *n, const struct drv_rec_node_store *r);

#endif
