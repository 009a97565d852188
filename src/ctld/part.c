/* part.c — ctld's partitions as records it owns: built from the config,
 * replaced or added by the store's (what scontrol create|update made),
 * changed and deleted live, each change committed as a store object in the
 * turn's group commit. Also which partitions a job names (-p a,b) and the
 * partition a job shows.
 *
 * What a key means is conf_part.c's (one table for the config and for
 * live changes); who may change partitions is rpc_part.c's; what a job may
 * do in a partition at submit is part_check.c's. */
#include "ctld/part.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"

/* Fills p from src (copied); node_idx from src's node names (each known:
 * the config checked them). 0 or -ENOMEM, p untouched then. */
static int part_set(const struct ctld *c, struct part *p, const struct drv_part_conf *src)
{
	struct drv_part_conf *pc = malloc(sizeof(*pc));
	uint32_t *idx = calloc(src->n_nodes ? src->n_nodes : 1, sizeof(*idx));
	uint32_t n = 0;
	if (!pc || !idx || drv_part_conf_copy(pc, src) < 0) {
		free(pc);
		free(idx);
		return -ENOMEM;
	}
	for (size_t k = 0; k < src->n_nodes; k++) {
		const struct node *nd = node_find(&c->nodes, src->node_names[k]);
		if (nd)
			idx[n++] = nd->idx;
	}
	*p = (struct part){.conf = pc, .node_idx = idx, .n_nodes = n};
	p->up = drv_part_state_sched(pc->state);
	return 0;
}

static void part_clear(struct part *p)
{
	drv_part_conf_fini(p->conf);
	free(p->conf);
	free(p->node_idx);
	memset(p, 0, sizeof(*p));
}

int part_table_init(struct ctld *c, struct drv_error *err)
{
	size_t n = c->conf->n_parts;
	c->parts = calloc(n ? n : 1, sizeof(*c->parts));
	if (!c->parts)
		return drv_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (part_set(c, &c->parts[i], &c->conf->parts[i]) < 0)
			return drv_error_set(err, ENOMEM, "out of memory");
		c->n_parts++;
	}
	return 0;
}

void part_table_fini(struct ctld *c)
{
	for (size_t i = 0; c->parts && i < c->n_parts; i++)
		part_clear(&c->parts[i]);
	free(c->parts);
	c->parts = NULL;
	c->n_parts = 0;
}

struct part *part_find(const struct ctld *c, const char *name)
{
	for (size_t i = 0; name && i < c->n_parts; i++)
		if (!strcmp(c->parts[i].conf->name, name))
			return &c->parts[i];
	return NULL;
}

struct part *part_default(const struct ctld *c)
{
	for (size_t i = 0; i < c->n_parts; i++)
		if (c->parts[i].conf->is_default)
			return &c->parts[i];
	return NULL;
}

/* DefMemPerCPU= or DefMemPerNode= as scontrol shows them: the partition's,
 * else the cluster's (0: DefMemPerNode=UNLIMITED). */
static void mem_shown(const struct drv_conf *cf, const struct drv_part_conf *pc,
		      struct drv_rec_partition *o)
{
	uint64_t cpu = cf->def_mem_per_cpu, node = cf->def_mem_per_node;
	if (pc->def_mem_per_node || pc->def_mem_per_cpu) {
		cpu = pc->def_mem_per_node ? 0 : pc->def_mem_per_cpu;
		node = pc->def_mem_per_node;
	}
	o->has_def_mem_per_cpu = cpu != 0;
	o->def_mem_per_cpu = (int64_t)cpu;
	o->has_def_mem_per_node = cpu == 0;
	o->def_mem_per_node = (int64_t)node;
}

static int64_t unlimited_or(uint32_t v)
{
	return v == DRV_UNLIMITED32 ? -1 : (int64_t)v;
}

