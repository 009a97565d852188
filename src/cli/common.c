/* common.c — shared plumbing of the client commands: message prefixes,
 * silent config loading, the ctld call and JSON accessors.
 * It prints nothing on success unless asked to (cli_print_lines). */
#include "cli/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/client.h"
#include "drv_config.h"

static const char *prog_name = "drover";

void cli_init(const char *prog)
{
	prog_name = prog;
}

const char *cli_prog(void)
{
	return prog_name;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_print_lines(const char *text, bool error)
{
	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, "\n");
		if (n)
			fprintf(stderr, "%s: %s%.*s\n", prog_name, error ? "error: " : "",
				(int)n, s);
		s += n + (s[n] == '\n');
	}
}

const char *cli_refusal_lines(const char *text)
{
	const char *nl = strrchr(text, '\n');
	if (!nl)
		return text;
	for (const char *s = text; s < nl;) {
		size_t n = strcspn(s, "\n");
		if (n)
			cli_error("%.*s", (int)n, s);
		s += n + 1;
	}
	return nl + 1;
}

void cli_try_help(void)
{
	fprintf(stderr, "Try \"%s --help\" for more information\n", prog_name);
}

void cli_print_version(void)
{
	printf("slurm 22.05.8 (drover %s)\n", DRV_VERSION);
}

int cli_conf_load(struct drv_conf **out)
{
	struct drv_error err = {{0}};
	char *path = drv_conf_resolve_path(NULL);
	int rc;

	if (!path) {
		cli_error("Unable to determine the configuration file");
		return -ENOMEM;
	}
	rc = drv_conf_load(path, NULL, NULL, out, &err);
	if (rc < 0)
		cli_error("Unable to load configuration %s: %s", path, err.text);
	free(path);
	return rc;
}

int cli_call(const struct drv_conf *conf, const char *type, json_t *body, json_t **reply,
	     struct drv_error *err)
{
	int rc = drv_client_call(conf, type, body, reply, err);

	json_decref(body);
	return rc;
}

const char *cli_json_str(const json_t *obj, const char *key, const char *def)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : def;
}

int64_t cli_json_int(const json_t *obj, const char *key, int64_t def)
{
	const json_t *v = json_object_get(obj, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (int64_t)json_real_value(v);
	return def;
}

bool cli_json_bool(const json_t *obj, const char *key, bool def)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_boolean(v) ? json_is_true(v) : def;
}

void cli_body_set(json_t *body, const struct drv_shape *s, size_t i, json_t *v)
{
	if (v)
		json_object_set(body, s->fields[i].name, v);
}

int cli_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end = NULL;
	long long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

void cli_set_prio_process_env(void)
{
	errno = 0;
	int nice_value = getpriority(PRIO_PROCESS, 0);
	if (nice_value == -1 && errno)
		nice_value = 0;
	char buf[16];
	snprintf(buf, sizeof(buf), "%d", nice_value);
	setenv("SLURM_PRIO_PROCESS", buf, 1);
}
