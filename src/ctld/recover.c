/* recover.c — rebuilding ctld's tables from the store at start, by the rules
 * of docs/state-machines.md: every acknowledged job comes back, ids continue,
 * RUNNING jobs keep their nodes while the nodes have SlurmdTimeout to
 * re-register, and admin node states and live partitions win over the
 * config. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cpuset.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "ctld/ctld.h"

/* A running (or still completing) job keeps its nodes: those the config
 * still has, with the CPU ids it held (NULL when the store is older than
 * CPU ids, or the node has fewer CPUs now: assign_cpu_ids picks some). */
static void hold_alloc(struct ctld *c, struct job *j, const struct drv_rec_job *r)
{
	j->alloc = calloc(r->n_alloc, sizeof(*j->alloc));
	for (size_t i = 0; j->alloc && i < r->n_alloc; i++) {
		const struct drv_rec_job_alloc *a = &r->alloc[i];
		struct node *node = node_find(&c->nodes, a->node);
		if (!node)
			continue;
		uint32_t bits = (uint32_t)node->conf->cpus;
		uint64_t *ids = calloc(DRV_CPUSET_WORDS(bits) + 1, sizeof(*ids));
		if (!ids)
			abort();
		if (!a->cpu_ids || drv_cpuset_parse(a->cpu_ids, ids, bits) < 0 ||
		    drv_cpuset_count(ids, bits) != a->cpus) {
			free(ids);
			ids = NULL;
		}
		j->alloc[j->n_alloc++] = (struct job_alloc){
		    node->idx, a->cpus, a->tasks, a->mem, (uint64_t)a->gpus, ids, bits};
	}
	job_hold_nodes(c, j);
}

/* Allocations recovered without CPU ids get the lowest ids no other
 * recovered allocation on their node holds (as many as they count). */
static void assign_cpu_ids(struct ctld *c)
{
	for (size_t n = 0; n < c->nodes.n; n++) {
		struct node *nd = &c->nodes.nodes[n];
		uint32_t bits = (uint32_t)nd->conf->cpus;
		uint64_t *used = calloc(DRV_CPUSET_WORDS(bits) + 1, sizeof(*used));
		if (!used)
			abort();
		for (uint32_t k = 0; k < nd->n_jobs; k++)
			for (uint32_t i = 0; i < nd->jobs[k]->n_alloc; i++) {
				const struct job_alloc *a = &nd->jobs[k]->alloc[i];
				for (size_t w = 0; a->node == n && a->cpu_ids &&
						   w < DRV_CPUSET_WORDS(bits);
				     w++)
					used[w] |= a->cpu_ids[w];
			}
		for (uint32_t k = 0; k < nd->n_jobs; k++)
			for (uint32_t i = 0; i < nd->jobs[k]->n_alloc; i++) {
				struct job_alloc *a = &nd->jobs[k]->alloc[i];
				if (a->node != n || a->cpu_ids)
					continue;
				a->cpu_ids =
				    calloc(DRV_CPUSET_WORDS(bits) + 1, sizeof(uint64_t));
				if (!a->cpu_ids)
					abort();
				for (uint32_t b = 0, got = 0; b < bits && got < a->cpus;
				     b++)
					if (!(used[b / 64] >> (b % 64) & 1)) {
						used[b / 64] |= 1ULL << (b % 64);
						a->cpu_ids[b / 64] |= 1ULL << (b % 64);
						got++;
					}
			}
		free(used);
	}
}

static void on_job(const char *key, const char *text, void *arg)
{
	struct ctld *c = arg;
	json_t *rec = json_loads(text, 0, NULL);
	struct drv_rec_job r;
	struct drv_error err = {""};
	struct job *j = NULL;
	int rc = rec ? drv_rec_job_decode(rec, &r, &err) : -EBADMSG;
	if (rc == -EBADMSG && rec && drv_shape_salvage(&drv_shape_rec_job, rec)) {
		/* a field written by another version: the job matters more */
		log_error("store: job %s: %s: kept with that field's default", key,
			  err.text);
		rc = drv_rec_job_decode(rec, &r, &err);
	}
	if (rc == 0) {
		j = job_from_store(&r);
		if (!j)
			drv_rec_job_free(&r);
	}
	if (!j) {
		log_error("store: job %s has a malformed record: skipped%s%s", key,
			  *err.text ? ": " : "", err.text);
		json_decref(rec);
		return;
	}
	if (r.n_alloc && (!job_state_final(j->state) || j->completing))
		hold_alloc(c, j, &r);
	if (j->hold)
		j->reason = j->hold == HOLD_USER ? "JobHeldUser" : "JobHeldAdmin";
	if (j->hold && r.reason && !strcmp(r.reason, job_reason_requeue_held))
		j->reason = job_reason_requeue_held;
	if (j->suspended && anomaly_reason(r.reason))
		j->reason = anomaly_reason(r.reason); /* frozen by the policy */
	drv_rec_job_free(&r);
	json_decref(rec);
	job_table_add(&c->jobs, j);
	timed_job(c, j); /* its limit, purge, begin time: at their first due */
}

static void on_node(const char *name, const char *text, void *arg)
{
	struct ctld *c = arg;
	struct node *n = node_find(&c->nodes, name);
	json_t *rec = json_loads(text, 0, NULL);
	struct drv_rec_node_store r;
	struct drv_error err;
	if (n && rec && drv_rec_node_store_decode(rec, &r, &err) == 0) {
		node_apply_store(n, &r);
		drv_rec_node_store_free(&r);
	} else if (n) {
		log_error("store: node %s has a malformed record: skipped", name);
	}
	json_decref(rec);
}

struct nonce_load {
	struct ctld *c;
	int64_t now;
	size_t n;
};

static void on_nonce(const char *nonce, uint32_t uid, int64_t expires, void *arg)
{
	struct nonce_load *nl = arg;
	if (drv_nonce_cache_add(nl->c->nonces, (uid_t)uid, nonce, expires, nl->now) == 0)
		nl->n++;
}

int ctld_recover(struct ctld *c, struct drv_error *err)
{
	int64_t now = time(NULL);
	uint32_t next_id = 1;
	/* Partitions made or changed live win over the config's, as Slurm's
	 * state files do. */
	int rc = part_load_stored(c, err);
	if (rc < 0)
		return rc;
	rc = store_load(c->store, now - c->conf->min_job_age, on_job, on_node, c,
			&next_id, err);
	if (rc < 0)
		return rc;
	/* The stored next id goes with the jobs in each commit; ids still in
	 * use past it are skipped when they come round (ctld_job_id_new). */
	c->jobs.next_id = next_id;
	assign_cpu_ids(c);
	log_info("recovered %zu jobs; next job id %u", c->jobs.count, c->jobs.next_id);
	/* The nonces of state-changing requests whose credentials are still
	 * valid: a replay of one is refused as before the restart. */
	struct nonce_load nl = {.c = c, .now = now};
	if (store_load_nonces(c->store, now, on_nonce, &nl) < 0)
		return drv_error_set(err, EIO,
				     "store: cannot load the credential nonces");
	if (nl.n)
		log_info("recovered %zu credential nonces", nl.n);
	return 0;
}

char *ctld_alloc_hostlist(const struct ctld *c, const uint32_t *idx, uint32_t n)
{
	char **names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return strdup("");
	for (uint32_t i = 0; i < n; i++)
		names[i] = c->nodes.names[idx[i]];
	char *s = drv_hostlist_compress(names, n);
	free(names);
	return s ? s : strdup("");
}
