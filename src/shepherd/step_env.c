/* step_env.c — the environment a step's tasks start from on one node:
 * what srun sent, ctld's SLURM_* of the job and step, this node's own
 * (SLURMD_NODENAME, SLURM_NODEID, SLURM_CPUS_ON_NODE, SLURM_GTIDS, the
 * config's path) and each task's GPUs. Pure but for allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shepherd/shepherd.h"

static int64_t num(json_t *o, const char *key, int64_t def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

static char *joined(json_t *a)
{
	size_t cap = 16 + json_array_size(a) * 8, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	buf[0] = '\0';
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
	{
		char item[32];
		int n = snprintf(item, sizeof(item), "%s%lld", i ? "," : "",
				 (long long)json_integer_value(x));
		if (len + (size_t)n + 1 > cap) {
			cap = (len + (size_t)n + 1) * 2;
			char *g = realloc(buf, cap);
			if (!g) {
				free(buf);
				return NULL;
			}
			buf = g;
		}
		memcpy(buf + len, item, (size_t)n + 1);
		len += (size_t)n;
	}
	return buf;
}

static int put_entries(char ***env, json_t *arr)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		const char *e = json_string_value(x), *eq = e ? strchr(e, '=') : NULL;
		if (!eq)
			continue;
		char name[256];
		size_t nlen = (size_t)(eq - e);
		if (nlen == 0 || nlen >= sizeof(name))
			continue;
		memcpy(name, e, nlen);
		name[nlen] = '\0';
		if (env_set(env, name, eq + 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int put_int(char ***env, const char *name, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	return env_set(env, name, buf);
}

/* GPUs of this node's share: all of them, or --gpus-per-task's slice. */
int step_env_gpus(char ***env, json_t *spec, uint32_t local)
{
	json_t *gpus = json_object_get(spec, "gpus");
	size_t n = json_array_size(gpus);
	if (!n)
		return 0;
	const char *bind = json_string_value(json_object_get(spec, "gpu_bind"));
	json_t *mine = gpu_bind_pick(gpus, bind, num(spec, "gpus_per_task", 0), local);
	char *all = joined(gpus), *list = joined(mine);
	int rc = !all || !list ? -ENOMEM : 0;
	if (!rc)
		rc = env_set(env, "SLURM_STEP_GPUS", all) |
		     put_int(env, "SLURM_GPUS_ON_NODE", (long long)n) |
		     env_set(env, "CUDA_VISIBLE_DEVICES", list) |
		     env_set(env, "GPU_DEVICE_ORDINAL", list);
	free(all);
	free(list);
	json_decref(mine);
	return rc;
}

char **step_env_node(json_t *spec, const char *node, const char *conf_path)
{
	char **env = calloc(1, sizeof(*env));
	if (!env)
		return NULL;
	char *gtids = joined(json_object_get(spec, "tasks"));
	int rc = !gtids ? -ENOMEM : 0;
	rc |= put_entries(&env, json_object_get(spec, "env"));
	rc |= put_entries(&env, json_object_get(spec, "step_env"));
	rc |= env_set(&env, "SLURMD_NODENAME", node);
	rc |= put_int(&env, "SLURM_NODEID", num(spec, "node_id", 0));
	rc |= put_int(&env, "SLURM_CPUS_ON_NODE", num(spec, "cpus_on_node", 1));
	rc |= env_set(&env, "SLURM_GTIDS", gtids ? gtids : "");
	rc |= env_set(&env, "SLURM_TOPOLOGY_ADDR", node);
	rc |= env_set(&env, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	if (conf_path)
		rc |= env_set(&env, "SLURM_CONF", conf_path) |
		      env_set(&env, "DROVER_CONF", conf_path);
	free(gtids);
	if (rc) {
		env_free(env);
		return NULL;
	}
	return env;
}
