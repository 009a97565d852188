/* sbatch_res.c — checks sbatch's resource and policy options and converts
 * them to job.submit fields. Each check prints (through the caller) the
 * message Slurm's sbatch prints for the same value; GPU requests Slurm only
 * checks in slurmctld are refused here with slurmctld's text, so the
 * output is the same and nothing is submitted. */
#include "cli/sbatch_res.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/proto_gen.h"

#define NICE_MAX 2147483645LL /* Slurm's NICE_OFFSET - 3 */
#define GRES_ERROR "submit: Invalid generic resource (gres) specification"

int sbatch_mem_parse(const char *s, int64_t *mib)
{
	char *end = NULL;
	long long v;
	int64_t mult = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case '\0':
	case 'M':
		break;
	case 'K':
		mult = 0; /* rounds up below */
		break;
	case 'G':
		mult = 1024;
		break;
	case 'T':
		mult = 1024 * 1024;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]))
		return -EINVAL;
	if (mult == 0)
		v = v / 1024 + (v % 1024 != 0); /* v + 1023 could pass INT64_MAX */
	else if (v > INT64_MAX / mult)
		return -EINVAL;
	else
		v *= mult;
	*mib = v;
	return 0;
}

/* A count: decimal, >= 0 (0 is refused by the callers where Slurm does). */
static int count_parse(const char *s, size_t len, int64_t *out)
{
	char buf[32];
	char *end = NULL;
	long long v;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end || v > 100000)
		return -EINVAL;
	*out = v;
	return 0;
}

static int copy_type(const char *s, size_t len, char *type, size_t type_len)
{
	if (len == 0 || len >= type_len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return -EINVAL;
	memcpy(type, s, len);
	type[len] = '\0';
	return 0;
}

int sbatch_gpus_parse(const char *s, int64_t *count, char *type, size_t type_len)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	int64_t n;

	if (!s)
		return -EINVAL;
	if (count_parse(colon ? colon + 1 : s, strlen(colon ? colon + 1 : s), &n) < 0 ||
	    n < 1)
		return -EINVAL;
	if (colon) {
		const char *t = s;
		if (!strncasecmp(t, "gpu:", 4) && colon > t + 3)
			t += 4; /* "gpu:type:N" is also accepted by Slurm */
		if (copy_type(t, (size_t)(colon - t), type, type_len) < 0)
			return -EINVAL;
		if (!strcasecmp(type, "gpu"))
			type[0] = '\0'; /* "gpu:N" */
	} else {
		type[0] = '\0';
	}
	*count = n;
	return 0;
}

/* One --gres item "name[:type][:count]"; for gpu sets *count and type. */
static int gres_item(const char *s, size_t len, int64_t *count, char *type,
		     size_t type_len)
{
	const char *end = s + len, *c1, *c2;

	if (len > 5 && (!strncasecmp(s, "gres:", 5) || !strncasecmp(s, "gres/", 5))) {
		s += 5;
		len -= 5;
	}
	c1 = memchr(s, ':', len);
	if ((c1 ? (size_t)(c1 - s) : len) != 3 || strncasecmp(s, "gpu", 3))
		return -ENOENT;
	type[0] = '\0';
	*count = 1;
	if (!c1)
		return 0;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (c2) {
		if (copy_type(c1 + 1, (size_t)(c2 - c1 - 1), type, type_len) < 0)
			return -EINVAL;
		return count_parse(c2 + 1, (size_t)(end - c2 - 1), count) < 0 ||
			       *count < 1
			   ? -EINVAL
			   : 0;
	}
	if (isdigit((unsigned char)c1[1]) || c1[1] == '-')
		return count_parse(c1 + 1, (size_t)(end - c1 - 1), count) < 0 ||
			       *count < 1
			   ? -EINVAL
			   : 0;
	return copy_type(c1 + 1, (size_t)(end - c1 - 1), type, type_len);
}

int sbatch_gres_parse(const char *s, int64_t *count, char *type, size_t type_len)
{
	int64_t n = 0;

	if (!s || !*s)
		return -EINVAL;
	type[0] = '\0';
	if (!strcasecmp(s, "none")) {
		*count = 0;
		return 0;
	}
	while (*s) {
		size_t len = strcspn(s, ",");
		int rc = len ? gres_item(s, len, &n, type, type_len) : -EINVAL;

		if (rc < 0)
			return rc;
		s += len;
		if (*s == ',' && !*++s)
			return -EINVAL;
	}
	*count = n;
	return 0;
}

int sbatch_nodes_parse(const char *s, int64_t *min, int64_t *max)
{
	char *end = NULL;
	long long lo, hi = SBATCH_UNSET;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	lo = strtoll(s, &end, 10);
	if (errno || lo < 1 || lo > 100000)
		return -EINVAL;
	if (*end == '-') {
		const char *h = end + 1;
		if (!isdigit((unsigned char)*h))
			return -EINVAL;
		hi = strtoll(h, &end, 10);
		if (errno || hi < lo || hi > 100000)
			return -EINVAL;
	}
	if (*end)
		return -EINVAL;
	*min = lo;
	*max = hi;
	return 0;
}

