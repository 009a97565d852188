/* proto_schema.c — the one table of every message type and its body fields.
 *
 * Each type of docs/protocol.md is declared here once: its fields, their JSON
 * types, whether they are required, their bounds and their defaults.
 * Validation (drv_msg_validate), defaults (drv_msg_fill_defaults) and the
 * example bodies the round-trip tests use all come from this table; nothing
 * else in the tree knows the shape of a body. Fields a body carries beyond the
 * declared ones are accepted and ignored, so an older peer can talk to a newer
 * one. This file does no I/O and keeps no state. */
#include "common/proto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum ftype {
	T_INT,	/* integer within min..max */
	T_STR,	/* string of minlen..maxlen bytes (maxlen 0: only the frame bounds it) */
	T_HEX,	/* 64 lower-case hex digits (a SHA-256 or an HMAC) */
	T_BOOL, /* true or false */
	T_OBJ,	/* object; with sub, the fields of that object */
	T_INTS, /* array of integers, each within min..max */
	T_STRS, /* array of strings, each of minlen..maxlen bytes */
	T_OBJS, /* array of objects, each with the fields of sub */
};

struct field {
	const char *name;
	enum ftype type;
	bool req;
	int64_t min, max;	 /* T_INT, T_INTS */
	size_t minlen, maxlen;	 /* T_STR, T_STRS */
	const char *choices;	 /* T_STR: "A|B|C", or NULL for any */
	const struct field *sub; /* T_OBJ, T_OBJS: the object's fields, NULL: any */
	const char *def;	 /* JSON text filled in when absent, or NULL */
};

struct msg_type {
	const char *name;
	const struct field *fields;
};

/* Table helpers: one line per field. They expand to initialisers only. */
#define INT(n, r, lo, hi)                                                                \
	{                                                                                \
		.name = n, .type = T_INT, .req = r, .min = lo, .max = hi                 \
	}
#define INTD(n, lo, hi, d)                                                               \
	{                                                                                \
		.name = n, .type = T_INT, .min = lo, .max = hi, .def = d                 \
	}
#define STR(n, r, lo, hi)                                                                \
	{                                                                                \
		.name = n, .type = T_STR, .req = r, .minlen = lo, .maxlen = hi           \
	}
#define STRD(n, lo, hi, d)                                                               \
	{                                                                                \
		.name = n, .type = T_STR, .minlen = lo, .maxlen = hi, .def = d           \
	}
#define ENUM(n, r, c)                                                                    \
	{                                                                                \
		.name = n, .type = T_STR, .req = r, .maxlen = 64, .choices = c           \
	}
#define ENUMD(n, c, d)                                                                   \
	{                                                                                \
		.name = n, .type = T_STR, .maxlen = 64, .choices = c, .def = d           \
	}
#define HEX(n, r)                                                                        \
	{                                                                                \
		.name = n, .type = T_HEX, .req = r                                       \
	}
#define BOOL(n, r)                                                                       \
	{                                                                                \
		.name = n, .type = T_BOOL, .req = r                                      \
	}
#define BOOLD(n, d)                                                                      \
	{                                                                                \
		.name = n, .type = T_BOOL, .def = d                                      \
	}
#define OBJ(n, r, s)                                                                     \
	{                                                                                \
		.name = n, .type = T_OBJ, .req = r, .sub = s                             \
	}
#define INTS(n, r, lo, hi)                                                               \
	{                                                                                \
		.name = n, .type = T_INTS, .req = r, .min = lo, .max = hi                \
	}
#define STRS(n, r, hi)                                                                   \
	{                                                                                \
		.name = n, .type = T_STRS, .req = r, .maxlen = hi                        \
	}
#define STRSD(n, hi)                                                                     \
	{                                                                                \
		.name = n, .type = T_STRS, .maxlen = hi, .def = "[]"                     \
	}
#define OBJSD(n, s)                                                                      \
	{                                                                                \
		.name = n, .type = T_OBJS, .sub = s, .def = "[]"                         \
	}
#define END                                                                              \
	{                                                                                \
		.name = NULL                                                             \
	}

#define JOB_ID_MAX 4294967294LL /* job ids are uint32, 0xffffffff is NO_VAL */
#define ID_MAX 4294967294LL	/* uid/gid: (uid_t)-1 means "none" */
#define I32 2147483647LL
#define I64_MAX 9223372036854775807LL
/* Epoch seconds of a date (--begin, --deadline): up to 9999-12-31, as far
 * as Slurm's date forms reach, so that adding a time limit cannot wrap. */
