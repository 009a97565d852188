/* multi_prog.h — srun --multi-prog configuration files (srun(1),
 * "MULTIPLE PROGRAM CONFIGURATION"): one line per task range,
 * "TASKSPEC PROGRAM [ARGS...]", '#' comments and blank lines skipped;
 * TASKSPEC is a comma list of ids and ranges ("0-3,7") or '*' (every task
 * not named yet; it must be on the last line); '...' and "..." quote an
 * argument; in arguments %t is the task id and %o the task's offset within
 * its line's list. */
#ifndef DRV_CLI_MULTI_PROG_H
#define DRV_CLI_MULTI_PROG_H

#include <stdint.h>

#include "common/error.h"

struct multi_prog {
	uint32_t ntasks;
	char ***argv; /* [ntasks]: each a NULL-terminated argv, argv[t][0] the program */
};

/* Reads path for tasks 0..ntasks-1 into *mp (owned by the caller:
 * multi_prog_fini). On a bad file returns -EINVAL (or the errno of an
 * unreadable file, -ENOMEM) with Slurm's message in err, which may hold two
 * lines split by '\n' ("Duplicate record for task 0\nLine 2 of
 * configuration file FILE invalid"): the caller prints each line as
 * "srun: error: LINE" and exits 1. *mp is untouched on failure. */
int multi_prog_load(const char *path, uint32_t ntasks, struct multi_prog *mp,
		    struct drv_error *err);

/* Parses the text of a file (name is only for messages); as multi_prog_load. */
int multi_prog_parse(const char *text, const char *name, uint32_t ntasks,
		     struct multi_prog *mp, struct drv_error *err);

void multi_prog_fini(struct multi_prog *mp);

#endif
