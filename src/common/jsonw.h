/* jsonw.h — writing JSON text directly, for bulk replies (DESIGN.md "Read
 * path": rows are streamed, not built as a tree first). The output is
 * byte-identical to jansson's JSON_COMPACT encoding of the same values, so
 * a digest over it equals the digest of the parsed-and-redumped text. */
#ifndef DRV_JSONW_H
#define DRV_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct drv_jw {
	char *buf; /* owned; NUL-terminated while !oom */
	size_t len, cap;
	bool oom; /* an allocation failed: the text is unusable */
};

void drv_jw_init(struct drv_jw *w);
void drv_jw_fini(struct drv_jw *w);
void drv_jw_raw(struct drv_jw *w, const char *s, size_t n); /* as is */
/* A string literal as is, its length taken by the compiler. */
#define drv_jw_lit(w, lit) drv_jw_raw((w), "" lit, sizeof(lit) - 1)
void drv_jw_str(struct drv_jw *w, const char *s); /* a JSON string; NULL: null */
void drv_jw_int(struct drv_jw *w, int64_t v);

#endif
