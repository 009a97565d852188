/* fuzz_timefmt.c — time limits as users write them (-t, --time, #SBATCH,
 * TimeLimit=) and the formatters that print them (common/timefmt.h).
 *
 * The input, cut at 64 bytes and NUL-terminated, goes to
 * drv_time_parse_limit; an accepted limit printed by drv_time_fmt_limit
 * must parse back to itself (scontrol prints what `scontrol update` reads).
 * The input's first bytes, read as an int64, also go through every
 * formatter into a buffer of exactly the size the input picks, so that
 * ASan sees any write past the length the caller gave. */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/timefmt.h"
#include "fuzz.h"

#define INPUT_MAX 64
#define DAYS_PRINTABLE 1000000000LL /* a day count of at most 9 digits reads back */

static void check_round_trip(int64_t secs)
{
	char buf[64], el[64];
	int64_t back = -3;
	drv_time_fmt_limit(secs, buf, sizeof(buf));
	drv_time_fmt_elapsed(secs, el, sizeof(el));
	if (secs / 86400 >= DAYS_PRINTABLE)
		return;
	if (drv_time_parse_limit(buf, &back) < 0 || back != secs)
		abort();
}

/* Every formatter on v into a buffer of exactly len bytes. */
static void format_all(int64_t v, size_t len)
{
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return;
	drv_time_fmt_elapsed(v, buf, len);
	drv_time_fmt_limit(v, buf, len);
	drv_time_fmt_iso((time_t)v, buf, len);
	if (len > 0 && strlen(buf) >= len)
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[INPUT_MAX + 1];
	size_t n = size < INPUT_MAX ? size : INPUT_MAX;
	memcpy(s, data, n);
	s[n] = '\0';

	int64_t secs = -3;
	if (drv_time_parse_limit(s, &secs) == 0) {
		if (secs < 0 && secs != DRV_INFINITE)
			abort();
		check_round_trip(secs);
	} else if (secs != -3) {
		abort(); /* a refused limit sets nothing */
	}

	if (size >= 9) {
		int64_t v;
		memcpy(&v, data, sizeof(v));
		format_all(v, data[8] % 40);
		format_all(secs, data[8] % 40);
	}
	return 0;
}
