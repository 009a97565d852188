/* store_batch.c — building a batch of typed writes (store.h's puts). A
 * batch is plain data (store_engine.h) that any engine applies; nothing here
 * knows how. Out of memory aborts: a put has no way to fail that its
 * caller, mid-turn in the loop, could do anything sane about. */
#include <stdlib.h>
#include <string.h>

#include "ctld/store_engine.h"

struct store_batch *store_batch_new(void)
{
	return calloc(1, sizeof(struct store_batch));
}

void store_batch_free(struct store_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->ops[i].name);
		free(b->ops[i].rec);
		free(b->ops[i].script);
		free(b->ops[i].env);
		free(b->ops[i].argv);
	}
	free(b->ops);
	free(b);
}

bool store_batch_empty(const struct store_batch *b)
{
	return !b || b->n == 0;
}

static struct store_op *batch_add(struct store_batch *b, enum store_op_kind kind)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct store_op *ops = realloc(b->ops, cap * sizeof(*ops));
		if (!ops)
			abort();
		b->ops = ops;
		b->cap = cap;
	}
	struct store_op *op = &b->ops[b->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	return op;
}

static char *dup_or_die(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		abort();
	return d;
}

void store_batch_put_job(struct store_batch *b, uint32_t id, int64_t end_time,
			 const char *rec_json)
{
	struct store_op *op = batch_add(b, STORE_OP_JOB);
	op->id = id;
	op->time = end_time;
	op->rec = dup_or_die(rec_json);
}

void store_batch_put_payload(struct store_batch *b, uint32_t id, const char *script,
			     const char *env_json, const char *argv_json)
{
	struct store_op *op = batch_add(b, STORE_OP_PAYLOAD);
	op->id = id;
	op->script = dup_or_die(script);
	op->env = dup_or_die(env_json);
	op->argv = dup_or_die(argv_json);
}

void store_batch_put_run(struct store_batch *b, uint32_t id, uint32_t restart,
			 int64_t end_time, const char *rec_json)
{
	struct store_op *op = batch_add(b, STORE_OP_RUN);
	op->id = id;
	op->n = restart;
	op->time = end_time;
	op->rec = dup_or_die(rec_json);
}

void store_batch_put_node(struct store_batch *b, const char *name, const char *rec_json)
{
	struct store_op *op = batch_add(b, STORE_OP_NODE);
	op->name = dup_or_die(name);
	op->rec = dup_or_die(rec_json);
}

void store_batch_put_next_id(struct store_batch *b, uint32_t next_job_id)
{
	struct store_op *op = batch_add(b, STORE_OP_NEXT_ID);
	op->n = next_job_id;
}

void store_batch_put_object(struct store_batch *b, enum store_obj_kind kind,
			    const char *name, const char *rec_json)
{
	struct store_op *op = batch_add(b, STORE_OP_OBJECT);
	op->n = (uint32_t)kind;
	op->name = dup_or_die(name);
	op->rec = rec_json ? dup_or_die(rec_json) : NULL;
}

void store_batch_put_nonce(struct store_batch *b, const char *nonce, uint32_t uid,
			   int64_t expires)
{
	struct store_op *op = batch_add(b, STORE_OP_NONCE);
	op->name = dup_or_die(nonce);
	op->id = uid;
	op->time = expires;
}

void store_batch_put_nonce_prune(struct store_batch *b, int64_t before)
{
	struct store_op *op = batch_add(b, STORE_OP_NONCE_PRUNE);
	op->time = before;
}

void store_batch_put_purge(struct store_batch *b, int64_t ended_before, uint32_t max_jobs)
{
	struct store_op *op = batch_add(b, STORE_OP_PURGE);
	op->n = max_jobs;
	op->time = ended_before;
}
