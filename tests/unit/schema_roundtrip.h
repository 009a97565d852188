/* schema_roundtrip.h — what the generated test_proto_gen.c checks for every
 * declared shape: its examples decode and encode back to themselves, and a
 * body that breaks any one rule of any one field is refused with an error
 * that names that field. */
#ifndef TEST_SCHEMA_ROUNDTRIP_H
#define TEST_SCHEMA_ROUNDTRIP_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/schema.h"

/* decode(x) then encode gives want back, field for field. */
static void roundtrip_one(const struct drv_shape *s, json_t *x, json_t *want)
{
	struct drv_error err = {{0}};
	void *m = calloc(1, s->size);
	assert_non_null(m);
	if (drv_shape_decode(s, x, m, &err) != 0)
		fail_msg("%s: decode of its own example failed: %s", s->name, err.text);
	json_t *back = drv_shape_encode(s, m, 0);
	if (!json_equal(back, want)) {
		char *a = json_dumps(back, JSON_SORT_KEYS),
		     *b = json_dumps(want, JSON_SORT_KEYS);
		fail_msg("%s: round trip\n got  %s\n want %s", s->name, a, b);
	}
	json_decref(back);
	drv_shape_free(s, m);
	free(m);
}

/* x with field f broken by bad (stolen) must be refused naming f. */
static void refused_naming(const struct drv_shape *s, json_t *x, const char *field,
			   json_t *bad, const char *rule)
{
	json_t *y = json_deep_copy(x);
	if (bad)
		json_object_set_new(y, field, bad);
	else
		json_object_del(y, field);
	struct drv_error err = {{0}};
	void *m = calloc(1, s->size);
	int rc = drv_shape_decode(s, y, m, &err);
	char want[160];
	snprintf(want, sizeof(want), "field '%s", field);
	if (rc != -EBADMSG || !strstr(err.text, want) || !strstr(err.text, rule))
		fail_msg("%s: %s broken (%s) gave rc %d '%s'", s->name, field, rule, rc,
			 err.text);
	free(m);
	json_decref(y);
}

/* An optional field of the wrong type is dropped by salvage and the rest
 * then decodes (how ctld keeps a stored job written by another version). */
static void salvage_each(const struct drv_shape *s, json_t *full)
{
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		if (f->req || f->type == DRV_F_JSON)
			continue;
		json_t *y = json_deep_copy(full);
		bool stringy =
		    !f->array && (f->type == DRV_F_STR || f->type == DRV_F_HEX);
		json_object_set_new(y, f->name,
				    stringy ? json_integer(1) : json_string("x"));
		if (drv_shape_salvage(s, y) != 1 || json_object_get(y, f->name))
			fail_msg("%s: salvage did not drop a broken %s", s->name,
				 f->name);
		struct drv_error err = {{0}};
		void *m = calloc(1, s->size);
		if (drv_shape_decode(s, y, m, &err) != 0)
			fail_msg("%s: salvaged body refused: %s", s->name, err.text);
		drv_shape_free(s, m);
		free(m);
		json_decref(y);
	}
}

static void schema_roundtrip(const struct drv_shape *s)
{
	json_t *min = drv_shape_example(s, false), *full = drv_shape_example(s, true);
	json_t *min_filled = json_deep_copy(min), *full_filled = json_deep_copy(full);
	drv_shape_fill_defaults(s, min_filled);
	drv_shape_fill_defaults(s, full_filled); /* its arrays' second entries */
	roundtrip_one(s, min, min_filled);
	roundtrip_one(s, full, full_filled);
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		if (f->req)
			refused_naming(s, min, f->name, NULL, "required");
		if (f->array) {
			refused_naming(s, full, f->name, json_integer(1),
				       "must be an array");
			continue;
		}
		switch (f->type) {
		case DRV_F_INT:
			refused_naming(s, full, f->name, json_string("1"),
				       "must be an integer");
			if (f->max < INT64_MAX)
				refused_naming(s, full, f->name, json_integer(f->max + 1),
					       "must be");
			if (f->min > INT64_MIN)
				refused_naming(s, full, f->name, json_integer(f->min - 1),
					       "must be");
			break;
		case DRV_F_STR:
			refused_naming(s, full, f->name, json_integer(1),
				       "must be a string");
			if (f->maxlen && f->maxlen < 70000) {
				char *big = malloc(f->maxlen + 2);
				memset(big, 'x', f->maxlen + 1);
				big[f->maxlen + 1] = 0;
				refused_naming(s, full, f->name, json_string(big),
					       "longer than");
				free(big);
			}
			if (f->choices)
				refused_naming(s, full, f->name,
					       json_string("no-such-choice"),
					       "must be one of");
			break;
		case DRV_F_HEX:
			refused_naming(s, full, f->name, json_string("ABC"), "hex");
			break;
		case DRV_F_BOOL:
			refused_naming(s, full, f->name, json_integer(1),
				       "true or false");
			break;
		case DRV_F_OBJ:
			refused_naming(s, full, f->name, json_integer(1),
				       "must be an object");
			break;
		case DRV_F_JSON:
			break;
		}
	}
	salvage_each(s, full);
	/* a field nobody declared is ignored: a newer peer may send it */
	json_t *extra = json_deep_copy(full);
	json_object_set_new(extra, "field_from_a_newer_peer", json_integer(7));
	roundtrip_one(s, extra, full_filled);
	json_decref(extra);
	json_decref(full_filled);
	json_decref(min);
	json_decref(min_filled);
	json_decref(full);
}

#endif
