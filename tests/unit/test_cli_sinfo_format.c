/* Unit tests for cli/sinfo_format.c and cli/sinfo_group.c: node states,
 * grouping per partition and state, -N and -R lines, widths and the
 * fields client tools parse (%P, %G, %l, %C). */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sinfo_format.h"

static const char *const parts_of_debug[] = {"debug"};

static struct si_node node(const char *name, const char *state)
{
	struct si_node n = {0};

	n.name = name;
	n.addr = name;
	n.hostname = name;
	n.state = state;
	n.cpus = 4;
	n.real_memory = 1000;
	n.weight = 1;
	n.partitions = parts_of_debug;
	n.n_partitions = 1;
	return n;
}

/* Slurm's defaults for what the partition sets no value of */
#define PART_DEFAULTS                                                                    \
	.max_nodes = -1, .max_cpus_per_node = -1, .priority_tier = 1,                    \
	.priority_job_factor = 1, .oversubscribe = "NO"

static const struct si_part debug = {.name = "debug",
				     .nodes = "n[1-4]",
				     .state = "UP",
				     .is_default = true,
				     .max_time = -1,
				     .default_time = -2,
				     .total_nodes = 4,
				     .total_cpus = 16,
				     PART_DEFAULTS};
static const struct si_part empty = {.name = "empty",
				     .nodes = "",
				     .state = "UP",
				     .max_time = 3600,
				     .default_time = -2,
				     PART_DEFAULTS};

/* Groups and prints nodes with fmt; the caller frees the text. */
static char *render(const char *fmt, const struct si_select *sel,
		    const struct si_node *nodes, size_t n, bool no_header)
{
	const struct si_part parts[] = {debug, empty};
	struct si_format f;
	struct si_rows rows;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_int_equal(si_format_parse(fmt, true, &f, NULL, NULL), 0);
	assert_int_equal(si_group(&f, sel, parts, 2, nodes, n, &rows), 0);
	si_print(&f, &rows, no_header, m);
	fclose(m);
	si_rows_fini(&rows);
	si_format_fini(&f);
	return out;
}

static void check(const char *fmt, const struct si_select *sel,
		  const struct si_node *nodes, size_t n, const char *want)
{
	char *got = render(fmt, sel, nodes, n, false);

	assert_string_equal(got, want);
	free(got);
}

static void test_states(void **state)
{
	struct si_node n = node("n1", "IDLE");
	char b[32];

	assert_string_equal(si_state_compact(&n, b, sizeof(b)), "idle");
	n.drain = true;
	assert_string_equal(si_state_compact(&n, b, sizeof(b)), "drain");
	assert_string_equal(si_state_long(&n, b, sizeof(b)), "drained");
	n.state = "MIXED";
	assert_string_equal(si_state_compact(&n, b, sizeof(b)), "drng");
	n.drain = false;
	assert_string_equal(si_state_compact(&n, b, sizeof(b)), "mix");
	n.state = "ALLOCATED";
	assert_string_equal(si_state_long(&n, b, sizeof(b)), "allocated");
	n.state = "DOWN";
	n.not_responding = true;
	assert_string_equal(si_state_compact(&n, b, sizeof(b)), "down*");
	assert_true(si_state_matches(&n, "idle,down"));
	assert_false(si_state_matches(&n, "idle"));
	/* '&': all of them; ',' binds weaker */
	assert_true(si_state_matches(&n, "down&no_respond"));
	assert_false(si_state_matches(&n, "down&responding"));
	assert_true(si_state_matches(&n, "idle&down,down&no_respond"));
	n.state = "UNKNOWN";
	assert_string_equal(si_state_compact(&n, b, sizeof(b)), "unk*");
}

static void test_default_summary(void **state)
{
	struct si_node nodes[] = {node("n1", "IDLE"), node("n2", "ALLOCATED"),
				  node("n3", "IDLE"), node("n4", "IDLE")};
	struct si_select sel = {0};

	nodes[1].alloc_cpus = 4;
	nodes[3].drain = true;
	check(SI_FMT_DEFAULT, &sel, nodes, 4,
	      "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
	      "debug*       up   infinite      2   idle n[1,3]\n"
	      "debug*       up   infinite      1  alloc n2\n"
	      "debug*       up   infinite      1  drain n4\n"
	      "empty        up    1:00:00      0    n/a \n");
	check("%P", &sel, nodes, 4, "PARTITION\ndebug*\nempty\n");
	check("%P %G %l %p %c %m", &(struct si_select){.partitions = "debug"}, nodes, 1,
	      "PARTITION GRES TIMELIMIT PRIO_TIER CPUS MEMORY\n"
	      "debug* (null) infinite 1 4 1000\n");
	check("%R|%C|%F|%D", &(struct si_select){.partitions = "debug"}, nodes, 4,
	      "PARTITION|CPUS(A/I/O/T)|NODES(A/I/O/T)|NODES\n"
	      "debug|4/8/4/16|1/2/1/4|4\n");
	check("%.10P|%3D|%5t|",
	      &(struct si_select){.partitions = "debug", .states = "alloc"}, nodes, 4,
	      " PARTITION|NOD|STATE|\n    debug*|1  |alloc|\n");
	/* Slurm's '*' takes the last column that fits; node lists are cut */
	check("%.3P|%5P|%6P|%3N|%.3N|%.2N", &(struct si_select){.partitions = "debug"},
	      nodes, 4,
	      "PAR|PARTI|PARTIT|NOD|NODELIST|NODELIST\n"
	      "de*|debu*|debug*|n[1|n[1|n[\n");
}