struct drv_rec_partition part_record(const struct ctld *c, const struct part *p,
				     bool stored, char *os)
{
	const struct drv_part_conf *pc = p->conf;
	drv_part_oversubscribe_str(pc, os, 24);
	struct drv_rec_partition o = {
	    .name = pc->name,
	    .nodes = pc->nodes ? pc->nodes : "",
	    .is_default = pc->is_default,
	    .max_time = pc->max_time,
	    .default_time = pc->default_time,
	    .state = pc->state,
	    .max_nodes = unlimited_or(pc->max_nodes),
	    .min_nodes = pc->min_nodes,
	    .max_cpus_per_node = unlimited_or(pc->max_cpus_per_node),
	    .max_mem_per_node = (int64_t)pc->max_mem_per_node,
	    .def_cpu_per_gpu = (int64_t)pc->def_cpu_per_gpu,
	    .def_mem_per_gpu = (int64_t)pc->def_mem_per_gpu,
	    .allow_groups = pc->allow_groups,
	    .allow_accounts = pc->allow_accounts,
	    .deny_accounts = pc->deny_accounts,
	    .allow_qos = pc->allow_qos,
	    .deny_qos = pc->deny_qos,
	    .qos = pc->qos,
	    .priority_tier = pc->priority_tier,
	    .priority_job_factor = pc->priority_job_factor,
	    .oversubscribe = os,
	    .tres_billing_weights =
		pc->billing_weights.set ? pc->billing_weights.text : NULL,
	};
	if (stored) { /* its own settings: the cluster's may change */
		o.has_def_mem_per_cpu = pc->def_mem_per_cpu != 0;
		o.def_mem_per_cpu = (int64_t)pc->def_mem_per_cpu;
		o.has_def_mem_per_node = pc->def_mem_per_node != 0;
		o.def_mem_per_node = (int64_t)pc->def_mem_per_node;
		return o;
	}
	o.total_nodes = p->n_nodes;
	for (uint32_t k = 0; k < p->n_nodes; k++) {
		const struct node *n = &c->nodes.nodes[p->node_idx[k]];
		o.total_cpus += n->conf->cpus;
		o.total_memory += (int64_t)n->conf->real_memory;
		o.total_gpus += n->n_gpus;
	}
	mem_shown(c->conf, pc, &o);
	return o;
}

/* names (n of them) as pc's nodes and *idx: every name known, unless
 * skip_unknown (then logged and left out). Duplicates are dropped. */
static int set_nodes(const struct ctld *c, struct drv_part_conf *pc, char **names,
		     size_t n, bool skip_unknown, uint32_t **idx, uint32_t *n_idx)
{
	char **keep = calloc(n ? n : 1, sizeof(*keep));
	uint32_t *v = calloc(n ? n : 1, sizeof(*v));
	unsigned char *seen = calloc(c->nodes.n ? c->nodes.n : 1, 1);
	size_t k = 0;
	int rc = keep && v && seen ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct node *nd = node_find(&c->nodes, names[i]);
		if (!nd && !skip_unknown)
			rc = -EINVAL;
		else if (!nd)
			log_warn(
			    "partition %s: node %s is no longer in the config: left out",
			    pc->name, names[i]);
		else if (!seen[nd->idx]) {
			seen[nd->idx] = 1;
			v[k] = nd->idx;
			keep[k++] = c->nodes.names[nd->idx];
		}
	}
	char *compressed = rc == 0 ? drv_hostlist_compress(keep, k) : NULL;
	char **node_names = calloc(k ? k : 1, sizeof(*node_names));
	for (size_t i = 0; rc == 0 && node_names && i < k; i++)
		if (!(node_names[i] = strdup(keep[i])))
			rc = -ENOMEM;
	if (rc == 0 && (!compressed || !node_names))
		rc = -ENOMEM;
	free(keep);
	free(seen);
	if (rc < 0) {
		free(v);
		free(compressed);
		if (node_names)
			drv_strv_free(node_names, k);
		return rc;
	}
	free(pc->nodes);
	drv_strv_free(pc->node_names, pc->n_nodes);
	pc->nodes = compressed;
	pc->node_names = node_names;
	pc->n_nodes = k;
	*idx = v;
	*n_idx = (uint32_t)k;
	return 0;
}

/* pc->nodes expanded: a hostlist, or every node for ALL. */
static int expand_nodes(const struct ctld *c, const char *expr, char ***names, size_t *n)
{
	struct drv_error e;
	*names = NULL;
	*n = 0;
	if (!expr || !*expr)
		return 0;
	if (!strcasecmp(expr, "ALL")) {
		*names = calloc(c->nodes.n ? c->nodes.n : 1, sizeof(char *));
		for (size_t i = 0; *names && i < c->nodes.n; i++, (*n)++)
			if (!((*names)[i] = strdup(c->nodes.names[i])))
				return -ENOMEM;
		return *names ? 0 : -ENOMEM;
	}
	return drv_hostlist_expand(expr, names, n, &e) < 0 ? -EINVAL : 0;
}

