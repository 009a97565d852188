/* job_req.h — a job's resource request: built from job.submit, applied
 * defaults (DefMemPerCPU, ...), and its JSON form for the store. */
#ifndef CTLD_JOB_REQ_H
#define CTLD_JOB_REQ_H

#include <jansson.h>

#include "common/conf.h"
#include "common/error.h"
#include "common/proto_gen.h"
#include "ctld/job.h"

/* Fills req from a job.submit body, with the defaults of the cluster and of
 * part (its first partition; borrowed, may be NULL): memory, CPUs and
 * memory per GPU, MinNodes. Returns 0, or a Slurm rc (enum drv_rc) with
 * err holding Slurm's message; req is then freed again. */
int job_req_from_submit(struct job_req *req, const struct drv_job_submit *m,
			const struct drv_conf *conf, const struct drv_part_conf *part,
			struct drv_error *err);
void job_req_free(struct job_req *req);

json_t *job_req_to_json(const struct job_req *req);	 /* new reference */
int job_req_from_json(struct job_req *req, json_t *obj); /* 0 or -EINVAL */
/* The same from the store's decoded object: 0 or -ENOMEM. */
int job_req_from_rec(struct job_req *req, const struct drv_rec_job_req *o);

/* Whether a job with this request and limit, still pending at now, could
 * not finish by its --deadline even if it started at once (or at --begin)
 * and ran only its --time-min (or its limit, one minute when UNLIMITED). */
bool job_req_past_deadline(const struct job_req *req, int64_t time_limit, int64_t now);
/* The first second at which job_req_past_deadline() holds for a job still
 * pending then (0 when it holds at any time); false without a --deadline. */
bool job_req_deadline_due(const struct job_req *req, int64_t time_limit, int64_t *due);

/* "2(x3),1": Slurm's compressed list of per-node counts. Returns new text. */
char *job_counts_string(const uint32_t *v, uint32_t n);

/* The job's total CPUs: allocated while it holds nodes or after it ran,
 * else what it asks for. */
uint32_t job_cpus(const struct job *j);

#endif
