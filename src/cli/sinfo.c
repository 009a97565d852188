/* sinfo.c — shows partitions and nodes: asks ctld for both (part.query,
 * node.query), picks Slurm's format for the options given (-l, -N, -R, -s,
 * -o, -O, SINFO_FORMAT), groups, sorts (-S, SINFO_SORT) and prints with
 * sinfo_format.c and sinfo_group.c, or as --json. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/common.h"
#include "cli/sinfo_format.h"
#include "cli/sinfo_json.h"
#include "common/hostlist.h"
#include "common/proto.h"

struct si_opts {
	bool no_header, long_fmt, node_mode, reason_mode, summarize, dead, responding;
	bool json, all, format_long;
	const char *format, *partitions, *states, *nodes, *sort;
	int argc;
	char **argv;
};

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_JSON, OPT_IGNORE };

static const struct option long_opts[] = {
    {"all", no_argument, 0, 'a'},
    {"dead", no_argument, 0, 'd'},
    {"exact", no_argument, 0, 'e'},
    {"noheader", no_argument, 0, 'h'},
    /** <secs> print again every secs seconds */
    {"iterate", required_argument, 0, 'i'},
    {"long", no_argument, 0, 'l'},
    /** <names> the cluster to ask; Drover serves one */
    {"clusters", required_argument, 0, 'M'},
    /** <names> the same as --clusters */
    {"cluster", required_argument, 0, 'M'},
    {"nodes", required_argument, 0, 'n'},
    {"Node", no_argument, 0, 'N'},
    {"format", required_argument, 0, 'o'},
    {"Format", required_argument, 0, 'O'},
    {"partition", required_argument, 0, 'p'},
    {"responding", no_argument, 0, 'r'},
    {"list-reasons", no_argument, 0, 'R'},
    {"summarize", no_argument, 0, 's'},
    {"sort", required_argument, 0, 'S'},
    {"states", required_argument, 0, 't'},
    {"state", required_argument, 0, 't'},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {"json", no_argument, 0, OPT_JSON},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {"hide", no_argument, 0, OPT_IGNORE},
    {"local", no_argument, 0, OPT_IGNORE},
    {"federation", no_argument, 0, OPT_IGNORE},
    {"noconvert", no_argument, 0, OPT_IGNORE},
    /** nodes in the FUTURE state too */
    {"future", no_argument, 0, 'F'},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf("Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] "
	       "[-n nodes]\n"
	       "             [-S fields] [-o format] [-O Format] [--federation] "
	       "[--local]\n");
}

static void help(void)
{
	printf("Usage: sinfo [OPTIONS]\n"
	       "  -a, --all                  show all partitions (including hidden and "
	       "those\n"
	       "                             not accessible)\n"
	       "  -d, --dead                 show only non-responding nodes\n"
	       "  -e, --exact                group nodes only on exact match of "
	       "configuration\n"
	       "  -h, --noheader             no headers on output\n"
	       "      --json                 Produce JSON output\n"
	       "  -l, --long                 long output - displays more information\n"
	       "  -n, --nodes=NODES          report on specific node(s)\n"
	       "  -N, --Node                 Node-centric format\n"
	       "  -o, --format=format        format specification\n"
	       "  -O, --Format=format        long format specification\n"
	       "  -p, --partition=PARTITION  report on specific partition\n"
	       "  -r, --responding           report only responding nodes\n"
	       "  -R, --list-reasons         list reason nodes are down or drained\n"
	       "  -s, --summarize            report state summary only\n"
	       "  -S, --sort=fields          comma separated list of fields to sort on\n"
	       "  -t, --states=node_state    specify the what states of nodes to view\n"
	       "  -v, --verbose              verbosity level\n"
	       "  -V, --version              output version information and exit\n"
	       "\nHelp options:\n"
	       "  --help                     show this help message\n"
	       "  --usage                    display brief usage message\n");
}

/* sinfo's list of node states in its error message (Slurm 22.05's). */
static const char valid_states[] =
    "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,"
    "reserved,perfctrs,cloud,completing,powering_down,powered_down,power_down,"
    "powering_up,fail,maint,reboot,reboot^,unknown";

