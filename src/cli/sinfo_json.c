/* sinfo_json.c — a line of sinfo (a partition and the nodes grouped on it)
 * as a v0.0.42 sinfo entry. Counts and ranges are computed over the line's
 * nodes as sinfo_format.c does for the text columns; node lists are
 * expanded to arrays, as Slurm's HOSTLIST type is. */
#include "cli/sinfo_json.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/slurm_json.h"

struct span {
	int64_t lo, hi;
};

static void widen(struct span *s, int64_t v, bool first)
{
	if (first || v < s->lo)
		s->lo = v;
	if (first || v > s->hi)
		s->hi = v;
}

static json_t *span(const struct span *s)
{
	return json_pack("{s:I,s:I}", "minimum", (json_int_t)s->lo, "maximum",
			 (json_int_t)s->hi);
}

static json_t *node_state(const struct si_node *n)
{
	json_t *a = json_array();
	char *up;

	if (!n)
		return a;
	up = strdup(n->state);
	for (char *p = up; p && *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	json_array_append_new(a, json_string(up ? up : ""));
	free(up);
	if (n->drain)
		json_array_append_new(a, json_string("DRAIN"));
	if (n->not_responding)
		json_array_append_new(a, json_string("NOT_RESPONDING"));
	return a;
}

static bool other(const struct si_node *n)
{
	return !strcasecmp(n->state, "DOWN") || !strcasecmp(n->state, "UNKNOWN") ||
	       n->drain || n->not_responding;
}

/* "nodes" and "cpus", the counts sinfo's %F and %C print. */
static void counts(json_t *o, const struct si_row *r)
{
	int64_t na = 0, ni = 0, no = 0, ca = 0, ci = 0, co = 0, ct = 0;
	json_t *names = json_array(), *hosts = json_array(), *addrs = json_array();
	struct span cpus = {0, 0};

	for (size_t i = 0; i < r->n; i++) {
		const struct si_node *n = r->nodes[i];
		bool busy = n->alloc_cpus > 0 || !strcasecmp(n->state, "ALLOCATED") ||
			    !strcasecmp(n->state, "MIXED");
		if (other(n))
			no++;
		else if (busy)
			na++;
		else
			ni++;
		ct += n->cpus;
		ca += n->alloc_cpus;
		if (other(n))
			co += n->cpus - n->alloc_cpus;
		else
			ci += n->cpus - n->alloc_cpus;
		widen(&cpus, n->cpus, i == 0);
		json_array_append_new(names, json_string(n->name));
		json_array_append_new(hosts, json_string(n->hostname));
		json_array_append_new(addrs, json_string(n->addr));
	}
	json_object_set_new(o, "nodes",
			    json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:o}", "allocated",
				      (json_int_t)na, "idle", (json_int_t)ni, "other",
				      (json_int_t)no, "total", (json_int_t)r->n,
				      "hostnames", hosts, "addresses", addrs, "nodes",
				      names));
	json_object_set_new(
	    o, "cpus",
	    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:{s:i,s:i},s:{s:o}}", "allocated",
		      (json_int_t)ca, "idle", (json_int_t)ci, "other", (json_int_t)co,
		      "total", (json_int_t)ct, "minimum", (json_int_t)cpus.lo, "maximum",
		      (json_int_t)cpus.hi, "load", "minimum", 0, "maximum", 0, "per_node",
		      "max", slurm_json_nv(false, true, 0)));
}

static json_t *minutes(int64_t secs)
{
	if (secs == -1)
		return slurm_json_nv(false, true, 0);
	if (secs < 0)
		return slurm_json_nv(false, false, 0);
	return slurm_json_num((secs + 59) / 60);
}

