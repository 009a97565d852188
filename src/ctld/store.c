/* store.c — the calls of store.h, handed to the engine that opened the
 * store. It holds no state and knows no engine's internals: choosing the
 * engine happens here, in store_open, and nowhere in ctld's callers. */
#include "ctld/store.h"

#include <stdlib.h>

#include "ctld/store_engine.h"

struct store *store_open(struct event_base *base, const char *dir, struct drv_error *err)
{
	return store_sqlite_engine.open(base, dir, err);
}

void store_close(struct store *s)
{
	if (s)
		s->engine->close(s);
}

int store_load(struct store *s, int64_t min_end, store_row_f on_job, store_row_f on_node,
	       void *arg, uint32_t *next_job_id, struct drv_error *err)
{
	return s->engine->load(s, min_end, on_job, on_node, arg, next_job_id, err);
}

int store_job_payload(struct store *s, uint32_t id, char **script, char **env_json,
		      char **argv_json)
{
	return s->engine->job_payload(s, id, script, env_json, argv_json);
}

int store_load_objects(struct store *s, store_object_f on_object, void *arg,
		       struct drv_error *err)
{
	return s->engine->load_objects(s, on_object, arg, err);
}

int store_load_nonces(struct store *s, int64_t now, store_nonce_f on_nonce, void *arg)
{
	return s->engine->load_nonces(s, now, on_nonce, arg);
}

int store_first_unused_id(struct store *s, uint32_t lo, uint32_t hi, uint32_t *id)
{
	return s->engine->first_unused_id(s, lo, hi, id);
}

int store_commit(struct store *s, struct store_batch *b, store_done_f done, void *arg)
{
	return s->engine->commit(s, b, done, arg);
}

int store_query_history(struct store *s, enum store_history from,
			const struct store_job_filter *f, store_map_f map, void *map_arg,
			store_rows_f done, void *arg)
{
	return s->engine->query_history(s, from, f, map, map_arg, done, arg);
}

void store_rows_free(struct store_rows *rows)
{
	if (!rows)
		return;
	for (size_t i = 0; i < rows->n; i++)
		free(rows->texts[i]);
	free(rows->texts);
	free(rows->ids);
	rows->n = 0;
	rows->texts = NULL;
	rows->ids = NULL;
}
