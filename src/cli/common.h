/* common.h — what every client command shares: its name in messages,
 * loading the config silently, one call to ctld, --version, and small JSON
 * accessors.
 *
 * The program name is kept in one file-static of common.c, set once by
 * cli_init(); everything else is passed explicitly. */
#ifndef DRV_CLI_COMMON_H
#define DRV_CLI_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"
#include "common/schema.h"

/* Remembers prog (borrowed; a string literal) for cli_error() and friends. */
void cli_init(const char *prog);
const char *cli_prog(void);

/* Prints "PROG: error: MESSAGE\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints each line of text on stderr as Slurm's print_multi_line_string:
 * "PROG: LINE" (a site's job_submit.lua message to an accepted job), or
 * with error "PROG: error: LINE". Nothing for NULL. */
void cli_print_lines(const char *text, bool error);

/* ctld's refusal text "why\n...\nrc text": prints every line before the
 * last as an error (slurmctld's and the site's messages, which Slurm's
 * clients print first) and returns the last, borrowed from text. */
const char *cli_refusal_lines(const char *text);

/* Prints `Try "PROG --help" for more information` on stderr. */
void cli_try_help(void);

/* Prints "slurm 22.05.8 (drover VERSION)\n" on stdout. */
void cli_print_version(void);

/* SLURM_PRIO_PROCESS=the caller's nice value in our environment, as Slurm's
 * sbatch and srun set it for the job. */
void cli_set_prio_process_env(void);

/* Loads the config (resolved as drv_conf_resolve_path(NULL) does) without
 * printing warnings. On failure prints "PROG: error: ..." and returns
 * -errno; *out is untouched. The caller frees *out with drv_conf_free(). */
int cli_conf_load(struct drv_conf **out);

/* drv_client_call() with the same return convention; body is stolen. */
int cli_call(const struct drv_conf *conf, const char *type, json_t *body, json_t **reply,
	     struct drv_error *err);

/* JSON accessors on a borrowed object: a missing key or the wrong type gives
 * def. Returned strings are borrowed from obj. */
const char *cli_json_str(const json_t *obj, const char *key, const char *def);
int64_t cli_json_int(const json_t *obj, const char *key, int64_t def);
bool cli_json_bool(const json_t *obj, const char *key, bool def);

/* Sets field i of shape s in body to v (taking a new reference; nothing
 * when v is NULL): for the arrays the options keep as JSON, added to a body
 * encoded from s's struct. */
void cli_body_set(json_t *body, const struct drv_shape *s, size_t i, json_t *v);

/* Parses a whole decimal number in [min, max]. 0 or -EINVAL. */
int cli_parse_int(const char *s, int64_t min, int64_t max, int64_t *out);

#endif
