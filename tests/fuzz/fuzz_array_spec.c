/* fuzz_array_spec.c — sbatch --array specs as users write them ("0-99%4",
 * "1,3,5", "0-15:4"; common/array_spec.h), which ctld parses on submit.
 *
 * The input, cut at 128 bytes, is parsed under a MaxArraySize of 100001;
 * an accepted set is written back, and that text must parse (with no bound,
 * as recovery reads it) to the same set and write back to itself. Then every
 * index is cleared in turn: the count must reach 0 and first() follow. */
#include <stdlib.h>
#include <string.h>

#include "common/array_spec.h"
#include "fuzz.h"

#define INPUT_MAX 128

static void check_same(const struct drv_array *a, const struct drv_array *b)
{
	if (a->count != b->count || a->min != b->min || a->max != b->max)
		abort();
	for (uint32_t i = a->min; a->count && i <= a->max; i++)
		if (drv_array_test(a, i) != drv_array_test(b, i))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[INPUT_MAX + 1];
	size_t len = size < INPUT_MAX ? size : INPUT_MAX;
	memcpy(spec, data, len);
	spec[len] = '\0';

	struct drv_array a, b;
	if (drv_array_parse(spec, 100001, &a) < 0)
		return 0;
	if (a.count == 0 || a.max >= 100001)
		abort();
	char *s = drv_array_format(&a, a.throttle);
	if (!s || drv_array_parse(s, 0, &b) < 0)
		abort();
	check_same(&a, &b);
	char *s2 = drv_array_format(&b, b.throttle);
	if (!s2 || strcmp(s, s2) != 0)
		abort();
	while (a.count) {
		int64_t first = drv_array_first(&a);
		if (first < 0 || !drv_array_test(&a, (uint32_t)first))
			abort();
		drv_array_clear(&a, (uint32_t)first);
	}
	if (drv_array_first(&a) != -1)
		abort();
	free(s);
	free(s2);
	drv_array_fini(&a);
	drv_array_fini(&b);
	return 0;
}