/* Slurm takes any prefix of a state name, or of a compact one. */
static bool known_state(const char *s)
{
	static const char compact[] = "alloc,mix,unk,drng,futr,comp,resv,npc,plnd,";
	size_t len = strlen(s);
	char all[sizeof(valid_states) + sizeof(compact) + 1];

	snprintf(all, sizeof(all), "%s,%s", compact, valid_states);
	for (const char *p = all; *p;) {
		size_t n = strcspn(p, ",");
		if (len && len <= n && !strncasecmp(p, s, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static int check_states(const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (!copy || !strcasecmp(list, "all")) {
		free(copy);
		return 0;
	}
	for (char *t = strtok_r(copy, ",&", &save); t && rc == 0;
	     t = strtok_r(NULL, ",&", &save)) {
		if (!known_state(t)) {
			cli_error("Bad state string: \"%s\"", t);
			cli_error("valid states: %s", valid_states);
			rc = -EINVAL;
		}
	}
	free(copy);
	return rc;
}

/* 1: exit 0 now (help, version); <0: exit 1. */
static int one_opt(int c, const char *arg, struct si_opts *o)
{
	switch (c) {
	case 'a':
		o->all = true;
		o->partitions = NULL;
		break;
	case 'd':
		o->dead = true;
		break;
	case 'h':
		o->no_header = true;
		break;
	case 'l':
		o->long_fmt = true;
		break;
	case 'n':
		o->nodes = arg;
		break;
	case 'N':
		o->node_mode = true;
		break;
	case 'o':
	case 'O':
		o->format = arg;
		o->format_long = c == 'O';
		break;
	case 'p':
		o->partitions = arg;
		break;
	case 'r':
		o->responding = true;
		break;
	case 'R':
		o->reason_mode = true;
		break;
	case 's':
		o->summarize = true;
		break;
	case 'S':
		o->sort = arg;
		break;
	case 't':
		o->states = arg;
		return check_states(arg);
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_HELP:
		help();
		return 1;
	case OPT_USAGE:
		usage();
		return 1;
	case 'V':
		cli_print_version();
		return 1;
	case '?':
		cli_try_help();
		return -EINVAL;
	default:
		break; /* accepted, no effect in Drover */
	}
	return 0;
}

/* SINFO_ALL, SINFO_PARTITION and SINFO_SORT come first; options win. */
static int env_first(struct si_opts *o)
{
	bool env_all = getenv("SINFO_ALL") != NULL;

	o->partitions = getenv("SINFO_PARTITION");
	o->sort = getenv("SINFO_SORT");
	if (env_all && o->partitions) {
		cli_error(
		    "Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. "
		    "Please choose one or the other.");
		return -EINVAL;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct si_opts *o)
{
	bool a_set = false, p_set = false;
	int c, rc;

	o->argc = argc;
	o->argv = argv;
	if (env_first(o) < 0)
		return -EINVAL;
	while ((c = getopt_long(argc, argv, "adeFhi:lM:n:No:O:p:rRsS:t:TvV", long_opts,
				NULL)) != -1) {
		a_set |= c == 'a';
		p_set |= c == 'p';
		if ((rc = one_opt(c, optarg, o)) != 0)
			return rc;
	}
	if (o->long_fmt && o->format) {
		fprintf(stderr, "sinfo: fatal: Options -o(--format) and -l(--long) are "
				"mutually exclusive. Please remove one and retry.\n");
		return -EINVAL;
	}
	if (a_set && p_set) {
		cli_error(
		    "Conflicting options, -a and -p, specified. Please choose one or "
		    "the other.");
		return -EINVAL;
	}
	return 0; /* Slurm's sinfo ignores words after its options */
}

/* As Slurm: -s, -N and -R choose their format before SINFO_FORMAT does. */
static const char *pick_format(const struct si_opts *o, bool *builtin)
{
	const char *env = getenv("SINFO_FORMAT");

	*builtin = !o->format;
	if (o->format)
		return o->format;
	if (o->summarize)
		return SI_FMT_SUMMARIZE;
	if (o->node_mode)
		return o->long_fmt ? SI_FMT_NODE_LONG : SI_FMT_NODE;
	if (o->reason_mode)
		return o->long_fmt ? SI_FMT_REASON_LONG : SI_FMT_REASON;
	if (env) {
		*builtin = false;
		return env;
	}
	return o->long_fmt ? SI_FMT_LONG : SI_FMT_DEFAULT;
}

static void bad_field(const char *what, size_t len, void *arg)
{
	if (*(bool *)arg) /* -O: Slurm 22.05 says "job" here */
		cli_error("Invalid job format specification: %.*s", (int)len, what);
	else
		fprintf(stderr, "Invalid node format specification: %.*s\n", (int)len,
			what);
}

static int parse_format(const struct si_opts *o, struct si_format *fmt)
{
	bool builtin, is_long = o->format && o->format_long;
	const char *spec = pick_format(o, &builtin);

	if (is_long)
		return si_format_parse_long(spec, fmt, bad_field, &is_long);
	return si_format_parse(spec, builtin, fmt, bad_field, &is_long);
}

/* The node.query and part.query replies (new references), or -1 after a
 * message. */
static int fetch(json_t **nodes, json_t **parts, char **cluster)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	int rc;

	if (cli_conf_load(&conf) < 0)
		return -1;
	rc = cli_call(conf, "part.query", json_object(), parts, &err);
	if (rc == 0)
		rc = cli_call(conf, "node.query", json_object(), nodes, &err);
	*cluster = conf->cluster_name ? strdup(conf->cluster_name) : NULL;
	drv_conf_free(conf);
	if (rc != 0) {
		fprintf(stderr, "slurm_load_partitions: %s\n",
			err.text[0] ? err.text
			: rc > 0
			    ? drv_rc_text(rc)
			    : "Unable to contact slurm controller (connect failure)");
		return -1;
	}
	return 0;
}

/* Keeps the nodes -n, -d and -r ask for (all when none is given). */
static size_t filter_nodes(const struct si_opts *o, struct si_node *nodes, size_t n)
{
	char **names = NULL;
	size_t nnames = 0, kept = 0;
	struct drv_error err = {{0}};

	if (o->nodes && drv_hostlist_expand(o->nodes, &names, &nnames, &err) < 0)
		nnames = 0;
	for (size_t i = 0; i < n; i++) {
		bool keep = !(o->dead && !nodes[i].not_responding) &&
			    !(o->responding && nodes[i].not_responding);
		if (keep && o->nodes) {
			keep = false;
			for (size_t k = 0; k < nnames && !keep; k++)
				keep = !strcmp(names[k], nodes[i].name);
		}
		if (keep)
			nodes[kept++] = nodes[i];
	}
	drv_strv_free(names, nnames);
	return kept;
}

static int output(const struct si_opts *o, const struct si_format *fmt,
		  struct si_rows *rows, const char *cluster)
{
	if (si_sort(rows, o->sort ? o->sort : o->node_mode ? "N" : "#P,-t") < 0)
		return 1;
	if (o->json)
		return si_json_print(rows, o->argc, o->argv, cluster, stdout);
	if (o->long_fmt) {
		char when[64];
		time_t now = time(NULL);
		printf("%s", ctime_r(&now, when));
	}
	si_print(fmt, rows, o->no_header, stdout);
	return 0;
}

static int show(const struct si_opts *o, json_t *nreply, json_t *preply,
		const char *cluster)
{
	struct drv_node_query_reply nr = {0};
	struct drv_part_query_reply pr = {0};
	struct drv_error err = {{0}};
	struct si_node *nodes = NULL;
	struct si_part *parts = NULL;
	struct si_select sel = {o->partitions, o->states, o->node_mode, o->reason_mode};
	struct si_format fmt = {0};
	struct si_rows rows = {0};
	size_t nn;
	int rc = 1;

	if (drv_node_query_reply_decode(nreply, &nr, &err) < 0 ||
	    drv_part_query_reply_decode(preply, &pr, &err) < 0)
		goto out;
	nodes = calloc(nr.n_nodes + 1, sizeof(*nodes));
	parts = calloc(pr.n_partitions + 1, sizeof(*parts));
	if (!nodes || !parts || parse_format(o, &fmt) < 0)
		goto out;
	for (size_t i = 0; i < nr.n_nodes; i++)
		si_node_from_rec(&nr.nodes[i], &nodes[i]);
	for (size_t i = 0; i < pr.n_partitions; i++)
		si_part_from_rec(&pr.partitions[i], &parts[i]);
	nn = filter_nodes(o, nodes, nr.n_nodes);
	if (si_group(&fmt, &sel, parts, pr.n_partitions, nodes, nn, &rows) == 0)
		rc = output(o, &fmt, &rows, cluster);
out:
	si_rows_fini(&rows);
	si_format_fini(&fmt);
	free(nodes);
	free(parts);
	drv_node_query_reply_free(&nr);
	drv_part_query_reply_free(&pr);
	return rc;
}

int main(int argc, char **argv)
{
	struct si_opts o = {0};
	json_t *nodes = NULL, *parts = NULL;
	char *cluster = NULL;
	int rc;

	cli_init("sinfo");
	argv[0] = (char *)"sinfo";
	rc = parse_opts(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 1;
	if (fetch(&nodes, &parts, &cluster) < 0) {
		free(cluster);
		return 1;
	}
	rc = show(&o, nodes, parts, cluster);
	json_decref(nodes);
	json_decref(parts);
	free(cluster);
	return rc;
}
