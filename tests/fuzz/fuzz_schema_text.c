/* fuzz_schema_text.c — the text decoder (common/schema_text.h) against the
 * tree decoder over every declared shape: the first byte picks the shape, the
 * rest is the text both are given. They must agree on accepting or refusing
 * it and, when both accept, on what the decoded struct encodes to. */
#include "fuzz.h"
#include "schema_text_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct drv_shape *s = drv_all_shapes[data[0] % drv_n_all_shapes];
	struct text_diff d;
	if (!text_diff(s, (const char *)data + 1, size - 1, &d)) {
		fprintf(stderr, "%s: %s\n", s->name, d.why);
		abort();
	}
	return 0;
}
