/* store_engine.h — what a store engine implements, and the plain data it is
 * handed. ctld's callers never include this: they see store.h only.
 *
 * Why a table of functions rather than one header that each engine
 * implements under the same names: a site picks its engine by configuration
 * (SQLite, the embedded default; PostgreSQL for HA or a shared accounting
 * database), so both must live in one ctld binary, and the SQLite engine's
 * unit tests must keep running in a build that has the other. The table is
 * the six calls below; batches (struct store_batch) and filters (struct
 * store_job_filter) are plain data that every engine reads the same way, so
 * store.c and store_batch.c, which build and hand them over, know no engine.
 * docs/store.md says what each call must guarantee. */
#ifndef CTLD_STORE_ENGINE_H
#define CTLD_STORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ctld/store.h"

/* Each entry has the contract of the store.h call of the same name; s is
 * always a handle this engine's open returned. */
struct store_engine {
	const char *name;
	/* location: where the engine keeps its data (SQLite: a directory). */
	struct store *(*open)(struct event_base *base, const char *location,
			      struct drv_error *err);
	void (*close)(struct store *s);
	int (*load)(struct store *s, int64_t min_end, store_row_f on_job,
		    store_row_f on_node, void *arg, uint32_t *next_job_id,
		    struct drv_error *err);
	int (*job_payload)(struct store *s, uint32_t id, char **script, char **env_json,
			   char **argv_json);
	int (*first_unused_id)(struct store *s, uint32_t lo, uint32_t hi, uint32_t *id);
	int (*load_nonces)(struct store *s, int64_t now, store_nonce_f on_nonce,
			   void *arg);
	int (*load_objects)(struct store *s, store_object_f on_object, void *arg,
			    struct drv_error *err);
	int (*commit)(struct store *s, struct store_batch *b, store_done_f done,
		      void *arg);
	int (*query_history)(struct store *s, enum store_history from,
			     const struct store_job_filter *f, store_map_f map,
			     void *map_arg, store_rows_f done, void *arg);
};

/* The start of every engine's handle: an engine embeds it as its first
 * member, so that store.c finds the table from the opaque pointer. */
struct store {
	const struct store_engine *engine;
};

extern const struct store_engine store_sqlite_engine;

/* --- a batch, as an engine reads it -------------------------------------- */

enum store_op_kind {
	STORE_OP_JOB,	      /* id, time (end, 0 while not ended), rec */
	STORE_OP_PAYLOAD,     /* id, script, env, argv */
	STORE_OP_RUN,	      /* id, n (the restart), time (its end), rec */
	STORE_OP_NODE,	      /* name, rec */
	STORE_OP_NEXT_ID,     /* n (the next job id) */
	STORE_OP_PURGE,	      /* n (most jobs), time (ended before) */
	STORE_OP_NONCE,	      /* name (the nonce), id (its uid), time (it expires) */
	STORE_OP_NONCE_PRUNE, /* time (nonces that expire by then go) */
	STORE_OP_OBJECT,      /* n (the kind), name, rec (NULL: delete it) */
};

/* One typed write. The strings belong to the batch. */
struct store_op {
	enum store_op_kind kind;
	uint32_t id, n;
	int64_t time;
	char *name, *rec, *script, *env, *argv;
};

/* The ops in the order they were put; an engine applies them in that order,
 * all in one transaction. */
struct store_batch {
	struct store_op *ops;
	size_t n, cap;
};

/* --- helpers for engines (store_filter.c) --------------------------------- */

/* A deep copy of f in one allocation (free with store_filter_free), for a
 * query that outlives its caller's filter; NULL with errno set. */
struct store_job_filter *store_filter_dup(const struct store_job_filter *f);
void store_filter_free(struct store_job_filter *f); /* accepts NULL */

#endif
