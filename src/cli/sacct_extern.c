/* sacct_extern.c — the ID.extern row: Slurm's extern step, which Drover
 * makes (PrologFlags=Contain) on a batch job's node for its whole life, for
 * ssh sessions pam_drover_adopt moves into it. Nothing runs in it on its
 * own, so it has no record of its own: its row is the job's, as the step
 * that began with the job and ended with it, 0:0, on the batch host. The
 * row is shaped as an srun step's so that every field and the JSON output
 * take it as they take those. */
#include <string.h>

#include "cli/sacct_opts.h"
#include "cli/sacct_values.h"

bool sacct_extern_step(const struct sacct_ctx *c, const struct cli_job *j,
		       struct cli_step *s, char *tres)
{
	/* a job that never started, or waits again after a requeue, has
	 * none; salloc's and srun's allocations run no shepherd that holds it */
	if (!c->contain || !sacct_job_started(j) || !strcmp(j->state, "PENDING") ||
	    j->interactive)
		return false;
	bool live = !strcmp(j->state, "RUNNING") || !strcmp(j->state, "SUSPENDED");
	sacct_v_alloc_tres(&(struct sacct_row){j, true, NULL}, c, tres);
	*s = (struct cli_step){
	    .step_id = SACCT_STEP_EXTERN,
	    .name = "extern",
	    .state = live ? j->state : "COMPLETED",
	    .nodelist = j->batch_host ? j->batch_host : "",
	    .alloc_tres = tres,
	    .tasks_per_node = "",
	    .distribution = "",
	    .start_time = j->start_time,
	    .end_time = live ? 0 : j->end_time,
	    .num_nodes = 1,
	    .ntasks = 1,
	    .cpus = sacct_batch_cpus(j),
	    .cancel_uid = -1,
	};
	return true;
}
