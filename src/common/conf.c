/* conf.c — reads drover.conf (slurm.conf syntax) into a struct drv_conf.
 *
 * Owns the reading: lines, comments, continuations, Include, the split of a
 * line into key=value pairs, NodeName/PartitionName lines with their DEFAULT
 * forms, and the checks that need the whole file (partition nodes, the
 * default partition, SlurmctldHost). What each key means lives in the tables
 * of conf_keys.c; this file must not grow knowledge of individual keys.
 * No global state: everything is built in a new struct that only replaces
 * the caller's on success. */
#include "common/conf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/conf_internal.h"
#include "common/hostlist.h"

#define DEFAULT_CONF_PATH "/etc/drover/drover.conf"
#define INCLUDE_DEPTH_MAX 16
#define MAX_PAIRS 256 /* key=value pairs on one line */

/* Node names already defined, for duplicate checks and partition lookups:
 * open addressing over indices into conf->nodes (0 = empty slot). */
struct name_set {
	size_t *slot;
	size_t cap, n;
};

/* A partition's Nodes= waiting until every node is known. */
struct part_pending {
	char *file;
	int line;
	char *nodes;
};

/* Everything one load needs beside the config it builds. */
struct loader {
	struct conf_parser p;
	struct conf_node_line node_def; /* NodeName=DEFAULT */
	struct drv_part_conf part_def;	/* PartitionName=DEFAULT */
	struct part_pending *pend;	/* one per conf->parts entry */
	size_t cap_nodes, cap_parts;
	struct name_set names;
	int depth;
	/* cgroup.conf: every line is pairs of this table, into cgroup */
	const struct conf_key *flat;
	void *flat_target;
};

/* One key=value pair of a line; both point into the line buffer. */
struct pair {
	char *key;
	char *value;
};

static int loc_error(struct loader *L, struct drv_error *err, int code, const char *what)
{
	return drv_error_set(err, code, "%s:%d: %s", L->p.file, L->p.line, what);
}

/* Line kinds a global line may start with, beside the global keys: for
 * the "did you mean" of a misspelt one. */
static const char *const line_kinds[] = {
    "NodeName",	    "PartitionName", "Include",	   "DownNodes",
    "FrontendName", "NodeSet",	     "SwitchName", NULL};

/* A key Slurm does not know is fatal, as in Slurm (whose words the message
 * keeps), with the file, the line and the nearest known key. */
static int unknown_key(struct loader *L, const struct conf_key *table, const char *key,
		       struct drv_error *err)
{
	char what[160];
	const char *near =
	    conf_key_nearest(table, table == conf_global_keys ? line_kinds : NULL, key);
	int n =
	    snprintf(what, sizeof(what), "Parsing error at unrecognized key: %.60s", key);
	if (near && n > 0 && (size_t)n < sizeof(what))
		snprintf(what + n, sizeof(what) - (size_t)n, " (did you mean %s?)", near);
	return loc_error(L, err, EINVAL, what);
}

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Returns the index of name in conf->nodes, or -1. */
static ssize_t names_find(const struct loader *L, const char *name)
{
	if (!L->names.cap)
		return -1;
	size_t mask = L->names.cap - 1;
	for (size_t i = name_hash(name) & mask; L->names.slot[i]; i = (i + 1) & mask) {
		size_t idx = L->names.slot[i] - 1;
		if (strcmp(L->p.conf->nodes[idx].name, name) == 0)
			return (ssize_t)idx;
	}
	return -1;
}

static int names_add(struct loader *L, size_t idx)
{
	struct name_set *s = &L->names;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		size_t *slot = calloc(cap, sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->slot[i])
				continue;
			size_t j =
			    name_hash(L->p.conf->nodes[s->slot[i] - 1].name) & (cap - 1);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = s->slot[i];
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	size_t mask = s->cap - 1;
	size_t j = name_hash(L->p.conf->nodes[idx].name) & mask;
	while (s->slot[j])
		j = (j + 1) & mask;
	s->slot[j] = idx + 1;
	s->n++;
	return 0;
}

