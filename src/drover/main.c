/* main.c — `drover`, the admin tool: dispatches to one subcommand.
 *
 * Owns only the table of subcommands and the top-level --help/--version;
 * each subcommand lives in its own file and parses its own options. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "drv_config.h"
#include "drover/demo.h"
#include "drover/drover.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
    {"up", cmd_up, "start a local cluster (or what is missing of it)"},
    {"down", cmd_down, "stop a local cluster, its jobs included"},
    {"status", cmd_status, "list a cluster's daemons and whether they run"},
    {"keygen", cmd_keygen, "write a new cluster key"},
    {"demo", cmd_demo, "run a small GPU pipeline on a new local cluster"},
};

void drover_print_version(void)
{
	/* no Slurm program is its counterpart: its own name first */
	printf("drover %s (slurm %s)\n", DRV_VERSION, DRV_SLURM_VERSION);
}

int drover_parse_dir_opts(int argc, char **argv, const char **dir, void (*usage)(FILE *))
{
	static const struct option longs[] = {{"dir", required_argument, NULL, 'd'},
					      {"help", no_argument, NULL, 'h'},
					      {"version", no_argument, NULL, 'V'},
					      {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:hV", longs, NULL)) != -1) {
		if (c == 'd') {
			*dir = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return 1;
		} else if (c == 'V') {
			drover_print_version();
			return 1;
		} else {
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "drover %s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: drover COMMAND [OPTIONS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\n`drover COMMAND --help` describes a command's options.\n"
		   "Try: eval \"$(drover up)\"; sbatch --wrap hostname; squeue\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		drover_print_version();
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(cmd, subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "drover: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
