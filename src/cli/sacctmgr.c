/* sacctmgr.c — the part of Slurm's sacctmgr that tools use to discover a
 * user's accounts: `sacctmgr [-n] [-p|-P] [-s] list|show user [NAMES]
 * [name=..] [format=..] [withassoc] [accounts=..] [cluster=..]`. Drover has
 * no association table yet, so a user's associations are the accounts
 * their jobs were charged to (assoc.h); other entities and every change
 * command are refused with Slurm's text. Only reads. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/assoc.h"
#include "cli/common.h"
#include "cli/fields.h"

enum {
	F_USER,
	F_DEF_ACCT,
	F_ADMIN,
	F_CLUSTER,
	F_ACCOUNT,
	F_PARTITION,
	F_SHARE,
	F_QOS,
	F_DEF_QOS,
	F_BLANK
};

/* `list user` fields: Slurm's names, headers and default widths. */
static const struct cli_field_def user_fields[] = {
    {"User", "User", 10, F_USER},
    {"DefaultAccount", "Def Acct", 10, F_DEF_ACCT},
    {"AdminLevel", "Admin", 9, F_ADMIN},
    {"Cluster", "Cluster", 10, F_CLUSTER},
    {"Account", "Account", 10, F_ACCOUNT},
    {"Partition", "Partition", 10, F_PARTITION},
    {"Share", "Share", 9, F_SHARE},
    {"Fairshare", "Share", 9, F_SHARE},
    {"Priority", "Priority", 10, F_BLANK},
    {"MaxJobs", "MaxJobs", 7, F_BLANK},
    {"MaxNodes", "MaxNodes", 8, F_BLANK},
    {"MaxCPUs", "MaxCPUs", 8, F_BLANK},
    {"MaxSubmitJobs", "MaxSubmit", 9, F_BLANK},
    {"MaxWall", "MaxWall", 11, F_BLANK},
    {"MaxCPUMins", "MaxCPUMins", 11, F_BLANK},
    {"QOS", "QOS", 20, F_QOS},
    {"DefaultQOS", "Def QOS", 9, F_DEF_QOS},
    {0, 0, 0, 0},
};

#define USER_FORMAT "User,DefaultAccount,AdminLevel"
#define ASSOC_FORMAT                                                                     \
	USER_FORMAT ",Cluster,Account,Partition,Share,Priority,MaxJobs,MaxNodes,"        \
		    "MaxCPUs,MaxSubmitJobs,MaxWall,MaxCPUMins,QOS,DefaultQOS"

struct opts {
	bool noheader, assoc;
	enum cli_fields_mode mode;
	const char *names, *format, *accounts, *clusters;
};

