/* job_desc.c — the job descriptor job_submit.lua sees, mapped onto a
 * job.submit or job.update body: one table of Slurm's field names, each
 * with the wire field it stands for and how its value converts. Owns no
 * state; must not know Lua or ctld (job_submit_lua.c pushes these values,
 * rpc_submit.c and rpc_job.c decode the body afterwards). */
#include "ctld/job_desc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"

enum kind {
	K_STR,	     /* string; "" clears it, as Slurm's setters do */
	K_STR_RO,    /* string, read-only */
	K_U32,	     /* count; NO_VAL when not given */
	K_U16,	     /* count; NO_VAL16 when not given */
	K_ZERO,	     /* number; 0 when not given (begin_time) */
	K_MINUTES,   /* seconds on the wire, minutes in Lua */
	K_NICE,	     /* NICE_OFFSET + nice; NO_VAL when not given */
	K_BOOL16,    /* 0 or 1; NO_VAL16 when not given (requeue) */
	K_SHARED,    /* JOB_SHARED_NONE for --exclusive, else NO_VAL16 */
	K_MEM_NODE,  /* MiB per node, nil when not given that way */
	K_MEM_CPU,   /* MiB per CPU, nil when not given that way */
	K_PN_MEM,    /* pn_min_memory: per CPU with MEM_PER_CPU set */
	K_GRES_NODE, /* "gres:gpu[:type]:N" from gpus_per_node, gpu_type */
	K_GRES_JOB,  /* "gres:gpu[:type]:N" from gpus */
	K_PRIORITY,  /* 0 when held (sbatch -H), else NO_VAL */
	K_MIN_CPUS,  /* read-only: the CPUs the request adds up to */
	K_CONTIG,    /* always 0: Drover does not place contiguously */
	K_UID,
	K_GID,
	K_USER,
	K_UNSUPPORTED, /* Slurm has it, Drover does not: nil, writes ignored */
};

struct field {
	const char *name; /* Slurm's */
	const char *wire; /* the body's, for the kinds that map one field */
	enum kind kind;
};