int part_resolve_nodes(const struct ctld *c, struct drv_part_conf *pc, uint32_t **idx,
		       uint32_t *n)
{
	char **names;
	size_t k;
	int rc = expand_nodes(c, pc->nodes, &names, &k);
	if (rc == 0)
		rc = set_nodes(c, pc, names, k, false, idx, n);
	drv_strv_free(names, k);
	return rc;
}

/* Writes p's record in this turn's commit. */
static void part_commit(struct ctld *c, const struct part *p)
{
	char os[24];
	struct drv_rec_partition r = part_record(c, p, true, os);
	json_t *rec = drv_rec_partition_encode(&r);
	char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
	if (!text)
		abort(); /* only ENOMEM: an acknowledged change must be stored */
	commit_object(c, STORE_OBJ_PARTITION, p->conf->name, text);
	free(text);
	json_decref(rec);
}

/* p became the default: the others are not any more (and are stored so,
 * when commit). */
static void take_default(struct ctld *c, struct part *p, bool commit)
{
	for (size_t i = 0; i < c->n_parts; i++) {
		struct part *o = &c->parts[i];
		if (o != p && o->conf->is_default) {
			o->conf->is_default = false;
			if (commit)
				part_commit(c, o);
		}
	}
}

/* Appends a zeroed slot to c->parts; NULL on ENOMEM. */
static struct part *part_append(struct ctld *c)
{
	struct part *v = realloc(c->parts, (c->n_parts + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->parts = v;
	memset(&v[c->n_parts], 0, sizeof(*v));
	return &v[c->n_parts++];
}

/* Puts next (taken) and its nodes (taken, when nodes) in place of p's, or
 * in a new partition when p is NULL. NULL on ENOMEM (nothing changed). */
static struct part *part_install(struct ctld *c, struct part *p,
				 struct drv_part_conf *next, bool nodes, uint32_t *idx,
				 uint32_t n_idx)
{
	struct drv_part_conf *pc = p ? p->conf : malloc(sizeof(*pc));
	if (!pc || (!p && !(p = part_append(c)))) {
		free(pc);
		return NULL;
	}
	if (p->conf)
		drv_part_conf_fini(p->conf);
	*pc = *next;
	memset(next, 0, sizeof(*next));
	p->conf = pc;
	if (nodes) {
		free(p->node_idx);
		p->node_idx = idx;
		p->n_nodes = n_idx;
	}
	p->up = drv_part_state_sched(pc->state);
	return p;
}

/* Applies one "Key=Value" of part.update to pc. *nodes is set when it
 * named Nodes=. 0 or DRV_RC_ERROR with err. */
static int apply_setting(struct drv_part_conf *pc, const char *kv, bool *nodes,
			 struct drv_error *err)
{
	const char *eq = strchr(kv, '=');
	char key[64];
	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
		drv_error_set(err, EINVAL, "Invalid input: %.100s", kv);
		return DRV_RC_ERROR;
	}
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	if (!strcasecmp(key, "PartitionName")) { /* the name it already has */
		if (!strcmp(eq + 1, pc->name))
			return 0;
		drv_error_set(err, EINVAL,
			      "PartitionName: a partition cannot be renamed");
		return DRV_RC_ERROR;
	}
	if (drv_part_conf_set(pc, key, eq + 1, err) < 0)
		return DRV_RC_ERROR;
	*nodes |= !strcasecmp(key, "Nodes");
	return 0;
}

int part_update(struct ctld *c, const char *name, bool create,
		const char *const *settings, size_t n, struct drv_error *err)
{
	struct part *p = part_find(c, name);
	struct drv_part_conf next;
	bool nodes = create, was_default = p && p->conf->is_default;
	uint32_t *idx = NULL, n_idx = 0;
	int rc = 0;
	if (create == (p != NULL)) {
		drv_error_set(err, EINVAL, "%s", drv_rc_text(DRV_RC_INVALID_PARTITION));
		return DRV_RC_INVALID_PARTITION;
	}
	if ((create ? drv_part_conf_init(&next, name)
		    : drv_part_conf_copy(&next, p->conf)) < 0)
		return DRV_RC_ERROR;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = apply_setting(&next, settings[i], &nodes, err);
	if (rc == 0 && nodes && part_resolve_nodes(c, &next, &idx, &n_idx) < 0) {
		drv_error_set(err, EINVAL, "%s", drv_rc_text(DRV_RC_INVALID_NODE_NAME));
		rc = DRV_RC_INVALID_NODE_NAME;
	}
	if (rc == 0 && !(p = part_install(c, p, &next, nodes, idx, n_idx)))
		rc = DRV_RC_ERROR;
	if (rc) {
		drv_part_conf_fini(&next);
		free(idx);
		return rc;
	}
	if (p->conf->is_default && !was_default)
		take_default(c, p, true);
	part_commit(c, p);
	sched_request(c); /* limits, state or nodes may let jobs start */
	return 0;
}

/* Does the job's -p list (text, "a" or "a,b") name name? */
static bool names_part(const char *text, const char *name)
{
	size_t len = strlen(name);
	for (const char *s = text; s && *s;) {
		size_t k = strcspn(s, ",");
		if (k == len && !strncmp(s, name, len))
			return true;
		s += k + (s[k] == ',');
	}
	return false;
}

int part_delete(struct ctld *c, const char *name)
{
	struct part *p = part_find(c, name);
	if (!p)
		return DRV_RC_INVALID_PARTITION;
	for (const struct job *j = c->jobs.head; j; j = j->next)
		if (!job_state_final(j->state) &&
		    names_part(j->req.partitions ? j->req.partitions : j->partition,
			       name))
			return DRV_RC_PARTITION_IN_USE;
	size_t i = (size_t)(p - c->parts);
	commit_object(c, STORE_OBJ_PARTITION, name, NULL);
	part_clear(p);
	memmove(&c->parts[i], &c->parts[i + 1], (c->n_parts - i - 1) * sizeof(*p));
	c->n_parts--;
	c->parts_gen++; /* the jobs' resolved candidates are stale */
	return 0;
}

int part_candidates(const struct ctld *c, const char *text, uint32_t **idx, uint32_t *n,
		    char *bad, size_t bad_len)
{
	size_t cap = 1;
	for (const char *s = text; s && *s; s++)
		cap += *s == ',';
	uint32_t *v = calloc(cap, sizeof(*v)), k = 0;
	if (!v)
		return -ENOMEM;
	const struct part *def = text ? NULL : part_default(c);
	if (def)
		v[k++] = (uint32_t)(def - c->parts);
	snprintf(bad, bad_len, "%s", "");
	for (const char *s = text; s && *s;) {
		size_t len = strcspn(s, ",");
		char one[256];
		snprintf(one, sizeof(one), "%.*s", (int)len, s);
		const struct part *p = len ? part_find(c, one) : NULL;
		if (len && !p) {
			snprintf(bad, bad_len, "%.*s", (int)len, s);
			free(v);
			return DRV_RC_INVALID_PARTITION;
		}
		bool dup = false;
		for (uint32_t i = 0; p && i < k; i++)
			dup |= v[i] == (uint32_t)(p - c->parts);
		if (p && !dup)
			v[k++] = (uint32_t)(p - c->parts);
		s += len + (s[len] == ',');
	}
	if (k == 0) { /* no default partition, or a list of commas */
		free(v);
		return DRV_RC_INVALID_PARTITION;
	}
	*idx = v;
	*n = k;
	return 0;
}

const uint32_t *part_job_candidates(struct ctld *c, struct job *j, uint32_t *n)
{
	struct job_req *q = &j->req;
	char bad[64];
	if (q->part_idx && q->part_gen == c->parts_gen) {
		*n = q->n_part_idx;
		return q->part_idx;
	}
	free(q->part_idx);
	q->part_idx = NULL;
	q->n_part_idx = 0;
	const char *text = q->partitions ? q->partitions : j->partition;
	if (text &&
	    part_candidates(c, text, &q->part_idx, &q->n_part_idx, bad, sizeof(bad)) == 0)
		q->part_gen = c->parts_gen;
	*n = q->n_part_idx;
	return q->part_idx;
}

int part_job_started(struct ctld *c, struct job *j, uint32_t part)
{
	const char *name = c->parts[part].conf->name;
	if (j->partition && !strcmp(j->partition, name))
		return 0;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	if (!j->req.partitions) /* the list it was submitted with */
		j->req.partitions = j->partition;
	else
		free(j->partition);
	j->partition = copy;
	return 0;
}

void part_job_requeued(struct job *j)
{
	char *copy = j->req.partitions ? strdup(j->req.partitions) : NULL;
	if (!copy)
		return; /* a single partition, or ENOMEM: it keeps the one it ran in */
	free(j->partition);
	j->partition = copy;
}

/* --- recovery ------------------------------------------------------------ */

/* The settings of a stored record into pc (fresh), through the same keys
 * as the config where a value has a text form. 0, or -EINVAL when a value
 * no longer passes (a record from another version). */
static int conf_from_record(const struct drv_rec_partition *r, struct drv_part_conf *pc,
			    struct drv_error *err)
{
	if (drv_part_conf_init(pc, r->name) < 0)
		return -ENOMEM;
	pc->is_default = r->is_default;
	pc->max_time = r->max_time;
	pc->default_time = r->default_time;
	pc->max_nodes = r->max_nodes < 0 ? DRV_UNLIMITED32 : (uint32_t)r->max_nodes;
	pc->min_nodes = r->min_nodes;
	pc->max_cpus_per_node =
	    r->max_cpus_per_node < 0 ? DRV_UNLIMITED32 : (uint32_t)r->max_cpus_per_node;
	pc->max_mem_per_node = (uint64_t)r->max_mem_per_node;
	pc->def_mem_per_cpu = r->has_def_mem_per_cpu ? (uint64_t)r->def_mem_per_cpu : 0;
	pc->def_mem_per_node =
	    r->has_def_mem_per_node ? (uint64_t)r->def_mem_per_node : 0;
	pc->def_cpu_per_gpu = (uint64_t)r->def_cpu_per_gpu;
	pc->def_mem_per_gpu = (uint64_t)r->def_mem_per_gpu;
	pc->priority_tier = r->priority_tier;
	pc->priority_job_factor = r->priority_job_factor;
	const struct {
		const char *key, *value;
	} text[] = {
	    {"State", r->state},
	    {"OverSubscribe", r->oversubscribe},
	    {"AllowGroups", r->allow_groups},
	    {"AllowAccounts", r->allow_accounts},
	    {"DenyAccounts", r->deny_accounts},
	    {"AllowQos", r->allow_qos},
	    {"DenyQos", r->deny_qos},
	    {"QOS", r->qos},
	    {"Nodes", r->nodes},
	    {"TRESBillingWeights", r->tres_billing_weights},
	};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof(text) / sizeof(text[0]); i++)
		if (text[i].value && *text[i].value)
			rc = drv_part_conf_set(pc, text[i].key, text[i].value, err);
	if (rc < 0)
		drv_part_conf_fini(pc);
	return rc;
}

