/* step.h — job steps: what each srun inside an allocation runs.
 *
 * A step lives in its job's record (and so in the job's store row): srun
 * asks for it (step.create), ctld lays its tasks out over the allocation's
 * nodes and sends each node its share (step.launch, all at once), and each
 * node reports its share's end (step.complete); the step ends when the
 * last node has. The batch script is not a step here: sacct derives
 * ID.batch from the job itself. */
#ifndef CTLD_STEP_H
#define CTLD_STEP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctld/job.h"
#include "ctld/usage.h"

struct ctld;
struct rpc_req;

enum step_dist {
	STEP_DIST_BLOCK,
	STEP_DIST_CYCLIC,
	STEP_DIST_PLANE,
	STEP_DIST_ARBITRARY
};

struct job_step {
	uint32_t id;
	enum job_state state; /* RUNNING, then COMPLETED, FAILED, CANCELLED, ... */
	char *name, *nodelist, *tasks_per_node, *alloc_tres;
	int64_t start_time, end_time;
	int exit_code, exit_signal;
	uid_t cancel_uid; /* (uid_t)-1: nobody cancelled it */
	uint32_t ntasks, cpus, num_nodes;
	enum step_dist dist;
	bool overlap;
	bool cancelled;	 /* scancel ID.STEP */
	bool oom;	 /* a node reported an OOM kill among its tasks */
	bool job_ended;	 /* its job ended under it: its tasks were killed */
	bool timed_out;	 /* ... at the job's time limit */
	int64_t give_up; /* job_ended: when to stop waiting for the nodes */
	/* per step node: the node (table index), the job's alloc slot, the
	 * CPUs it holds there (0 with --overlap) and whether that node
	 * reported; kept in memory after the end, for late usage reports */
	uint32_t *node_idx, *alloc_idx, *node_cpus;
	uint64_t *node_gpus; /* GPUs it holds on each (--gpus*), 0: none */
	bool *node_done;
	struct step_usage usage; /* summed over the nodes that reported */
	/* sattach's way in (step_attach.c): srun's I/O port, the key that
	 * proves a caller to srun and the tasks of each node; stored with a
	 * running step (private), absent for steps stored before there was */
	char *io_host;
	uint16_t io_port;
	char attach_key[65];
	json_t *task_ids; /* [[global task id]] per step node */
};

/* Handlers (rpc.c / node_link.c dispatch). */
void rpc_step_create(struct rpc_req *r);
void rpc_alloc_complete(struct rpc_req *r);
void rpc_step_attach(struct rpc_req *r);
void link_step_complete(struct rpc_req *r);

/* Finds a step of j; NULL when it has none of that id. */
struct job_step *step_find(struct job *j, uint32_t step_id);
/* scancel ID.STEP: sig 0 cancels it (its tasks get SIGTERM, SIGKILL after
 * KillWait), another number is only delivered. rc for the reply. */
int step_cancel(struct ctld *c, struct job *j, uint32_t step_id, int sig, uid_t by);
/* Delivers sig to every running step's tasks (scancel -s without -b). */
void steps_signal(struct ctld *c, struct job *j, int sig);
/* The job ends: its running steps' tasks are killed on every node. With
 * wait the steps end by their nodes' reports (COMPLETED or FAILED when
 * their tasks had ended already, else CANCELLED, or TIMEOUT with the job's
 * limit), or give up on silent nodes after KillWait and a grace; without,
 * they end now (CANCELLED). */
void steps_end_all(struct ctld *c, struct job *j, bool timed_out, bool wait, int64_t now);
/* The same, with the reason the steps' shepherds print ("cancel",
 * "time_limit", "requeue"; static; NULL: none). spare_batch_node: the job's
 * kill (job.signal with the same reason) ends the steps on its batch node:
 * no step.signal goes there. */
void steps_end_all_why(struct ctld *c, struct job *j, const char *reason,
		       bool spare_batch_node, bool timed_out, bool wait, int64_t now);
/* Ends j's steps whose nodes have not reported by their give-up time (its
 * timer, timed.c). */
void steps_give_up(struct ctld *c, struct job *j, int64_t now);
/* The earliest give-up time of j's steps still waiting for their nodes
 * after its end (*due); false when none waits. */
bool steps_give_up_due(const struct job *j, int64_t *due);
bool steps_running(const struct job *j);

/* The "steps" array of the job record (new reference); with store, what
 * recovery needs too. */
json_t *steps_to_json(const struct job *j, bool store);
/* Restores j's steps from a store record's (n of them). */
void steps_from_store(struct job *j, const struct drv_rec_step *v, size_t n);
void steps_free(struct job *j);

#endif
