/* anomaly.c — the anomaly freeze, the node's half (docs/anomaly.md): with
 * AnomalyMemRate or AnomalyMemFraction set, each second noded looks at the
 * usage samples the shepherds of its running jobs write (DIR/usage, every
 * JobAcctGatherFrequency seconds) and freezes a job here, as scontrol
 * suspend would (suspend.c), whose memory grew faster than AnomalyMemRate
 * MiB/s over its last AnomalyMemSamples samples, or whose RSS passed
 * AnomalyMemFraction of the node's RealMemory while the job has no hard
 * memory limit (a cgroup limit the kernel enforces). It then tells ctld
 * (job.anomaly), which suspends the job everywhere with reason
 * MemoryAnomaly. A job an operator resumed from such a freeze is left alone
 * from then on (job.freeze's anomaly_cleared): a person looked at it. The job's memory is
 * the sum over its batch step and its srun steps here of their tasks' RSS peaks
 * (ave_rss_kib x ntasks), which grow as long as its memory does. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

#define NS_PER_S 1000000000LL

static bool policy_on(const struct drv_conf *conf)
{
	return conf->anomaly_mem_rate > 0 || conf->anomaly_mem_fraction > 0;
}

/* Adds dir's latest sample (the tasks' RSS, and the file's mtime) to *kib
 * and *newest; false when it has none (not written yet, or ended). */
static bool add_sample(const char *dir, int64_t *kib, int64_t *newest)
{
	char path[PATH_MAX];
	struct stat sb;
	int n = snprintf(path, sizeof(path), "%s/usage", dir);
	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &sb) < 0)
		return false;
	struct drv_rec_usage u = {0};
	json_t *json = NULL;
	if (spool_read_shape(dir, "usage", &drv_shape_rec_usage, &u, &json) < 0)
		return false;
	*kib += u.ave_rss_kib * (int64_t)(u.ntasks ? u.ntasks : 1);
	drv_shape_free(&drv_shape_rec_usage, &u);
	json_decref(json);
	int64_t at = (int64_t)sb.st_mtim.tv_sec * NS_PER_S + sb.st_mtim.tv_nsec;
	if (at > *newest)
		*newest = at;
	return true;
}

/* The job's memory here now: false when no step has a sample yet. */
static bool job_memory(struct noded *nd, int64_t job_id, int64_t *kib, int64_t *at)
{
	char dir[PATH_MAX];
	bool any = false;
	*kib = *at = 0;
	if (spool_job_dir(nd, job_id, dir, sizeof(dir)) == 0)
		any |= add_sample(dir, kib, at);
	int64_t ids[64];
	size_t n = steps_running_of_job(nd, job_id, ids, 64);
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(dir, sizeof(dir), "%s/step.%" PRId64 ".%" PRId64,
				 nd->spool_dir, job_id, ids[i]);
		if (w > 0 && (size_t)w < sizeof(dir))
			any |= add_sample(dir, kib, at);
	}
	return any;
}

/* Whether the job's batch step runs under a hard memory limit that keeps
 * it below the node's memory: its spec gives it a cgroup that constrains
 * RAM, and the limit shepherd/isolate.c derives from it (what the job
 * holds, AllowedRAMSpace of it, at most MaxRAMPercent of the node) is
 * under RealMemory. A job that holds the whole node's memory (no --mem
 * asked) is not held back by its limit. */
static bool hard_limit(struct noded *nd, int64_t job_id)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	if (spool_job_dir(nd, job_id, dir, sizeof(dir)) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/spec.json", dir);
	json_t *spec = json_load_file(path, 0, NULL);
	json_t *cg = json_object_get(spec, "cgroup");
	int64_t job_mib = json_integer_value(json_object_get(spec, "mem_per_node"));
	if (job_mib <= 0)
		job_mib = json_integer_value(json_object_get(spec, "mem_per_cpu")) *
			  json_integer_value(json_object_get(spec, "cpus_on_node"));
	json_t *pct = json_object_get(cg, "ram_pct");
	int64_t mib =
	    job_mib > 0 ? job_mib * (pct ? json_integer_value(pct) : 10000) / 10000 : 0;
	json_t *max = json_object_get(cg, "max_ram");
	if (max && (mib <= 0 || mib > json_integer_value(max)))
		mib = json_integer_value(max);
	bool limited = json_is_true(json_object_get(cg, "constrain_ram")) && mib > 0 &&
		       (uint64_t)mib < nd->real_memory;
	json_decref(spec);
	return limited;
}

static void report(struct noded *nd, struct noded_job *job)
{
	struct anomaly_track *t = &job->anomaly;
	if (!nd->registered)
		return; /* after the next registration */
	struct drv_job_anomaly m = {.job_id = (uint32_t)job->job_id,
				    .restart = (uint32_t)job->restart,
				    .reason = "MemoryAnomaly",
				    .message = t->why};
	json_t *body = drv_job_anomaly_encode(&m);
	if (body && link_send_request(nd, "job.anomaly", body, NULL) == 0)
		t->reported = true;
}

