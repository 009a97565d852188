/* sbatch_env.h — the job environment sbatch sends, built from the submit
 * environment and --export. Pure: the caller passes the environment in. */
#ifndef DRV_CLI_SBATCH_ENV_H
#define DRV_CLI_SBATCH_ENV_H

#include <stddef.h>

#include "common/error.h"

/* spec is --export as given (NULL means "ALL"): "ALL", "NONE", "ALL,K=V,...",
 * or a list of K=V / K entries; values may be quoted ('a b', "x,y").
 * With ALL the whole of envp (borrowed, NULL-terminated) is passed, then the
 * listed entries override it; otherwise only envp's SLURM_* variables plus
 * the listed ones (a bare K copies K from envp when it is set).
 * On success *out is a new NULL-terminated array of *n malloc'd "K=V"
 * strings (free with sbatch_words_free). Returns 0, -EINVAL with err, or
 * -ENOMEM. */
int sbatch_env_build(const char *spec, char *const *envp, char ***out, size_t *n,
		     struct drv_error *err);

#endif
