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
	size_t cap = 256, len = 0;
	char *buf = malloc(cap);
	bool sep = true; /* at the start of a name */
	int c;
	while (buf && (c = fgetc(f)) != EOF) {
		bool space = isspace(c) || c == ',';
		if (space) {
			sep = true;
			continue;
		}
		if (len + 3 > cap) {
			char *n = realloc(buf, cap *= 2);
			if (!n) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = n;
		}
		if (sep && len)
			buf[len++] = ',';
		sep = false;
		buf[len++] = (char)c;
	}
	fclose(f);
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*out = buf;
	return 0;
}
