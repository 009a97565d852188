/* conf_keys.c — every drover.conf key, declared once, and the code that
 * applies each type of value.
 *
 * Three tables: global keys (target: struct drv_conf) and NodeName line
 * keys (target: struct conf_node_line) here, PartitionName line keys
 * (target: struct drv_part_conf) in conf_part.c, which ctld also applies
 * to live partitions. Each entry names the key, its type, where it is
 * stored, its default, its bounds and whether a reconfigure may change it.
 * The reader in conf.c knows no key by name except the line types; adding a
 * key means adding a row here. Keys Slurm knows that Drover does not act on
 * are CONF_OTHER rows, the one table of them (docs/compat.md lists each):
 * accepted only with a value harmless or equivalent under Drover (their
 * choices), and kept as text. A key in no table is an error (conf.c). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/license.h"
#include "common/timefmt.h"

#define FIELD(type, field) offsetof(struct type, field)
#define FIELD_PTR(target, off, type) ((type *)(void *)((char *)(target) + (off)))

static const char *const node_states[] = {"CLOUD",  "DOWN", "DRAIN",   "FAIL", "FAILING",
					  "FUTURE", "IDLE", "UNKNOWN", NULL};
static const char *const job_container_types[] = {"job_container/none",
						  "job_container/tmpfs", NULL};

char *conf_resolve(const char *dir, const char *path)
{
	char *s;
	if (path[0] == '/' || !dir)
		return strdup(path);
	if (asprintf(&s, "%s/%s", dir, path) < 0)
		return NULL;
	return s;
}

static int kv_add(struct drv_conf_kv **v, size_t *n, const char *key, const char *value,
		  bool append)
{
	char *val = strdup(value);
	if (!val)
		return -ENOMEM;
	for (size_t i = 0; !append && i < *n; i++) {
		if (strcasecmp((*v)[i].key, key) == 0) {
			free((*v)[i].value);
			(*v)[i].value = val;
			return 0;
		}
	}
	char *k = strdup(key);
	struct drv_conf_kv *o = realloc(*v, (*n + 1) * sizeof(*o));
	if (o)
		*v = o;
	if (!k || !o) {
		free(k);
		free(val);
		return -ENOMEM;
	}
	o[*n].key = k;
	o[(*n)++].value = val;
	return 0;
}

int conf_written_add(struct drv_conf *conf, const char *key, const char *value,
		     bool append)
{
	return kv_add(&conf->written, &conf->n_written, key, value, append);
}

int conf_other_set(struct drv_conf *conf, const char *key, const char *value)
{
	return kv_add(&conf->other, &conf->n_other, key, value, false);
}

static int set_string(char **field, char *s)
{
	if (!s)
		return -ENOMEM;
	free(*field);
	*field = s;
	return 0;
}

static int parse_i64(const struct conf_key *k, const char *value, int64_t *out,
		     struct drv_error *err)
{
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (!*value || *end || errno == ERANGE || isspace((unsigned char)*value))
		return drv_error_set(err, EINVAL, "%s: '%.60s' is not a number", k->name,
				     value);
	if (v < k->min || v > k->max)
		return drv_error_set(err, EINVAL,
				     "%s: %lld is out of range (%" PRId64 "-%" PRId64 ")",
				     k->name, v, k->min, k->max);
	*out = v;
	return 0;
}

static int apply_bool(const struct conf_key *k, bool *field, const char *value,
		      struct drv_error *err)
{
	if (!strcasecmp(value, "YES") || !strcasecmp(value, "TRUE") ||
	    !strcmp(value, "1"))
		*field = true;
	else if (!strcasecmp(value, "NO") || !strcasecmp(value, "FALSE") ||
		 !strcmp(value, "0"))
		*field = false;
	else
		return drv_error_set(err, EINVAL, "%s: '%.60s' is not YES or NO", k->name,
				     value);
	return 0;
}

static int apply_enum(const struct conf_key *k, char **field, const char *value,
		      struct drv_error *err)
{
	for (const char *const *c = k->choices; *c; c++) {
		if (strcasecmp(*c, value) == 0)
			return set_string(field, strdup(*c));
	}
	return drv_error_set(err, EINVAL, "%s: '%.60s' is not a valid value", k->name,
			     value);
}

static char *lower_dup(const char *value)
{
	char *s = strdup(value);
	for (char *p = s; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

/* A comma list of names; "ALL" stands for every name (NULL), as Slurm's
 * AllowAccounts=ALL, and an empty entry is refused. */
static int apply_names(const struct conf_key *k, char **field, const char *value,
		       bool lower, struct drv_error *err)
{
	if (!strcasecmp(value, "ALL")) {
		free(*field);
		*field = NULL;
		return 0;
	}
	size_t n = strlen(value);
	if (value[0] == ',' || value[n - 1] == ',' || strstr(value, ",,"))
		return drv_error_set(err, EINVAL, "%s: '%.60s' has an empty name",
				     k->name, value);
	return set_string(field, lower ? lower_dup(value) : strdup(value));
}

/* A uint32_t within the key's bounds; with unlimited, also UNLIMITED or
 * INFINITE (DRV_UNLIMITED32), as Slurm's S_P_UINT32 reads them. */
static int apply_u32(const struct conf_key *k, uint32_t *field, const char *value,
		     bool unlimited, struct drv_error *err)
{
	int64_t v;
	if (unlimited &&
	    (!strcasecmp(value, "UNLIMITED") || !strcasecmp(value, "INFINITE"))) {
		*field = DRV_UNLIMITED32;
		return 0;
	}
	int rc = parse_i64(k, value, &v, err);
	if (rc == 0)
		*field = (uint32_t)v;
	return rc;
}

static bool accepted_item(const struct conf_key *k, const char *item, size_t len)
{
	for (const char *const *a = k->choices; *a; a++)
		if (strlen(*a) == len && !strncasecmp(*a, item, len))
			return true;
	return false;
}

/* A Slurm key Drover does not act on: every item of its comma list must be
 * one the row accepts as harmless or equivalent; anything else would be
 * silently not done, so it is refused, naming key and value. */
