/* fuzz_conf.c — drover.conf as an admin (or `drover up`) writes it
 * (common/conf.h), with its Include lines.
 *
 * Each input is written to fuzz.conf in a temp dir made once per process,
 * loaded with drv_conf_load, looked into the way the daemons do and freed.
 * The dir also holds nodes.conf, so that "Include nodes.conf" reads a real
 * file. Include is the one key that makes the parser open a path; so that
 * an input cannot name a device or a FIFO, an input that mentions "include"
 * has its '/' replaced and can only reach files in the temp dir, and one
 * that names it more than once is skipped (each Include of the file itself
 * doubles the work, 16 levels deep). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "fuzz.h"

static char dir[64];
static char conf_path[96];
static char nodes_path[96];

static void cleanup(void)
{
	unlink(conf_path);
	unlink(nodes_path);
	rmdir(dir);
}

/* Makes the temp dir and its nodes.conf on the first call. */
static int setup(void)
{
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/drover-fuzz-conf.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	snprintf(conf_path, sizeof(conf_path), "%s/fuzz.conf", dir);
	snprintf(nodes_path, sizeof(nodes_path), "%s/nodes.conf", dir);
	FILE *f = fopen(nodes_path, "w");
	if (!f)
		return -1;
	fputs("NodeName=inc[1-2] CPUs=4 RealMemory=1000 Gres=gpu:2\n", f);
	fclose(f);
	atexit(cleanup);
	return 0;
}

static void count_warning(const char *msg, void *arg)
{
	(*(size_t *)arg) += strlen(msg) > 0;
}

/* What the daemons look up in a config they loaded. */
static void use_conf(const struct drv_conf *c)
{
	const struct drv_part_conf *def = drv_conf_default_part(c);
	if (def && drv_conf_part(c, def->name) != def)
		abort();
	for (size_t i = 0; i < c->n_nodes; i++) {
		const struct drv_node_conf *node = &c->nodes[i];
		if (drv_conf_node(c, node->name) != node)
			abort();
		free(drv_conf_node_path(c->slurmd_spool_dir, node->name, node->hostname));
		free(drv_conf_node_path(c->slurmd_log_file, node->name, node->hostname));
	}
	for (size_t i = 0; i < c->n_parts; i++)
		for (size_t j = 0; j < c->parts[i].n_nodes; j++)
			if (!drv_conf_node(c, c->parts[i].node_names[j]))
				abort();
}

/* How often "include" appears in the input in any case, NUL bytes and all:
 * getline hands the parser every line, whatever came before a NUL. */
static size_t count_include(const uint8_t *data, size_t size)
{
	static const char word[] = "include";
	size_t count = 0;
	for (size_t i = 0; i + sizeof(word) - 1 <= size; i++) {
		size_t k = 0;
		while (k < sizeof(word) - 1 && tolower(data[i + k]) == word[k])
			k++;
		count += k == sizeof(word) - 1;
	}
	return count;
}

/* Writes the input, taming Include as the header says; -1 to skip it. */
static int write_input(const uint8_t *data, size_t size)
{
	size_t includes = count_include(data, size);
	if (includes > 1)
		return -1;
	uint8_t *s = malloc(size ? size : 1);
	if (!s)
		return -1;
	for (size_t i = 0; i < size; i++)
		s[i] = includes && data[i] == '/' ? '_' : data[i];
	FILE *f = fopen(conf_path, "w");
	size_t put = f ? fwrite(s, 1, size, f) : 0;
	int rc = f && fclose(f) == 0 && put == size ? 0 : -1;
	free(s);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drv_conf *conf = NULL;
	struct drv_error err;
	size_t warnings = 0;

	if (setup() < 0)
		abort();
	if (write_input(data, size) < 0)
		return 0;
	if (drv_conf_load(conf_path, count_warning, &warnings, &conf, &err) == 0) {
		use_conf(conf);
		drv_conf_free(conf);
	}
	return 0;
}
