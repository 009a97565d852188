/* gpu_bind.c — which of a node's step GPUs one task sees: --gpus-per-task's
 * slice, or srun's --gpu-bind (Slurm's gres/gpu binding, which needs no
 * task plugin): single:N (N tasks share each GPU, in order), per_task:N,
 * map_gpu:ID,... and mask_gpu:MASK,... (one entry per local task, reused
 * round robin; IDs are the node's GPU indices). closest and none, or no
 * binding, give the task every GPU of the step. Pure. */
#include <stdlib.h>
#include <string.h>

#include "shepherd/shepherd.h"

/* The list entry for local task `local` of "a,b,c" (round robin). */
static long long list_entry(const char *list, uint32_t local, int base, bool *ok)
{
	size_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	size_t want = local % n;
	const char *p = list;
	for (size_t i = 0; i < want; i++)
		p = strchr(p, ',') + 1;
	char *end;
	long long v = strtoll(p, &end, base);
	*ok = end != p && (*end == ',' || !*end) && v >= 0;
	return v;
}

static bool has(json_t *gpus, long long id)
{
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g) if (json_integer_value(g) == id) return true;
	return false;
}

json_t *gpu_bind_pick(json_t *gpus, const char *bind, int64_t per_task, uint32_t local)
{
	json_t *mine = json_array();
	size_t n = json_array_size(gpus);
	if (bind && !strncmp(bind, "verbose,", 8))
		bind += 8;
	long long k;
	bool ok = false;
	if (bind && !strncmp(bind, "single:", 7) &&
	    (k = strtoll(bind + 7, NULL, 10)) > 0) {
		json_array_append(mine, json_array_get(gpus, (size_t)(local / k) % n));
	} else if (bind && !strncmp(bind, "per_task:", 9) &&
		   (k = strtoll(bind + 9, NULL, 10)) > 0) {
		for (long long i = 0; i < k && i < (long long)n; i++)
			json_array_append(
			    mine, json_array_get(gpus, (size_t)(local * k + i) % n));
	} else if (bind && !strncmp(bind, "map_gpu:", 8)) {
		long long id = list_entry(bind + 8, local, 10, &ok);
		if (ok && has(gpus, id))
			json_array_append_new(mine, json_integer(id));
	} else if (bind && !strncmp(bind, "mask_gpu:", 9)) {
		long long mask = list_entry(bind + 9, local, 16, &ok);
		for (int g = 0; ok && g < 63; g++)
			if (mask >> g & 1 && has(gpus, g))
				json_array_append_new(mine, json_integer(g));
	} else {
		for (size_t g = 0; g < n; g++)
			if (per_task <= 0 || (g >= local * (size_t)per_task &&
					      g < (local + 1) * (size_t)per_task))
				json_array_append(mine, json_array_get(gpus, g));
	}
	return mine;
}
