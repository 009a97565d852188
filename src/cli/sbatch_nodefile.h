/* sbatch_nodefile.h — reading a node file (-F, or -w PATH). */
#ifndef DRV_CLI_SBATCH_NODEFILE_H
#define DRV_CLI_SBATCH_NODEFILE_H

#include <stdbool.h>

/* The names in path as one comma list: *out is new (free()). Returns 0 or
 * -errno (the file could not be read). */
int sbatch_nodefile_read(const char *path, char **out);

#endif