/* Slurm's parse_int(name, arg, positive=true). */
static int positive(const char *name, const char *arg, int64_t *out,
		    struct drv_error *err)
{
	char *end = NULL;
	long long v;

	if (!arg)
		return 0;
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end || v <= 0)
		return drv_error_set(err, EINVAL, "Invalid numeric value \"%s\" for %s.",
				     arg, name);
	if (errno || v > INT_MAX)
		return drv_error_set(err, EINVAL,
				     "Numeric argument (%lld) to big for %s.", v, name);
	*out = v;
	return 0;
}

static int mem_opt(const char *name, const char *arg, int64_t *out, struct drv_error *err)
{
	if (arg && sbatch_mem_parse(arg, out) < 0) {
		drv_error_set(err, EINVAL, "Invalid --%s specification", name);
		return -EDOM;
	}
	return 0;
}

static int nice_opt(const char *arg, int64_t *out, struct drv_error *err)
{
	char *end = NULL;
	long long v;

	if (!arg)
		return 0;
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end)
		return drv_error_set(err, EINVAL, "Invalid --nice value: %s", arg);
	if (errno || v > NICE_MAX || v < -NICE_MAX) /* llabs(LLONG_MIN) overflows */
		return drv_error_set(err, EINVAL,
				     "Invalid --nice value, out of range (+/- %lld)",
				     NICE_MAX);
	*out = v;
	return 0;
}

static int policy_opts(const struct sbatch_opts *o, struct sbatch_res *r,
		       struct drv_error *err)
{
	if (o->open_mode) {
		char c = (char)tolower((unsigned char)o->open_mode[0]);
		if (c != 'a' && c != 't') {
			drv_error_set(err, EINVAL, "Invalid --open-mode specification");
			return -EDOM;
		}
		r->open_mode = c == 'a' ? "append" : "truncate";
	}
	r->oversubscribe = o->oversubscribe;
	if (o->exclusive) {
		if (!strcasecmp(o->exclusive, "exclusive"))
			r->exclusive = true;
		else if (strcasecmp(o->exclusive, "user") &&
			 strcasecmp(o->exclusive, "mcs") &&
			 strcasecmp(o->exclusive, "topo") &&
			 strcasecmp(o->exclusive, "oversubscribe")) {
			drv_error_set(err, EINVAL, "Invalid --exclusive specification");
			return -EDOM;
		}
	}
	r->account = o->account && *o->account ? o->account : NULL;
	r->qos = o->qos && *o->qos ? o->qos : NULL;
	r->dependency = o->dependency && *o->dependency ? o->dependency : NULL;
	r->array = o->array && *o->array ? o->array : NULL;
	r->input = o->input && *o->input ? o->input : NULL;
	return nice_opt(o->nice, &r->nice, err);
}

static int gpu_opts(const struct sbatch_opts *o, struct sbatch_res *r,
		    struct drv_error *err)
{
	char type[sizeof(r->type_buf)] = "";
	int rc;

	if (o->gres) {
		rc = sbatch_gres_parse(o->gres, &r->gpus_per_node, type, sizeof(type));
		if (rc < 0)
			return drv_error_set(err, EINVAL, GRES_ERROR);
		if (r->gpus_per_node == 0)
			r->gpus_per_node = SBATCH_UNSET;
		if (type[0])
			snprintf(r->type_buf, sizeof(r->type_buf), "%s", type);
	}
	if (o->gpus_per_node) {
		if (sbatch_gpus_parse(o->gpus_per_node, &r->gpus_per_node, type,
				      sizeof(type)) < 0)
			return drv_error_set(err, EINVAL, GRES_ERROR);
		if (type[0])
			snprintf(r->type_buf, sizeof(r->type_buf), "%s", type);
	}
	if (o->gpus) {
		if (sbatch_gpus_parse(o->gpus, &r->gpus, type, sizeof(type)) < 0)
			return drv_error_set(err, EINVAL, GRES_ERROR);
		if (type[0])
			snprintf(r->type_buf, sizeof(r->type_buf), "%s", type);
	}
	r->gpu_type = r->type_buf[0] ? r->type_buf : NULL;
	return 0;
}

/* Slurm's messages for a -N it refuses: a backwards range names both
 * counts ("2-" has a maximum of -1), anything else is not a count. */
static int nodes_error(const char *arg, struct drv_error *err)
{
	char *end = NULL;
	long long lo = strtoll(arg, &end, 10), hi = -1;

	if (end != arg && *end == '-' && lo > 0) {
		const char *h = end + 1;
		if (*h)
			hi = strtoll(h, &end, 10);
		if (!*h || (!*end && hi < lo)) {
			drv_error_set(err, EINVAL,
				      "Maximum node count %lld is less than minimum node "
				      "count %lld",
				      hi, lo);
			return -EDOM;
		}
	}
	drv_error_set(err, EINVAL, "\"%s\" is not a valid node count", arg);
	return -EDOM;
}

