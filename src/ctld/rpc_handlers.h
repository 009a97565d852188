/* rpc_handlers.h — one function per message type, dispatched by rpc.c. */
#ifndef CTLD_RPC_HANDLERS_H
#define CTLD_RPC_HANDLERS_H

#include "common/proto_gen.h"
#include "ctld/ctld.h"

/* rpc.c: bulk text replies name their keys by the declaration */
struct drv_jw;
/* Writes sep (e.g. "{" or ",") and f's name as a key: `"name":`. */
void rpc_jw_key(struct drv_jw *w, const char *sep, const struct drv_field *f);
/* A JSON array of the strings v[0..n), as jansson's compact dump writes it. */
void rpc_jw_strs(struct drv_jw *w, const char *const *v, size_t n);
/* rpc_job.c */
void rpc_job_submit(struct rpc_req *r);
/* sbatch --test-only (rpc_will_run.c): replies when and where j would start;
 * consumes j. */
struct job;
void rpc_job_will_run(struct rpc_req *r, struct job *j);
void rpc_job_query(struct rpc_req *r);
void rpc_job_cancel(struct rpc_req *r);
void rpc_job_release(struct rpc_req *r);
void rpc_job_hold(struct rpc_req *r);
void rpc_job_requeue(struct rpc_req *r);
void rpc_job_update(struct rpc_req *r);
/* rpc_job_cmds.c: scontrol notify, write batch_script */
void rpc_job_notify(struct rpc_req *r);
void rpc_job_script(struct rpc_req *r);
/* rpc_stats.c: sdiag (and sdiag -r, administrators only) */
void rpc_stats_query(struct rpc_req *r);
/* rpc_sstat.c: sstat's step.stat, answered from the nodes' samples */
void rpc_step_stat(struct rpc_req *r);
/* A noded's reply to a step.sample: true when it was one (consumed). */
bool stat_reply(struct ctld *c, const struct drv_rec_envelope *env);
/* Drops the questions still waiting (shutdown). */
void stat_fini(struct ctld *c);
/* rpc_bcast.c: sbcast's blocks to every node of a running job */
void rpc_bcast_block(struct rpc_req *r);
/* A noded's reply to a bcast.write: true when it was one (consumed). */
bool bcast_reply(struct ctld *c, const struct drv_rec_envelope *env);
/* At shutdown: drops the waits without replying. */
void bcast_fini(struct ctld *c);
/* rpc_acct.c */
void rpc_acct_query(struct rpc_req *r);
/* rpc_assoc.c */
void rpc_assoc_query(struct rpc_req *r);
void rpc_assoc_update(struct rpc_req *r);
/* rpc_node.c */
void rpc_node_query(struct rpc_req *r);
void rpc_node_update(struct rpc_req *r);
void rpc_ctld_ping(struct rpc_req *r);
void rpc_conf_query(struct rpc_req *r);
/* rpc_reconfig.c */
void rpc_ctld_reconfigure(struct rpc_req *r);
/* rpc_part.c */
void rpc_part_query(struct rpc_req *r);
void rpc_part_update(struct rpc_req *r);
void rpc_part_delete(struct rpc_req *r);
void rpc_lic_query(struct rpc_req *r);
/* node_link.c: noded's messages and replies */
void link_node_register(struct rpc_req *r);
void link_node_ping(struct rpc_req *r);
/* node.drain: noded's HealthCheckProgram failed; drains the node. */
void link_node_drain(struct rpc_req *r);
void link_job_complete(struct rpc_req *r);
/* anomaly.c: job.anomaly, noded froze a job for the anomaly policy */
void link_job_anomaly(struct rpc_req *r);
void link_reply(struct ctld *c, struct peer *p, const struct drv_rec_envelope *env);
void link_send_launch(struct ctld *c, struct job *j);
void link_track_launch(struct ctld *c, int64_t msg_id, uint32_t job_id, uint32_t restart);
void link_fini(struct ctld *c);
/* sdiag: launches sent to noded and not yet acknowledged. */
size_t link_pending_launches(const struct ctld *c);
void link_send_signal(struct ctld *c, struct job *j, int sig, bool batch_only, bool kill);
/* scontrol notify: message (borrowed) for j's batch node. 0, or
 * DRV_RC_DISABLED while that node is not linked. */
int link_send_notify(struct ctld *c, struct job *j, const char *message);
/* The same with a reason for a kill ("cancel", "time_limit"; borrowed, NULL
 * none): the shepherd writes Slurm's "*** JOB N ON NODE CANCELLED AT ***". */
void link_send_signal_why(struct ctld *c, struct job *j, int sig, bool batch_only,
			  bool kill, const char *reason);
/* scontrol suspend (thaw false) or resume: job.freeze to each of j's nodes
 * that is linked now. */
void link_send_freeze(struct ctld *c, struct job *j, bool thaw);
/* A node registered: job.freeze again for each job it holds that was ever
 * suspended, frozen or thawed as the job is now (one sent while it was
 * away, or lost with a ctld that died, is not missed; freezing a frozen
 * job, or thawing a thawed one, changes nothing). */
void link_send_suspended(struct ctld *c, struct node *n);
/* job_suspend.c: scontrol suspend, resume (administrators only) */
void rpc_job_suspend(struct rpc_req *r);

#endif