/* Whether s (past the blanks after a '=') starts a value rather than the
 * next key=value pair or the end of the line. */
static bool value_follows(const char *s)
{
	size_t n = strcspn(s, " \t=");
	return *s && (*s == '"' || s[n] != '=');
}

/* Splits a line into pairs. Values may be double-quoted to hold spaces;
 * spaces around '=' are allowed, as Slurm allows them. */
static int split_pairs(struct loader *L, char *s, struct pair *pairs, size_t *n,
		       struct drv_error *err)
{
	char what[120];
	*n = 0;
	while (*s) {
		if (*s == ' ' || *s == '\t') {
			s++;
			continue;
		}
		char *key = s;
		while (*s && *s != '=' && *s != ' ' && *s != '\t')
			s++;
		char *key_end = s;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '=') {
			snprintf(what, sizeof(what), "'%.*s' is not key=value",
				 (int)(key_end - key) > 60 ? 60 : (int)(key_end - key),
				 key);
			return loc_error(L, err, EINVAL, what);
		}
		*key_end = '\0';
		if (!*key)
			return loc_error(L, err, EINVAL, "'=' without a key");
		*s++ = '\0';
		char *value = s;
		while (*s == ' ' || *s == '\t')
			s++;
		/* "CPUs= RealMemory=4096": what follows the blanks is the next
		 * pair, and CPUs has no value (spaces before a value are
		 * allowed, as Slurm allows them) */
		if (s > value && !value_follows(s)) {
			value = s - 1;
			*value = '\0';
			goto next;
		}
		value = s;
		if (*s == '"') {
			value = ++s;
			while (*s && *s != '"')
				s++;
			if (!*s)
				return loc_error(L, err, EINVAL, "unterminated quote");
		} else {
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (*s)
			*s++ = '\0';
	next:
		if (*n == MAX_PAIRS)
			return loc_error(L, err, EINVAL, "too many key=value pairs");
		pairs[*n].key = key;
		pairs[(*n)++].value = value;
	}
	return 0;
}

/* Applies one pair to target through table; an unknown key is an error. */
static int apply_pair(struct loader *L, const struct conf_key *table, void *target,
		      const struct pair *pr, struct drv_error *err)
{
	const struct conf_key *k = conf_key_find(table, pr->key);
	struct drv_error e = {{0}};
	int rc;

	if (!k)
		return unknown_key(L, table, pr->key, err);
	if (!*pr->value) { /* any key, as Slurm's parser has it */
		snprintf(e.text, sizeof(e.text), "the value of %s is missing", k->name);
		return loc_error(L, err, EINVAL, e.text);
	}
	rc = conf_key_apply(&L->p, k, target, pr->value, &e);
	if (rc == 0 && target == L->p.conf)
		rc = conf_written_add(L->p.conf, k->name, pr->value, true);
	if (rc == -ENOMEM)
		return drv_error_set(err, ENOMEM, "out of memory");
	if (rc < 0)
		return loc_error(L, err, EINVAL, e.text);
	return 0;
}

