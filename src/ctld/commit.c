/* commit.c — group commit. Everything one loop turn changes is collected
 * here and written in one transaction by the store's writer thread; replies
 * and launches queued with commit_defer() are released only when the
 * transaction that holds the changes made before them has committed.
 *
 * The flush event runs at the lowest priority, so it fires once the turn's
 * I/O and scheduling are done. While one commit is in flight the next turns
 * keep collecting; their changes go into the following transaction. */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto_gen.h"
#include "ctld/ctld.h"
#include "ctld/job_fields.h"

struct deferred {
	effect_f fn;
	void *arg;
	struct deferred *next;
};

static void flush(evutil_socket_t fd, short what, void *arg);

void commit_init(struct ctld *c)
{
	c->flush_ev = event_new(c->base, -1, 0, flush, c);
	event_priority_set(c->flush_ev, PRIO_FLUSH);
	c->effects_tail = &c->effects;
	c->extra = store_batch_new();
}

static void request_flush(struct ctld *c)
{
	if (!c->commit_in_flight && !event_pending(c->flush_ev, EV_TIMEOUT, NULL))
		event_active(c->flush_ev, EV_TIMEOUT, 0);
}

/* A job's timers follow its record (timed.c): every change re-arms them. */
void commit_job(struct ctld *c, struct job *j)
{
	timed_job(c, j);
	if (!j->dirty) {
		j->dirty = true;
		j->dirty_next = c->dirty_jobs;
		c->dirty_jobs = j;
	}
	request_flush(c);
}

void commit_node(struct ctld *c, struct node *n)
{
	n->dirty = true;
	request_flush(c);
}

void commit_meta(struct ctld *c)
{
	c->meta_dirty = true;
	request_flush(c);
}

void commit_purge(struct ctld *c, int64_t ended_before, uint32_t max_jobs)
{
	store_batch_put_purge(c->extra, ended_before, max_jobs);
	request_flush(c);
}

void commit_nonce(struct ctld *c, const char *nonce, uid_t uid, int64_t expires)
{
	store_batch_put_nonce(c->extra, nonce, (uint32_t)uid, expires);
	request_flush(c);
}

void commit_object(struct ctld *c, enum store_obj_kind kind, const char *name,
		   const char *rec_json)
{
	store_batch_put_object(c->extra, kind, name, rec_json);
	request_flush(c);
}

void commit_nonce_prune(struct ctld *c, int64_t now)
{
	store_batch_put_nonce_prune(c->extra, now);
	request_flush(c);
}

void commit_payload(struct ctld *c, uint32_t id, const char *script, const char *env_json,
		    const char *argv_json)
{
	store_batch_put_payload(c->extra, id, script, env_json, argv_json);
	request_flush(c);
}

void commit_run(struct ctld *c, const struct job *j, const char *state, int64_t now)
{
	const struct drv_field *f = drv_shape_rec_job.fields;
	json_t *rec = job_to_record(j);
	json_object_set_new(rec, f[DRV_REC_JOB__RUN_STATE].name,
			    json_string(job_state_name(j->state)));
	json_object_set_new(rec, f[DRV_REC_JOB__STATE].name, json_string(state));
	json_object_set_new(rec, f[DRV_REC_JOB__END_TIME].name, json_integer(now));
	char *text = json_dumps(rec, JSON_COMPACT);
	json_decref(rec);
	if (!text)
		abort();
	store_batch_put_run(c->extra, j->id, j->restart_count, now, text);
	free(text);
	request_flush(c);
}

void commit_defer(struct ctld *c, effect_f fn, void *arg)
{
	struct deferred *d = calloc(1, sizeof(*d));
	if (!d)
		abort();
	d->fn = fn;
	d->arg = arg;
	*c->effects_tail = d;
	c->effects_tail = &d->next;
	request_flush(c);
}

static void put_json(struct store_batch *b, struct job *j, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT);
	store_batch_put_job(b, j->id, job_state_final(j->state) ? j->end_time : 0, text);
	free(text);
	json_decref(rec);
}

static struct store_batch *collect(struct ctld *c)
{
	struct store_batch *b = c->extra;
	c->extra = store_batch_new();
	for (struct job *j = c->dirty_jobs, *next; j; j = next) {
		next = j->dirty_next;
		j->dirty = false;
		j->dirty_next = NULL;
		put_json(b, j, job_to_store(j, c->nodes.names));
	}
	c->dirty_jobs = NULL;
	for (size_t i = 0; i < c->nodes.n; i++) {
		struct node *n = &c->nodes.nodes[i];
		if (!n->dirty)
			continue;
		n->dirty = false;
		json_t *rec = node_to_store(n);
		char *text = json_dumps(rec, JSON_COMPACT);
		store_batch_put_node(b, n->conf->name, text);
		free(text);
		json_decref(rec);
	}
	if (c->meta_dirty)
		store_batch_put_next_id(b, c->jobs.next_id);
	c->meta_dirty = false;
	return b;
}

static void run_effects(struct ctld *c, struct deferred *d)
{
	while (d) {
		struct deferred *next = d->next;
		d->fn(c, d->arg);
		free(d);
		d = next;
	}
}

static void committed(int rc, void *arg)
{
	struct ctld *c = arg;
	if (rc < 0) {
		/* Acknowledging what is not on disk would break the promise of
		 * principle 2; stop rather than lie. */
		log_error("store commit failed (%d): stopping", rc);
		abort();
	}
	struct deferred *d = c->inflight_effects;
	c->inflight_effects = NULL;
	c->commit_in_flight = false;
	run_effects(c, d);
	if (c->dirty_jobs || c->effects || c->meta_dirty || !store_batch_empty(c->extra))
		request_flush(c);
	else
		for (size_t i = 0; i < c->nodes.n; i++)
			if (c->nodes.nodes[i].dirty) {
				request_flush(c);
				break;
			}
}

static void flush(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	if (c->commit_in_flight)
		return;
	struct store_batch *b = collect(c);
	struct deferred *d = c->effects;
	c->effects = NULL;
	c->effects_tail = &c->effects;
	if (store_batch_empty(b)) {
		/* Nothing to write: effects only depend on earlier commits. */
		store_batch_free(b);
		run_effects(c, d);
		return;
	}
	c->inflight_effects = d;
	c->commit_in_flight = true;
	if (store_commit(c->store, b, committed, c) < 0) {
		log_error("store busy with no commit in flight: stopping");
		abort();
	}
}

void commit_drain(struct ctld *c)
{
	/* Let the last commit land (the loop is no longer running). */
	while (c->commit_in_flight)
		event_base_loop(c->base, EVLOOP_ONCE);
	event_free(c->flush_ev);
	store_batch_free(c->extra);
	run_effects(c, c->effects);
	c->effects = NULL;
}

size_t commit_queued_effects(const struct ctld *c)
{
	size_t n = 0;
	for (const struct deferred *d = c->effects; d; d = d->next)
		n++;
	for (const struct deferred *d = c->inflight_effects; d; d = d->next)
		n++;
	return n;
}

size_t commit_dirty_jobs(const struct ctld *c)
{
	size_t n = 0;
	for (const struct job *j = c->dirty_jobs; j; j = j->dirty_next)
		n++;
	return n;
}
