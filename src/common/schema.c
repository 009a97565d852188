/* schema.c — validates, decodes, encodes and frees any declared shape by its
 * table (schema.h). The tables come from the src/proto schema files through
 * src/proto/gen.py; nothing here knows a field by name. No I/O, no state. */
#include "common/schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct drv_msg_decl *drv_msg_decl_find(const char *type)
{
	if (!type)
		return NULL;
	for (size_t i = 0; i < drv_n_msg_decls; i++)
		if (strcmp(drv_msg_decls[i].type, type) == 0)
			return &drv_msg_decls[i];
	return NULL;
}

const struct drv_field *drv_shape_field(const struct drv_shape *s, const char *name)
{
	for (size_t i = 0; i < s->n_fields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return &s->fields[i];
	return NULL;
}

/* --- validation ----------------------------------------------------------- */

struct vctx {
	const struct drv_shape *shape; /* errors name it */
	struct drv_error *err;
};

/* Where a value is: "jobs[1].restart" as a chain from the field back to the
 * top, written out only when an error names it (checking a big reply must
 * not print a path for every value). */
struct vpath {
	const struct vpath *up;
	const char *name; /* a field, or NULL: element index of up */
	size_t index;
};

static size_t path_write(const struct vpath *p, char *buf, size_t len)
{
	size_t n = p->up ? path_write(p->up, buf, len) : 0;
	if (n >= len)
		return n;
	if (p->name)
		n += (size_t)snprintf(buf + n, len - n, "%s%.24s", n ? "." : "", p->name);
	else
		n += (size_t)snprintf(buf + n, len - n, "[%zu]", p->index);
	return n;
}

static int fail(struct vctx *v, const struct vpath *path, const char *rule)
{
	char what[80], where[128] = "";
	drv_shape_what(v->shape, what, sizeof(what));
	path_write(path, where, sizeof(where));
	return drv_error_set(v->err, EBADMSG, "%s: field '%s': %s", what, where, rule);
}

static bool is_hex64(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

static bool in_choices(const char *choices, const char *s)
{
	size_t n = strlen(s);
	const char *p = choices;
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && strncmp(p, s, n) == 0)
			return true;
		p += len + (bar ? 1 : 0);
	}
	return false;
}

const char *drv_field_rule_int(const struct drv_field *f, int64_t n, char *buf,
			       size_t len)
{
	if (n >= f->min && n <= f->max)
		return NULL;
	snprintf(buf, len, "must be %lld..%lld", (long long)f->min, (long long)f->max);
	return buf;
}

const char *drv_field_rule_str(const struct drv_field *f, const char *s, size_t n,
			       char *buf, size_t len)
{
	if (f->type == DRV_F_HEX)
		return is_hex64(s) ? NULL : "must be 64 lower-case hex digits";
	if (n < f->minlen)
		return n == 0 ? "must not be empty" : "too short";
	if (f->maxlen && n > f->maxlen) {
		snprintf(buf, len, "longer than %zu bytes", f->maxlen);
		return buf;
	}
	if (f->choices && !in_choices(f->choices, s)) {
		snprintf(buf, len, "must be one of %s", f->choices);
		return buf;
	}
	return NULL;
}

void drv_shape_what(const struct drv_shape *s, char *buf, size_t len)
{
	snprintf(buf, len, "%.64s%s", s->name,
		 strcmp(s->kind, "reply") == 0 ? " reply" : "");
}

static int check_object(struct vctx *v, const struct drv_shape *s, json_t *obj,
			const struct vpath *at);

/* Checks one scalar value, or one element of an array, against f. */
static int check_value(struct vctx *v, const struct drv_field *f, json_t *x,
		       const struct vpath *path)
{
	char rule[96];
	switch (f->type) {
	case DRV_F_INT: {
		if (!json_is_integer(x))
			return fail(v, path, "must be an integer");
		const char *r =
		    drv_field_rule_int(f, json_integer_value(x), rule, sizeof(rule));
		return r ? fail(v, path, r) : 0;
	}
	case DRV_F_STR:
	case DRV_F_HEX: {
		if (!json_is_string(x))
			return fail(v, path,
				    f->type == DRV_F_HEX
					? "must be 64 lower-case hex digits"
					: "must be a string");
		const char *r = drv_field_rule_str(
		    f, json_string_value(x), json_string_length(x), rule, sizeof(rule));
		return r ? fail(v, path, r) : 0;
	}
	case DRV_F_BOOL:
		return json_is_boolean(x) ? 0 : fail(v, path, "must be true or false");
	case DRV_F_JSON:
		return 0;
	case DRV_F_OBJ:
		if (!json_is_object(x))
			return fail(v, path, "must be an object");
		return check_object(v, f->sub, x, path);
	}
	return fail(v, path, "undeclared field type");
}