#define DATE_MAX 253402300799LL
#define SIG_MAX 127
#define NAME_LEN 256
#define PATH_LEN 4096
#define TEXT_LEN 4096
#define LIST_LEN 65536 /* hostlists, gres and feature lists */

static const struct field f_none[] = {END};

/* A daemon link's opening: the sender's nonce, which the other side's MACs
 * cover from then on (net.c). */
static const struct field f_conn_hello[] = {HEX("nonce", true), END};

static const struct field f_auth_sign[] = {HEX("digest", true), END};
static const struct field f_auth_verify[] = {OBJ("cred", true, NULL), HEX("digest", true),
					     END};

static const struct field f_job_submit[] = {
    STR("script", false, 1, 0), /* required unless "interactive" */
    BOOLD("interactive", "false"),
    STR("name", true, 0, NAME_LEN),
    STR("partition", false, 1, NAME_LEN),
    INT("nodes", false, 1, 100000),
    INT("time_limit", false, -1, I32),
    STR("workdir", true, 1, PATH_LEN),
    STR("submit_dir", false, 0, PATH_LEN),
    STR("stdout", false, 0, PATH_LEN),
    STR("stderr", false, 0, PATH_LEN),
    STRSD("env", 0),
    STRD("export", 0, TEXT_LEN, "\"ALL\""),
    BOOLD("hold", "false"),
    STR("comment", false, 0, TEXT_LEN),
    STR("submit_host", false, 0, NAME_LEN),
    STRSD("argv", 0),
    STR("command", false, 0, PATH_LEN),
    INT("ntasks", false, 1, 1000000),
    INT("cpus_per_task", false, 1, 100000),
    INT("ntasks_per_node", false, 1, 100000),
    INT("mem_per_node", false, 0, I32 * 1024),
    INT("mem_per_cpu", false, 1, I32 * 1024),
    INT("gpus", false, 1, 100000),
    INT("gpus_per_node", false, 1, 100000),
    INT("ntasks_per_gpu", false, 1, 100000),
    STR("gpu_type", false, 1, NAME_LEN),
    BOOLD("exclusive", "false"),
    INT("nice", false, -2147483645LL, 2147483645LL),
    STR("account", false, 1, NAME_LEN),
    STR("qos", false, 1, NAME_LEN),
    STR("dependency", false, 1, TEXT_LEN),
    STR("array", false, 1, TEXT_LEN),
    STR("open_mode", false, 6, 8),
    STR("stdin", false, 1, PATH_LEN),
    INT("nodes_max", false, 1, 100000),
    BOOL("requeue", false),
    STR("req_nodes", false, 1, LIST_LEN),
    STR("exc_nodes", false, 1, LIST_LEN),
    STR("features", false, 1, TEXT_LEN),
    INT("min_cpus", false, 0, 1048576),
    INT("tmp", false, 0, I64_MAX),
    INT("signal", false, 1, SIG_MAX),
    INT("signal_time", false, 0, 65535),
    BOOLD("signal_batch", "false"),
    INT("time_min", false, 0, I32),
    INT("begin", false, 0, DATE_MAX),
    INT("deadline", false, 0, DATE_MAX),
    BOOL("kill_invalid_dep", false),
    END,
};

static const struct field f_job_query[] = {
    STRS("fields", false, 64),
    BOOLD("active", "false"),
    INTS("job_ids", false, 1, JOB_ID_MAX),
    STRS("users", false, NAME_LEN),
    STRS("states", false, 64),
    BOOLD("all_states", "false"),
    END,
};

static const struct field f_acct_query[] = {
    INTS("job_ids", false, 1, JOB_ID_MAX), INTS("uids", false, 0, ID_MAX),
    STRS("accounts", false, NAME_LEN),	   STRS("names", false, NAME_LEN),
    STRS("partitions", false, NAME_LEN),   STRS("states", false, 64),
    INTD("start", 0, I64_MAX, "0"),	   INTD("end", 0, I64_MAX, "0"),
    BOOLD("duplicates", "false"),	   END,
};

static const struct field f_job_cancel[] = {
    INTS("job_ids", true, 1, JOB_ID_MAX),
    INTD("signal", 0, SIG_MAX, "0"),
    BOOLD("batch_only", "false"),
    BOOLD("full", "false"),
    STRS("array_tasks", false, 64),
    BOOLD("records_only", "false"),
    STRS("steps", false, 64),
    END,
};

