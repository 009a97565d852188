/* schema_text_diff.h — one text decoded by both decoders of a shape: the
 * tree one (json_loadb with JSON_REJECT_DUPLICATES, then drv_shape_decode)
 * and the text one (drv_shape_decode_text), and whether they agree. Used by
 * fuzz_schema_text.c and tests/unit/test_schema_text.c. */
#ifndef DRV_SCHEMA_TEXT_DIFF_H
#define DRV_SCHEMA_TEXT_DIFF_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/schema_text.h"

struct text_diff {
	bool tree_ok, text_ok;
	bool tree_syntax; /* the tree path refused the text as JSON */
	char tree_err[sizeof(
	    ((struct drv_error *)0)->text)]; /* decoder's (or jansson's) error */
	struct drv_error text_err;
	char why[200]; /* when they disagree */
};

static json_t *text_diff_tree(const struct drv_shape *s, const char *data, size_t len,
			      struct text_diff *d)
{
	json_error_t je;
	struct drv_error err = {{0}};
	json_t *x = json_loadb(data, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	if (!x) {
		d->tree_syntax = true;
		snprintf(d->tree_err, sizeof(d->tree_err), "%s", je.text);
		return NULL;
	}
	void *m = calloc(1, s->size);
	json_t *out = NULL;
	if (!m)
		abort();
	if (drv_shape_decode(s, x, m, &err) == 0) {
		out = drv_shape_encode(s, m, 0);
		drv_shape_free(s, m);
	} else {
		snprintf(d->tree_err, sizeof(d->tree_err), "%s", err.text);
	}
	free(m);
	json_decref(x);
	return out;
}

static json_t *text_diff_text(const struct drv_shape *s, const char *data, size_t len,
			      struct text_diff *d)
{
	char *copy = malloc(len ? len : 1);
	void *m = calloc(1, s->size);
	struct drv_arena a = {0};
	json_t *out = NULL;
	if (!copy || !m)
		abort();
	memcpy(copy, data, len);
	if (drv_shape_decode_text(s, copy, len, m, &a, &d->text_err) == 0)
		out = drv_shape_encode(s, m, 0);
	drv_arena_free(&a);
	free(m);
	free(copy);
	return out;
}

/* true when both decoders agree on data: both refuse, or both accept and the
 * structs encode to the same JSON. */
static bool text_diff(const struct drv_shape *s, const char *data, size_t len,
		      struct text_diff *d)
{
	memset(d, 0, sizeof(*d));
	json_t *a = text_diff_tree(s, data, len, d), *b = text_diff_text(s, data, len, d);
	d->tree_ok = a != NULL;
	d->text_ok = b != NULL;
	bool agree = d->tree_ok == d->text_ok;
	/* Two known differences, where the text decoder is the stricter: it
	 * nests less deep than jansson, and it refuses a NUL byte where jansson
	 * drops one that follows a number or a literal ("[1\0]" is [1] there). */
	if (!agree && d->tree_ok &&
	    (strstr(d->text_err.text, "nesting too deep") || memchr(data, 0, len)))
		agree = true;
	if (!agree)
		snprintf(d->why, sizeof(d->why), "tree %s (%.80s), text %s (%.80s)",
			 d->tree_ok ? "accepts" : "refuses", d->tree_err,
			 d->text_ok ? "accepts" : "refuses", d->text_err.text);
	else if (a && b && !json_equal(a, b)) {
		agree = false;
		snprintf(d->why, sizeof(d->why), "both accept, encodings differ");
	}
	json_decref(a);
	json_decref(b);
	return agree;
}

#endif