static int check_field(struct vctx *v, const struct drv_field *f, json_t *x,
		       const struct vpath *path)
{
	if (!f->array)
		return check_value(v, f, x, path);
	if (!json_is_array(x))
		return fail(v, path, "must be an array");
	size_t i;
	json_t *e;
	json_array_foreach(x, i, e)
	{
		struct vpath elem = {.up = path, .index = i};
		int rc = check_value(v, f, e, &elem);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_object(struct vctx *v, const struct drv_shape *s, json_t *obj,
			const struct vpath *at)
{
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		struct vpath path = {.up = at, .name = f->name};
		json_t *x = json_object_get(obj, f->name);
		if (!x || json_is_null(x)) {
			if (f->req)
				return fail(v, &path, "required");
			continue;
		}
		int rc = check_field(v, f, x, &path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int drv_shape_validate(const struct drv_shape *s, json_t *obj, struct drv_error *err)
{
	struct vctx v = {.shape = s, .err = err};
	if (!json_is_object(obj)) {
		struct vpath body = {.name = "body"};
		return fail(&v, &body, "must be an object");
	}
	return check_object(&v, s, obj, NULL);
}

/* --- decoding ------------------------------------------------------------- */

static size_t cint_size(enum drv_cint c)
{
	switch (c) {
	case DRV_C_I8:
		return 1;
	case DRV_C_I16:
	case DRV_C_U16:
		return 2;
	case DRV_C_I32:
	case DRV_C_U32:
		return 4;
	case DRV_C_I64:
	case DRV_C_U64:
		break;
	}
	return 8;
}

void drv_field_put_int(void *at, enum drv_cint c, int64_t v)
{
	switch (c) {
	case DRV_C_I8:
		*(int8_t *)at = (int8_t)v;
		return;
	case DRV_C_I16:
		*(int16_t *)at = (int16_t)v;
		return;
	case DRV_C_U16:
		*(uint16_t *)at = (uint16_t)v;
		return;
	case DRV_C_I32:
		*(int32_t *)at = (int32_t)v;
		return;
	case DRV_C_U32:
		*(uint32_t *)at = (uint32_t)v;
		return;
	case DRV_C_I64:
		*(int64_t *)at = v;
		return;
	case DRV_C_U64:
		*(uint64_t *)at = (uint64_t)v;
		return;
	}
}

static int64_t get_int(const void *at, enum drv_cint c)
{
	switch (c) {
	case DRV_C_I8:
		return *(const int8_t *)at;
	case DRV_C_I16:
		return *(const int16_t *)at;
	case DRV_C_U16:
		return *(const uint16_t *)at;
	case DRV_C_I32:
		return *(const int32_t *)at;
	case DRV_C_U32:
		return *(const uint32_t *)at;
	case DRV_C_I64:
		return *(const int64_t *)at;
	case DRV_C_U64:
		return (int64_t) * (const uint64_t *)at;
	}
	return 0;
}

size_t drv_field_elem_size(const struct drv_field *f)
{
	switch (f->type) {
	case DRV_F_INT:
		return cint_size(f->cint);
	case DRV_F_BOOL:
		return sizeof(bool);
	case DRV_F_STR:
	case DRV_F_HEX:
		return sizeof(const char *);
	case DRV_F_JSON:
		return sizeof(json_t *);
	case DRV_F_OBJ:
		break;
	}
	return f->sub->size;
}

static int decode_object(const struct drv_shape *s, json_t *obj, char *out);

/* x is valid for f already: stores one scalar (or one element) at at. */
static int decode_value(const struct drv_field *f, json_t *x, char *at)
{
	switch (f->type) {
	case DRV_F_INT:
		drv_field_put_int(at, f->cint, json_integer_value(x));
		return 0;
	case DRV_F_BOOL:
		*(bool *)at = json_is_true(x);
		return 0;
	case DRV_F_STR:
	case DRV_F_HEX:
		*(const char **)at = json_string_value(x);
		return 0;
	case DRV_F_JSON:
		*(json_t **)at = x;
		return 0;
	case DRV_F_OBJ:
		break;
	}
	return decode_object(f->sub, x, at);
}

static void free_value(const struct drv_field *f, char *at)
{
	if (f->type == DRV_F_OBJ)
		drv_shape_free(f->sub, at);
}

static int decode_array(const struct drv_field *f, json_t *x, char *out)
{
	size_t n = json_array_size(x), size = drv_field_elem_size(f);
	char *v = n ? calloc(n, size) : NULL;
	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (decode_value(f, json_array_get(x, i), v + i * size) < 0) {
			while (i-- > 0)
				free_value(f, v + i * size);
			free(v);
			return -ENOMEM;
		}
	}
	*(void **)(out + f->off) = v;
	*(size_t *)(out + f->n_off) = n;
	return 0;
}

void drv_field_default(const struct drv_field *f, void *p)
{
	char *out = p;
	if (!f->def || f->array)
		return; /* arrays default to [] only: NULL, 0 */
	if (f->type == DRV_F_INT)
		drv_field_put_int(out + f->off, f->cint, f->def_int);
	else if (f->type == DRV_F_BOOL)
		*(bool *)(out + f->off) = f->def_int != 0;
	else if (f->type == DRV_F_STR)
		*(const char **)(out + f->off) = f->def_str;
}

/* obj was validated against s: a failure here is out of memory only. */
static int decode_object(const struct drv_shape *s, json_t *obj, char *out)
{
	memset(out, 0, s->size);
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		json_t *x = json_object_get(obj, f->name);
		if (!x || json_is_null(x)) {
			drv_field_default(f, out);
			continue;
		}
		int rc =
		    f->array ? decode_array(f, x, out) : decode_value(f, x, out + f->off);
		if (rc < 0) {
			drv_shape_free(s, out);
			return rc;
		}
		if (f->has_off)
			*(bool *)(out + f->has_off - 1) = true;
	}
	return 0;
}

int drv_shape_decode(const struct drv_shape *s, json_t *obj, void *out,
		     struct drv_error *err)
{
	memset(out, 0, s->size);
	int rc = drv_shape_validate(s, obj, err);
	return rc < 0 ? rc : drv_shape_decode_valid(s, obj, out, err);
}

int drv_shape_decode_valid(const struct drv_shape *s, json_t *obj, void *out,
			   struct drv_error *err)
{
	int rc = decode_object(s, obj, out);
	if (rc < 0)
		drv_error_set(err, ENOMEM, "%s: out of memory", s->name);
	return rc;
}

void drv_shape_init(const struct drv_shape *s, void *out)
{
	memset(out, 0, s->size);
	for (size_t i = 0; i < s->n_fields; i++)
		drv_field_default(&s->fields[i], out);
}

int drv_shape_decode_field(const struct drv_shape *s, size_t i, json_t *x, void *out,
			   struct drv_error *err)
{
	const struct drv_field *f = &s->fields[i];
	struct vctx v = {.shape = s, .err = err};
	struct vpath path = {.name = f->name};
	if (!x || json_is_null(x))
		return 0;
	int rc = check_field(&v, f, x, &path);
	if (rc < 0)
		return rc;
	rc =
	    f->array ? decode_array(f, x, out) : decode_value(f, x, (char *)out + f->off);
	if (rc < 0)
		return drv_error_set(err, ENOMEM, "%s: out of memory", s->name);
	if (f->has_off)
		*(bool *)((char *)out + f->has_off - 1) = true;
	return 0;
}

void drv_shape_free(const struct drv_shape *s, void *p)
{
	char *base = p;
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		if (f->array) {
			char *v = *(char **)(base + f->off);
			size_t n = *(size_t *)(base + f->n_off);
			for (size_t k = 0; v && k < n; k++)
				free_value(f, v + k * drv_field_elem_size(f));
			free(v);
			*(void **)(base + f->off) = NULL;
			*(size_t *)(base + f->n_off) = 0;
		} else {
			free_value(f, base + f->off);
		}
	}
}

/* --- encoding ------------------------------------------------------------- */

static json_t *encode_object(const struct drv_shape *s, const char *in, unsigned flags);

static json_t *encode_value(const struct drv_field *f, const char *at)
{
	switch (f->type) {
	case DRV_F_INT:
		return json_integer(get_int(at, f->cint));
	case DRV_F_BOOL:
		return json_boolean(*(const bool *)at);
	case DRV_F_STR:
	case DRV_F_HEX: {
		const char *s = *(const char *const *)at;
		return s ? json_string(s) : json_null();
	}
	case DRV_F_JSON: {
		json_t *x = *(json_t *const *)at;
		return x ? json_incref(x) : json_null();
	}
	case DRV_F_OBJ:
		break;
	}
	return encode_object(f->sub, at, 0);
}

/* Whether in carries a value for f (absent optional fields are left out). */
static bool present(const struct drv_field *f, const char *in)
{
	if (f->has_off)
		return *(const bool *)(in + f->has_off - 1);
	if (f->array)
		return true; /* required, or defaulting to [] */
	if (f->type == DRV_F_STR || f->type == DRV_F_HEX || f->type == DRV_F_JSON)
		return *(const void *const *)(in + f->off) != NULL;
	return true;
}

static json_t *encode_field(const struct drv_field *f, const char *in)
{
	if (!f->array)
		return encode_value(f, in + f->off);
	json_t *a = json_array();
	const char *v = *(const char *const *)(in + f->off);
	size_t n = *(const size_t *)(in + f->n_off), size = drv_field_elem_size(f);
	for (size_t i = 0; a && v && i < n; i++)
		if (json_array_append_new(a, encode_value(f, v + i * size)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *encode_object(const struct drv_shape *s, const char *in, unsigned flags)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		bool flagged = f->flags & flags & ~(unsigned)DRV_ENC_EXCEPT;
		if ((flags && flagged == !!(flags & DRV_ENC_EXCEPT)) || !present(f, in))
			continue;
		json_t *x = encode_field(f, in);
		if (!x || json_object_set_new(o, f->name, x) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *drv_shape_encode(const struct drv_shape *s, const void *in, unsigned flags)
{
	return encode_object(s, in, flags);
}

void drv_shape_strip(const struct drv_shape *s, json_t *obj, unsigned flags)
{
	for (size_t i = 0; json_is_object(obj) && i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		json_t *x = json_object_get(obj, f->name);
		if (x && (f->flags & flags))
			json_object_del(obj, f->name);
		else if (x && f->type == DRV_F_OBJ && !f->array)
			drv_shape_strip(f->sub, x, flags);
		else if (x && f->type == DRV_F_OBJ)
			for (size_t k = 0; k < json_array_size(x); k++)
				drv_shape_strip(f->sub, json_array_get(x, k), flags);
	}
}

size_t drv_shape_salvage(const struct drv_shape *s, json_t *obj)
{
	size_t dropped = 0;
	struct drv_error err;
	struct vctx v = {.shape = s, .err = &err};
	for (size_t i = 0; json_is_object(obj) && i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		struct vpath path = {.name = f->name};
		json_t *x = json_object_get(obj, f->name);
		if (x && !json_is_null(x) && !f->req &&
		    check_field(&v, f, x, &path) < 0) {
			json_object_del(obj, f->name);
			dropped++;
		}
	}
	return dropped;
}

/* --- defaults and examples ----------------------------------------------- */

void drv_shape_fill_defaults(const struct drv_shape *s, json_t *obj)
{
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		json_t *x = json_object_get(obj, f->name);
		if ((!x || json_is_null(x)) && f->def) {
			json_t *d = json_loads(f->def, JSON_DECODE_ANY, NULL);
			if (d)
				json_object_set_new(obj, f->name, d);
		} else if (x && f->type == DRV_F_OBJ && !f->array) {
			if (json_is_object(x))
				drv_shape_fill_defaults(f->sub, x);
		} else if (x && f->type == DRV_F_OBJ) {
			size_t k;
			json_t *e;
			json_array_foreach(x, k, e) if (json_is_object(e))
			    drv_shape_fill_defaults(f->sub, e);
		}
	}
}

/* The first (or, with full, the last) of "a|b|c". */
static json_t *example_choice(const char *choices, bool full)
{
	const char *p = choices;
	if (full) {
		const char *bar;
		while ((bar = strchr(p, '|')))
			p = bar + 1;
	}
	return json_stringn(p, strcspn(p, "|"));
}

static json_t *example_value(const struct drv_field *f, bool full)
{
	static const char hex[] =
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	static const char text[] = "xxxxxxxxxxxxxxxx";
	switch (f->type) {
	case DRV_F_INT:
		return json_integer(full ? f->max : f->min);
	case DRV_F_STR: {
		if (f->choices)
			return example_choice(f->choices, full);
		size_t n =
		    full ? (f->maxlen && f->maxlen < 16 ? f->maxlen : 16) : f->minlen;
		return json_stringn(text, n < 16 ? n : 16);
	}
	case DRV_F_HEX:
		return json_string(hex);
	case DRV_F_BOOL:
		return json_boolean(full);
	case DRV_F_JSON:
		return full ? json_pack("{s:i}", "k", 1) : json_object();
	case DRV_F_OBJ:
		break;
	}
	return drv_shape_example(f->sub, full);
}

json_t *drv_shape_example(const struct drv_shape *s, bool full)
{
	json_t *o = json_object();
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		if (!f->req && !full)
			continue;
		json_t *x = example_value(f, full);
		if (f->array) {
			json_t *a = json_array();
			json_array_append_new(a, x);
			if (full)
				json_array_append_new(a, example_value(f, false));
			x = a;
		}
		json_object_set_new(o, f->name, x);
	}
	return o;
}