static const struct field f_job_ids[] = {INTS("job_ids", true, 1, JOB_ID_MAX), END};

static const struct field f_job_hold[] = {
    INTS("job_ids", true, 1, JOB_ID_MAX),
    BOOLD("user", "false"),
    END,
};

static const struct field f_job_requeue[] = {
    INTS("job_ids", true, 1, JOB_ID_MAX),
    BOOLD("hold", "false"),
    END,
};

static const struct field f_job_update[] = {
    INTS("job_ids", true, 1, JOB_ID_MAX),
    INT("time_limit", false, -1, I32),
    STR("partition", false, 1, NAME_LEN),
    INT("nice", false, -2147483645LL, 2147483645LL),
    STR("dependency", false, 0, TEXT_LEN),
    INT("begin", false, 0, DATE_MAX),
    END,
};

static const struct field f_names[] = {STRS("names", false, NAME_LEN), END};

static const struct field f_node_update[] = {
    STR("nodes", true, 1, LIST_LEN),
    ENUM("state", true, "DRAIN|RESUME|DOWN|UNDRAIN"),
    STR("reason", false, 0, TEXT_LEN),
    END,
};

/* {"job_id","restart"}: a job a node runs, as it reports it. */
static const struct field f_job_ref[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INT("restart", true, 0, I32),
    END,
};

static const struct field f_node_register[] = {
    STR("name", true, 1, NAME_LEN),
    INT("cpus", true, 1, 1048576),
    INT("real_memory", true, 0, INT64_MAX),
    STR("gres", false, 0, LIST_LEN),
    STR("features", false, 0, LIST_LEN),
    INT("port", true, 0, 65535),
    STR("version", true, 1, 64),
    INT("boot_time", true, 0, INT64_MAX),
    OBJSD("jobs", f_job_ref),
    END,
};

static const struct field f_node_ping[] = {
    STR("name", true, 1, NAME_LEN),
    OBJSD("jobs", f_job_ref),
    END,
};

/* What a node's share of a step used (the shepherd's wait4 rusage). */
static const struct field f_usage[] = {
    INT("user_usec", true, 0, I64_MAX),
    INT("sys_usec", true, 0, I64_MAX),
    INT("max_rss_kib", true, 0, I64_MAX),
    INT("ave_rss_kib", true, 0, I64_MAX),
    INT("max_rss_task", true, 0, I32),
    INT("ntasks", true, 0, I32),
    END,
};

static const struct field f_job_complete[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INT("restart", true, 0, I32),
    INT("exit_code", true, 0, 255),
    INT("signal", true, 0, SIG_MAX),
    BOOLD("launch_failed", "false"),
    BOOLD("timeout", "false"),
    STR("message", false, 0, TEXT_LEN),
    BOOLD("prolog_failed", "false"),
    BOOLD("epilog_failed", "false"),
    OBJ("usage", false, f_usage),
    BOOLD("oom", "false"),
    END,
};

static const struct field f_job_launch[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INT("restart", true, 0, I32),
    STR("name", false, 0, NAME_LEN),
    STR("user", true, 1, NAME_LEN),
    INT("uid", true, 0, ID_MAX),
    INT("gid", true, 0, ID_MAX),
    INTS("gids", false, 0, ID_MAX), /* supplementary groups, set as given */
    STR("partition", false, 0, NAME_LEN),
    STR("nodelist", false, 0, LIST_LEN),
    INTD("num_nodes", 1, 100000, "1"),
    STR("workdir", true, 1, PATH_LEN),
    STR("submit_dir", false, 0, PATH_LEN),
    STR("stdout", false, 0, PATH_LEN),
    STR("stderr", false, 0, PATH_LEN),
    STR("script", true, 1, 0),
    STRSD("env", 0),
    STRSD("argv", 0),
    STR("submit_host", false, 0, NAME_LEN),
    STR("cluster", false, 0, NAME_LEN),
    INT("time_limit", false, -1, I32),
    INT("kill_wait", false, 0, 65535),
    INT("signal", false, 1, SIG_MAX),
    INT("signal_time", false, 0, 65535),
    BOOLD("signal_batch", "false"),
    STR("conf_path", false, 0, PATH_LEN),
    INT("array_job_id", false, 1, JOB_ID_MAX),
    INT("array_task_id", false, 0, I32),
    INT("array_task_count", false, 1, I32),
    INT("array_task_min", false, 0, I32),
    INT("array_task_max", false, 0, I32),
    INT("array_task_step", false, 1, I32),
    END,
};

