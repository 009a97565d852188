/* schema_text.h — decodes JSON text straight into a declared shape's struct
 * (common/schema.h), without building a jansson tree first.
 *
 * The text buffer is the caller's and is changed: strings are unescaped in
 * place and NUL-terminated there, so the struct's string members point into
 * the buffer, which must outlive the struct. Arrays are taken from an arena
 * (one list of blocks, released at once with drv_arena_free; never call
 * drv_shape_free on a struct decoded here). A `json` member is parsed with
 * jansson over its own span of text (one tree per such member) and the arena
 * keeps the reference, dropped by drv_arena_free.
 *
 * The rules are the tree decoder's (drv_shape_decode over json_loadb with
 * JSON_REJECT_DUPLICATES): the same validation and the same error words
 * ("SHAPE: field 'PATH': RULE"), syntax errors as "not JSON: WHY at byte N".
 * The differences: the first broken rule in text order is reported (the
 * tree decoder reports the first in table order; a missing required field is
 * noticed at the end of its object); nesting deeper than DRV_TEXT_MAX_DEPTH
 * is refused (jansson allows 2048); and so is any NUL byte (jansson drops
 * one that follows a number or a literal: "[1\0]" is [1] there). */
#ifndef DRV_SCHEMA_TEXT_H
#define DRV_SCHEMA_TEXT_H

#include "common/proto_gen.h"
#include "common/schema.h"

#define DRV_TEXT_MAX_DEPTH 64

struct drv_arena_block;
struct drv_arena_ref;

/* Zero-initialise ({0}) or drv_arena_init. */
struct drv_arena {
	struct drv_arena_block *blocks;
	struct drv_arena_ref *refs; /* json_t trees to drop */
};

void drv_arena_init(struct drv_arena *a);
/* size zeroed bytes, aligned for any member; NULL when out of memory. */
void *drv_arena_alloc(struct drv_arena *a, size_t size);
/* Releases everything but the newest block, which is kept for reuse. */
void drv_arena_reset(struct drv_arena *a);
void drv_arena_free(struct drv_arena *a);

/* Decodes text[0..len) into out (s->size bytes, zeroed first). Returns 0,
 * -EBADMSG (err says why) or -ENOMEM. What it allocated stays in a even on
 * failure. */
int drv_shape_decode_text(const struct drv_shape *s, char *text, size_t len, void *out,
			  struct drv_arena *a, struct drv_error *err);

/* Called with each element of a streamed array, in a struct reused for the
 * next one (copy what must be kept; its strings stay in the text). A
 * negative return (-errno) stops the decoding and is returned; fn fills err
 * if it wants a reason given. */
typedef int (*drv_elem_fn)(void *elem, size_t i, void *ctx);

/* As drv_shape_decode_text, but the elements of s's field `field` (an array
 * of objects) are decoded one at a time into one struct and given to fn
 * instead of being kept; out's array stays empty. Memory an element takes
 * (its own arrays) is released before the next one. */
int drv_shape_stream_array(const struct drv_shape *s, size_t field, char *text,
			   size_t len, void *out, struct drv_arena *a, drv_elem_fn fn,
			   void *ctx, struct drv_error *err);

/* Compact rows: s's field `names` (a string array) names one field of rec
 * per column and field `rows` holds [[value per column]]; each row is decoded
 * into one rec struct by those names (a name rec does not declare: its
 * column is skipped; null or missing columns: absent, with defaults; required
 * fields are not required, a row carries what was asked for) and given to
 * fn. `names` must come before `rows` in the text, as ctld writes them.
 * out's rows member stays NULL. */
int drv_shape_stream_rows(const struct drv_shape *s, size_t names, size_t rows,
			  const struct drv_shape *rec, char *text, size_t len, void *out,
			  struct drv_arena *a, drv_elem_fn fn, void *ctx,
			  struct drv_error *err);

/* job.query's rows (squeue's listing) into struct drv_rec_job. */
static inline int drv_job_rows_decode_text(char *text, size_t len,
					   struct drv_job_query_reply *out,
					   struct drv_arena *a, drv_elem_fn fn, void *ctx,
					   struct drv_error *err)
{
	return drv_shape_stream_rows(&drv_shape_job_query_reply,
				     DRV_JOB_QUERY_REPLY__FIELDS,
				     DRV_JOB_QUERY_REPLY__ROWS, &drv_shape_rec_job, text,
				     len, out, a, fn, ctx, err);
}

#endif