static const struct option long_opts[] = {
    {"noheader", no_argument, 0, 'n'},	{"parsable", no_argument, 0, 'p'},
    {"parsable2", no_argument, 0, 'P'}, {"associations", no_argument, 0, 's'},
    {"immediate", no_argument, 0, 'i'}, {"quiet", no_argument, 0, 'Q'},
    {"readonly", no_argument, 0, 'r'},	{"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},	{"help", no_argument, 0, 'h'},
    {"usage", no_argument, 0, 'h'},	{0, 0, 0, 0},
};

static void usage(void)
{
	printf("sacctmgr [<OPTION>] [<COMMAND>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -h or --help: equivalent to \"help\" command\n"
	       "     -n or --noheader: equivalent to \"noheader\" command\n"
	       "     -p or --parsable: equivalent to \"parsable\" command\n"
	       "     -P or --parsable2: equivalent to \"parsable2\" command\n"
	       "     -s or --associations: equivalent to \"associations\" command\n"
	       "     -V or --version: equivalent to \"version\" command\n\n"
	       "    Valid <COMMAND> values are:\n"
	       "     list <ENTITY> [<SPECS>]  display info of identified entity.\n"
	       "     show                     same as list\n\n"
	       "  <ENTITY> may be \"user\" (Drover answers from the accounts its jobs\n"
	       "  were charged to).\n");
}

/* One [key=]value word of `list user`. 0, or 1 after Slurm's message. */
static int user_arg(struct opts *o, const char *w)
{
	const char *eq = strchr(w, '=');
	size_t klen = eq ? (size_t)(eq - w) : 0;

	if (!eq) {
		if (!strncasecmp(w, "withassoc", 5))
			o->assoc = true;
		else if (strcasecmp(w, "where") && strncasecmp(w, "withdeleted", 5))
			o->names = w;
		return 0;
	}
	if (klen >= 4 && !strncasecmp(w, "format", klen))
		o->format = eq + 1;
	else if (klen >= 4 &&
		 (!strncasecmp(w, "names", klen) || !strncasecmp(w, "users", klen)))
		o->names = eq + 1;
	else if (klen >= 3 && !strncasecmp(w, "accounts", klen))
		o->accounts = eq + 1;
	else if (klen >= 3 && !strncasecmp(w, "clusters", klen))
		o->clusters = eq + 1;
	else {
		fprintf(stderr,
			" Unknown condition: %s\n Use keyword 'set' to modify value\n",
			w);
		return 1;
	}
	return 0;
}

static bool in_list(const char *list, const char *v)
{
	size_t len = strlen(v);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && !strncmp(p, v, len))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static void row(const struct opts *o, const struct cli_fields *fl,
		const struct cli_assoc *a, const char *cluster)
{
	const char *v[CLI_FIELDS_MAX];

	for (size_t i = 0; i < fl->n; i++) {
		switch (fl->def[i]->id) {
		case F_USER:
			v[i] = a->user;
			break;
		case F_ADMIN:
			v[i] = "None";
			break;
		case F_CLUSTER:
			v[i] = o->assoc ? cluster : "";
			break;
		case F_ACCOUNT:
			v[i] = o->assoc ? a->account : "";
			break;
		case F_SHARE:
			v[i] = o->assoc ? "1" : "";
			break;
		case F_QOS:
			v[i] = o->assoc ? "normal" : "";
			break;
		default:
			v[i] = ""; /* no default accounts or limits in Drover yet */
		}
	}
	cli_fields_row(stdout, fl, o->mode, v);
}

static int list_users(struct opts *o)
{
	struct cli_fields fl = {.n = 0};
	struct drv_error err = {{0}};
	struct drv_conf *conf = NULL;
	struct cli_assoc *a = NULL;
	int64_t uids[256];
	size_t nu = 0, unknown = 0, n = 0;
	char bad[64];

	if (cli_fields_parse(o->format	? o->format
			     : o->assoc ? ASSOC_FORMAT
					: USER_FORMAT,
			     user_fields, &fl, bad, sizeof(bad)) < 0) {
		fprintf(stderr, "Unknown field '%s'\n", bad);
		return 1;
	}
	if (o->names)
		cli_assoc_uids(o->names, uids, 256, &nu, &unknown);
	if (o->names && nu == 0) {
		if (!o->noheader) /* no such user: nothing to list, as Slurm */
			cli_fields_header(stdout, &fl, o->mode);
		return 0;
	}
	if (cli_conf_load(&conf) < 0)
		return 1;
	if (cli_assoc_load(conf, uids, nu, &a, &n, &err) != 0) {
		fprintf(stderr, "sacctmgr: error: %s\n",
			err.text[0] ? err.text : "Unable to contact slurm controller");
		drv_conf_free(conf);
		return 1;
	}
	if (!o->noheader)
		cli_fields_header(stdout, &fl, o->mode);
	for (size_t i = 0; i < n; i++) {
		bool first = i == 0 || strcmp(a[i].user, a[i - 1].user);
		if ((o->accounts && !in_list(o->accounts, a[i].account)) ||
		    (o->clusters && !in_list(o->clusters, conf->cluster_name)))
			continue;
		if (o->assoc || first) /* without -s: one line per user */
			row(o, &fl, &a[i], conf->cluster_name);
	}
	cli_assoc_free(a, n);
	drv_conf_free(conf);
	return 0;
}

static int command(struct opts *o, int argc, char **argv)
{
	const char *cmd = argv[0];

	if (strcasecmp(cmd, "list") && strcasecmp(cmd, "show")) {
		fprintf(stderr, "invalid keyword: %s\n", cmd);
		return 1;
	}
	if (argc < 2 || strncasecmp(argv[1], "users", strlen(argv[1])) ||
	    strlen(argv[1]) > 5) {
		fprintf(
		    stderr,
		    "No valid entity in list command\n"
		    "Input line must include \"Account\", \"Association\", "
		    "\"Cluster\", \"Configuration\",\n"
		    "\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", "
		    "\"Reservation\",\n"
		    "\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", "
		    "or \"WCKey\"\n");
		return 1;
	}
	for (int i = 2; i < argc; i++)
		if (user_arg(o, argv[i]) != 0)
			return 1;
	return list_users(o);
}

int main(int argc, char **argv)
{
	struct opts o = {.mode = CLI_FIELDS_TABLE};
	int c;

	cli_init("sacctmgr");
	argv[0] = (char *)"sacctmgr";
	while ((c = getopt_long(argc, argv, "+hinpPQrsvV", long_opts, NULL)) != -1) {
		switch (c) {
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
			break; /* accepted: Drover's sacctmgr only reads */
		}
	}
	if (optind >= argc)
		return 0; /* Slurm would read commands from stdin */
	return command(&o, argc - optind, argv + optind);
}