static const struct field f_job_signal[] = {
    INT("job_id", true, 1, JOB_ID_MAX), INT("signal", true, 0, SIG_MAX),
    BOOLD("batch_only", "false"),	BOOLD("kill", "false"),
    INT("kill_wait", false, 0, 65535),	END,
};

/* srun asks for a step of a running job (docs/protocol.md, "Steps"). */
static const struct field f_step_create[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INT("ntasks", false, 1, 1000000),
    INT("nodes", false, 1, 100000),
    INT("nodes_max", false, 1, 100000),
    INT("ntasks_per_node", false, 1, 100000),
    INTD("cpus_per_task", 1, 100000, "1"),
    BOOLD("cpt_given", "false"),
    BOOLD("exact", "false"),
    BOOLD("overlap", "false"),
    BOOLD("overcommit", "false"),
    STR("nodelist", false, 1, LIST_LEN),
    STR("exclude", false, 1, LIST_LEN),
    ENUMD("distribution", "block|cyclic|plane|arbitrary", "\"block\""),
    INTD("plane_size", 1, 100000, "1"),
    INT("gpus_per_task", false, 1, 1024),
    STR("gpu_bind", false, 1, TEXT_LEN),
    STR("name", true, 0, NAME_LEN),
    STRS("argv", true, 0),
    STRSD("env", 0),
    STR("cwd", true, 1, PATH_LEN),
    STR("io_host", true, 1, NAME_LEN),
    INT("io_port", true, 1, 65535),
    HEX("io_key", true),
    STR("cpu_bind", false, 0, TEXT_LEN),
    STR("task_argv", false, 1, 0),
    INT("mem", false, 1, I32 * 1024),
    INT("gpus", false, 1, 100000),
    INT("gpus_per_node", false, 1, 100000),
    BOOLD("unbuffered", "false"),
    BOOLD("stdin_all", "false"),
    INTD("stdin_task", -1, 1000000, "0"),
    INT("srun_pid", false, 0, I32),
    ENUM("mpi", false, "none|pmix"),
    END,
};

static const struct field f_alloc_complete[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INTD("exit_code", 0, 255, "0"),
    INTD("signal", 0, SIG_MAX, "0"),
    END,
};

/* One node's share of a step: what its shepherd runs. */
static const struct field f_step_launch[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INT("step_id", true, 0, I32),
    STR("user", true, 1, NAME_LEN),
    INT("uid", true, 0, ID_MAX),
    INT("gid", true, 0, ID_MAX),
    INTS("gids", false, 0, ID_MAX), /* supplementary groups, set as given */
    STRS("argv", true, 0),
    STRSD("env", 0),
    STR("cwd", true, 1, PATH_LEN),
    STR("io_host", true, 1, NAME_LEN),
    INT("io_port", true, 1, 65535),
    HEX("io_key", true),
    STRSD("step_env", 0),
    INTS("tasks", true, 0, 1000000),
    INT("node_id", true, 0, 100000),
    INT("cpus_on_node", false, 0, 1048576),
    INTS("gpus", false, 0, 1023),
    INT("gpus_per_task", false, 1, 1024),
    STR("gpu_bind", false, 1, TEXT_LEN),
    STR("task_argv", false, 1, 0),
    BOOLD("stdin_all", "false"),
    INTD("stdin_task", -1, 1000000, "0"),
    BOOLD("unbuffered", "false"),
    INT("kill_wait", false, 0, 65535),
    INT("mem", false, 0, 1LL << 40),
    ENUM("mpi", false, "none|pmix"),
    STR("mpi_layout", false, 1, 0),
    END,
};

static const struct field f_step_complete[] = {
    INT("job_id", true, 1, JOB_ID_MAX), INT("step_id", true, 0, I32),
    INT("exit_code", true, 0, 255),	INT("signal", true, 0, SIG_MAX),
    BOOLD("launch_failed", "false"),	STR("message", false, 0, TEXT_LEN),
    OBJ("usage", false, f_usage),	BOOLD("oom", "false"),
    BOOLD("cancelled", "false"),	END,
};

