/* sacctmgr.c — Slurm's sacctmgr over Drover's tables: options, the verbs
 * (add|create, modify|update, delete|remove, list|show), and the question
 * every change asks before it is committed (not with -i). The tables live
 * in ctld (assoc.query, assoc.update); this file only dispatches. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/sacctmgr.h"

static const struct option long_opts[] = {
    {"help", no_argument, 0, 'h'},
    {"usage", no_argument, 0, 'h'},
    /** commit changes without asking */
    {"immediate", no_argument, 0, 'i'},
    /** print no header line */
    {"noheader", no_argument, 0, 'n'},
    /** one line per record */
    {"oneliner", no_argument, 0, 'o'},
    /** fields separated by "|", with a trailing "|" */
    {"parsable", no_argument, 0, 'p'},
    /** fields separated by "|", none trailing */
    {"parsable2", no_argument, 0, 'P'},
    /** print nothing but errors */
    {"quiet", no_argument, 0, 'Q'},
    /** refuse any change */
    {"readonly", no_argument, 0, 'r'},
    /** with list and show: the associations of each entity */
    {"associations", no_argument, 0, 's'},
    /** say more about what sacctmgr does */
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf(
	    "sacctmgr [<OPTION>] [<COMMAND>]\n"
	    "    Valid <OPTION> values are:\n"
	    "     -h or --help: equivalent to \"help\" command\n"
	    "     -i or --immediate: commit changes immediately\n"
	    "     -n or --noheader: equivalent to \"noheader\" command\n"
	    "     -p or --parsable: equivalent to \"parsable\" command\n"
	    "     -P or --parsable2: equivalent to \"parsable2\" command\n"
	    "     -Q or --quiet: equivalent to \"quiet\" command\n"
	    "     -r or --readonly: equivalent to \"readonly\" command\n"
	    "     -s or --associations: equivalent to \"associations\" command\n"
	    "     -v or --verbose: equivalent to \"verbose\" command\n"
	    "     -V or --version: equivalent to \"version\" command\n\n"
	    "    Valid <COMMAND> values are:\n"
	    "     add <ENTITY> <SPECS>     add entity\n"
	    "     create                   same as add\n"
	    "     delete <ENTITY> <SPECS>  delete the specified entity(s)\n"
	    "     list <ENTITY> [<SPECS>]  display info of identified entity, default\n"
	    "                              is display all.\n"
	    "     modify <ENTITY> <SPECS>  modify entity\n"
	    "     remove                   same as delete\n"
	    "     show                     same as list\n"
	    "     update                   same as modify\n\n"
	    "  <ENTITY> may be \"account\", \"association\", \"cluster\", "
	    "\"coordinator\",\n"
	    "  \"qos\" or \"user\"; <SPECS> are \"where\" conditions and \"set\" "
	    "values.\n");
}

/* Slurm's commit_check: 30 seconds for a y; anything else, a lone newline
 * or the end of input is no (Slurm's own sacctmgr loops on end of input:
 * docs/compat.md). */
static bool question(const char *warning)
{
	char c = 0;
	int ready = 0;
	printf("%s (You have 30 seconds to decide)\n", warning);
	while (c != 'Y' && c != 'y' && c != 'N' && c != 'n' && c != '\n') {
		if (c)
			printf("Y or N please\n");
		printf("(N/y): ");
		fflush(stdout);
		fd_set rfds;
		FD_ZERO(&rfds);
		FD_SET(STDIN_FILENO, &rfds);
		struct timeval tv = {30, 0};
		if ((ready = select(STDIN_FILENO + 1, &rfds, NULL, NULL, &tv)) <= 0)
			break;
		if (read(STDIN_FILENO, &c, 1) != 1)
			c = 'n';
		printf("\n");
	}
	if (ready <= 0)
		printf("timeout\n");
	return ready > 0 && (c == 'Y' || c == 'y');
}

bool sm_ask(const char *warning)
{
	return question(warning);
}

bool sm_commit_check(const char *warning)
{
	if (question(warning))
		return true;
	printf(" Changes Discarded\n");
	return false;
}

static int command(const struct sm_opts *o, int argc, char **argv)
{
	const char *cmd = argv[0];
	size_t len = strlen(cmd);

	if (sm_kw(cmd, len, "add", 3) || sm_kw(cmd, len, "create", 3))
		return sm_add(o, argc - 1, argv + 1);
	if (sm_kw(cmd, len, "show", 3) || sm_kw(cmd, len, "list", 3))
		return sm_list(o, argc - 1, argv + 1);
	if (sm_kw(cmd, len, "modify", 1) || sm_kw(cmd, len, "update", 1))
		return sm_modify(o, argc - 1, argv + 1);
	if (sm_kw(cmd, len, "delete", 3) || sm_kw(cmd, len, "remove", 3))
		return sm_delete(o, argc - 1, argv + 1);
	if (sm_kw(cmd, len, "help", 2)) {
		usage();
		return 0;
	}
	if (sm_kw(cmd, len, "version", 4)) {
		cli_print_version();
		return 0;
	}
	fprintf(stderr, "invalid keyword: %s\n", cmd);
	return 1;
}

int main(int argc, char **argv)
{
	struct sm_opts o = {.mode = CLI_FIELDS_TABLE};
	int c;

	cli_init("sacctmgr");
	argv[0] = (char *)"sacctmgr";
	while ((c = getopt_long(argc, argv, "+hinopPQrsvV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.immediate = true;
			break;
		case 'n':
			o.noheader = true;
			break;
		case 'p':
			o.mode = CLI_FIELDS_PARSABLE;
			break;
		case 'P':
			o.mode = CLI_FIELDS_PARSABLE2;
			break;
		case 's':
			o.assoc = true;
			break;
		case 'h':
			usage();
			return 0;
		case 'V':
			cli_print_version();
			return 0;
		case '?':
			cli_try_help();
			return 1;
		default:
			break; /* -o, -Q, -r, -v: accepted */
		}
	}
	if (optind >= argc)
		return 0; /* Slurm would read commands from stdin */
	return command(&o, argc - optind, argv + optind);
}
