/* fuzz_schema.c — the generic decoder (common/schema.h) over every declared
 * shape: the first byte picks the shape, the rest is the JSON it is given.
 *
 * Whatever the input, decoding must not crash or leak; validation and
 * decoding must agree; and an accepted body must encode to a body that
 * decodes again and encodes to the same thing (what a peer receives is what
 * was meant). An accepted body also goes the way a received one goes in the
 * daemons: its declared defaults filled in (still valid afterwards), then
 * drv_shape_decode_valid, which trusts the validation, to the same
 * encoding as the checked decoder gives. */
#include <stdlib.h>

#include "common/proto_gen.h"
#include "fuzz.h"

/* decode(x) into a fresh struct, then encode: a new reference, or NULL when
 * x is refused. */
static json_t *through(const struct drv_shape *s, json_t *x)
{
	struct drv_error err;
	void *m = calloc(1, s->size);
	if (!m)
		abort();
	int rc = drv_shape_decode(s, x, m, &err);
	if ((rc == 0) != (drv_shape_validate(s, x, &err) == 0))
		abort(); /* the decoder and the validator disagree */
	json_t *out = rc == 0 ? drv_shape_encode(s, m, 0) : NULL;
	if (rc == 0 && !out)
		abort();
	drv_shape_free(s, m);
	free(m);
	return out;
}

/* What a daemon does with a body that passed validation: defaults, then the
 * decoder that does not check again. Both decoders must agree. */
static void as_received(const struct drv_shape *s, json_t *x)
{
	struct drv_error err;
	json_t *body = json_deep_copy(x);
	if (!body)
		abort();
	drv_shape_fill_defaults(s, body);
	if (drv_shape_validate(s, body, &err) != 0)
		abort(); /* defaults made a valid body invalid */
	void *m = calloc(1, s->size);
	if (!m)
		abort();
	if (drv_shape_decode_valid(s, body, m, &err) != 0)
		abort();
	json_t *fast = drv_shape_encode(s, m, 0);
	json_t *checked = through(s, body);
	if (!fast || !checked || !json_equal(fast, checked))
		abort();
	json_decref(fast);
	json_decref(checked);
	drv_shape_free(s, m);
	free(m);
	json_decref(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct drv_shape *s = drv_all_shapes[data[0] % drv_n_all_shapes];
	json_t *x = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
	if (!x)
		return 0;
	json_t *once = through(s, x);
	if (once) {
		as_received(s, x);
		json_t *twice = through(s, once);
		if (!twice || !json_equal(once, twice))
			abort();
		json_decref(twice);
	}
	json_decref(once);
	json_decref(x);
	return 0;
}