static const struct field f_step_signal[] = {
    INT("job_id", true, 1, JOB_ID_MAX),
    INT("step_id", true, 0, I32),
    INT("signal", true, 0, SIG_MAX),
    BOOLD("kill", "false"),
    END,
};

/* Every declared request type. "reply" is the envelope's own type and has no
 * body schema: its body is the answer to whichever request carried its id. */
static const struct msg_type msg_types[] = {
    {"auth.sign", f_auth_sign},
    {"auth.verify", f_auth_verify},
    {"job.submit", f_job_submit},
    {"job.query", f_job_query},
    {"acct.query", f_acct_query},
    {"job.cancel", f_job_cancel},
    {"job.release", f_job_ids},
    {"job.hold", f_job_hold},
    {"job.requeue", f_job_requeue},
    {"job.update", f_job_update},
    {"node.query", f_names},
    {"node.update", f_node_update},
    {"part.query", f_names},
    {"ctld.ping", f_none},
    {"conn.hello", f_conn_hello},
    {"conf.query", f_none},
    {"node.register", f_node_register},
    {"node.ping", f_node_ping},
    {"job.complete", f_job_complete},
    {"job.launch", f_job_launch},
    {"job.signal", f_job_signal},
    {"step.create", f_step_create},
    {"alloc.complete", f_alloc_complete},
    {"step.launch", f_step_launch},
    {"step.complete", f_step_complete},
    {"step.signal", f_step_signal},
};

#define N_TYPES (sizeof(msg_types) / sizeof(msg_types[0]))

static const struct msg_type *find_type(const char *type)
{
	if (!type)
		return NULL;
	for (size_t i = 0; i < N_TYPES; i++)
		if (strcmp(msg_types[i].name, type) == 0)
			return &msg_types[i];
	return NULL;
}

bool drv_msg_known(const char *type)
{
	return find_type(type) != NULL || (type && strcmp(type, "reply") == 0);
}

const char *drv_msg_type_name(size_t i)
{
	return i < N_TYPES ? msg_types[i].name : NULL;
}

static bool is_hex64(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

static bool in_choices(const char *choices, const char *s)
{
	size_t n = strlen(s);
	const char *p = choices;
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && strncmp(p, s, n) == 0)
			return true;
		p += len + (bar ? 1 : 0);
	}
	return false;
}

struct vctx {
	const char *type;
	struct drv_error *err;
};

static int fail(struct vctx *v, const char *path, const char *what)
{
	return drv_error_set(v->err, EBADMSG, "%s: field '%s': %s", v->type, path, what);
}

static int check_fields(struct vctx *v, const struct field *fields, json_t *obj,
			const char *prefix);

static int check_int(struct vctx *v, const struct field *f, json_t *x, const char *path)
{
	char what[96];
	if (!json_is_integer(x))
		return fail(v, path, "must be an integer");
	json_int_t n = json_integer_value(x);
	if (n < f->min || n > f->max) {
		snprintf(what, sizeof(what), "must be %lld..%lld", (long long)f->min,
			 (long long)f->max);
		return fail(v, path, what);
	}
	return 0;
}

static int check_str(struct vctx *v, const struct field *f, json_t *x, const char *path)
{
	char what[96];
	if (!json_is_string(x))
		return fail(v, path, "must be a string");
	size_t n = json_string_length(x);
	if (n < f->minlen)
		return fail(v, path, n == 0 ? "must not be empty" : "too short");
	if (f->maxlen && n > f->maxlen) {
		snprintf(what, sizeof(what), "longer than %zu bytes", f->maxlen);
		return fail(v, path, what);
	}
	if (f->choices && !in_choices(f->choices, json_string_value(x))) {
		snprintf(what, sizeof(what), "must be one of %s", f->choices);
		return fail(v, path, what);
	}
	return 0;
}

/* Checks one array element or scalar value x against f's element rules. */
static int check_value(struct vctx *v, const struct field *f, json_t *x, const char *path)
{
	switch (f->type) {
	case T_INT:
	case T_INTS:
		return check_int(v, f, x, path);
	case T_STR:
	case T_STRS:
		return check_str(v, f, x, path);
	case T_HEX:
		if (!json_is_string(x) || !is_hex64(json_string_value(x)))
			return fail(v, path, "must be 64 lower-case hex digits");
		return 0;
	case T_BOOL:
		return json_is_boolean(x) ? 0 : fail(v, path, "must be true or false");
	case T_OBJ:
	case T_OBJS:
		if (!json_is_object(x))
			return fail(v, path, "must be an object");
		return f->sub ? check_fields(v, f->sub, x, path) : 0;
	}
	return fail(v, path, "undeclared field type");
}