/* The partition's settings and the node's weight, as sinfo prints them. */
static void test_partition_settings(void **state)
{
	struct si_node nodes[] = {node("n1", "IDLE"), node("n2", "IDLE")};
	nodes[1].weight = 10;
	struct si_part p = debug;
	p.name = "p";
	p.min_nodes = 2;
	p.max_nodes = 4;
	p.max_cpus_per_node = 8;
	p.priority_tier = 3;
	p.priority_job_factor = 7;
	p.oversubscribe = "FORCE:4";
	p.allow_groups = "wheel,staff";
	const char *const parts_of_p[] = {"p"};
	for (size_t i = 0; i < 2; i++) {
		nodes[i].partitions = parts_of_p;
		nodes[i].n_partitions = 1;
	}
	struct si_format f;
	struct si_rows rows;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	assert_int_equal(
	    si_format_parse("%P %B %g %h %I %p %s %w", false, &f, NULL, NULL), 0);
	assert_int_equal(si_group(&f, &(struct si_select){0}, &p, 1, nodes, 2, &rows), 0);
	si_print(&f, &rows, false, m);
	fclose(m);
	assert_string_equal(out, "PARTITION MAX_CPUS_PER_NODE GROUPS OVERSUBSCRIBE "
				 "PRIO_JOB_FACTOR PRIO_TIER JOB_SIZE WEIGHT\n"
				 "p* 8 wheel,staff FORCE:4 7 3 2-4 1\n"
				 "p* 8 wheel,staff FORCE:4 7 3 2-4 10\n");
	free(out);
	si_rows_fini(&rows);
	si_format_fini(&f);
	/* Slurm's defaults: MinNodes 0 shows as 1, no MaxNodes is infinite */
	check("%B %g %h %s", &(struct si_select){.partitions = "debug"}, nodes, 1,
	      "MAX_CPUS_PER_NODE GROUPS OVERSUBSCRIBE JOB_SIZE\n"
	      "UNLIMITED all NO 1-infinite\n");
}

static void test_node_and_reason_modes(void **state)
{
	struct si_node nodes[] = {node("n1", "IDLE"), node("n2", "IDLE"),
				  node("n3", "IDLE")};
	struct si_select sel = {.node_mode = true, .partitions = "debug"};

	nodes[0].drain = true;
	nodes[0].reason = "maint";
	nodes[0].reason_user = "root";
	nodes[0].reason_time = 0;
	nodes[1].drain = true;
	nodes[1].reason = "maint";
	nodes[1].reason_user = "root";
	check(SI_FMT_NODE, &sel, nodes, 3,
	      "NODELIST   NODES PARTITION STATE \n"
	      "n1             1    debug* drain \n"
	      "n2             1    debug* drain \n"
	      "n3             1    debug* idle  \n");
	sel = (struct si_select){.reason_mode = true};
	check(SI_FMT_REASON, &sel, nodes, 3,
	      "REASON               USER      TIMESTAMP           NODELIST\n"
	      "maint                root      Unknown             n[1-2]\n");
	nodes[1].reason = "a very long reason that gets cut";
	check("%E|%N", &sel, nodes, 3,
	      "REASON|NODELIST\nmaint|n1\na very long reason that gets cut|n2\n");
}

static char bad_seen[32];

static void on_bad(const char *what, size_t len, void *arg)
{
	snprintf(bad_seen, sizeof(bad_seen), "%.*s", (int)len, what);
}

static void test_bad_format(void **state)
{
	struct si_node nodes[] = {node("n1", "IDLE")};
	struct si_select sel = {.partitions = "debug"};
	struct si_format f;
	struct si_rows rows;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_int_equal(si_format_parse("%P %Q|%#N|%%P%", false, &f, on_bad, NULL), 0);
	assert_string_equal(bad_seen, "#");
	assert_int_equal(si_group(&f, &sel, &debug, 1, nodes, 1, &rows), 0);
	si_print(&f, &rows, false, m);
	fclose(m);
	assert_string_equal(out, "PARTITION %Q|%#N|PARTITION\ndebug* %Q|%#N|debug*\n");
	free(out);
	si_rows_fini(&rows);
	si_format_fini(&f);
	assert_int_equal(
	    si_format_parse_long("Partition:10,Bogus,nodes:3|", &f, on_bad, NULL), 0);
	assert_string_equal(bad_seen, "Bogus");
	assert_int_equal(f.n, 3);
	assert_int_equal(f.items[0].width, 10);
	assert_int_equal(f.items[1].field, 'D');
	assert_string_equal(f.items[2].text, "|");
	si_format_fini(&f);
}

static void test_sort(void **state)
{
	struct si_node nodes[] = {node("n1", "IDLE"), node("n2", "MIXED"),
				  node("n10", "IDLE")};
	struct si_select sel = {.node_mode = true, .partitions = "debug"};
	struct si_format f;
	struct si_rows rows;

	nodes[2].drain = true;
	assert_int_equal(si_format_parse("%N %t", false, &f, NULL, NULL), 0);
	assert_int_equal(si_group(&f, &sel, &debug, 1, nodes, 3, &rows), 0);
	assert_int_equal(si_sort(&rows, "-t"), 0);
	assert_string_equal(rows.rows[0].nodes[0]->name, "n10"); /* drain flag */
	assert_string_equal(rows.rows[1].nodes[0]->name, "n2");	 /* mixed */
	assert_string_equal(rows.rows[2].nodes[0]->name, "n1");
	assert_int_equal(si_sort(&rows, "N"), 0);
	assert_string_equal(rows.rows[2].nodes[0]->name, "n10"); /* numeric */
	si_rows_fini(&rows);
	si_format_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_states),
	    cmocka_unit_test(test_default_summary),
	    cmocka_unit_test(test_partition_settings),
	    cmocka_unit_test(test_node_and_reason_modes),
	    cmocka_unit_test(test_bad_format),
	    cmocka_unit_test(test_sort),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return rc;
}