static int apply_pairs(struct loader *L, const struct conf_key *table, void *target,
		       const struct pair *pairs, size_t n, struct drv_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = apply_pair(L, table, target, &pairs[i], err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Expands one of a node line's hostlists; count must be 1 (where one_ok) or
 * n_names (SIZE_MAX: any). Sets *v NULL when expr is NULL. */
static int expand_field(struct loader *L, const char *key, const char *expr,
			size_t n_names, bool one_ok, char ***v, size_t *n,
			struct drv_error *err)
{
	struct drv_error e;
	char what[160];
	*v = NULL;
	*n = 0;
	if (!expr)
		return 0;
	int rc = drv_hostlist_expand(expr, v, n, &e);
	if (rc < 0) {
		snprintf(what, sizeof(what), "%s: %.130s", key, e.text);
		return loc_error(L, err, -rc, what);
	}
	if (n_names != SIZE_MAX && *n != n_names && !(one_ok && *n == 1)) {
		snprintf(what, sizeof(what), "%s: %zu values for %zu nodes", key, *n,
			 n_names);
		drv_strv_free(*v, *n);
		*v = NULL;
		return loc_error(L, err, EINVAL, what);
	}
	return 0;
}

static int parse_port(struct loader *L, const char *s, int *port, struct drv_error *err)
{
	char *end;
	char what[120];
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 1 || v > 65535) {
		snprintf(what, sizeof(what), "Port: '%.60s' is not a port number", s);
		return loc_error(L, err, EINVAL, what);
	}
	*port = (int)v;
	return 0;
}

/* Appends one expanded node; takes the name. */
static int add_node(struct loader *L, const struct conf_node_line *nl, char *name,
		    const char *hostname, const char *addr, int port,
		    struct drv_error *err)
{
	struct drv_conf *c = L->p.conf;
	char what[160];
	if (names_find(L, name) >= 0) {
		snprintf(what, sizeof(what), "duplicate node '%.80s'", name);
		free(name);
		return loc_error(L, err, EINVAL, what);
	}
	if (c->n_nodes == L->cap_nodes) {
		size_t cap = L->cap_nodes ? L->cap_nodes * 2 : 16;
		struct drv_node_conf *v = realloc(c->nodes, cap * sizeof(*v));
		if (!v) {
			free(name);
			return drv_error_set(err, ENOMEM, "out of memory");
		}
		c->nodes = v;
		L->cap_nodes = cap;
	}
	struct drv_node_conf *nc = &c->nodes[c->n_nodes];
	*nc = (struct drv_node_conf){
	    .name = name,
	    .hostname = strdup(hostname ? hostname : name),
	    .addr = strdup(addr	      ? addr
			   : hostname ? hostname
				      : name),
	    .port = port,
	    .cpus = nl->cpus,
	    .real_memory = nl->real_memory,
	    .tmp_disk = nl->tmp_disk,
	    .gres = nl->gres ? strdup(nl->gres) : NULL,
	    .features = nl->features ? strdup(nl->features) : NULL,
	    .state = nl->state ? strdup(nl->state) : NULL,
	    .weight = nl->weight,
	};
	c->n_nodes++; /* counted now so drv_conf_free frees it either way */
	if (!nc->hostname || !nc->addr || (nl->gres && !nc->gres) ||
	    (nl->features && !nc->features) || (nl->state && !nc->state))
		return drv_error_set(err, ENOMEM, "out of memory");
	if (names_add(L, c->n_nodes - 1) < 0)
		return drv_error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* Turns one parsed NodeName line into one drv_node_conf per name. */
static int expand_node_line(struct loader *L, const struct conf_node_line *nl,
			    struct drv_error *err)
{
	char **names = NULL, **hosts = NULL, **addrs = NULL, **ports = NULL;
	size_t n = 0, nh = 0, na = 0, np = 0, i = 0;
	int rc = expand_field(L, "NodeName", nl->names, SIZE_MAX, true, &names, &n, err);
	if (rc == 0)
		rc = expand_field(L, "NodeHostname", nl->hostnames, n, false, &hosts, &nh,
				  err);
	if (rc == 0)
		rc = expand_field(L, "NodeAddr", nl->addrs, n, false, &addrs, &na, err);
	if (rc == 0)
		rc = expand_field(L, "Port", nl->ports, n, true, &ports, &np, err);
	for (; rc == 0 && i < n; i++) {
		int port = 0; /* 0: SlurmdPort, filled in once the file is read */
		if (np)
			rc = parse_port(L, ports[np == 1 ? 0 : i], &port, err);
		if (rc < 0)
			break;
		rc = add_node(L, nl, names[i], hosts ? hosts[i] : NULL,
			      addrs ? addrs[i] : NULL, port, err);
		names[i] = NULL; /* add_node took it */
	}
	drv_strv_free(names, n);
	drv_strv_free(hosts, nh);
	drv_strv_free(addrs, na);
	drv_strv_free(ports, np);
	return rc;
}

static int node_line(struct loader *L, const struct pair *pairs, size_t n,
		     struct drv_error *err)
{
	if (strcasecmp(pairs[0].value, "DEFAULT") == 0)
		return apply_pairs(L, conf_node_keys, &L->node_def, pairs + 1, n - 1,
				   err);

	struct conf_node_line nl = L->node_def;
	int rc = conf_keys_dup(conf_node_keys, &nl);
	if (rc == 0)
		rc = apply_pairs(L, conf_node_keys, &nl, pairs, n, err);
	else
		drv_error_set(err, ENOMEM, "out of memory");
	if (rc == 0)
		rc = expand_node_line(L, &nl, err);
	conf_keys_free(conf_node_keys, &nl);
	return rc;
}

/* Appends a partition (taking pl's strings) and its pending Nodes=. */
static int add_part(struct loader *L, struct drv_part_conf *pl, struct drv_error *err)
{
	struct drv_conf *c = L->p.conf;
	if (c->n_parts == L->cap_parts) {
		size_t cap = L->cap_parts ? L->cap_parts * 2 : 8;
		struct drv_part_conf *v = realloc(c->parts, cap * sizeof(*v));
		if (v)
			c->parts = v;
		struct part_pending *pv = realloc(L->pend, cap * sizeof(*pv));
		if (pv)
			L->pend = pv;
		if (!v || !pv)
			return drv_error_set(err, ENOMEM, "out of memory");
		L->cap_parts = cap;
	}
	L->pend[c->n_parts] = (struct part_pending){
	    .file = strdup(L->p.file), .line = L->p.line, .nodes = pl->nodes};
	c->parts[c->n_parts] = *pl;
	c->parts[c->n_parts].nodes = NULL; /* the hostlist, once resolved */
	memset(pl, 0, sizeof(*pl));
	c->n_parts++;
	if (!L->pend[c->n_parts - 1].file)
		return drv_error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int part_line(struct loader *L, const struct pair *pairs, size_t n,
		     struct drv_error *err)
{
	char what[160];
	if (strcasecmp(pairs[0].value, "DEFAULT") == 0)
		return apply_pairs(L, conf_part_keys, &L->part_def, pairs + 1, n - 1,
				   err);
	if (drv_conf_part(L->p.conf, pairs[0].value)) {
		snprintf(what, sizeof(what), "duplicate partition '%.80s'",
			 pairs[0].value);
		return loc_error(L, err, EINVAL, what);
	}
	struct drv_part_conf pl = L->part_def;
	int rc = conf_keys_dup(conf_part_keys, &pl);
	if (rc == 0)
		rc = apply_pairs(L, conf_part_keys, &pl, pairs, n, err);
	else
		drv_error_set(err, ENOMEM, "out of memory");
	if (rc == 0)
		rc = add_part(L, &pl, err);
	drv_part_conf_fini(&pl);
	return rc;
}

static int read_file(struct loader *L, const char *path, struct drv_error *err);

/* Include PATH: relative to the including file's directory. */
static int include_line(struct loader *L, const char *arg, struct drv_error *err)
{
	char what[160];
	if (!*arg)
		return loc_error(L, err, EINVAL, "Include: no file named");
	if (L->depth >= INCLUDE_DEPTH_MAX)
		return loc_error(L, err, EINVAL, "Include: nested too deeply");
	const char *slash = strrchr(L->p.file, '/');
	char *dir = slash ? strndup(L->p.file, (size_t)(slash - L->p.file)) : NULL;
	char *path = conf_resolve(slash ? (dir[0] ? dir : "/") : NULL, arg);
	free(dir);
	if (!path)
		return drv_error_set(err, ENOMEM, "out of memory");
	if (access(path, R_OK) < 0) {
		snprintf(what, sizeof(what), "Include: cannot read '%.80s': %s", path,
			 strerror(errno));
		free(path);
		return loc_error(L, err, EINVAL, what);
	}
	const char *file = L->p.file;
	int line = L->p.line;
	L->depth++;
	int rc = read_file(L, path, err);
	L->depth--;
	L->p.file = file;
	L->p.line = line;
	free(path);
	return rc;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
			 s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

/* Slurm line types Drover does not use yet; kept whole in `other`. */
static bool is_other_line(const char *key)
{
	static const char *const kinds[] = {"DownNodes", "FrontendName", "NodeSet",
					    "SwitchName", NULL};
	for (const char *const *k = kinds; *k; k++)
		if (strcasecmp(*k, key) == 0)
			return true;
	return false;
}

/* One logical line, comments and continuations already removed. */
static int process_line(struct loader *L, char *s, struct drv_error *err)
{
	struct pair pairs[MAX_PAIRS];
	size_t n;

	if (L->flat) {
		int rc = split_pairs(L, s, pairs, &n, err);
		return rc < 0 ? rc
			      : apply_pairs(L, L->flat, L->flat_target, pairs, n, err);
	}
	if (strncasecmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t'))
		return include_line(L, trim(s + 7), err);
	char *whole = strdup(s);
	if (!whole)
		return drv_error_set(err, ENOMEM, "out of memory");
	int rc = split_pairs(L, s, pairs, &n, err);
	if (rc == 0 && n > 0) {
		const char *first = pairs[0].key;
		bool line_kind = !strcasecmp(first, "NodeName") ||
				 !strcasecmp(first, "PartitionName") ||
				 is_other_line(first);
		if (line_kind && conf_written_add(L->p.conf, first, whole, true) < 0)
			rc = -ENOMEM;
		else if (strcasecmp(first, "NodeName") == 0)
			rc = node_line(L, pairs, n, err);
		else if (strcasecmp(first, "PartitionName") == 0)
			rc = part_line(L, pairs, n, err);
		else if (is_other_line(first))
			rc = conf_other_set(L->p.conf, first,
					    trim(strchr(whole, '=') + 1));
		else
			rc = apply_pairs(L, conf_global_keys, L->p.conf, pairs, n, err);
	}
	if (rc == -ENOMEM)
		drv_error_set(err, ENOMEM, "out of memory");
	free(whole);
	return rc;
}

/* Removes a comment: '#' to the end of the line, unless written "\#". */
static void strip_comment(char *s)
{
	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1] == '#') {
			memmove(p, p + 1, strlen(p));
			continue;
		}
		if (*p == '#') {
			*p = '\0';
			return;
		}
	}
}

/* Appends raw line text to the logical line in *buf. */
static int append(char **buf, size_t *len, const char *s, size_t n)
{
	char *b = realloc(*buf, *len + n + 1);
	if (!b)
		return -ENOMEM;
	memcpy(b + *len, s, n);
	*len += n;
	b[*len] = '\0';
	*buf = b;
	return 0;
}

static int read_file(struct loader *L, const char *path, struct drv_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return drv_error_set(err, errno, "cannot read %s: %s", path,
				     strerror(errno));
	char *raw = NULL, *logical = NULL;
	size_t raw_cap = 0, len = 0;
	int lineno = 0, start = 0, rc = 0;
	bool more = true;

	L->p.file = path;
	while (rc == 0 && more) {
		ssize_t got = getline(&raw, &raw_cap, f);
		more = got >= 0;
		if (more) {
			lineno++;
			if (len == 0)
				start = lineno;
			strip_comment(raw);
			char *t = trim(raw);
			size_t tn = strlen(t);
			bool cont = tn > 0 && t[tn - 1] == '\\';
			rc = append(&logical, &len, t, cont ? tn - 1 : tn);
			if (rc == 0 && cont)
				rc = append(&logical, &len, " ", 1);
			if (rc < 0 || cont)
				continue;
		}
		if (len == 0)
			continue;
		L->p.line = start;
		rc = process_line(L, trim(logical), err);
		L->p.file = path;
		len = 0;
	}
	if (rc == -ENOMEM)
		drv_error_set(err, ENOMEM, "out of memory");
	free(raw);
	free(logical);
	fclose(f);
	return rc;
}

/* Resolves partition i's Nodes= (a hostlist or ALL) against the nodes. */
static int resolve_part_nodes(struct loader *L, size_t i, unsigned char *seen,
			      struct drv_error *err)
{
	struct drv_conf *c = L->p.conf;
	struct drv_part_conf *pc = &c->parts[i];
	const char *expr = L->pend[i].nodes;
	char **names = NULL, what[160];
	size_t n = 0, k = 0;
	int rc = 0;

	L->p.file = L->pend[i].file;
	L->p.line = L->pend[i].line;
	bool all = expr && strcasecmp(expr, "ALL") == 0;
	if (expr && !all) {
		struct drv_error e;
		rc = drv_hostlist_expand(expr, &names, &n, &e);
		if (rc < 0) {
			snprintf(what, sizeof(what), "Nodes: %.140s", e.text);
			return loc_error(L, err, -rc, what);
		}
	}
	size_t total = all ? c->n_nodes : n;
	pc->node_names = calloc(total ? total : 1, sizeof(char *));
	memset(seen, 0, c->n_nodes ? c->n_nodes : 1);
	for (size_t j = 0; pc->node_names && rc == 0 && j < total; j++) {
		ssize_t idx = all ? (ssize_t)j : names_find(L, names[j]);
		if (idx < 0) {
			snprintf(what, sizeof(what),
				 "partition '%.40s': unknown node '%.60s'", pc->name,
				 names[j]);
			rc = loc_error(L, err, EINVAL, what);
		} else if (!seen[idx]) {
			seen[idx] = 1;
			pc->node_names[k] = strdup(c->nodes[idx].name);
			rc = pc->node_names[k++] ? 0 : -ENOMEM;
		}
	}
	pc->n_nodes = k;
	drv_strv_free(names, n);
	if (rc == 0 && pc->node_names)
		pc->nodes = drv_hostlist_compress(pc->node_names, pc->n_nodes);
	if (rc == 0 && (!pc->node_names || !pc->nodes))
		rc = drv_error_set(err, ENOMEM, "out of memory");
	return rc;
}

/* auth/munge with no socket= in AuthInfo talks to munged's own socket, as
 * Slurm's auth/munge does, not to authd's. */
static int auth_finish(struct drv_conf *c)
{
	if (strcasecmp(c->auth_type, "auth/munge") != 0 ||
	    strcmp(c->auth_socket, CONF_AUTHD_SOCKET) != 0)
		return 0;
	char *s = strdup(CONF_MUNGED_SOCKET);
	if (!s)
		return -ENOMEM;
	free(c->auth_socket);
	c->auth_socket = s;
	return 0;
}

/* Checks and fills what needs the whole file. */
static int finish(struct loader *L, struct drv_error *err)
{
	struct drv_conf *c = L->p.conf;
	if (c->n_ctld_hosts == 0)
		return drv_error_set(err, EINVAL, "%s: no SlurmctldHost", c->path);
	/* Slurm issues ids below MaxJobId only: with FirstJobId >= MaxJobId
	 * no job could ever be submitted */
	if (c->first_job_id >= c->max_job_id)
		return drv_error_set(err, EINVAL,
				     "%s: FirstJobId=%d must be below MaxJobId=%d",
				     c->path, c->first_job_id, c->max_job_id);
	if (conf_prio_check(c, err) < 0)
		return -EINVAL;
	if (auth_finish(c) < 0)
		return drv_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].port == 0)
			c->nodes[i].port = c->slurmd_port;

	unsigned char *seen = malloc(c->n_nodes ? c->n_nodes : 1);
	if (!seen)
		return drv_error_set(err, ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < c->n_parts; i++)
		rc = resolve_part_nodes(L, i, seen, err);
	free(seen);
	if (rc < 0)
		return rc;

	/* As in Slurm, the last Default=YES wins; with none, the first one. */
	ssize_t def = -1;
	for (size_t i = 0; i < c->n_parts; i++)
		if (c->parts[i].is_default)
			def = (ssize_t)i;
	for (size_t i = 0; i < c->n_parts; i++)
		c->parts[i].is_default = (ssize_t)i == (def < 0 ? 0 : def);
	return 0;
}

