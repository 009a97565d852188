/* fuzz_sbatch_script.c — a batch script as a user hands it to sbatch: the
 * "#!" check and the #SBATCH directive words (cli/sbatch_script.h).
 *
 * The script is passed by pointer and length with no terminating NUL, as
 * sbatch reads it from a file, so ASan sees a read past its end. The word
 * array must be NULL-terminated and hold no word longer than the script.
 * sbatch_script_wrap gets the input as a --wrap command. */
#include <stdlib.h>
#include <string.h>

#include "cli/sbatch_script.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *script = (const char *)data;
	char **words = NULL;
	size_t n = 0;

	(void)sbatch_script_has_shebang(script, size);
	if (sbatch_script_directives(script, size, &words, &n) == 0) {
		if (!words || words[n])
			abort();
		for (size_t i = 0; i < n; i++)
			if (strlen(words[i]) > size)
				abort();
		sbatch_words_free(words, n);
	}

	char *cmd = malloc(size + 1);
	if (!cmd)
		return 0;
	memcpy(cmd, data, size);
	cmd[size] = '\0';
	char *wrapped = sbatch_script_wrap(cmd);
	if (wrapped && strncmp(wrapped, "#!/bin/sh\n", 10) != 0)
		abort();
	free(wrapped);
	free(cmd);
	return 0;
}