static json_t *partition(const struct si_part *p)
{
	if (!p)
		return json_object();
	return json_pack(
	    "{s:{s:s,s:s,s:I},s:{s:s,s:s},s:{s:s},s:{s:s,s:s,s:s},s:s,s:{s:s,s:s},"
	    "s:s,s:[],s:{s:i,s:I},s:{s:i,s:o,s:o,s:o,s:s},s:i,"
	    "s:{s:o,s:o,s:i,s:o,s:i,s:{s:i,s:[]},s:o,s:o},s:{s:i},s:s,s:s,"
	    "s:{s:i,s:i},s:{s:o,s:o},s:{s:[s]},s:o}",
	    "nodes", "allowed_allocation", "", "configured", p->nodes, "total",
	    (json_int_t)p->total_nodes, "accounts", "allowed", "", "deny", "", "groups",
	    "allowed", "", "qos", "allowed", "", "deny", "", "assigned", "", "alternate",
	    "", "tres", "billing_weights", "", "configured", "", "cluster", "",
	    "select_type", "cpus", "task_binding", 0, "total", (json_int_t)p->total_cpus,
	    "defaults", "memory_per_cpu", 0, "partition_memory_per_cpu",
	    slurm_json_nv(false, false, 0), "partition_memory_per_node",
	    slurm_json_nv(false, false, 0), "time", minutes(p->default_time), "job", "",
	    "grace_time", 0, "maximums", "cpus_per_node", slurm_json_nv(false, true, 0),
	    "cpus_per_socket", slurm_json_nv(false, true, 0), "memory_per_cpu", 0,
	    "nodes", slurm_json_nv(false, true, 0), "shares", 1, "oversubscribe", "jobs",
	    1, "flags", "time", minutes(p->max_time), "over_time_limit",
	    slurm_json_nv(false, false, 0), "minimums", "nodes", 0, "name", p->name,
	    "node_sets", "", "priority", "job_factor", 1, "tier", 1, "timeouts", "resume",
	    slurm_json_nv(false, false, 0), "suspend", slurm_json_nv(false, false, 0),
	    "partition", "state", p->state, "suspend_time",
	    slurm_json_nv(false, false, 0));
}

static json_t *entry(const struct si_row *r, const char *cluster)
{
	const struct si_node *first = r->n ? r->nodes[0] : NULL;
	struct span mem = {0, 0}, cpus = {0, 0}, one = {1, 1}, disk = {0, 0};
	int64_t alloc_mem = 0;
	json_t *o = json_object();

	for (size_t i = 0; i < r->n; i++) {
		widen(&mem, r->nodes[i]->real_memory, i == 0);
		widen(&cpus, r->nodes[i]->cpus, i == 0);
		widen(&disk, r->nodes[i]->tmp_disk, i == 0);
		alloc_mem += r->nodes[i]->alloc_memory;
	}
	json_object_set_new(o, "port", json_integer(first ? first->port : 0));
	json_object_set_new(o, "node", json_pack("{s:o}", "state", node_state(first)));
	counts(o, r);
	/* a node configured with CPUs only has one core per socket (%z) */
	json_object_set_new(o, "sockets", span(&cpus));
	json_object_set_new(o, "cores", span(&one));
	json_object_set_new(o, "threads", span(&one));
	json_object_set_new(o, "disk", span(&disk));
	json_object_set_new(o, "memory",
			    json_pack("{s:I,s:I,s:{s:o,s:o},s:I}", "minimum",
				      (json_int_t)mem.lo, "maximum", (json_int_t)mem.hi,
				      "free", "minimum", slurm_json_nv(false, false, 0),
				      "maximum", slurm_json_nv(false, false, 0),
				      "allocated", (json_int_t)alloc_mem));
	json_object_set_new(o, "weight", span(&one));
	json_object_set_new(o, "features",
			    json_pack("{s:s,s:s}", "total",
				      first && first->features ? first->features : "",
				      "active",
				      first && first->features ? first->features : ""));
	json_object_set_new(o, "gres",
			    json_pack("{s:s,s:s}", "total",
				      first && first->gres ? first->gres : "", "used",
				      first && first->gres_used ? first->gres_used : ""));
	json_object_set_new(o, "cluster", json_string(cluster ? cluster : ""));
	json_object_set_new(o, "comment", json_string(""));
	json_object_set_new(o, "extra", json_string(""));
	json_object_set_new(
	    o, "reason",
	    json_pack(
		"{s:s,s:I,s:s}", "description",
		first && first->reason ? first->reason : "", "time",
		(json_int_t)(first && first->reason ? first->reason_time : 0), "user",
		first && first->reason && first->reason_user ? first->reason_user : ""));
	json_object_set_new(o, "reservation", json_string(""));
	json_object_set_new(o, "resource_spec",
			    json_pack("{s:s,s:i}", "cpus", "", "memory", 0));
	json_object_set_new(o, "partition", partition(r->part));
	return o;
}

int si_json_print(const struct si_rows *rows, int argc, char **argv, const char *cluster,
		  FILE *out)
{
	json_t *resp = json_object(), *list = json_array();
	int rc;

	for (size_t i = 0; i < rows->n; i++)
		json_array_append_new(list, entry(&rows->rows[i], cluster));
	json_object_set_new(resp, "sinfo", list);
	rc = slurm_json_print(resp, argc, argv, cluster, out);
	json_decref(resp);
	return rc;
}
