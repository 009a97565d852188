/* sinfo_format.h — sinfo's records, format specifications ("%[#][.][width]X"
 * with literal text between them), the grouping of nodes into lines (per
 * partition and state, per node with -N, per reason with -R) and the
 * printing, as Slurm 22.05's sinfo does them. Pure: the caller reads the
 * records from ctld and gives the FILE to print to. */
#ifndef DRV_CLI_SINFO_FORMAT_H
#define DRV_CLI_SINFO_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/proto_gen.h"

#define SI_FMT_DEFAULT "%#P %.5a %.10l %.6D %.6t %N"
#define SI_FMT_LONG "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define SI_FMT_NODE "%#N %.6D %.#P %6t"
#define SI_FMT_NODE_LONG "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E"
#define SI_FMT_SUMMARIZE "%#P %.5a %.10l %.16F %N"
#define SI_FMT_REASON "%20E %9u %19H %N"
#define SI_FMT_REASON_LONG "%20E %12U %19H %6t %N"

/* A node record (docs/protocol.md). Strings are borrowed from the decoded
 * record; absent ones are NULL except name and state. */
struct si_node {
	const char *name, *state, *reason, *reason_user, *gres, *features;
	const char *addr, *hostname;
	const char *const *partitions; /* the partitions it is in */
	size_t n_partitions;
	bool drain, not_responding;
	int64_t cpus, alloc_cpus, real_memory, alloc_memory, reason_time, port;
	int64_t tmp_disk;
	const char *gres_used; /* NULL if unset */
	int64_t weight;
};

/* A partition record; strings borrowed. */
struct si_part {
	const char *name, *nodes, *state;
	bool is_default;
	int64_t max_time, default_time; /* seconds; -1 infinite, -2 not set */
	int64_t total_nodes, total_cpus;
	int64_t min_nodes, max_nodes, max_cpus_per_node; /* -1: UNLIMITED */
	int64_t priority_tier, priority_job_factor;
	const char *oversubscribe; /* "NO", "YES:4", ... */
	const char *allow_groups;  /* NULL: all */
};

void si_node_from_rec(const struct drv_rec_node *r, struct si_node *n);
void si_part_from_rec(const struct drv_rec_partition *r, struct si_part *p);

/* sinfo's node states: compact ("idle", "alloc", "mix", "drng", "drain",
 * "down", "unk") and long ("idle", "allocated", "mixed", "draining",
 * "drained", "down", "unknown"), with "*" when the node does not respond.
 * Returned strings are static or written into buf. */
const char *si_state_compact(const struct si_node *n, char *buf, size_t len);
const char *si_state_long(const struct si_node *n, char *buf, size_t len);

/* True when the node is in one of the comma-separated states of -t (any
 * case; "drain" matches drained and draining, "all" everything). */
bool si_state_matches(const struct si_node *n, const char *states);

struct si_item {
	char field;	 /* a format letter, or 0 for literal text */
	int width;	 /* 0: as long as the value */
	bool right, fit; /* '.': right-justify; '#' (built-in formats only): as
			  * wide as the widest value, at least 9, as Slurm
			  * sizes the partition and node list columns */
	char *text;	 /* literal text; owned */
};

struct si_format {
	struct si_item *items;
	size_t n;
};

/* Called for each unknown letter ('\0' at the end of the spec) or unknown
 * -O name; as Slurm, an unknown "%X..." is then copied through literally
 * and an unknown -O name prints nothing. */
typedef void (*si_bad_f)(const char *what, size_t len, void *arg);

/* Parses an -o spec into *out (release with si_format_fini), tokens split
 * on '%' as Slurm does ("%%" vanishes). builtin: '#' is the fit flag of
 * Slurm's default formats; a user's '#' is an unknown letter. Returns 0 or
 * -ENOMEM. */
int si_format_parse(const char *fmt, bool builtin, struct si_format *out, si_bad_f bad,
		    void *arg);

/* Parses an -O spec "Name[:[.][width][suffix]],..." (width 20 without
 * ':'). Returns 0 or -ENOMEM. */
int si_format_parse_long(const char *spec, struct si_format *out, si_bad_f bad,
			 void *arg);
void si_format_fini(struct si_format *f);

/* One output line: a partition (NULL in reason mode) and its nodes. */
struct si_row {
	const struct si_part *part;
	const struct si_node **nodes; /* borrowed pointers; the array is owned */
	size_t n;
};

struct si_rows {
	struct si_row *rows;
	size_t n;
};

/* What to show: the partitions of parts_filter (comma list, NULL = all),
 * nodes in states (NULL = all); node_mode: one line per node and partition;
 * reason_mode: only nodes with a reason, grouped by reason, user and time
 * across partitions. Nodes are grouped when every non-summed field of f has
 * the same value. Returns 0 or -ENOMEM. */
struct si_select {
	const char *partitions, *states;
	bool node_mode, reason_mode;
};
int si_group(const struct si_format *f, const struct si_select *sel,
	     const struct si_part *parts, size_t nparts, const struct si_node *nodes,
	     size_t nnodes, struct si_rows *out);
void si_rows_fini(struct si_rows *r);

/* For sinfo_group.c: whether a letter's value spans a line's nodes (counts,
 * lists, sums: not a grouping key), and a letter's value for one line. */
bool si_field_summed(char letter);
void si_field_value(char letter, const struct si_row *r, char *buf, size_t len);

/* Orders rows as -S spec says (Slurm's letters; '-' reverses, '#P' keeps
 * ctld's partition order). Returns 0, or -EINVAL for an unknown letter. */
int si_sort(struct si_rows *rows, const char *spec);

/* Prints the header (unless no_header) and every row. */
void si_print(const struct si_format *f, const struct si_rows *rows, bool no_header,
	      FILE *out);

#endif
