/* replay_main.c — runs a fuzz target over files, without libFuzzer.
 *
 * Usage: fuzz_TARGET PATH...  where each PATH is a file or a directory whose
 * regular files (not dot files) are replayed in name order. Each input is
 * handed to LLVMFuzzerTestOneInput in a buffer of exactly its size, so that
 * ASan catches a read past its end. This is how `make check` (plain and
 * ASan) keeps every seed corpus passing; it must not grow into a fuzzer. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads path whole into a new buffer of exactly its size (*data, caller
 * frees). Returns 0 or -errno. */
static int read_all(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			uint8_t *p = realloc(buf, ncap);
			if (!p) {
				rc = -ENOMEM;
				break;
			}
			buf = p;
			cap = ncap;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f))
				rc = -EIO;
			break;
		}
	}
	fclose(f);
	/* An exact-size copy: the spare capacity would hide overreads. */
	uint8_t *exact = rc == 0 ? malloc(len ? len : 1) : NULL;
	if (rc == 0 && !exact)
		rc = -ENOMEM;
	if (exact)
		memcpy(exact, buf, len);
	free(buf);
	if (rc < 0)
		return rc;
	*data = exact;
	*size = len;
	return 0;
}

static int replay_file(const char *path)
{
	uint8_t *data = NULL;
	size_t size = 0;
	int rc = read_all(path, &data, &size);
	if (rc < 0) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(-rc));
		return rc;
	}
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Replays every regular file of dir in name order; adds them to *count. */
static int replay_dir(const char *dir, size_t *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, visible, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: cannot list %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = replay_file(path);
			if (rc == 0)
				(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int rc;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			rc = replay_dir(argv[i], &count);
		} else {
			rc = replay_file(argv[i]);
			count += rc == 0;
		}
		if (rc < 0)
			return 1;
	}
	/* An empty corpus tests nothing: say so rather than pass. */
	if (count == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	printf("replayed %zu inputs\n", count);
	return 0;
}
