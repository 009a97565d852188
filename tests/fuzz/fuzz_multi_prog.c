/* fuzz_multi_prog.c — srun --multi-prog files as users write them
 * (cli/multi_prog.h).
 *
 * The first byte picks the task count (1..64), the rest (cut at 4 KiB) is
 * the file's text. An accepted file must give every task a program (an
 * empty one is accepted, as Slurm's, and fails at exec); a refused one must
 * say why. */
#include <stdlib.h>
#include <string.h>

#include "cli/multi_prog.h"
#include "fuzz.h"

#define INPUT_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t ntasks = 1 + data[0] % 64;
	char text[INPUT_MAX + 1];
	size_t n = size - 1 < INPUT_MAX ? size - 1 : INPUT_MAX;
	memcpy(text, data + 1, n);
	text[n] = '\0';
	struct multi_prog mp;
	struct drv_error err = {{0}};
	if (multi_prog_parse(text, "fuzz.conf", ntasks, &mp, &err) < 0) {
		if (!err.text[0])
			abort(); /* a refusal names its reason */
		return 0;
	}
	if (mp.ntasks != ntasks)
		abort();
	for (uint32_t t = 0; t < ntasks; t++)
		if (!mp.argv[t] || !mp.argv[t][0])
			abort(); /* every task has a program ('' is one, as in Slurm) */
	multi_prog_fini(&mp);
	return 0;
}