static int check_array(struct vctx *v, const struct field *f, json_t *x, const char *path)
{
	if (!json_is_array(x))
		return fail(v, path, "must be an array");
	size_t i;
	json_t *e;
	json_array_foreach(x, i, e)
	{
		char epath[128];
		snprintf(epath, sizeof(epath), "%.96s[%zu]", path, i);
		int rc = check_value(v, f, e, epath);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Optional fields may be absent or null; required ones must be present. */
static int check_fields(struct vctx *v, const struct field *fields, json_t *obj,
			const char *prefix)
{
	for (const struct field *f = fields; f->name; f++) {
		char path[128];
		if (prefix)
			snprintf(path, sizeof(path), "%.96s.%.24s", prefix, f->name);
		else
			snprintf(path, sizeof(path), "%.24s", f->name);
		json_t *x = json_object_get(obj, f->name);
		if (!x || json_is_null(x)) {
			if (f->req)
				return fail(v, path, "required");
			continue;
		}
		bool is_array =
		    f->type == T_INTS || f->type == T_STRS || f->type == T_OBJS;
		int rc =
		    is_array ? check_array(v, f, x, path) : check_value(v, f, x, path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int drv_msg_validate(const char *type, json_t *body, struct drv_error *err)
{
	const struct msg_type *t = find_type(type);
	if (!t) {
		if (type && strcmp(type, "reply") == 0)
			return json_is_object(body)
				   ? 0
				   : drv_error_set(
					 err, EBADMSG,
					 "reply: field 'body': must be an object");
		return drv_error_set(err, EBADMSG, "undeclared message type '%s'",
				     type ? type : "(null)");
	}
	if (!json_is_object(body))
		return drv_error_set(err, EBADMSG, "%s: field 'body': must be an object",
				     t->name);
	struct vctx v = {.type = t->name, .err = err};
	return check_fields(&v, t->fields, body, NULL);
}

static void fill_fields(const struct field *fields, json_t *obj)
{
	for (const struct field *f = fields; f->name; f++) {
		json_t *x = json_object_get(obj, f->name);
		if ((!x || json_is_null(x)) && f->def) {
			json_t *d = json_loads(f->def, JSON_DECODE_ANY, NULL);
			if (d)
				json_object_set_new(obj, f->name, d);
		} else if (x && f->sub && f->type == T_OBJ) {
			fill_fields(f->sub, x);
		} else if (x && f->sub && f->type == T_OBJS) {
			size_t i;
			json_t *e;
			json_array_foreach(x, i, e) if (json_is_object(e))
			    fill_fields(f->sub, e);
		}
	}
}

int drv_msg_fill_defaults(const char *type, json_t *body)
{
	const struct msg_type *t = find_type(type);
	if (!t || !json_is_object(body))
		return -EINVAL;
	fill_fields(t->fields, body);
	return 0;
}

static json_t *example_value(const struct field *f);

static json_t *example_object(const struct field *fields)
{
	json_t *o = json_object();
	for (const struct field *f = fields; f && f->name; f++)
		if (f->req)
			json_object_set_new(o, f->name, example_value(f));
	return o;
}

/* The smallest valid value of f: the lower bound, the shortest string. */
static json_t *example_value(const struct field *f)
{
	static const char hex[] =
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	switch (f->type) {
	case T_INT:
		return json_integer(f->min);
	case T_STR:
		if (f->choices) {
			size_t n = strcspn(f->choices, "|");
			return json_stringn(f->choices, n);
		}
		return json_stringn("xxxxxxxx", f->minlen < 8 ? f->minlen : 8);
	case T_HEX:
		return json_string(hex);
	case T_BOOL:
		return json_false();
	case T_OBJ:
		return example_object(f->sub);
	case T_INTS:
		return json_pack("[I]", (json_int_t)f->min);
	case T_STRS:
		return json_pack("[s]", "x");
	case T_OBJS:
		return json_pack("[o]", example_object(f->sub));
	}
	return json_null();
}

json_t *drv_msg_example(const char *type)
{
	const struct msg_type *t = find_type(type);
	return t ? example_object(t->fields) : NULL;
}
