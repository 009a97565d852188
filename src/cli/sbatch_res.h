/* sbatch_res.h — the resource and policy options of sbatch (-n, -c, -N,
 * --mem*, --gpus*, --gres, --exclusive, --nice, -A, -q, -d, --open-mode,
 * -i) checked and converted as Slurm's sbatch converts them, and written
 * into a job.submit body (docs/protocol.md). Pure: no I/O; errors come back
 * as Slurm's message text for the caller to print. */
#ifndef DRV_CLI_SBATCH_RES_H
#define DRV_CLI_SBATCH_RES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/sbatch_opts.h"
#include "common/error.h"

#define SBATCH_UNSET INT64_MIN

/* What a job asks for; SBATCH_UNSET marks a number not given. Strings are
 * borrowed from the options they came from, except gpu_type which points
 * into type_buf. */
struct sbatch_res {
	int64_t ntasks, cpus_per_task, ntasks_per_node, nodes, nodes_max;
	int64_t mem_per_node, mem_per_cpu, mem_per_gpu; /* MiB */
	int64_t gpus, gpus_per_node, nice;
	bool exclusive, oversubscribe;
	const char *gpu_type, *account, *qos, *dependency, *open_mode, *input;
	const char *array; /* --array as given */
	char type_buf[64];
};

/* Slurm's str_to_mbytes: a whole number with an optional K, M, G or T
 * (any case, optionally followed by B); no suffix means MiB; K rounds up.
 * Returns 0 and *mib, or -EINVAL. */
int sbatch_mem_parse(const char *s, int64_t *mib);

/* "[type:]N" as --gpus and --gpus-per-node take it. *type is "" or the type
 * copied into type (type_len bytes). Returns 0 or -EINVAL. */
int sbatch_gpus_parse(const char *s, int64_t *count, char *type, size_t type_len);

/* A --gres list ("gpu:2", "gpu:a100:1", "gres:gpu", "gpu:2,foo:1"). Only gpu
 * is known: any other name is -ENOENT; a bad count is -EINVAL. *count is 0
 * when the list names no gpu ("none"). */
int sbatch_gres_parse(const char *s, int64_t *count, char *type, size_t type_len);

/* "MIN[-MAX]" of -N. *max is SBATCH_UNSET without a MAX. */
int sbatch_nodes_parse(const char *s, int64_t *min, int64_t *max);

/* Checks and converts every option of o into *r. On a bad value returns
 * -EDOM when Slurm's option parser itself refuses it (sbatch then exits
 * 255), else -EINVAL (exit 1), with Slurm's message in err ("Invalid --mem
 * specification");
 * err->text starting with "fatal: " asks the caller to print it as such,
 * "submit: " as a refused submission. */
int sbatch_res_from_opts(const struct sbatch_opts *o, struct sbatch_res *r,
			 struct drv_error *err);

/* Adds the fields that were given to body (borrowed). Returns 0 or
 * -ENOMEM. */
int sbatch_res_to_json(const struct sbatch_res *r, json_t *body);

#endif