static void freeze(struct noded *nd, struct noded_job *job, const char *why)
{
	struct anomaly_track *t = &job->anomaly;
	struct drv_job_freeze m = {.job_id = (uint32_t)job->job_id};
	struct drv_error err = {{0}};
	snprintf(t->why, sizeof(t->why), "%s", why);
	log_warn("job=%lld MemoryAnomaly: %s: freezing it", (long long)job->job_id, why);
	if (suspend_job(nd, &m, &err) != 0) {
		log_warn("job=%lld: cannot freeze it: %s", (long long)job->job_id,
			 err.text);
		return;
	}
	t->frozen = true;
	report(nd, job);
}

/* A new sample: kept in the ring, then the two rules. */
static void judge(struct noded *nd, struct noded_job *job, int64_t kib, int64_t at)
{
	const struct drv_conf *conf = nd->conf;
	struct anomaly_track *t = &job->anomaly;
	unsigned want = (unsigned)conf->anomaly_mem_samples;
	if (want > ANOMALY_SAMPLES)
		want = ANOMALY_SAMPLES;
	if (t->n == want) { /* drop the oldest */
		memmove(t->kib, t->kib + 1, (want - 1) * sizeof(t->kib[0]));
		memmove(t->at, t->at + 1, (want - 1) * sizeof(t->at[0]));
		t->n--;
	}
	t->kib[t->n] = kib;
	t->at[t->n++] = at;
	char why[160];
	int64_t span = t->at[t->n - 1] - t->at[0];
	if (conf->anomaly_mem_rate > 0 && t->n >= want && span > 0) {
		double grew_mib = (double)(t->kib[t->n - 1] - t->kib[0]) / 1024.0;
		double rate = grew_mib * NS_PER_S / (double)span;
		if (rate >= conf->anomaly_mem_rate) {
			snprintf(why, sizeof(why),
				 "memory grew %.0f MiB in %.1f s (%.0f MiB/s, "
				 "AnomalyMemRate=%d)",
				 grew_mib, (double)span / NS_PER_S, rate,
				 conf->anomaly_mem_rate);
			freeze(nd, job, why);
			return;
		}
	}
	double cap_kib = conf->anomaly_mem_fraction * (double)nd->real_memory * 1024.0;
	if (conf->anomaly_mem_fraction > 0 && (double)kib >= cap_kib) {
		if (!t->limit_known) {
			t->has_limit = hard_limit(nd, job->job_id);
			t->limit_known = true;
		}
		if (t->has_limit)
			return; /* the kernel holds it to its limit */
		snprintf(why, sizeof(why),
			 "RSS %lld MiB passed AnomalyMemFraction=%g of %llu MiB "
			 "without a memory limit",
			 (long long)(kib / 1024), conf->anomaly_mem_fraction,
			 (unsigned long long)nd->real_memory);
		freeze(nd, job, why);
	}
}

static void look_at(struct noded *nd, struct noded_job *job)
{
	struct anomaly_track *t = &job->anomaly;
	if (t->frozen) {
		if (!t->reported)
			report(nd, job);
		return;
	}
	int64_t kib, at;
	if (t->exempt || !job_memory(nd, job->job_id, &kib, &at) || at == t->last_at)
		return;
	t->last_at = at;
	judge(nd, job, kib, at);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	if (!policy_on(nd->conf))
		return;
	for (struct noded_job *job = nd->jobs; job; job = job->next)
		if (job->phase == JOB_RUNNING)
			look_at(nd, job);
}

void anomaly_thawed(struct noded *nd, int64_t job_id, bool cleared)
{
	struct noded_job *job = jobs_find(nd, job_id);
	if (!job)
		return;
	/* resumed from an anomaly freeze: an operator looked at the job, which
	 * is left alone now (ctld says so: also when this noded restarted
	 * meanwhile, and not when ctld thawed a freeze it could not take) */
	if (cleared)
		job->anomaly.exempt = true;
	job->anomaly.frozen = false;
	job->anomaly.n = 0; /* a new ring: the time frozen is no growth */
}

int anomaly_start(struct noded *nd)
{
	nd->anomaly_tick = event_new(nd->base, -1, EV_PERSIST, on_tick, nd);
	if (!nd->anomaly_tick)
		return -ENOMEM;
	struct timeval tv = {1, 0};
	event_add(nd->anomaly_tick, &tv);
	return 0;
}

void anomaly_stop(struct noded *nd)
{
	if (nd->anomaly_tick)
		event_free(nd->anomaly_tick);
	nd->anomaly_tick = NULL;
}