static int check_accepted(const struct conf_key *k, const char *value,
			  struct drv_error *err)
{
	char list[160] = "";
	if (!k->choices)
		return 0;
	for (const char *s = value; *s;) {
		size_t n = strcspn(s, ",");
		if (n && !accepted_item(k, s, n))
			goto refuse;
		s += n + (s[n] == ',');
	}
	return 0;
refuse:
	for (const char *const *a = k->choices; *a; a++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 list[0] ? ", " : "", *a);
	if (!list[0])
		return drv_error_set(err, EINVAL,
				     "%s=%.60s: Drover does not do what this asks; "
				     "remove the line (docs/compat.md)",
				     k->name, value);
	return drv_error_set(err, EINVAL,
			     "%s=%.60s: Drover does not do what this asks; it takes %s "
			     "(docs/compat.md)",
			     k->name, value, list);
}

int conf_key_apply(struct conf_parser *p, const struct conf_key *k, void *target,
		   const char *value, struct drv_error *err)
{
	int64_t v;
	int rc;

	if (!value && k->type == CONF_TIME) {
		*FIELD_PTR(target, k->off, int64_t) = DRV_NO_VAL;
		return 0;
	}
	if (!value)
		return 0; /* no default: the zeroed field stands */
	switch (k->type) {
	case CONF_STR:
		return set_string(FIELD_PTR(target, k->off, char *), strdup(value));
	case CONF_STR_LOWER:
		return set_string(FIELD_PTR(target, k->off, char *), lower_dup(value));
	case CONF_PATH:
		return set_string(FIELD_PTR(target, k->off, char *),
				  conf_resolve(p->conf->dir, value));
	case CONF_INT:
		rc = parse_i64(k, value, &v, err);
		if (rc == 0)
			*FIELD_PTR(target, k->off, int) = (int)v;
		return rc;
	case CONF_U64:
		rc = parse_i64(k, value, &v, err);
		if (rc == 0)
			*FIELD_PTR(target, k->off, uint64_t) = (uint64_t)v;
		return rc;
	case CONF_TIME:
		if (drv_time_parse_limit(value, &v) < 0)
			return drv_error_set(err, EINVAL,
					     "%s: '%.60s' is not a time limit", k->name,
					     value);
		*FIELD_PTR(target, k->off, int64_t) = v;
		return 0;
	case CONF_BOOL:
		return apply_bool(k, FIELD_PTR(target, k->off, bool), value, err);
	case CONF_ENUM:
		return apply_enum(k, FIELD_PTR(target, k->off, char *), value, err);
	case CONF_NAMES:
	case CONF_NAMES_LOWER:
		return apply_names(k, FIELD_PTR(target, k->off, char *), value,
				   k->type == CONF_NAMES_LOWER, err);
	case CONF_U32:
	case CONF_U32_UNLIM:
		return apply_u32(k, FIELD_PTR(target, k->off, uint32_t), value,
				 k->type == CONF_U32_UNLIM, err);
	case CONF_CUSTOM:
		return k->apply(p, k, target, value, err);
	case CONF_OTHER:
		rc = check_accepted(k, value, err);
		if (rc < 0)
			return rc;
		/* Only global keys are kept; unused node and partition keys are
		 * accepted and dropped. */
		if (p->conf && target == p->conf)
			return conf_other_set(p->conf, k->name, value);
		return 0;
	}
	return drv_error_set(err, EINVAL, "%s: internal error", k->name);
}