/* Makes path absolute (without resolving links) and finds its directory. */
static int set_path(struct drv_conf *c, const char *path)
{
	if (path[0] == '/') {
		c->path = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);
		c->path = cwd ? conf_resolve(cwd, path) : NULL;
		free(cwd);
	}
	if (!c->path)
		return -ENOMEM;
	char *slash = strrchr(c->path, '/');
	c->dir =
	    slash == c->path ? strdup("/") : strndup(c->path, (size_t)(slash - c->path));
	return c->dir ? 0 : -ENOMEM;
}

/* cgroup.conf beside drover.conf, when there is one (as in Slurm, it
 * is optional); read after drover.conf, so that its keys win. */
static int read_cgroup_conf(struct loader *L, struct drv_error *err)
{
	struct drv_conf *c = L->p.conf;
	char *path = conf_cgroup_path(c->dir);
	if (!path)
		return drv_error_set(err, ENOMEM, "out of memory");
	if (access(path, F_OK) < 0) {
		free(path);
		return 0;
	}
	c->cgroup.path = path;
	L->flat = conf_cgroup_keys;
	L->flat_target = &c->cgroup;
	int rc = read_file(L, path, err);
	L->flat = NULL;
	return rc;
}

static void loader_fini(struct loader *L)
{
	conf_keys_free(conf_node_keys, &L->node_def);
	drv_part_conf_fini(&L->part_def);
	size_t n = L->p.conf ? L->p.conf->n_parts : 0;
	for (size_t i = 0; L->pend && i < n; i++) {
		free(L->pend[i].file);
		free(L->pend[i].nodes);
	}
	free(L->pend);
	free(L->names.slot);
}

