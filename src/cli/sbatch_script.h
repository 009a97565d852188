/* sbatch_script.h — the batch script as sbatch sees it: the "#!" check, the
 * #SBATCH directive words, and the script --wrap builds. Pure functions on
 * memory; no I/O. */
#ifndef DRV_CLI_SBATCH_SCRIPT_H
#define DRV_CLI_SBATCH_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

/* True when the script's first line starts with "#!". */
bool sbatch_script_has_shebang(const char *script, size_t len);

/* Collects the words of the #SBATCH lines that follow the first line, up to
 * the first line that is neither blank nor a comment. Words are split on
 * blanks; '...' and "..." group and are removed; a backslash escapes the
 * next character; an unquoted '#' ends the directive (a trailing comment).
 * On success *words is a new NULL-terminated array of *n malloc'd strings
 * (free with sbatch_words_free). Returns 0 or -ENOMEM. */
int sbatch_script_directives(const char *script, size_t len, char ***words, size_t *n);

void sbatch_words_free(char **words, size_t n);

/* "#!/bin/sh\n" CMD "\n" — a new malloc'd string, or NULL. */
char *sbatch_script_wrap(const char *cmd);

#endif