int sbatch_res_from_opts(const struct sbatch_opts *o, struct sbatch_res *r,
			 struct drv_error *err)
{
	*r = (struct sbatch_res){
	    .ntasks = SBATCH_UNSET,
	    .cpus_per_task = SBATCH_UNSET,
	    .ntasks_per_node = SBATCH_UNSET,
	    .nodes = SBATCH_UNSET, /* no -N: as many nodes as the tasks need */
	    .nodes_max = SBATCH_UNSET,
	    .mem_per_node = SBATCH_UNSET,
	    .mem_per_cpu = SBATCH_UNSET,
	    .mem_per_gpu = SBATCH_UNSET,
	    .gpus = SBATCH_UNSET,
	    .gpus_per_node = SBATCH_UNSET,
	    .nice = SBATCH_UNSET,
	};
	if (o->nodes && sbatch_nodes_parse(o->nodes, &r->nodes, &r->nodes_max) < 0)
		return nodes_error(o->nodes, err);
	if (positive("--ntasks", o->ntasks, &r->ntasks, err) < 0 ||
	    positive("--cpus-per-task", o->cpus_per_task, &r->cpus_per_task, err) < 0 ||
	    positive("--ntasks-per-node", o->ntasks_per_node, &r->ntasks_per_node, err) <
		0)
		return -EINVAL;
	if (mem_opt("mem", o->mem, &r->mem_per_node, err) < 0 ||
	    mem_opt("mem-per-cpu", o->mem_per_cpu, &r->mem_per_cpu, err) < 0 ||
	    mem_opt("mem-per-gpu", o->mem_per_gpu, &r->mem_per_gpu, err) < 0)
		return -EDOM;
	if ((r->mem_per_node != SBATCH_UNSET) + (r->mem_per_cpu != SBATCH_UNSET) +
		(r->mem_per_gpu != SBATCH_UNSET) >
	    1)
		return drv_error_set(err, EINVAL,
				     "fatal: --mem, --mem-per-cpu, and --mem-per-gpu are "
				     "mutually exclusive.");
	if (r->mem_per_cpu == 0)
		r->mem_per_cpu = SBATCH_UNSET; /* Slurm: 0 means "not set" here */
	if (gpu_opts(o, r, err) < 0)
		return -EINVAL;
	return policy_opts(o, r, err);
}

/* Sets job.submit's field i in body. 0 or -ENOMEM. */
static int set_json(json_t *body, size_t i, json_t *v)
{
	return json_object_set_new(body, drv_shape_job_submit.fields[i].name, v) < 0
		   ? -ENOMEM
		   : 0;
}

static int set_int(json_t *body, size_t i, int64_t v)
{
	return v == SBATCH_UNSET ? 0 : set_json(body, i, json_integer(v));
}

static int set_str(json_t *body, size_t i, const char *v)
{
	return v ? set_json(body, i, json_string(v)) : 0;
}

int sbatch_res_to_json(const struct sbatch_res *r, json_t *body)
{
	int rc = 0;

	rc |= set_int(body, DRV_JOB_SUBMIT__NODES, r->nodes);
	rc |= set_int(body, DRV_JOB_SUBMIT__NODES_MAX, r->nodes_max);
	rc |= set_int(body, DRV_JOB_SUBMIT__NTASKS, r->ntasks);
	rc |= set_int(body, DRV_JOB_SUBMIT__CPUS_PER_TASK, r->cpus_per_task);
	rc |= set_int(body, DRV_JOB_SUBMIT__NTASKS_PER_NODE, r->ntasks_per_node);
	rc |= set_int(body, DRV_JOB_SUBMIT__MEM_PER_NODE, r->mem_per_node);
	rc |= set_int(body, DRV_JOB_SUBMIT__MEM_PER_CPU, r->mem_per_cpu);
	rc |= set_int(body, DRV_JOB_SUBMIT__GPUS, r->gpus);
	rc |= set_int(body, DRV_JOB_SUBMIT__GPUS_PER_NODE, r->gpus_per_node);
	rc |= set_int(body, DRV_JOB_SUBMIT__NICE, r->nice);
	rc |= set_str(body, DRV_JOB_SUBMIT__GPU_TYPE, r->gpu_type);
	rc |= set_str(body, DRV_JOB_SUBMIT__ACCOUNT, r->account);
	rc |= set_str(body, DRV_JOB_SUBMIT__QOS, r->qos);
	rc |= set_str(body, DRV_JOB_SUBMIT__DEPENDENCY, r->dependency);
	rc |= set_str(body, DRV_JOB_SUBMIT__ARRAY, r->array);
	rc |= set_str(body, DRV_JOB_SUBMIT__OPEN_MODE, r->open_mode);
	rc |= set_str(body, DRV_JOB_SUBMIT__STDIN, r->input);
	if (r->exclusive)
		rc |= set_json(body, DRV_JOB_SUBMIT__EXCLUSIVE, json_true());
	if (r->oversubscribe)
		rc |= set_json(body, DRV_JOB_SUBMIT__OVERSUBSCRIBE, json_true());
	return rc ? -ENOMEM : 0;
}