/* One stored partition in place of the config's, or added. */
static void on_stored(struct ctld *c, const char *name, const char *text)
{
	json_t *rec = json_loads(text, 0, NULL);
	struct drv_rec_partition r;
	struct drv_part_conf pc;
	struct drv_error err = {{0}};
	char **names = NULL;
	size_t k = 0;
	uint32_t *idx = NULL, n_idx = 0;
	bool have_pc = false;
	int rc = rec ? drv_rec_partition_decode(rec, &r, &err) : -EBADMSG;
	if (rc == 0) { /* r's strings are rec's */
		rc = conf_from_record(&r, &pc, &err);
		have_pc = rc == 0;
		drv_rec_partition_free(&r);
	}
	json_decref(rec);
	if (rc == 0 && (rc = expand_nodes(c, pc.nodes, &names, &k)) == 0)
		rc = set_nodes(c, &pc, names, k, true, &idx, &n_idx);
	drv_strv_free(names, k);
	struct part *p =
	    rc == 0 ? part_install(c, part_find(c, name), &pc, true, idx, n_idx) : NULL;
	if (!p) {
		log_error("store: partition %s has a malformed record: skipped%s%s", name,
			  *err.text ? ": " : "", err.text);
		if (have_pc) {
			drv_part_conf_fini(&pc);
			free(idx);
		}
		return;
	}
	if (p->conf->is_default)
		take_default(c, p, false);
}

struct load {
	struct ctld *c;
	size_t n;
};

static void on_object(enum store_obj_kind kind, const char *name, const char *rec_json,
		      void *arg)
{
	struct load *l = arg;
	if (kind != STORE_OBJ_PARTITION)
		return;
	on_stored(l->c, name, rec_json);
	l->n++;
}

int part_load_stored(struct ctld *c, struct drv_error *err)
{
	struct load l = {.c = c};
	int rc = store_load_objects(c->store, on_object, &l, err);
	if (rc == 0 && l.n)
		log_info("recovered %zu partitions made or changed live", l.n);
	return rc;
}