/* Sorted by name. */
static const struct field fields[] = {
    {"account", "account", K_STR},
    {"acctg_freq", NULL, K_UNSUPPORTED},
    {"admin_comment", NULL, K_UNSUPPORTED},
    {"alloc_node", "submit_host", K_STR_RO},
    {"array_inx", "array", K_STR},
    {"batch_features", NULL, K_UNSUPPORTED},
    {"begin_time", "begin", K_ZERO},
    {"burst_buffer", NULL, K_UNSUPPORTED},
    {"comment", "comment", K_STR},
    {"container", NULL, K_UNSUPPORTED},
    {"contiguous", NULL, K_CONTIG},
    {"core_spec", NULL, K_UNSUPPORTED},
    {"cpus_per_task", "cpus_per_task", K_U16},
    {"cpus_per_tres", NULL, K_UNSUPPORTED},
    {"default_account", NULL, K_UNSUPPORTED},
    {"default_qos", NULL, K_UNSUPPORTED},
    {"dependency", "dependency", K_STR},
    {"exc_nodes", "exc_nodes", K_STR},
    {"features", "features", K_STR},
    {"gres", NULL, K_GRES_NODE},
    {"group_id", NULL, K_GID},
    {"licenses", "licenses", K_STR},
    {"mail_type", NULL, K_UNSUPPORTED},
    {"mail_user", NULL, K_UNSUPPORTED},
    {"max_cpus", NULL, K_UNSUPPORTED},
    {"max_nodes", "nodes_max", K_U32},
    {"mcs_label", NULL, K_UNSUPPORTED},
    {"mem_per_tres", NULL, K_UNSUPPORTED},
    {"min_cpus", NULL, K_MIN_CPUS},
    {"min_mem_per_cpu", NULL, K_MEM_CPU},
    {"min_mem_per_node", NULL, K_MEM_NODE},
    {"min_nodes", "nodes", K_U32},
    {"name", "name", K_STR},
    {"nice", "nice", K_NICE},
    {"ntasks_per_gpu", "ntasks_per_gpu", K_U16},
    {"ntasks_per_node", "ntasks_per_node", K_U16},
    {"ntasks_per_tres", "ntasks_per_gpu", K_U16},
    {"num_tasks", "ntasks", K_U32},
    {"oversubscribe", NULL, K_SHARED},
    {"partition", "partition", K_STR},
    {"pn_min_cpus", "min_cpus", K_U16},
    {"pn_min_memory", NULL, K_PN_MEM},
    {"pn_min_tmp_disk", "tmp", K_U32},
    {"prefer", NULL, K_UNSUPPORTED},
    {"priority", NULL, K_PRIORITY},
    {"qos", "qos", K_STR},
    {"reboot", NULL, K_UNSUPPORTED},
    {"req_nodes", "req_nodes", K_STR},
    {"requeue", "requeue", K_BOOL16},
    {"reservation", NULL, K_UNSUPPORTED},
    {"script", "script", K_STR_RO},
    {"shared", NULL, K_SHARED},
    {"site_factor", NULL, K_UNSUPPORTED},
    {"std_err", "stderr", K_STR},
    {"std_in", "stdin", K_STR},
    {"std_out", "stdout", K_STR},
    {"time_limit", "time_limit", K_MINUTES},
    {"time_min", "time_min", K_MINUTES},
    {"tres_per_job", NULL, K_GRES_JOB},
    {"tres_per_node", NULL, K_GRES_NODE},
    {"user_id", NULL, K_UID},
    {"user_name", NULL, K_USER},
    {"wckey", NULL, K_UNSUPPORTED},
    {"work_dir", "workdir", K_STR},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

static const struct field *find_field(const char *name)
{
	size_t lo = 0, hi = N_FIELDS;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, fields[mid].name);
		if (c == 0)
			return &fields[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const char *job_desc_field_name(size_t i)
{
	return i < N_FIELDS ? fields[i].name : NULL;
}

/* --- reading ---------------------------------------------------------- */

static int wire_index(const struct drv_shape *s, const char *wire)
{
	for (size_t i = 0; wire && i < s->n_fields; i++)
		if (!strcmp(s->fields[i].name, wire))
			return (int)i;
	return -1;
}

/* The wire field's value, NULL when absent (or null). */
static json_t *wire_get(const struct jd_doc *d, const char *wire)
{
	json_t *x = json_object_get(d->body, wire);
	return json_is_null(x) ? NULL : x;
}

static void set_int(struct jd_value *out, int64_t v)
{
	*out = (struct jd_value){.type = JD_INT, .i = v};
}

static void set_str(struct jd_value *out, const char *s)
{
	*out = s ? (struct jd_value){.type = JD_STR, .s = s} : (struct jd_value){JD_NIL};
}

/* "gres:gpu[:type]:N" for count N of the body's gpu_type, or nil. */
static void gres_text(const struct jd_doc *d, json_t *count, struct jd_value *out,
		      char *buf, size_t len)
{
	if (!json_is_integer(count)) {
		set_str(out, NULL);
		return;
	}
	const char *type = json_string_value(wire_get(d, "gpu_type"));
	snprintf(buf, len, "gres:gpu:%s%s%" PRId64, type ? type : "", type ? ":" : "",
		 (int64_t)json_integer_value(count));
	set_str(out, buf);
}

/* The CPUs the request adds up to, as Slurm's min_cpus: tasks (given, or
 * per node times nodes, or one per node) times CPUs per task. */
static int64_t min_cpus(const struct jd_doc *d)
{
	json_int_t nodes = json_integer_value(wire_get(d, "nodes"));
	json_int_t tasks = json_integer_value(wire_get(d, "ntasks"));
	json_int_t per_node = json_integer_value(wire_get(d, "ntasks_per_node"));
	json_int_t cpt = json_integer_value(wire_get(d, "cpus_per_task"));
	if (nodes < 1)
		nodes = 1;
	if (!tasks)
		tasks = per_node ? per_node * nodes : nodes;
	return (int64_t)tasks * (cpt ? cpt : 1);
}

/* The kinds that map one wire field. */
static void get_mapped(const struct jd_doc *d, const struct field *f,
		       struct jd_value *out)
{
	json_t *x = wire_get(d, f->wire);
	int64_t v = json_integer_value(x);
	switch (f->kind) {
	case K_STR:
	case K_STR_RO:
		set_str(out, json_string_value(x));
		break;
	case K_U32:
		set_int(out, x ? v : JD_NO_VAL);
		break;
	case K_U16:
		set_int(out, x ? v : JD_NO_VAL16);
		break;
	case K_ZERO:
		set_int(out, v);
		break;
	case K_MINUTES: /* -1 and 0 both mean no limit on the wire (-t 0) */
		set_int(out, !x ? JD_NO_VAL : v < 0 ? JD_INFINITE : (v + 59) / 60);
		break;
	case K_NICE:
		set_int(out, x ? JD_NICE_OFFSET + v : JD_NO_VAL);
		break;
	case K_BOOL16:
		set_int(out, x ? json_is_true(x) : JD_NO_VAL16);
		break;
	default:
		set_str(out, NULL);
		break;
	}
}

int job_desc_get(const struct jd_doc *d, const char *name, struct jd_value *out,
		 char *buf, size_t len)
{
	const struct field *f = find_field(name);
	json_t *node_mem = wire_get(d, "mem_per_node"),
	       *cpu_mem = wire_get(d, "mem_per_cpu");
	set_str(out, NULL);
	if (!f)
		return -ENOENT;
	switch (f->kind) {
	case K_SHARED:
		set_int(out, json_is_true(wire_get(d, "exclusive")) ? JD_SHARED_NONE
								    : JD_NO_VAL16);
		break;
	case K_MEM_NODE:
		if (node_mem)
			set_int(out, json_integer_value(node_mem));
		break;
	case K_MEM_CPU:
		if (cpu_mem)
			set_int(out, json_integer_value(cpu_mem));
		break;
	case K_PN_MEM:
		if (node_mem)
			set_int(out, json_integer_value(node_mem));
		else
			*out = (struct jd_value){
			    .type = JD_NUM,
			    .d = cpu_mem ? JD_MEM_PER_CPU +
					       (double)json_integer_value(cpu_mem)
					 : JD_NO_VAL64};
		break;
	case K_GRES_NODE:
		gres_text(d, wire_get(d, "gpus_per_node"), out, buf, len);
		break;
	case K_GRES_JOB:
		gres_text(d, wire_get(d, "gpus"), out, buf, len);
		break;
	case K_PRIORITY:
		set_int(out, json_is_true(wire_get(d, "hold")) ? 0 : JD_NO_VAL);
		break;
	case K_MIN_CPUS:
		set_int(out, min_cpus(d));
		break;
	case K_CONTIG:
		set_int(out, 0);
		break;
	case K_UID:
		set_int(out, d->who ? d->who->uid : JD_NO_VAL);
		break;
	case K_GID:
		set_int(out, d->who ? d->who->gid : JD_NO_VAL);
		break;
	case K_USER:
		set_str(out, d->who ? d->who->user_name : NULL);
		break;
	case K_UNSUPPORTED:
		break;
	default:
		get_mapped(d, f, out);
	}
	return 0;
}

size_t job_desc_env_count(const struct jd_doc *d)
{
	return json_array_size(wire_get(d, "env"));
}

const char *job_desc_env_at(const struct jd_doc *d, size_t i)
{
	return json_string_value(json_array_get(wire_get(d, "env"), i));
}

/* --- writing ---------------------------------------------------------- */

/* One change of a write: wire field to x (stolen; NULL removes it). */
struct change {
	const char *wire;
	json_t *x;
};

static int bad(struct drv_error *err, const struct field *f, const char *why)
{
	return drv_error_set(err, EINVAL, "job_desc.%s: %s", f->name, why);
}

/* Applies n changes when each is valid for its declared field, none
 * otherwise; the values are consumed either way. */
static int apply(struct jd_doc *d, const struct field *f, struct change *c, size_t n,
		 struct drv_error *err)
{
	int rc = 0;
	void *scratch = calloc(1, d->shape->size);
	if (!scratch)
		rc = -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		int k = wire_index(d->shape, c[i].wire);
		struct drv_error e = {{0}};
		if (k < 0) {
			rc = c[i].x ? -ENOTSUP : 0; /* clearing what cannot be there */
			continue;
		}
		rc = drv_shape_decode_field(d->shape, (size_t)k, c[i].x, scratch, &e);
		drv_shape_free(d->shape, scratch);
		if (rc == -EBADMSG) { /* "job.submit: field 'nodes': must be ..." */
			const char *rule = strstr(e.text, "': ");
			rc = bad(err, f, rule ? rule + 3 : e.text);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && c[i].x)
			rc =
			    json_object_set(d->body, c[i].wire, c[i].x) < 0 ? -ENOMEM : 0;
		else if (rc == 0)
			json_object_del(d->body, c[i].wire);
		json_decref(c[i].x);
	}
	free(scratch);
	return rc;
}

/* v as a whole number: integers, floats without a fraction and numeric
 * strings, as Slurm's luaL_checknumber takes them. */
static int to_int(const struct field *f, const struct jd_value *v, int64_t *out,
		  struct drv_error *err)
{
	double dv;
	char *end = NULL;
	switch (v->type) {
	case JD_INT:
		*out = v->i;
		return 0;
	case JD_NUM:
		dv = v->d;
		break;
	case JD_STR:
		dv = strtod(v->s, &end);
		if (end == v->s || *end)
			return bad(err, f, "not a number");
		break;
	default:
		return bad(err, f, "not a number");
	}
	if (!isfinite(dv) || dv < -9.2e18 || dv > 9.2e18 || dv != (double)(int64_t)dv)
		return bad(err, f, "not a whole number in range");
	*out = (int64_t)dv;
	return 0;
}

/* v as text: strings, and numbers written out (luaL_checkstring). */
static json_t *to_text(const struct jd_value *v)
{
	char num[32];
	if (v->type == JD_STR)
		return json_string(v->s);
	if (v->type == JD_INT)
		snprintf(num, sizeof(num), "%" PRId64, v->i);
	else
		snprintf(num, sizeof(num), "%.14g", v->d);
	return json_string(num);
}

static int set_string(struct jd_doc *d, const struct field *f, const struct jd_value *v,
		      struct drv_error *err)
{
	int k = wire_index(d->shape, f->wire);
	json_t *x = NULL;
	/* "" clears a field, as Slurm's setters free it; a required one (name,
	 * work_dir) keeps "" and is judged by its declaration */
	if (v->type != JD_NIL &&
	    (v->type != JD_STR || v->s[0] || (k >= 0 && d->shape->fields[k].req))) {
		if (!(x = to_text(v)))
			return drv_error_set(err, EINVAL, "job_desc.%s: not valid UTF-8",
					     f->name);
	}
	if (!x && k >= 0 && d->shape->fields[k].req)
		return bad(err, f, "required");
	struct change c = {f->wire, x};
	return apply(d, f, &c, 1, err);
}

/* The kinds that map one wire field with an integer. */
static int set_number(struct jd_doc *d, const struct field *f, int64_t n,
		      struct drv_error *err)
{
	json_t *x = NULL;
	switch (f->kind) {
	case K_U32:
		x = n == JD_NO_VAL ? NULL : json_integer(n);
		break;
	case K_U16:
		x = n == JD_NO_VAL16 || n == JD_NO_VAL ? NULL : json_integer(n);
		break;
	case K_ZERO:
		x = n == 0 ? NULL : json_integer(n);
		break;
	case K_MINUTES:
		if (n < 0 || (n > INT32_MAX && n != JD_NO_VAL && n != JD_INFINITE))
			return bad(err, f, "must be minutes, NO_VAL or INFINITE");
		x = n == JD_NO_VAL ? NULL : json_integer(n == JD_INFINITE ? -1 : n * 60);
		break;
	case K_NICE:
		x = n == JD_NO_VAL ? NULL : json_integer(n - JD_NICE_OFFSET);
		break;
	case K_BOOL16:
		if (n != 0 && n != 1 && n != JD_NO_VAL16)
			return bad(err, f, "must be 0, 1 or NO_VAL16");
		x = n == JD_NO_VAL16 ? NULL : json_boolean(n);
		break;
	default:
		return -ENOTSUP;
	}
	struct change c = {f->wire, x};
	return apply(d, f, &c, 1, err);
}

/* tres_per_node / gres / tres_per_job: "gres:gpu:2", "gres/gpu:a100:2" or
 * "gpu:2"; Drover schedules GPUs only, of one type. */
static int set_gres(struct jd_doc *d, const struct field *f, const struct jd_value *v,
		    struct drv_error *err)
{
	const char *count_wire = f->kind == K_GRES_JOB ? "gpus" : "gpus_per_node";
	if (v->type == JD_NIL || (v->type == JD_STR && !v->s[0])) {
		struct change c[] = {{count_wire, NULL}, {"gpu_type", NULL}};
		return apply(d, f, c, 2, err);
	}
	if (v->type != JD_STR)
		return bad(err, f, "not a gres specification");
	char text[512], *out = text;
	for (const char *s = v->s; *s && out < text + sizeof(text) - 1;) {
		if (!strncmp(s, "gres:", 5) || !strncmp(s, "gres/", 5))
			s += 5; /* each entry may carry the TRES prefix */
		while (*s && *s != ',' && out < text + sizeof(text) - 1)
			*out++ = *s++;
		if (*s == ',' && out < text + sizeof(text) - 1)
			*out++ = *s++;
	}
	*out = '\0';
	struct drv_gres *g = NULL;
	size_t n = 0;
	struct drv_error e = {{0}};
	if (drv_gres_parse(text, &g, &n, &e) < 0)
		return bad(err, f, e.text);
	int rc = 0;
	if (n != 1 || strcmp(g[0].name, "gpu"))
		rc = bad(err, f, "Drover schedules one gres, gpu (of one type)");
	else {
		struct change c[] = {
		    {count_wire, json_integer((json_int_t)g[0].count)},
		    {"gpu_type", g[0].type[0] ? json_string(g[0].type) : NULL}};
		rc = apply(d, f, c, 2, err);
	}
	free(g);
	return rc;
}

/* min_mem_per_node, min_mem_per_cpu and pn_min_memory: one of the two wire
 * fields, the other cleared. */
static int set_memory(struct jd_doc *d, const struct field *f, const struct jd_value *v,
		      struct drv_error *err)
{
	bool per_cpu = f->kind == K_MEM_CPU;
	int64_t n = 0;
	if (f->kind == K_PN_MEM && v->type == JD_NUM) {
		if (v->d == JD_NO_VAL64) {
			struct change c[] = {{"mem_per_node", NULL},
					     {"mem_per_cpu", NULL}};
			return apply(d, f, c, 2, err);
		}
		per_cpu = v->d >= JD_MEM_PER_CPU;
		struct jd_value rest = {.type = JD_NUM,
					.d = per_cpu ? v->d - JD_MEM_PER_CPU : v->d};
		if (to_int(f, &rest, &n, err) < 0)
			return -EINVAL;
	} else if (v->type == JD_NIL) {
		struct change c = {per_cpu ? "mem_per_cpu" : "mem_per_node", NULL};
		return apply(d, f, &c, 1, err);
	} else if (to_int(f, v, &n, err) < 0) {
		return -EINVAL;
	}
	struct change c[] = {{per_cpu ? "mem_per_cpu" : "mem_per_node", json_integer(n)},
			     {per_cpu ? "mem_per_node" : "mem_per_cpu", NULL}};
	return apply(d, f, c, 2, err);
}

/* shared: NONE (and USER, MCS: whole nodes at least) is --exclusive; OK
 * and NO_VAL16 leave it to the partition. */
static int set_shared(struct jd_doc *d, const struct field *f, int64_t n,
		      struct drv_error *err)
{
	if (n != JD_SHARED_NONE && n != JD_SHARED_OK && n != JD_SHARED_USER &&
	    n != JD_SHARED_MCS && n != JD_NO_VAL16)
		return bad(err, f, "must be a JOB_SHARED_* value or NO_VAL16");
	bool whole = n == JD_SHARED_NONE || n == JD_SHARED_USER || n == JD_SHARED_MCS;
	struct change c = {"exclusive", whole ? json_true() : NULL};
	return apply(d, f, &c, 1, err);
}

/* priority: 0 holds the job, as sbatch -H does; NO_VAL releases it. */
static int set_priority(struct jd_doc *d, const struct field *f, int64_t n,
			struct drv_error *err)
{
	if (n != 0 && n != JD_NO_VAL)
		return -ENOTSUP;
	struct change c = {"hold", n == 0 ? json_true() : NULL};
	return apply(d, f, &c, 1, err);
}

int job_desc_set(struct jd_doc *d, const char *name, const struct jd_value *v,
		 struct drv_error *err)
{
	const struct field *f = find_field(name);
	int64_t n = 0;
	if (!f)
		return -ENOENT;
	switch (f->kind) {
	case K_STR:
		return set_string(d, f, v, err);
	case K_GRES_NODE:
	case K_GRES_JOB:
		return set_gres(d, f, v, err);
	case K_MEM_NODE:
	case K_MEM_CPU:
	case K_PN_MEM:
		return set_memory(d, f, v, err);
	case K_STR_RO:
	case K_UID:
	case K_GID:
	case K_USER:
		return -EROFS;
	case K_UNSUPPORTED:
	case K_MIN_CPUS:
		return -ENOTSUP;
	default:
		break;
	}
	if (v->type == JD_NIL)
		n = f->kind == K_U16 || f->kind == K_BOOL16 || f->kind == K_SHARED
			? JD_NO_VAL16
		    : f->kind == K_ZERO || f->kind == K_CONTIG ? 0
							       : JD_NO_VAL;
	else if (to_int(f, v, &n, err) < 0)
		return -EINVAL;
	if (f->kind == K_CONTIG)
		return n == 0 ? 0 : -ENOTSUP;
	if (f->kind == K_SHARED)
		return set_shared(d, f, n, err);
	if (f->kind == K_PRIORITY)
		return set_priority(d, f, n, err);
	return set_number(d, f, n, err);
}