int conf_keys_defaults(struct conf_parser *p, const struct conf_key *table, void *target,
		       struct drv_error *err)
{
	for (const struct conf_key *k = table; k->name; k++) {
		if (k->type == CONF_OTHER || (k->type == CONF_CUSTOM && !k->def))
			continue;
		int rc = conf_key_apply(p, k, target, k->def, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool is_string_type(enum conf_type t)
{
	return t == CONF_STR || t == CONF_STR_LOWER || t == CONF_PATH || t == CONF_ENUM ||
	       t == CONF_NAMES || t == CONF_NAMES_LOWER;
}

void conf_keys_free(const struct conf_key *table, void *target)
{
	for (const struct conf_key *k = table; k->name; k++) {
		if (!is_string_type(k->type))
			continue;
		char **f = FIELD_PTR(target, k->off, char *);
		free(*f);
		*f = NULL; /* aliases (Procs, Feature) share a field */
	}
}

int conf_keys_dup(const struct conf_key *table, void *target)
{
	int rc = 0;
	for (const struct conf_key *k = table; k->name; k++) {
		if (!is_string_type(k->type))
			continue;
		char **f = FIELD_PTR(target, k->off, char *);
		bool seen = false; /* an alias already copied this field */
		for (const struct conf_key *a = table; a < k; a++)
			seen |= is_string_type(a->type) && a->off == k->off;
		if (seen || !*f)
			continue;
		*f = strdup(*f);
		if (!*f)
			rc = -ENOMEM;
	}
	return rc;
}

const struct conf_key *conf_key_find(const struct conf_key *table, const char *name)
{
	for (const struct conf_key *k = table; k->name; k++)
		if (strcasecmp(k->name, name) == 0)
			return k;
	return NULL;
}

/* SlurmctldHost=name or name(addr); repeatable, in order of preference. */
static int apply_ctld_host(struct conf_parser *p, const struct conf_key *k, void *target,
			   const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	const char *open = strchr(value, '(');
	size_t name_len = open ? (size_t)(open - value) : strlen(value);
	const char *addr = open ? open + 1 : NULL;
	size_t addr_len = 0;
	if (addr) {
		const char *close = strchr(addr, ')');
		if (!close || close[1] || close == addr)
			return drv_error_set(err, EINVAL,
					     "SlurmctldHost: '%.60s' is not name(addr)",
					     value);
		addr_len = (size_t)(close - addr);
	}
	if (name_len == 0)
		return drv_error_set(err, EINVAL, "SlurmctldHost: no host name");
	struct drv_ctld_host h = {
	    .name = strndup(value, name_len),
	    .addr = addr ? strndup(addr, addr_len) : strndup(value, name_len),
	};
	struct drv_ctld_host *v =
	    realloc(c->ctld_hosts, (c->n_ctld_hosts + 1) * sizeof(*v));
	if (!h.name || !h.addr || !v) {
		free(h.name);
		free(h.addr);
		if (v)
			c->ctld_hosts = v;
		return -ENOMEM;
	}
	c->ctld_hosts = v;
	v[c->n_ctld_hosts++] = h;
	return 0;
}

/* SlurmdParameters: a comma list; Drover acts on config_overrides only. */
static int apply_slurmd_params(struct conf_parser *p, const struct conf_key *k,
			       void *target, const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	bool overrides = false;
	for (const char *s = value; *s;) {
		size_t n = strcspn(s, ",");
		if (n == strlen("config_overrides") &&
		    !strncasecmp(s, "config_overrides", n))
			overrides = true;
		s += n;
		if (*s)
			s++;
	}
	int rc = conf_other_set(c, k->name, value);
	if (rc == 0)
		c->config_overrides = overrides;
	return rc;
}

/* SchedulerType: sched/backfill plans and backfills; sched/builtin starts
 * strictly in priority order. */
static int apply_sched_type(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	bool backfill = !strcasecmp(value, "sched/backfill");
	if (!backfill && strcasecmp(value, "sched/builtin"))
		return drv_error_set(err, EINVAL,
				     "SchedulerType: '%.60s' is not sched/backfill or "
				     "sched/builtin",
				     value);
	int rc = conf_other_set(c, k->name, value);
	if (rc == 0)
		c->sched.backfill = backfill;
	return rc;
}

/* One SchedulerParameters option that takes a number: name=N within
 * [min, max] into *out. */
struct sched_num_opt {
	const char *name;
	int64_t min, max, scale; /* scale: bf_window is given in minutes */
	size_t off;		 /* into struct drv_sched_conf */
	int width;		 /* sizeof the field: 4 or 8 */
};

#define SOPT(name, min, max, scale, field)                                               \
	{                                                                                \
		name, min, max, scale, offsetof(struct drv_sched_conf, field),           \
		    (int)sizeof(((struct drv_sched_conf *)0)->field)                     \
	}

static const struct sched_num_opt sched_num_opts[] = {
    SOPT("bf_interval", 1, 10800, 1, bf_interval),
    SOPT("bf_window", 1, 43200, 60, bf_window),
    SOPT("bf_resolution", 1, 3600, 1, bf_resolution),
    SOPT("bf_max_job_test", 1, 1000000, 1, bf_max_job_test),
    SOPT("bf_max_job_user", 0, 1000000, 1, bf_max_job_user),
    SOPT("bf_max_time", 1, 3600, 1, bf_max_time),
    SOPT("default_queue_depth", 1, 1000000, 1, default_queue_depth),
    SOPT("max_script_size", 0, 512LL << 20, 1, max_script_size),
};

static int sched_opt(struct drv_sched_conf *s, const char *opt, size_t len,
		     bool *max_time_set, struct drv_error *err)
{
	if (len == strlen("bf_continue") && !strncasecmp(opt, "bf_continue", len)) {
		s->bf_continue = true;
		return 0;
	}
	if (len == strlen("kill_invalid_depend") &&
	    !strncasecmp(opt, "kill_invalid_depend", len)) {
		s->kill_invalid_depend = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(sched_num_opts) / sizeof(sched_num_opts[0]); i++) {
		const struct sched_num_opt *o = &sched_num_opts[i];
		size_t n = strlen(o->name);
		if (len <= n || opt[n] != '=' || strncasecmp(opt, o->name, n))
			continue;
		char num[24] = "";
		char *end;
		if (len - n - 1 >= sizeof(num))
			return drv_error_set(err, EINVAL,
					     "SchedulerParameters: %s= is out of range",
					     o->name);
		memcpy(num, opt + n + 1, len - n - 1);
		long long v = strtoll(num, &end, 10);
		if (!*num || *end || v < o->min || v > o->max)
			return drv_error_set(
			    err, EINVAL,
			    "SchedulerParameters: %s='%s' is not a number "
			    "in %lld..%lld",
			    o->name, num, (long long)o->min, (long long)o->max);
		v *= o->scale;
		if (o->width == 8)
			*(int64_t *)((char *)s + o->off) = v;
		else
			*(int32_t *)((char *)s + o->off) = (int32_t)v;
		*max_time_set |= !strcmp(o->name, "bf_max_time");
		return 0;
	}
	return 0; /* Slurm's other options (and misspellings) are ignored, as it does */
}

void conf_sched_defaults(struct drv_sched_conf *s)
{
	*s = (struct drv_sched_conf){
	    .backfill = true,
	    .bf_interval = 30,
	    .bf_window = 24 * 3600,
	    .bf_resolution = 60,
	    .bf_max_job_test = 500,
	    .bf_max_time = 30,
	    .default_queue_depth = 100,
	    .max_script_size = 4LL << 20,
	};
}

/* SchedulerParameters: the backfill settings Drover acts on; the rest is
 * kept as text for `scontrol show config`. */
static int apply_sched_params(struct conf_parser *p, const struct conf_key *k,
			      void *target, const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	struct drv_sched_conf s;
	bool max_time_set = false;
	conf_sched_defaults(&s); /* the last line wins whole, also on reconfigure */
	s.backfill = c->sched.backfill;
	for (const char *o = value; *o;) {
		size_t len = strcspn(o, ",");
		if (sched_opt(&s, o, len, &max_time_set, err) < 0)
			return -EINVAL;
		o += len + (o[len] == ',');
	}
	if (!max_time_set)
		s.bf_max_time = s.bf_interval; /* Slurm's default */
	int rc = conf_other_set(c, k->name, value);
	if (rc == 0)
		c->sched = s;
	return rc;
}

/* SelectTypeParameters: memory is a consumable resource with any of the
 * CR_*_Memory values (Slurm's default is CR_Core_Memory). */
static int apply_select_params(struct conf_parser *p, const struct conf_key *k,
			       void *target, const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	static const char *const known[] = {
	    "CR_CPU",	      "CR_Core",	  "CR_Socket", "CR_CPU_Memory",
	    "CR_Core_Memory", "CR_Socket_Memory", "CR_Memory", NULL};
	size_t n = strcspn(value, ",");
	bool ok = false;
	for (size_t i = 0; known[i] && !ok; i++)
		ok = strlen(known[i]) == n && !strncasecmp(value, known[i], n);
	if (!ok)
		return drv_error_set(err, EINVAL,
				     "SelectTypeParameters: '%.60s' is not one of "
				     "CR_CPU, CR_Core, CR_Socket and their _Memory forms",
				     value);
	c->cr_memory = n >= 7 && !strncasecmp(value + n - 7, "_Memory", 7);
	c->cr_memory |= n == 9 && !strncasecmp(value, "CR_Memory", 9);
	return 0;
}

/* EnforcePartLimits: ALL (or YES) and ANY refuse at submit what a
 * partition's limits forbid (ANY: unless one of the job's partitions
 * allows it); NO (the default) lets such jobs wait. */
static int apply_enforce_part(struct conf_parser *p, const struct conf_key *k,
			      void *target, const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	if (!strcasecmp(value, "ALL") || !strcasecmp(value, "YES"))
		c->enforce_part_limits = DRV_ENFORCE_ALL;
	else if (!strcasecmp(value, "ANY"))
		c->enforce_part_limits = DRV_ENFORCE_ANY;
	else if (!strcasecmp(value, "NO"))
		c->enforce_part_limits = DRV_ENFORCE_NO;
	else
		return drv_error_set(err, EINVAL,
				     "EnforcePartLimits: '%.60s' is not ALL, ANY, "
				     "NO or YES",
				     value);
	return 0;
}

/* AccountingStorageEnforce=associations,limits,qos,safe,wckeys,all (or 1,
 * 2), with Slurm's implications; nojobs and nosteps are accepted and
 * change nothing here (ctld always keeps jobs' and steps' records). */
static int apply_acct_enforce(struct conf_parser *p, const struct conf_key *k,
			      void *target, const char *value, struct drv_error *err)
{
	static const struct {
		const char *name;
		unsigned bits;
	} parts[] = {
	    {"1", DRV_ENFORCE_ASSOCS},
	    {"associations", DRV_ENFORCE_ASSOCS},
	    {"2", DRV_ENFORCE_ASSOCS | DRV_ENFORCE_LIMITS},
	    {"limits", DRV_ENFORCE_ASSOCS | DRV_ENFORCE_LIMITS},
	    {"safe", DRV_ENFORCE_ASSOCS | DRV_ENFORCE_LIMITS | DRV_ENFORCE_SAFE},
	    {"wckeys", DRV_ENFORCE_ASSOCS | DRV_ENFORCE_WCKEYS},
	    {"qos", DRV_ENFORCE_ASSOCS | DRV_ENFORCE_QOS},
	    {"all", DRV_ENFORCE_ASSOCS | DRV_ENFORCE_LIMITS | DRV_ENFORCE_QOS |
			DRV_ENFORCE_SAFE | DRV_ENFORCE_WCKEYS},
	    {"nojobs", 0},
	    {"nosteps", 0},
	    {"0", 0},
	    {"none", 0},
	};
	struct drv_conf *c = target;
	unsigned bits = 0;
	for (const char *s = value; *s;) {
		size_t len = strcspn(s, ","), i;
		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
			if (strlen(parts[i].name) == len &&
			    !strncasecmp(parts[i].name, s, len))
				break;
		if (i == sizeof(parts) / sizeof(parts[0]))
			return drv_error_set(err, EINVAL,
					     "Invalid parameter for "
					     "AccountingStorageEnforce: %.*s",
					     (int)(len < 60 ? len : 60), s);
		bits |= parts[i].bits;
		s += len + (s[len] == ',');
	}
	c->acct_enforce = bits;
	return 0;
}

/* PurgeJobAfter (slurmdbd.conf's key, read here since ctld keeps the
 * accounting): N months, or N with a unit, "12hours", "30days"; Drover also
 * takes seconds and minutes. */
static int apply_purge_after(struct conf_parser *p, const struct conf_key *k,
			     void *target, const char *value, struct drv_error *err)
{
	static const struct {
		const char *unit;
		int64_t secs;
	} units[] = {{"second", 1},  {"minute", 60},	 {"hour", 3600},
		     {"day", 86400}, {"month", 2592000}, {"", 2592000}};
	struct drv_conf *c = target;
	char *end;
	errno = 0;
	long long n = strtoll(value, &end, 10);
	if (errno || end == value || n < 0 || n > 1000000)
		goto bad;
	char unit[16];
	size_t len = strlen(end);
	if (len >= sizeof(unit))
		goto bad;
	memcpy(unit, end, len + 1);
	if (len > 1 && (unit[len - 1] | 32) == 's')
		unit[len - 1] = '\0'; /* "days" as "day" */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(unit, units[i].unit)) {
			c->purge_job_after = n * units[i].secs;
			return 0;
		}
bad:
	return drv_error_set(err, EINVAL,
			     "PurgeJobAfter: '%.60s' is not N[months|days|hours|minutes|"
			     "seconds]",
			     value);
}

/* JobSubmitPlugins: a comma list of plugins; Drover has lua (also written
 * job_submit/lua). Any other is refused rather than skipped: a site policy
 * that does not run must not let jobs through unchecked. The text is kept
 * for `scontrol show config`. */
static int apply_job_submit(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	bool lua = false;
	for (const char *s = value; *s;) {
		size_t n = strcspn(s, ",");
		if (n && !((n == 3 && !strncasecmp(s, "lua", 3)) ||
			   (n == 14 && !strncasecmp(s, "job_submit/lua", 14))))
			return drv_error_set(err, EINVAL,
					     "JobSubmitPlugins: '%.*s' is not supported; "
					     "Drover has lua",
					     (int)(n > 60 ? 60 : n), s);
		lua |= n > 0;
		s += n;
		if (*s)
			s++;
	}
	int rc = conf_other_set(c, k->name, value);
	if (rc == 0)
		c->job_submit_lua = lua;
	return rc;
}

/* Licenses=name[:count],...: the cluster's licenses (license.c parses the
 * list); the text is also kept for `scontrol show config`. A later
 * Licenses= line replaces an earlier one. */
static int apply_licenses(struct conf_parser *p, const struct conf_key *k, void *target,
			  const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	struct drv_license *v = NULL;
	size_t n = 0;
	struct drv_error why = {{0}};
	int rc = drv_licenses_parse(value, &v, &n, &why);
	if (rc == -EINVAL)
		return drv_error_set(err, EINVAL, "Licenses: %s in '%.60s'", why.text,
				     value);
	if (rc < 0)
		return rc;
	struct drv_license_conf *lc = calloc(n, sizeof(*lc));
	if (!lc || conf_other_set(c, k->name, value) < 0) {
		free(lc);
		drv_licenses_free(v, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		lc[i] = (struct drv_license_conf){.name = v[i].name, .total = v[i].count};
	free(v); /* the names moved to lc */
	for (size_t i = 0; i < c->n_licenses; i++)
		free(c->licenses[i].name);
	free(c->licenses);
	c->licenses = lc;
	c->n_licenses = n;
	return 0;
}

/* AnomalyMemFraction: a fraction of the node's memory, 0 (off) to 1, as a
 * decimal ("0.8"). */
static int apply_fraction(struct conf_parser *p, const struct conf_key *k, void *target,
			  const char *value, struct drv_error *err)
{
	(void)p;
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (end == value || *end || errno || !(v >= 0 && v <= 1))
		return drv_error_set(err, EINVAL,
				     "%s: '%.60s' is not a fraction (0 to 1, e.g. 0.8)",
				     k->name, value);
	*FIELD_PTR(target, k->off, double) = v;
	return 0;
}

/* Slurm keys Drover does not act on, each declared once here (node and
 * partition lines: their tables below and in conf_part.c); docs/compat.md
 * lists each once with what Drover does instead. OTHER: any value is
 * harmless. ONLY: the values harmless or equivalent under Drover; another
 * value is refused. NEVER: setting the key at all asks for what Drover
 * does not do. */
#define OTHER(key)                                                                       \
	{                                                                                \
		.name = key, .type = CONF_OTHER, .reload = true                          \
	}
#define ONLY(key, ...)                                                                   \
	{                                                                                \
		.name = key, .type = CONF_OTHER, .reload = true,                         \
		.choices = (const char *const[])                                         \
		{                                                                        \
			__VA_ARGS__, NULL                                                \
		}                                                                        \
	}
#define NEVER(key)                                                                       \
	{                                                                                \
		.name = key, .type = CONF_OTHER, .reload = true,                         \
		.choices = (const char *const[])                                         \
		{                                                                        \
			NULL                                                             \
		}                                                                        \
	}

#define PRIO(key)                                                                        \
	{                                                                                \
		.name = key, .type = CONF_CUSTOM, .reload = false,                       \
		.apply = conf_apply_prio                                                 \
	}

/* The reload column: whether `scontrol reconfigure` may change the key in
 * a running cluster (conf_reload.c): ctld reads its file again and tells
 * every noded to read its own, each taking the same keys. Keys without it
 * are read once at start: ports, paths of state, the log files (opened
 * once), SlurmdParameters (a node's resources, given at registration),
 * JobSubmitPlugins (whose Lua state is built at start), the priority keys
 * and the licenses. */
/* clang-format off */
const struct conf_key conf_global_keys[] = {
	{"ClusterName", CONF_STR_LOWER, FIELD(drv_conf, cluster_name), "drover", 0, 0, NULL, false, NULL},
	{"SlurmctldHost", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, apply_ctld_host},
	{"SlurmctldPort", CONF_INT, FIELD(drv_conf, ctld_port), "6817", 1, 65535, NULL, false, NULL},
	{"SlurmdPort", CONF_INT, FIELD(drv_conf, slurmd_port), "6818", 1, 65535, NULL, false, NULL},
	{"StateSaveLocation", CONF_PATH, FIELD(drv_conf, state_save_location), "/var/spool/drover/ctld", 0, 0, NULL, false, NULL},
	{"SlurmdSpoolDir", CONF_PATH, FIELD(drv_conf, slurmd_spool_dir), "/var/spool/drover/d/%n", 0, 0, NULL, false, NULL},
	{"SlurmdLogFile", CONF_PATH, FIELD(drv_conf, slurmd_log_file), NULL, 0, 0, NULL, false, NULL},
	{"SlurmdPidFile", CONF_PATH, FIELD(drv_conf, slurmd_pid_file), NULL, 0, 0, NULL, false, NULL},
	{"SlurmctldLogFile", CONF_PATH, FIELD(drv_conf, ctld_log_file), NULL, 0, 0, NULL, false, NULL},
	{"SlurmctldPidFile", CONF_PATH, FIELD(drv_conf, ctld_pid_file), NULL, 0, 0, NULL, false, NULL},
	{"AuthType", CONF_CUSTOM, 0, "auth/drover", 0, 0, NULL, false, conf_apply_auth_type},
	{"AuthInfo", CONF_CUSTOM, 0, "socket=/run/drover/authd.sock,key=drover.key,cred_expire=120,clock_skew=10,key_grace=300", 0, 0, NULL, false, conf_apply_auth_info},
	{"SlurmdTimeout", CONF_INT, FIELD(drv_conf, slurmd_timeout), "300", 0, 65533, NULL, true, NULL},
	{"KillWait", CONF_INT, FIELD(drv_conf, kill_wait), "30", 0, 65533, NULL, true, NULL},
	{"UnkillableStepTimeout", CONF_INT, FIELD(drv_conf, unkillable_step_timeout), "60", 1, 65533, NULL, true, NULL},
	{"JobAcctGatherFrequency", CONF_CUSTOM, 0, "30", 0, 0, NULL, true, conf_apply_acct_freq},
	{"MinJobAge", CONF_INT, FIELD(drv_conf, min_job_age), "300", 0, 2147483647, NULL, true, NULL},
	{"FirstJobId", CONF_INT, FIELD(drv_conf, first_job_id), "1", 1, DRV_JOB_ID_MAX, NULL, true, NULL},
	{"MaxJobId", CONF_INT, FIELD(drv_conf, max_job_id), "67043328", 1, DRV_JOB_ID_MAX, NULL, true, NULL},
	{"MaxArraySize", CONF_INT, FIELD(drv_conf, max_array_size), "1001", 0, 4000001, NULL, true, NULL},
	{"MaxJobCount", CONF_INT, FIELD(drv_conf, max_job_count), "10000", 1, DRV_JOB_ID_MAX, NULL, true, NULL},
	{"MaxMessageSize", CONF_U64, FIELD(drv_conf, max_message_size), "4194304", 4096, 1073741824, NULL, false, NULL},
	{"SlurmdParameters", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, apply_slurmd_params},
	{"DefMemPerCPU", CONF_U64, FIELD(drv_conf, def_mem_per_cpu), "0", 0, 1LL << 40, NULL, true, NULL},
	{"DefMemPerNode", CONF_U64, FIELD(drv_conf, def_mem_per_node), "0", 0, 1LL << 40, NULL, true, NULL},
	{"SchedulerType", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, apply_sched_type},
	{"SchedulerParameters", CONF_CUSTOM, 0, NULL, 0, 0, NULL, true, apply_sched_params},
	{"SlurmctldParameters", CONF_CUSTOM, 0, NULL, 0, 0, NULL, true, conf_apply_ctld_params},
	{"DefCpuPerGPU", CONF_U64, FIELD(drv_conf, def_cpu_per_gpu), "0", 0, 1048576, NULL, true, NULL},
	{"DefMemPerGPU", CONF_U64, FIELD(drv_conf, def_mem_per_gpu), "0", 0, 1LL << 40, NULL, true, NULL},
	{"Licenses", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, apply_licenses},
	{"SelectTypeParameters", CONF_CUSTOM, 0, "CR_Core_Memory", 0, 0, NULL, false, apply_select_params},
	{"EnforcePartLimits", CONF_CUSTOM, 0, "NO", 0, 0, NULL, true, apply_enforce_part},
	{"AccountingStorageEnforce", CONF_CUSTOM, 0, "0", 0, 0, NULL, true, apply_acct_enforce},
	{"PrivateData", CONF_CUSTOM, 0, "none", 0, 0, NULL, true, conf_apply_private_data},
	{"Prolog", CONF_PATH, FIELD(drv_conf, prolog), NULL, 0, 0, NULL, true, NULL},
	{"Epilog", CONF_PATH, FIELD(drv_conf, epilog), NULL, 0, 0, NULL, true, NULL},
	{"TaskProlog", CONF_PATH, FIELD(drv_conf, task_prolog), NULL, 0, 0, NULL, true, NULL},
	{"TaskEpilog", CONF_PATH, FIELD(drv_conf, task_epilog), NULL, 0, 0, NULL, true, NULL},
	{"PrologSlurmctld", CONF_PATH, FIELD(drv_conf, prolog_slurmctld), NULL, 0, 0, NULL, true, NULL},
	{"EpilogSlurmctld", CONF_PATH, FIELD(drv_conf, epilog_slurmctld), NULL, 0, 0, NULL, true, NULL},
	{"PrologFlags", CONF_STR, FIELD(drv_conf, prolog_flags), NULL, 0, 0, NULL, true, NULL},
	{"PrologEpilogTimeout", CONF_INT, FIELD(drv_conf, prolog_epilog_timeout), "65534", 1, 65535, NULL, true, NULL},
	{"HealthCheckProgram", CONF_PATH, FIELD(drv_conf, health_check_program), NULL, 0, 0, NULL, true, NULL},
	{"HealthCheckInterval", CONF_INT, FIELD(drv_conf, health_check_interval), "0", 0, 65535, NULL, true, NULL},
	{"HealthCheckNodeState", CONF_CUSTOM, 0, "ANY", 0, 0, NULL, true, conf_apply_health_state},
	/* Drover's own: Slurm kills the program after a fixed 60 s */
	{"HealthCheckTimeout", CONF_INT, FIELD(drv_conf, health_check_timeout), "60", 1, 65535, NULL, true, NULL},
	{"JobRequeue", CONF_INT, FIELD(drv_conf, job_requeue), "1", 0, 1, NULL, true, NULL},
	{"SlurmUser", CONF_STR, FIELD(drv_conf, slurm_user), NULL, 0, 0, NULL, false, NULL},
	{"SlurmdUser", CONF_STR, FIELD(drv_conf, slurmd_user), NULL, 0, 0, NULL, false, NULL},
	{"PurgeJobAfter", CONF_CUSTOM, 0, "0", 0, 0, NULL, true, apply_purge_after},
	{"JobSubmitPlugins", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, apply_job_submit},
	/* cgroup.conf's keys that drover.conf held before cgroup.conf existed:
	 * still read here, with a warning (conf_cgroup.c) */
	{"CgroupPlugin", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, conf_apply_cgroup_legacy},
	{"CgroupMountpoint", CONF_CUSTOM, 0, NULL, 0, 0, NULL, false, conf_apply_cgroup_legacy},
	{"ConstrainRAMSpace", CONF_CUSTOM, 0, NULL, 0, 0, NULL, true, conf_apply_cgroup_legacy},
	/* each job's own /tmp and /dev/shm (noded reads job_container.conf) */
	{"JobContainerType", CONF_ENUM, FIELD(drv_conf, job_container_type), "job_container/none", 0, 0, job_container_types, false, NULL},
	/* Drover's own: connection and credential-cache bounds */
	{"ConnAuthTimeout", CONF_INT, FIELD(drv_conf, conn_auth_timeout), "10", 1, 3600, NULL, false, NULL},
	{"ConnIdleTimeout", CONF_INT, FIELD(drv_conf, conn_idle_timeout), "300", 0, 86400, NULL, false, NULL},
	{"MaxConnections", CONF_INT, FIELD(drv_conf, max_connections), "1024", 8, 1000000, NULL, false, NULL},
	{"MaxConnectionsPerUser", CONF_INT, FIELD(drv_conf, max_connections_per_user), "128", 1, 1000000, NULL, false, NULL},
	{"NonceCacheSize", CONF_U64, FIELD(drv_conf, nonce_cache_size), "1048576", 64, 67108864, NULL, false, NULL},
	{"NonceCachePerUser", CONF_U64, FIELD(drv_conf, nonce_cache_per_user), "65536", 16, 67108864, NULL, false, NULL},
	/* Drover's own: the anomaly freeze (docs/anomaly.md); 0 turns each off */
	{"AnomalyMemRate", CONF_INT, FIELD(drv_conf, anomaly_mem_rate), "0", 0, 1048576, NULL, true, NULL},
	{"AnomalyMemSamples", CONF_INT, FIELD(drv_conf, anomaly_mem_samples), "3", 2, 16, NULL, true, NULL},
	{"AnomalyMemFraction", CONF_CUSTOM, FIELD(drv_conf, anomaly_mem_fraction), "0", 0, 0, NULL, true, apply_fraction},
	{"AnomalyDeniedLimit", CONF_INT, FIELD(drv_conf, anomaly_denied_limit), "0", 0, 1000000, NULL, true, NULL},
	{"AnomalyDeniedWindow", CONF_INT, FIELD(drv_conf, anomaly_denied_window), "60", 1, 86400, NULL, true, NULL},
	/* the priority keys: values read by conf_prio.c, defaults there */
	PRIO("PriorityType"),
	PRIO("PriorityWeightAge"),
	PRIO("PriorityWeightAssoc"),
	PRIO("PriorityWeightFairshare"),
	PRIO("PriorityWeightJobSize"),
	PRIO("PriorityWeightPartition"),
	PRIO("PriorityWeightQOS"),
	PRIO("PriorityWeightTRES"),
	PRIO("PriorityMaxAge"),
	PRIO("PriorityDecayHalfLife"),
	PRIO("PriorityCalcPeriod"),
	PRIO("PriorityUsageResetPeriod"),
	PRIO("PriorityFavorSmall"),
	PRIO("PriorityFlags"),
	/* Slurm's keys that are harmless or equivalent under Drover */
	OTHER("AccountingStorageBackupHost"), OTHER("AccountingStorageExternalHost"),
	OTHER("AccountingStorageHost"), OTHER("AccountingStorageLoc"),
	OTHER("AccountingStorageParameters"), OTHER("AccountingStoragePass"),
	OTHER("AccountingStoragePort"), OTHER("AccountingStorageTRES"),
	OTHER("AccountingStorageType"), OTHER("AccountingStorageUser"),
	OTHER("AccountingStoreFlags"), OTHER("AccountingStoreJobComment"),
	OTHER("AcctGatherEnergyType"), OTHER("AcctGatherFilesystemType"),
	OTHER("AcctGatherInfinibandType"), OTHER("AcctGatherInterconnectType"),
	OTHER("AcctGatherNodeFreq"), OTHER("AcctGatherProfileType"),
	OTHER("AllowSpecResourcesUsage"), OTHER("AuthAltParameters"), OTHER("AuthAltTypes"),
	OTHER("BackupAddr"), OTHER("BackupController"), OTHER("BatchStartTimeout"),
	OTHER("BcastExclude"), OTHER("BcastParameters"), OTHER("CommunicationParameters"),
	OTHER("CompleteWait"), OTHER("ControlAddr"), OTHER("ControlMachine"),
	OTHER("CoreSpecPlugin"), OTHER("CpuFreqDef"), OTHER("CpuFreqGovernors"),
	OTHER("CredType"), OTHER("CryptoType"), OTHER("DebugFlags"),
	OTHER("DependencyParameters"), OTHER("EioTimeout"), OTHER("EpilogMsgTime"),
	OTHER("ExtSensorsFreq"), OTHER("ExtSensorsType"), OTHER("FastSchedule"),
	OTHER("FederationParameters"), OTHER("GetEnvTimeout"), OTHER("GpuFreqDef"),
	OTHER("GresTypes"), OTHER("GroupUpdateForce"), OTHER("GroupUpdateTime"),
	OTHER("InteractiveStepOptions"),
	OTHER("JobAcctGatherParams"), OTHER("JobAcctGatherType"), OTHER("JobCompHost"),
	OTHER("JobCompLoc"), OTHER("JobCompParams"), OTHER("JobCompPass"),
	OTHER("JobCompPort"), OTHER("JobCompUser"), OTHER("JobCredentialPrivateKey"),
	OTHER("JobCredentialPublicCertificate"), OTHER("KeepAliveTime"),
	OTHER("KillOnBadExit"), OTHER("LaunchParameters"), OTHER("LaunchType"),
	OTHER("LogTimeFormat"), OTHER("MailDomain"), OTHER("MailProg"),
	OTHER("MaxBatchRequeue"), OTHER("MaxDBDMsgs"),
	OTHER("MaxNodeCount"), OTHER("MaxStepCount"), OTHER("MaxTasksPerNode"),
	OTHER("MCSParameters"), OTHER("MessageTimeout"), OTHER("MpiParams"),
	OTHER("PluginDir"), OTHER("PowerParameters"), OTHER("PreemptExemptTime"),
	OTHER("PreemptParameters"), OTHER("PrEpParameters"), OTHER("PriorityParameters"),
	OTHER("PrioritySiteFactorParameters"), OTHER("PropagateResourceLimits"),
	OTHER("PropagateResourceLimitsExcept"), OTHER("ReconfigFlags"),
	OTHER("ResumeRate"), OTHER("ResumeTimeout"), OTHER("ResvOverRun"),
	OTHER("ReturnToService"), OTHER("RoutePlugin"), OTHER("SallocDefaultCommand"),
	OTHER("SbcastParameters"), OTHER("SchedulerAuth"), OTHER("SchedulerTimeSlice"),
	OTHER("ScronParameters"), OTHER("SlurmctldAddr"), OTHER("SlurmctldDebug"),
	OTHER("SlurmctldPlugstack"),
	OTHER("SlurmctldSyslogDebug"), OTHER("SlurmctldTimeout"), OTHER("SlurmdDebug"),
	OTHER("SlurmdSyslogDebug"), OTHER("SlurmSchedLogFile"),
	OTHER("SlurmSchedLogLevel"), OTHER("SrunPortRange"), OTHER("SuspendExcNodes"),
	OTHER("SuspendExcParts"), OTHER("SuspendExcStates"), OTHER("SuspendRate"),
	OTHER("SuspendTime"), OTHER("SuspendTimeout"), OTHER("SwitchParameters"),
	OTHER("TaskPluginParam"), OTHER("TCPTimeout"), OTHER("TmpFS"),
	OTHER("TopologyParam"), OTHER("TopologyPlugin"), OTHER("TrackWCKey"),
	OTHER("TreeWidth"), OTHER("UnkillableStepProgram"),
	OTHER("WaitTime"), OTHER("X11Parameters"),
	/* harmless with these values only */
	ONLY("DisableRootJobs", "NO", "0", "FALSE"),
	ONLY("FairShareDampeningFactor", "1"),
	ONLY("InactiveLimit", "0"),
	ONLY("JobCompType", "jobcomp/none"),
	ONLY("JobFileAppend", "0"),
	ONLY("MaxMemPerCPU", "0", "UNLIMITED"),
	ONLY("MaxMemPerNode", "0", "UNLIMITED"),
	ONLY("MCSPlugin", "mcs/none"),
	ONLY("MpiDefault", "none"),
	ONLY("OverTimeLimit", "0"),
	ONLY("PreemptMode", "OFF"),
	ONLY("PreemptType", "preempt/none"),
	ONLY("PrEpPlugins", "prep/script"),
	ONLY("PrioritySiteFactorPlugin", "site_factor/none"),
	ONLY("ProctrackType", "proctrack/cgroup", "proctrack/linuxproc", "proctrack/pgid"),
	ONLY("PropagatePrioProcess", "0"),
	ONLY("SelectType", "select/cons_tres", "select/cons_res"),
	ONLY("SwitchType", "switch/none"),
	ONLY("TaskPlugin", "task/affinity", "task/cgroup", "task/none"),
	ONLY("UsePAM", "0", "NO", "FALSE"),
	ONLY("VSizeFactor", "0"),
	/* programs and plugins Drover does not run: set at all, they would be
	 * silently skipped */
	NEVER("BurstBufferParameters"), NEVER("BurstBufferType"),
	NEVER("CliFilterPlugins"),
	NEVER("NodeFeaturesPlugins"), NEVER("PlugStackConfig"), NEVER("PowerPlugin"),
	NEVER("RebootProgram"), NEVER("RequeueExit"), NEVER("RequeueExitHold"),
	NEVER("ResumeFailProgram"), NEVER("ResumeProgram"), NEVER("ResvEpilog"),
	NEVER("ResvProlog"), NEVER("SlurmctldPrimaryOffProg"),
	NEVER("SlurmctldPrimaryOnProg"), NEVER("SrunEpilog"), NEVER("SrunProlog"),
	NEVER("SuspendProgram"),
	{0},
};

const struct conf_key conf_node_keys[] = {
	{"NodeName", CONF_STR, FIELD(conf_node_line, names), NULL, 0, 0, NULL, false, NULL},
	{"NodeHostname", CONF_STR, FIELD(conf_node_line, hostnames), NULL, 0, 0, NULL, false, NULL},
	{"NodeAddr", CONF_STR, FIELD(conf_node_line, addrs), NULL, 0, 0, NULL, true, NULL},
	{"Port", CONF_STR, FIELD(conf_node_line, ports), NULL, 0, 0, NULL, false, NULL},
	{"CPUs", CONF_INT, FIELD(conf_node_line, cpus), "1", 1, 1048576, NULL, true, NULL},
	{"Procs", CONF_INT, FIELD(conf_node_line, cpus), NULL, 1, 1048576, NULL, true, NULL},
	{"RealMemory", CONF_U64, FIELD(conf_node_line, real_memory), "1", 1, INT64_MAX, NULL, true, NULL},
	{"TmpDisk", CONF_U64, FIELD(conf_node_line, tmp_disk), "0", 0, INT64_MAX, NULL, true, NULL},
	{"Gres", CONF_STR, FIELD(conf_node_line, gres), NULL, 0, 0, NULL, true, NULL},
	{"Features", CONF_STR, FIELD(conf_node_line, features), NULL, 0, 0, NULL, true, NULL},
	{"Feature", CONF_STR, FIELD(conf_node_line, features), NULL, 0, 0, NULL, true, NULL},
	{"State", CONF_ENUM, FIELD(conf_node_line, state), NULL, 0, 0, node_states, true, NULL},
	{"Weight", CONF_U32, FIELD(conf_node_line, weight), "1", 0, 4294967294LL, NULL, true, NULL},
	OTHER("ActiveFeatures"), OTHER("AvailableFeatures"), OTHER("BcastAddr"),
	OTHER("Boards"), OTHER("Comment"), OTHER("CoresPerSocket"), OTHER("CpuBind"),
	OTHER("Extra"), OTHER("Parameters"), OTHER("Reason"),
	OTHER("RestrictedCoresPerGPU"), OTHER("Sockets"), OTHER("SocketsPerBoard"),
	OTHER("ThreadsPerCore"), OTHER("Topology"), OTHER("TRESWeights"),
	/* cores and memory kept from jobs: Drover would give them to jobs */
	ONLY("CoreSpecCount", "0"), NEVER("CpuSpecList"), ONLY("MemSpecLimit", "0"),
	{0},
};

/* clang-format on */
