/* schema_text.c — JSON text decoded straight into a declared shape's struct
 * (schema_text.h): a small tokenizer over a mutable buffer, and a value
 * reader driven by the shape's field table. The rules themselves (bounds,
 * lengths, choices, defaults) come from schema.c, so that both decoders
 * refuse the same things in the same words. */
#include "common/schema_text.h"

#include <errno.h>
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- arena ------------------------------------------------------------------ */

struct drv_arena_block {
	struct drv_arena_block *next;
	size_t size, used;
	alignas(max_align_t) char data[];
};

struct drv_arena_ref {
	struct drv_arena_ref *next;
	json_t *x;
};

void drv_arena_init(struct drv_arena *a)
{
	a->blocks = NULL;
	a->refs = NULL;
}

void *drv_arena_alloc(struct drv_arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	size = (size + align - 1) / align * align;
	struct drv_arena_block *b = a->blocks;
	if (!b || b->size - b->used < size) {
		size_t want = b ? b->size * 2 : 4096;
		while (want < size)
			want *= 2;
		b = malloc(sizeof(*b) + want);
		if (!b)
			return NULL;
		b->next = a->blocks;
		b->size = want;
		b->used = 0;
		a->blocks = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	return memset(p, 0, size);
}

static void drop_refs(struct drv_arena *a)
{
	for (struct drv_arena_ref *r = a->refs; r; r = r->next)
		json_decref(r->x);
	a->refs = NULL;
}

void drv_arena_reset(struct drv_arena *a)
{
	drop_refs(a);
	struct drv_arena_block *keep = a->blocks;
	if (!keep)
		return;
	for (struct drv_arena_block *b = keep->next, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	keep->next = NULL;
	keep->used = 0;
}

void drv_arena_free(struct drv_arena *a)
{
	drv_arena_reset(a);
	free(a->blocks);
	a->blocks = NULL;
}

/* --- the reader: a cursor, its errors, and where in the shape it is -------- */

/* A field's path, built into text only when an error names it. */
struct path {
	const struct path *up;
	const char *name; /* NULL: element idx of up */
	size_t idx;
};

struct rd {
	char *base, *p, *end;
	struct drv_arena *a;   /* where arrays and json members go */
	struct drv_arena each; /* a streamed item's own, reset after each */
	struct drv_error *err;
	int depth;
	char what[80];
};

/* The same truncations as schema.c's paths, so long paths read the same. */
static void path_text(const struct path *p, char *out, size_t len)
{
	char up[128] = "";
	if (p->up)
		path_text(p->up, up, sizeof(up));
	if (!p->name)
		snprintf(out, len, "%.96s[%zu]", up, p->idx);
	else if (p->up)
		snprintf(out, len, "%.96s.%.24s", up, p->name);
	else
		snprintf(out, len, "%.24s", p->name);
}

static int syntax(struct rd *r, const char *why)
{
	return drv_error_set(r->err, EBADMSG, "not JSON: %s at byte %zu", why,
			     (size_t)(r->p - r->base));
}

static int broken(struct rd *r, const struct path *at, const char *rule)
{
	char path[128];
	path_text(at, path, sizeof(path));
	return drv_error_set(r->err, EBADMSG, "%s: field '%s': %s", r->what, path, rule);
}

static int oom(struct rd *r)
{
	return drv_error_set(r->err, ENOMEM, "%s: out of memory", r->what);
}

/* --- tokens ----------------------------------------------------------------- */

/* The next significant byte, or -1 at the end of the text. */
static int peek(struct rd *r)
{
	while (r->p < r->end &&
	       (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
	return r->p < r->end ? (unsigned char)*r->p : -1;
}

static int expect(struct rd *r, char c, const char *why)
{
	if (peek(r) != (unsigned char)c)
		return syntax(r, why);
	r->p++;
	return 0;
}

static int literal(struct rd *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return syntax(r, "invalid token");
	r->p += n;
	return 0;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * jansson's rules (no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0xC2   ? 0
		     : s[0] < 0xE0 ? 2
		     : s[0] < 0xF0 ? 3
		     : s[0] < 0xF5 ? 4
				   : 0;
	if (!len || len > n)
		return 0;
	uint32_t cp = s[0] & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

static int hex4(const char *s, const char *end, uint32_t *out)
{
	*out = 0;
	if (end - s < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return -1;
		*out = *out << 4 | (uint32_t)d;
	}
	return 0;
}

static char *put_utf8(char *d, uint32_t cp)
{
	if (cp < 0x80) {
		*d++ = (char)cp;
	} else if (cp < 0x800) {
		*d++ = (char)(0xC0 | cp >> 6);
		*d++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*d++ = (char)(0xE0 | cp >> 12);
		*d++ = (char)(0x80 | (cp >> 6 & 0x3F));
		*d++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*d++ = (char)(0xF0 | cp >> 18);
		*d++ = (char)(0x80 | (cp >> 12 & 0x3F));
		*d++ = (char)(0x80 | (cp >> 6 & 0x3F));
		*d++ = (char)(0x80 | (cp & 0x3F));
	}
	return d;
}

/* A \uXXXX escape at r->p (after the backslash and 'u'), a surrogate pair
 * taken whole; writes its UTF-8 at *d, which never passes r->p. */
static int unicode_escape(struct rd *r, char **d)
{
	uint32_t cp, lo;
	if (hex4(r->p, r->end, &cp) < 0)
		return syntax(r, "invalid \\u escape");
	r->p += 4;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return syntax(r, "invalid Unicode (lone low surrogate)");
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
		    hex4(r->p + 2, r->end, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
			return syntax(r, "invalid Unicode (lone high surrogate)");
		r->p += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10 | (lo - 0xDC00));
	}
	if (cp == 0)
		return syntax(r, "\\u0000 is not allowed");
	*d = put_utf8(*d, cp);
	return 0;
}

static int escape(struct rd *r, char **d)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (r->p >= r->end)
		return syntax(r, "unterminated string");
	char c = *r->p++;
	if (c == 'u')
		return unicode_escape(r, d);
	const char *k = strchr(from, c);
	if (!k || !c)
		return syntax(r, "invalid escape");
	*(*d)++ = to[k - from];
	return 0;
}

/* The string at r->p, unescaped in place and NUL-terminated: *s, *n bytes. */
static int string(struct rd *r, char **s, size_t *n)
{
	char *d = *s = ++r->p; /* past the quote */
	while (r->p < r->end) {
		unsigned char c = (unsigned char)*r->p;
		if (c == '"') {
			r->p++;
			*d = '\0'; /* at most where the closing quote was */
			*n = (size_t)(d - *s);
			return 0;
		}
		if (c < 0x20)
			return syntax(r, "control character in string");
		if (c == '\\') {
			r->p++;
			int rc = escape(r, &d);
			if (rc < 0)
				return rc;
		} else if (c < 0x80) {
			*d++ = *r->p++;
		} else {
			size_t len = utf8_len((const unsigned char *)r->p,
					      (size_t)(r->end - r->p));
			if (!len)
				return syntax(r, "invalid UTF-8");
			memmove(d, r->p, len);
			d += len;
			r->p += len;
		}
	}
	return syntax(r, "unterminated string");
}

static bool digit(struct rd *r)
{
	return r->p < r->end && *r->p >= '0' && *r->p <= '9';
}

/* A real must not overflow a double, as jansson refuses it. */
static int real_in_range(struct rd *r, const char *s, size_t n)
{
	char small[64], *copy = n < sizeof(small) ? small : malloc(n + 1);
	if (!copy)
		return oom(r);
	memcpy(copy, s, n);
	copy[n] = '\0';
	bool inf = isinf(strtod(copy, NULL));
	if (copy != small)
		free(copy);
	return inf ? syntax(r, "real number overflow") : 0;
}

/* The number at r->p (RFC 8259's grammar); *is_int when it has neither
 * fraction nor exponent, and then *v is its value (int64 or refused). */
static int number(struct rd *r, bool *is_int, int64_t *v)
{
	char *s = r->p;
	bool neg = *r->p == '-';
	uint64_t mag = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	bool over = false;
	r->p += neg;
	if (!digit(r))
		return syntax(r, "invalid number");
	if (*r->p == '0' && (r->p++, digit(r)))
		return syntax(r, "leading zero");
	for (; digit(r); r->p++) {
		unsigned d = (unsigned)(*r->p - '0');
		over |= mag > (lim - d) / 10;
		mag = mag * 10 + d;
	}
	*is_int = true;
	if (r->p < r->end && *r->p == '.') {
		*is_int = false;
		r->p++;
		if (!digit(r))
			return syntax(r, "invalid number");
		while (digit(r))
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		*is_int = false;
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (!digit(r))
			return syntax(r, "invalid number");
		while (digit(r))
			r->p++;
	}
	if (!*is_int)
		return real_in_range(r, s, (size_t)(r->p - s));
	if (over)
		return syntax(r, "too big integer");
	*v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

/* --- containers ------------------------------------------------------------- */

/* Past the '{' or '[' the caller saw, one level deeper. */
static int open_container(struct rd *r)
{
	if (++r->depth > DRV_TEXT_MAX_DEPTH)
		return syntax(r, "nesting too deep");
	r->p++;
	return 0;
}

/* Whether another item follows in the container being read (1), or it
 * closed with `close` (0); *k counts the items. */
static int next_item(struct rd *r, char close, size_t *k)
{
	int c = peek(r);
	if (c == close) {
		r->p++;
		r->depth--;
		return 0;
	}
	if (*k > 0) {
		if (c != ',')
			return syntax(r, close == '}' ? "expected ',' or '}'"
						      : "expected ',' or ']'");
		r->p++;
	}
	(*k)++;
	return 1;
}

/* An object's key and its colon. */
static int key(struct rd *r, char **s, size_t *n)
{
	if (peek(r) != '"')
		return syntax(r, "expected a string key");
	int rc = string(r, s, n);
	return rc < 0 ? rc : expect(r, ':', "expected ':'");
}

/* The keys of one object that no field declares, to refuse duplicates as
 * jansson does (an open-addressed set; on the stack until it grows). */
struct keyset {
	struct keyent {
		const char *s;
		size_t n;
	} * v, small[16];
	size_t cap, used;
};

static void keyset_init(struct keyset *ks)
{
	memset(ks->small, 0, sizeof(ks->small));
	ks->v = ks->small;
	ks->cap = 16;
	ks->used = 0;
}

static void keyset_fini(struct keyset *ks)
{
	if (ks->v != ks->small)
		free(ks->v);
}

static size_t key_hash(const char *s, size_t n)
{
	size_t h = 14695981039346656037u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

/* 1 added, 0 already there. */
static int keyset_put(struct keyent *v, size_t cap, const char *s, size_t n)
{
	size_t i = key_hash(s, n) & (cap - 1);
	for (; v[i].s; i = (i + 1) & (cap - 1))
		if (v[i].n == n && memcmp(v[i].s, s, n) == 0)
			return 0;
	v[i] = (struct keyent){s, n};
	return 1;
}

/* 1 added, 0 a duplicate, -ENOMEM. */
static int keyset_add(struct keyset *ks, const char *s, size_t n)
{
	if (2 * (ks->used + 1) > ks->cap) {
		struct keyent *v = calloc(ks->cap * 2, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < ks->cap; i++)
			if (ks->v[i].s)
				keyset_put(v, ks->cap * 2, ks->v[i].s, ks->v[i].n);
		keyset_fini(ks);
		ks->v = v;
		ks->cap *= 2;
	}
	int rc = keyset_put(ks->v, ks->cap, s, n);
	ks->used += (size_t)rc;
	return rc;
}

/* A key no field declares: refused if seen before in this object. */
static int unknown_key(struct rd *r, struct keyset *ks, const char *s, size_t n)
{
	int rc = keyset_add(ks, s, n);
	if (rc < 0)
		return oom(r);
	return rc ? 0 : syntax(r, "duplicate object key");
}

static int skip_value(struct rd *r);

static int skip_object(struct rd *r)
{
	struct keyset ks;
	size_t k = 0;
	keyset_init(&ks);
	int rc = open_container(r);
	while (rc == 0 && (rc = next_item(r, '}', &k)) > 0) {
		char *s;
		size_t n;
		if ((rc = key(r, &s, &n)) < 0 || (rc = unknown_key(r, &ks, s, n)) < 0)
			break;
		rc = skip_value(r);
	}
	keyset_fini(&ks);
	return rc;
}

/* Any JSON value, checked and passed over (unknown fields, wrong types). */
static int skip_value(struct rd *r)
{
	int c = peek(r), rc;
	size_t k = 0;
	char *s;
	size_t n;
	bool is_int;
	int64_t v;
	switch (c) {
	case '{':
		return skip_object(r);
	case '[':
		if ((rc = open_container(r)) < 0)
			return rc;
		while ((rc = next_item(r, ']', &k)) > 0)
			if ((rc = skip_value(r)) < 0)
				return rc;
		return rc;
	case '"':
		return string(r, &s, &n);
	case 't':
		return literal(r, "true");
	case 'f':
		return literal(r, "false");
	case 'n':
		return literal(r, "null");
	case -1:
		return syntax(r, "unexpected end of input");
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(r, &is_int, &v);
	return syntax(r, "invalid token");
}

/* --- values driven by the field table ------------------------------------- */

/* A field read its own way (streamed arrays and rows). */
struct special {
	size_t field; /* in the shape decoded */
	int (*read)(struct rd *r, struct special *sp, char *out, const struct path *at);
	drv_elem_fn fn;
	void *ctx;
	const struct drv_field *elem;  /* streamed arrays: the array's field */
	const struct drv_shape *rec;   /* rows: the record */
	const struct drv_field *names; /* rows: the field naming the columns */
	const struct drv_field **cols; /* rows: rec's field per column, or NULL */
	size_t n_cols;
};

static int read_object(struct rd *r, const struct drv_shape *s, char *out,
		       const struct path *at, struct special *sp);

/* A value of the wrong type: still JSON (checked), then the rule it breaks. */
static int wrong_type(struct rd *r, const struct path *at, const char *rule)
{
	int rc = skip_value(r);
	return rc < 0 ? rc : broken(r, at, rule);
}

/* A json member: jansson parses its span (one tree, kept by the arena). */
static int read_json(struct rd *r, json_t **at)
{
	json_error_t e;
	struct drv_arena_ref *ref = drv_arena_alloc(r->a, sizeof(*ref));
	if (!ref)
		return oom(r);
	peek(r);
	json_t *x = json_loadb(
	    r->p, (size_t)(r->end - r->p),
	    JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &e);
	if (!x) {
		r->p += e.position > 0 ? e.position : 0;
		return syntax(r, e.text);
	}
	if (memchr(r->p, '\0', (size_t)e.position)) {
		/* jansson drops a NUL after a number, and its span is then wrong */
		json_decref(x);
		return syntax(r, "NUL byte");
	}
	r->p += e.position;
	ref->x = *at = x;
	ref->next = r->a->refs;
	r->a->refs = ref;
	return 0;
}

static int read_int(struct rd *r, const struct drv_field *f, char *at,
		    const struct path *p)
{
	int c = peek(r);
	if (c != '-' && !(c >= '0' && c <= '9'))
		return wrong_type(r, p, "must be an integer");
	bool is_int;
	int64_t v = 0;
	int rc = number(r, &is_int, &v);
	if (rc < 0)
		return rc;
	if (!is_int)
		return broken(r, p, "must be an integer");
	char buf[96];
	const char *rule = drv_field_rule_int(f, v, buf, sizeof(buf));
	if (rule)
		return broken(r, p, rule);
	drv_field_put_int(at, f->cint, v);
	return 0;
}

static int read_str(struct rd *r, const struct drv_field *f, char *at,
		    const struct path *p)
{
	const char *type_rule = f->type == DRV_F_HEX ? "must be 64 lower-case hex digits"
						     : "must be a string";
	if (peek(r) != '"')
		return wrong_type(r, p, type_rule);
	char *s, buf[96];
	size_t n;
	int rc = string(r, &s, &n);
	if (rc < 0)
		return rc;
	const char *rule = drv_field_rule_str(f, s, n, buf, sizeof(buf));
	if (rule)
		return broken(r, p, rule);
	*(const char **)at = s;
	return 0;
}

/* One scalar, object or element of f at at. */
static int read_value(struct rd *r, const struct drv_field *f, char *at,
		      const struct path *p)
{
	int c = peek(r);
	switch (f->type) {
	case DRV_F_INT:
		return read_int(r, f, at, p);
	case DRV_F_STR:
	case DRV_F_HEX:
		return read_str(r, f, at, p);
	case DRV_F_BOOL:
		if (c != 't' && c != 'f')
			return wrong_type(r, p, "must be true or false");
		*(bool *)at = c == 't';
		return literal(r, c == 't' ? "true" : "false");
	case DRV_F_JSON:
		return read_json(r, (json_t **)at);
	case DRV_F_OBJ:
		break;
	}
	if (c != '{')
		return wrong_type(r, p, "must be an object");
	return read_object(r, f->sub, at, p, NULL);
}

/* An array of f into arena memory that doubles as it fills. */
static int read_array(struct rd *r, const struct drv_field *f, char *out,
		      const struct path *p)
{
	if (peek(r) != '[')
		return wrong_type(r, p, "must be an array");
	size_t size = drv_field_elem_size(f), cap = 0, k = 0;
	char *v = NULL;
	int rc = open_container(r);
	while (rc == 0 && (rc = next_item(r, ']', &k)) > 0) {
		if (k > cap) {
			char *w = drv_arena_alloc(r->a, (cap ? cap * 2 : 4) * size);
			if (!w)
				return oom(r);
			if (cap)
				memcpy(w, v, cap * size);
			v = w;
			cap = cap ? cap * 2 : 4;
		}
		struct path ep = {p, NULL, k - 1};
		rc = read_value(r, f, v + (k - 1) * size, &ep);
	}
	if (rc < 0)
		return rc;
	*(void **)(out + f->off) = v;
	*(size_t *)(out + f->n_off) = k;
	return 0;
}

/* --- objects ---------------------------------------------------------------- */

#define MAX_FIELDS 256
struct seen {
	uint64_t key[MAX_FIELDS / 64], set[MAX_FIELDS / 64];
};

static bool bit(const uint64_t *b, size_t i)
{
	return b[i / 64] >> (i % 64) & 1;
}

static void set_bit(uint64_t *b, size_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* The field called name: tried from *hint on, as encoders write fields in
 * table order; -1 when none. */
static long find_field(const struct drv_shape *s, const char *name, size_t *hint)
{
	for (size_t k = 0; k < s->n_fields; k++) {
		size_t i = (*hint + k) % s->n_fields;
		if (strcmp(s->fields[i].name, name) == 0) {
			*hint = i + 1;
			return (long)i;
		}
	}
	return -1;
}

/* The value of declared field i (null: absent). */
static int read_member(struct rd *r, const struct drv_shape *s, size_t i, char *out,
		       const struct path *at, struct special *sp, struct seen *sn)
{
	const struct drv_field *f = &s->fields[i];
	if (bit(sn->key, i))
		return syntax(r, "duplicate object key");
	set_bit(sn->key, i);
	if (peek(r) == 'n')
		return literal(r, "null");
	struct path p = {at, f->name, 0};
	int rc = sp && sp->field == i ? sp->read(r, sp, out, &p)
		 : f->array	      ? read_array(r, f, out, &p)
				      : read_value(r, f, out + f->off, &p);
	if (rc < 0)
		return rc;
	set_bit(sn->set, i);
	if (f->has_off)
		*(bool *)(out + f->has_off - 1) = true;
	return 0;
}

/* After the object: required fields present (if require), defaults for the
 * others. */
static int finish_object(struct rd *r, const struct drv_shape *s, char *out,
			 const struct path *at, const struct seen *sn, bool require)
{
	for (size_t i = 0; i < s->n_fields; i++) {
		const struct drv_field *f = &s->fields[i];
		if (bit(sn->set, i))
			continue;
		if (f->req && require) {
			struct path p = {at, f->name, 0};
			return broken(r, &p, "required");
		}
		drv_field_default(f, out);
	}
	return 0;
}

static int read_object(struct rd *r, const struct drv_shape *s, char *out,
		       const struct path *at, struct special *sp)
{
	struct seen sn = {{0}, {0}};
	struct keyset ks;
	size_t k = 0, hint = 0;
	int rc;
	if (s->n_fields > MAX_FIELDS)
		return broken(r, at, "too many fields declared");
	memset(out, 0, s->size);
	keyset_init(&ks);
	rc = open_container(r);
	while (rc == 0 && (rc = next_item(r, '}', &k)) > 0) {
		char *name;
		size_t n;
		if ((rc = key(r, &name, &n)) < 0)
			break;
		long i = find_field(s, name, &hint);
		if (i < 0) {
			rc = unknown_key(r, &ks, name, n);
			rc = rc < 0 ? rc : skip_value(r);
		} else {
			rc = read_member(r, s, (size_t)i, out, at, sp, &sn);
		}
	}
	keyset_fini(&ks);
	return rc < 0 ? rc : finish_object(r, s, out, at, &sn, true);
}

/* --- entry points ----------------------------------------------------------- */

static void rd_init(struct rd *r, const struct drv_shape *s, char *text, size_t len,
		    struct drv_arena *a, struct drv_error *err)
{
	r->base = r->p = text;
	r->end = text + len;
	r->a = a;
	drv_arena_init(&r->each);
	r->err = err;
	r->depth = 0;
	drv_shape_what(s, r->what, sizeof(r->what));
}

static int decode(const struct drv_shape *s, char *text, size_t len, void *out,
		  struct drv_arena *a, struct special *sp, struct drv_error *err)
{
	struct rd r;
	rd_init(&r, s, text, len, a, err);
	memset(out, 0, s->size);
	int rc;
	if (peek(&r) != '{') {
		/* still JSON (or not), then: not an object */
		if ((rc = skip_value(&r)) < 0)
			return rc;
		if (peek(&r) != -1)
			return syntax(&r, "end of input expected");
		return drv_error_set(err, EBADMSG, "%s: field 'body': must be an object",
				     r.what);
	}
	rc = read_object(&r, s, out, NULL, sp);
	drv_arena_free(&r.each);
	if (rc < 0)
		return rc;
	return peek(&r) == -1 ? 0 : syntax(&r, "end of input expected");
}

int drv_shape_decode_text(const struct drv_shape *s, char *text, size_t len, void *out,
			  struct drv_arena *a, struct drv_error *err)
{
	return decode(s, text, len, out, a, NULL, err);
}

/* Reads one streamed item into elem. */
typedef int (*item_fn)(struct rd *r, struct special *sp, char *elem,
		       const struct path *p);

/* The items of an array, one at a time into elem, each given to sp->fn; what
 * an item allocates goes to an arena of its own, reset after each. */
static int stream_items(struct rd *r, struct special *sp, char *elem,
			const struct path *at, item_fn item)
{
	if (peek(r) != '[')
		return wrong_type(r, at, "must be an array");
	struct drv_arena *outer = r->a;
	size_t k = 0;
	int rc = open_container(r);
	r->a = &r->each;
	while (rc == 0 && (rc = next_item(r, ']', &k)) > 0) {
		struct path ep = {at, NULL, k - 1};
		if ((rc = item(r, sp, elem, &ep)) < 0 ||
		    (rc = sp->fn(elem, k - 1, sp->ctx)) < 0)
			break;
		rc = 0;
		drv_arena_reset(&r->each);
	}
	r->a = outer;
	return rc;
}

static int elem_item(struct rd *r, struct special *sp, char *elem, const struct path *p)
{
	return read_value(r, sp->elem, elem, p);
}

static int stream_elems(struct rd *r, struct special *sp, char *out,
			const struct path *at)
{
	(void)out;
	char *elem = drv_arena_alloc(r->a, drv_field_elem_size(sp->elem));
	return elem ? stream_items(r, sp, elem, at, elem_item) : oom(r);
}

int drv_shape_stream_array(const struct drv_shape *s, size_t field, char *text,
			   size_t len, void *out, struct drv_arena *a, drv_elem_fn fn,
			   void *ctx, struct drv_error *err)
{
	if (field >= s->n_fields || !s->fields[field].array)
		return drv_error_set(err, EINVAL, "%s: field %zu is not an array",
				     s->name, field);
	struct special sp = {.field = field,
			     .read = stream_elems,
			     .fn = fn,
			     .ctx = ctx,
			     .elem = &s->fields[field]};
	return decode(s, text, len, out, a, &sp, err);
}

/* One row: column k is the value of field cols[k] (none: skipped). */
static int row_item(struct rd *r, struct special *sp, char *rec, const struct path *rp)
{
	if (peek(r) != '[')
		return wrong_type(r, rp, "must be an array");
	struct seen sn = {{0}, {0}};
	size_t k = 0;
	memset(rec, 0, sp->rec->size);
	int rc = open_container(r);
	while (rc == 0 && (rc = next_item(r, ']', &k)) > 0) {
		const struct drv_field *f = k <= sp->n_cols ? sp->cols[k - 1] : NULL;
		if (k > sp->n_cols)
			return broken(r, rp, "more values than fields");
		if (!f || peek(r) == 'n') {
			rc = skip_value(r); /* an unknown column, or null: absent */
			continue;
		}
		struct path p = {rp, f->name, 0};
		rc = f->array ? read_array(r, f, rec, &p)
			      : read_value(r, f, rec + f->off, &p);
		set_bit(sn.set, (size_t)(f - sp->rec->fields));
		if (f->has_off)
			*(bool *)(rec + f->has_off - 1) = true;
	}
	return rc < 0 ? rc : finish_object(r, sp->rec, rec, rp, &sn, false);
}

/* The rows, once the names have been decoded into out. */
static int stream_rows(struct rd *r, struct special *sp, char *out, const struct path *at)
{
	const struct drv_field *nf = sp->names;
	const char *const *names = *(const char *const *const *)(out + nf->off);
	size_t n = *(const size_t *)(out + nf->n_off);
	if (nf->has_off ? !*(const bool *)(out + nf->has_off - 1) : n == 0)
		return broken(r, at, "comes before the field names");
	char *rec = drv_arena_alloc(r->a, sp->rec->size);
	sp->cols = drv_arena_alloc(r->a, (n ? n : 1) * sizeof(*sp->cols));
	if (!rec || !sp->cols)
		return oom(r);
	for (size_t i = 0; i < n; i++)
		sp->cols[i] = drv_shape_field(sp->rec, names[i]);
	sp->n_cols = n;
	return stream_items(r, sp, rec, at, row_item);
}

int drv_shape_stream_rows(const struct drv_shape *s, size_t names, size_t rows,
			  const struct drv_shape *rec, char *text, size_t len, void *out,
			  struct drv_arena *a, drv_elem_fn fn, void *ctx,
			  struct drv_error *err)
{
	if (names >= s->n_fields || rows >= s->n_fields || !s->fields[names].array ||
	    s->fields[names].type != DRV_F_STR || rec->n_fields > MAX_FIELDS)
		return drv_error_set(err, EINVAL, "%s: no rows to stream", s->name);
	struct special sp = {.field = rows,
			     .read = stream_rows,
			     .fn = fn,
			     .ctx = ctx,
			     .rec = rec,
			     .names = &s->fields[names]};
	return decode(s, text, len, out, a, &sp, err);
}
