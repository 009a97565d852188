/* sbatch_nodefile.c — node names read from a file, for -F/--nodefile and
 * a -w/--nodelist that names a file (it contains a '/'), as Slurm's
 * slurm_read_hostfile: names separated by white space or commas. */
#include "cli/sbatch_nodefile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbatch_nodefile_read(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, '\0', f); /* the whole file */
	int e = n < 0 && !feof(f) ? (errno ? -errno : -EIO) : 0;
	fclose(f);
	if (e) {
		free(text);
		return e;
	}
	if (n < 0) { /* empty */
		free(text);
		text = strdup("");
		if (!text)
			return -ENOMEM;
		n = 0;
	}
	/* names separated by white space or commas become a comma list */
	size_t len = 0;
	bool sep = false;
	for (ssize_t i = 0; i < n; i++) {
		char c = text[i];
		if (isspace((unsigned char)c) || c == ',') {
			sep = len > 0;
			continue;
		}
		if (sep)
			text[len++] = ',';
		sep = false;
		text[len++] = c;
	}
	text[len] = '\0';
	*out = text;
	return 0;
}
