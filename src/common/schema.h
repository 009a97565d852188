/* schema.h — the runtime of the declared protocol: one table per shape
 * (generated into proto_gen.c from the src/proto schema files) and the generic code
 * that validates, decodes, encodes and frees any shape by its table.
 *
 * A decoded struct borrows its strings and json_t members from the tree it
 * was decoded from (keep the tree alive while the struct is used); arrays are
 * allocated by the decoder, one block per array, and released by
 * drv_shape_free(). Fields the table does not declare are ignored, an
 * optional field sent as null counts as absent, and an absent field with a
 * default decodes as that default. */
#ifndef DRV_SCHEMA_H
#define DRV_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

enum drv_ftype {
	DRV_F_INT,  /* integer within min..max, stored as cint */
	DRV_F_BOOL, /* true or false */
	DRV_F_STR,  /* string of minlen..maxlen bytes (maxlen 0: any), from choices */
	DRV_F_HEX,  /* 64 lower-case hex digits (a SHA-256 or an HMAC) */
	DRV_F_JSON, /* any JSON value, kept as a borrowed json_t * */
	DRV_F_OBJ,  /* an object of shape sub */
};

/* The C type an integer field is stored as. */
enum drv_cint {
	DRV_C_I8,
	DRV_C_I16,
	DRV_C_U16,
	DRV_C_I32,
	DRV_C_U32,
	DRV_C_I64,
	DRV_C_U64
};

/* Who a record's field is for (the schema's flags). */
enum {
	DRV_FL_STORED = 1u << 0,  /* kept in the store's payload */
	DRV_FL_USER = 1u << 1,	  /* returned to users */
	DRV_FL_PRIVATE = 1u << 2, /* never returned to users */
	/* drv_shape_encode: leave out the flagged fields instead of keeping
	 * only them (DRV_ENC_EXCEPT | DRV_FL_PRIVATE: what users get) */
	DRV_ENC_EXCEPT = 1u << 8,
};

struct drv_shape;

struct drv_field {
	const char *name;
	enum drv_ftype type;
	enum drv_cint cint;
	bool req;
	bool array; /* a JSON array of the type; C: pointer + n_ count */
	int64_t min, max;
	size_t minlen, maxlen;
	const char *choices; /* "a|b|c" */
	const struct drv_shape *sub;
	const char *def;     /* JSON text of the default, or NULL */
	int64_t def_int;     /* the default of an integer or bool field */
	const char *def_str; /* the default of a string field */
	size_t off;	     /* the member */
	size_t n_off;	     /* arrays: the size_t count */
	size_t has_off;	     /* offset + 1 of the bool has_ member; 0: none */
	unsigned flags;
};

struct drv_shape {
	const char *name; /* "job.submit", "usage" */
	const char *kind; /* "request", "reply", "push", "object", "record" */
	size_t size;	  /* sizeof the struct */
	const struct drv_field *fields;
	size_t n_fields;
};

enum drv_msg_kind { DRV_MSG_REQUEST, DRV_MSG_PUSH };

/* One declared message type: its body and the body of its reply. */
struct drv_msg_decl {
	const char *type;
	enum drv_msg_kind kind;
	const struct drv_shape *body;
	const struct drv_shape *reply; /* NULL: the reply's body is not declared */
};

extern const struct drv_msg_decl drv_msg_decls[];
extern const size_t drv_n_msg_decls;
extern const struct drv_shape *const drv_all_shapes[];
extern const size_t drv_n_all_shapes;

/* The declaration of type, or NULL. */
const struct drv_msg_decl *drv_msg_decl_find(const char *type);

/* Checks obj against s. Returns 0, or -EBADMSG with err naming the field as
 * "WHAT: field 'PATH': RULE" (WHAT is s's name). */
int drv_shape_validate(const struct drv_shape *s, json_t *obj, struct drv_error *err);

/* Validates obj and decodes it into out (s->size bytes, zeroed first).
 * Returns 0, -EBADMSG (err names the field; out holds nothing to free) or
 * -ENOMEM. */
int drv_shape_decode(const struct drv_shape *s, json_t *obj, void *out,
		     struct drv_error *err);

/* The same for obj that passed drv_shape_validate(s) already (as every
 * received body did in drv_envelope_parse): decodes without checking it
 * twice. Returns 0 or -ENOMEM. */
int drv_shape_decode_valid(const struct drv_shape *s, json_t *obj, void *out,
			   struct drv_error *err);

/* A new object from in: every field that is present (required ones always,
 * optional ones when set: non-NULL, has_ true, or carrying a default).
 * With flags, only the fields that carry one of them (0: all), or with
 * DRV_ENC_EXCEPT all but those; nested objects are encoded whole. NULL when
 * out of memory. */
json_t *drv_shape_encode(const struct drv_shape *s, const void *in, unsigned flags);

/* Deletes from obj the fields that carry one of flags, also in nested
 * objects: a stored record's private fields, before users get it. */
void drv_shape_strip(const struct drv_shape *s, json_t *obj, unsigned flags);

/* Sets out (s->size bytes) to every field's declared default, zero where
 * none: what drv_shape_decode gives an object without fields. */
void drv_shape_init(const struct drv_shape *s, void *out);

/* Validates x as field i of s and decodes it into out, leaving the other
 * fields as they are (x NULL or null: the field too). For values that come
 * without their names, like a compact row's. Returns 0, -EBADMSG or -ENOMEM;
 * free out with drv_shape_free. */
int drv_shape_decode_field(const struct drv_shape *s, size_t i, json_t *x, void *out,
			   struct drv_error *err);

/* Deletes from obj each optional top-level field that breaks its
 * declaration, so that the rest decodes with those fields at their
 * defaults: for records read back from the store, where keeping a job
 * beats refusing it. Returns how many fields it dropped. */
size_t drv_shape_salvage(const struct drv_shape *s, json_t *obj);

/* Releases what drv_shape_decode allocated in p (not p itself). */
void drv_shape_free(const struct drv_shape *s, void *p);

/* Fills the declared defaults of absent (or null) fields into obj, also in
 * nested objects. */
void drv_shape_fill_defaults(const struct drv_shape *s, json_t *obj);

/* A minimal valid object of s (every required field at its lower bound) or,
 * with full, one that sets every field at its upper bound. New reference. */
json_t *drv_shape_example(const struct drv_shape *s, bool full);

/* The field of s called name, or NULL. */
const struct drv_field *drv_shape_field(const struct drv_shape *s, const char *name);

/* --- pieces for other decoders (schema_text.c) ---------------------------- */

/* NULL when n satisfies f's bounds, else the rule it breaks (maybe in buf). */
const char *drv_field_rule_int(const struct drv_field *f, int64_t n, char *buf,
			       size_t len);
/* The same for the string s of n bytes and a STR or HEX field. */
const char *drv_field_rule_str(const struct drv_field *f, const char *s, size_t n,
			       char *buf, size_t len);
/* What errors about s start with: its name, "NAME reply" for a reply. */
void drv_shape_what(const struct drv_shape *s, char *buf, size_t len);
/* Stores v at at as the C type c. */
void drv_field_put_int(void *at, enum drv_cint c, int64_t v);
/* The size of one element (or the scalar) of f. */
size_t drv_field_elem_size(const struct drv_field *f);
/* Stores f's default (if it has one) into the struct p. */
void drv_field_default(const struct drv_field *f, void *p);

#endif