int drv_conf_load(const char *path, drv_conf_warn_f warn, void *warn_arg,
		  struct drv_conf **out, struct drv_error *err)
{
	struct loader L = {.p = {.warn = warn, .warn_arg = warn_arg}};
	struct drv_conf *c = calloc(1, sizeof(*c));
	int rc = c ? set_path(c, path) : -ENOMEM;

	L.p.conf = c;
	if (c) {
		conf_sched_defaults(&c->sched);
		conf_prio_defaults(&c->prio);
		conf_rl_defaults(&c->rl);
	}
	if (rc == 0) {
		L.p.file = c->path;
		rc = conf_keys_defaults(&L.p, conf_global_keys, c, err);
	}
	if (rc == 0)
		rc = conf_keys_defaults(&L.p, conf_cgroup_keys, &c->cgroup, err);
	if (rc == 0)
		rc = conf_keys_defaults(&L.p, conf_node_keys, &L.node_def, err);
	if (rc == 0)
		rc = conf_keys_defaults(&L.p, conf_part_keys, &L.part_def, err);
	if (rc == -ENOMEM)
		drv_error_set(err, ENOMEM, "out of memory");
	if (rc == 0)
		rc = read_file(&L, c->path, err);
	if (rc == 0)
		rc = read_cgroup_conf(&L, err);
	if (rc == 0)
		rc = finish(&L, err);
	loader_fini(&L);
	if (rc < 0) {
		drv_conf_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void drv_conf_free(struct drv_conf *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->dir);
	free(c->cluster_name);
	for (size_t i = 0; i < c->n_ctld_hosts; i++) {
		free(c->ctld_hosts[i].name);
		free(c->ctld_hosts[i].addr);
	}
	free(c->ctld_hosts);
	free(c->state_save_location);
	free(c->slurmd_spool_dir);
	free(c->slurmd_log_file);
	free(c->slurmd_pid_file);
	free(c->ctld_log_file);
	free(c->ctld_pid_file);
	free(c->auth_type);
	free(c->auth_socket);
	free(c->auth_key);
	free(c->prolog);
	free(c->epilog);
	free(c->task_prolog);
	free(c->task_epilog);
	free(c->prolog_slurmctld);
	free(c->epilog_slurmctld);
	free(c->prolog_flags);
	free(c->health_check_program);
	free(c->slurm_user);
	free(c->slurmd_user);
	conf_cgroup_free(&c->cgroup);
	free(c->job_container_type);
	for (size_t i = 0; i < c->n_nodes; i++) {
		struct drv_node_conf *n = &c->nodes[i];
		free(n->name);
		free(n->hostname);
		free(n->addr);
		free(n->gres);
		free(n->features);
		free(n->state);
	}
	free(c->nodes);
	for (size_t i = 0; i < c->n_parts; i++)
		drv_part_conf_fini(&c->parts[i]);
	free(c->parts);
	for (size_t i = 0; i < c->n_licenses; i++)
		free(c->licenses[i].name);
	free(c->licenses);
	for (size_t i = 0; i < c->n_other; i++) {
		free(c->other[i].key);
		free(c->other[i].value);
	}
	free(c->other);
	for (size_t i = 0; i < c->n_written; i++) {
		free(c->written[i].key);
		free(c->written[i].value);
	}
	free(c->written);
	free(c);
}

char *drv_conf_resolve_path(const char *explicit_path)
{
	const char *env = getenv("DROVER_CONF");
	if (explicit_path)
		return strdup(explicit_path);
	if (env && *env)
		return strdup(env);
	return strdup(DEFAULT_CONF_PATH);
}

const struct drv_node_conf *drv_conf_node(const struct drv_conf *conf, const char *name)
{
	for (size_t i = 0; conf && name && i < conf->n_nodes; i++)
		if (strcmp(conf->nodes[i].name, name) == 0)
			return &conf->nodes[i];
	return NULL;
}

const struct drv_part_conf *drv_conf_part(const struct drv_conf *conf, const char *name)
{
	for (size_t i = 0; conf && name && i < conf->n_parts; i++)
		if (strcmp(conf->parts[i].name, name) == 0)
			return &conf->parts[i];
	return NULL;
}

const struct drv_part_conf *drv_conf_default_part(const struct drv_conf *conf)
{
	for (size_t i = 0; conf && i < conf->n_parts; i++)
		if (conf->parts[i].is_default)
			return &conf->parts[i];
	return NULL;
}

char *drv_conf_node_path(const char *pattern, const char *node, const char *hostname)
{
	if (!pattern)
		return NULL;
	if (!node)
		node = "";
	if (!hostname)
		hostname = node;
	size_t len = 1, nl = strlen(node), hl = strlen(hostname);
	for (const char *p = pattern; *p; p++)
		len += (p[0] == '%' && p[1] == 'n')   ? nl
		       : (p[0] == '%' && p[1] == 'h') ? hl
						      : 1;
	char *out = malloc(len), *o = out;
	if (!out)
		return NULL;
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h')) {
			const char *s = p[1] == 'n' ? node : hostname;
			size_t n = p[1] == 'n' ? nl : hl;
			memcpy(o, s, n);
			o += n;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			*o++ = '%';
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}
