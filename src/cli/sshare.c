/* sshare.c — the part of Slurm's sshare that tools use to discover a user's
 * accounts (`sshare -U --format Account%256 --noheader`). Drover has no
 * fair-share tree yet: the accounts are those the user's jobs were charged
 * to (assoc.h), each with one share and no usage. Only reads. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/assoc.h"
#include "cli/common.h"
#include "cli/fields.h"

enum {
	F_ACCOUNT,
	F_USER,
	F_RAW_SHARES,
	F_NORM_SHARES,
	F_RAW_USAGE,
	F_EFF_USAGE,
	F_FAIRSHARE,
	F_CLUSTER
};

static const struct cli_field_def share_fields[] = {
    {"Account", "Account", -20, F_ACCOUNT},
    {"User", "User", 10, F_USER},
    {"RawShares", "RawShares", 10, F_RAW_SHARES},
    {"NormShares", "NormShares", 11, F_NORM_SHARES},
    {"RawUsage", "RawUsage", 11, F_RAW_USAGE},
    {"EffectvUsage", "EffectvUsage", 13, F_EFF_USAGE},
    {"FairShare", "FairShare", 10, F_FAIRSHARE},
    {"Cluster", "Cluster", 10, F_CLUSTER},
    {0, 0, 0, 0},
};

#define DEFAULT_FORMAT "Account,User,RawShares,NormShares,RawUsage,EffectvUsage,FairShare"

struct opts {
	bool users_only, all, noheader;
	enum cli_fields_mode mode;
	const char *users, *format;
};

static const struct option long_opts[] = {
    {"Users", no_argument, 0, 'U'},
    {"users", required_argument, 0, 'u'},
    {"all", no_argument, 0, 'a'},
    {"noheader", no_argument, 0, 'n'},
    {"format", required_argument, 0, 'o'},
    {"parsable", no_argument, 0, 'p'},
    {"parsable2", no_argument, 0, 'P'},
    {"accounts", required_argument, 0, 'A'},
    {"clusters", required_argument, 0, 'M'},
    {"long", no_argument, 0, 'l'},
    {"partition", no_argument, 0, 'm'},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {"help", no_argument, 0, 'h'},
    {"usage", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf("Usage:  sshare [OPTION]\n"
	       "  Valid OPTIONs are:\n"
	       "    -a or --all            list all users\n"
	       "    -n or --noheader       omit header from output\n"
	       "    -o or --format=        Comma separated list of fields\n"
	       "    -p or --parsable       '|' delimited output with a trailing '|'\n"
	       "    -P or --parsable2      '|' delimited output without a trailing '|'\n"
	       "    -u or --users=         display specific users (comma separated "
	       "list)\n"
	       "    -U or --Users          display only user information\n"
	       "    -V or --version        display tool version number\n"
	       "    -h or --help           display this usage description\n");
}

static void row(const struct opts *o, const struct cli_fields *fl,
		const struct cli_assoc *a, bool user_row, const char *cluster)
{
	const char *v[CLI_FIELDS_MAX];
	char acct[256];

	snprintf(acct, sizeof(acct), "%s%s", user_row && !o->users_only ? " " : "",
		 a->account);
	for (size_t i = 0; i < fl->n; i++) {
		switch (fl->def[i]->id) {
		case F_ACCOUNT:
			v[i] = acct;
			break;
		case F_USER:
			v[i] = user_row ? a->user : "";
			break;
		case F_RAW_SHARES:
			v[i] = user_row ? "1" : "";
			break;
		case F_RAW_USAGE:
			v[i] = "0";
			break;
		case F_EFF_USAGE:
			v[i] = "0.000000";
			break;
		case F_FAIRSHARE:
			v[i] = user_row ? "0.000000" : "";
			break;
		case F_CLUSTER:
			v[i] = cluster;
			break;
		default:
			v[i] = "";
		}
	}
	cli_fields_row(stdout, fl, o->mode, v);
}

/* Without -U each account gets a line of its own before its users. */
static void print_rows(const struct opts *o, const struct cli_fields *fl,
		       struct cli_assoc *a, size_t n, const char *cluster)
{
	for (size_t i = 0; i < n; i++) {
		bool new_acct = true;
		for (size_t k = 0; k < i; k++)
			new_acct &= strcmp(a[k].account, a[i].account) != 0;
		if (!o->users_only && new_acct) {
			row(o, fl, &a[i], false, cluster);
			for (size_t k = i; k < n; k++)
				if (!strcmp(a[k].account, a[i].account))
					row(o, fl, &a[k], true, cluster);
		} else if (o->users_only) {
			row(o, fl, &a[i], true, cluster);
		}
	}
}

static int run(const struct opts *o)
{
	struct cli_fields fl = {.n = 0};
	struct drv_error err = {{0}};
	struct drv_conf *conf = NULL;
	struct cli_assoc *a = NULL;
	int64_t uids[256];
	size_t nu = 0, unknown = 0, n = 0;
	char bad[64];

	if (cli_fields_parse(o->format ? o->format : DEFAULT_FORMAT, share_fields, &fl,
			     bad, sizeof(bad)) < 0) {
		for (char *p = bad; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		cli_error("Invalid field requested: \"%s\"", bad);
		return 1;
	}
	if (o->users)
		cli_assoc_uids(o->users, uids, 256, &nu, &unknown);
	else if (!o->all)
		uids[nu++] = getuid();
	if (o->users && nu == 0) {
		if (!o->noheader) /* no such user: nothing to show, as Slurm */
			cli_fields_header(stdout, &fl, o->mode);
		return 0;
	}
	if (cli_conf_load(&conf) < 0)
		return 1;
	if (cli_assoc_load(conf, uids, nu, &a, &n, &err) != 0) {
		cli_error("%s",
			  err.text[0] ? err.text : "Unable to contact slurm controller");
		drv_conf_free(conf);
		return 1;
	}
	if (!o->noheader)
		cli_fields_header(stdout, &fl, o->mode);
	print_rows(o, &fl, a, n, conf->cluster_name);
	cli_assoc_free(a, n);
	drv_conf_free(conf);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {.mode = CLI_FIELDS_TABLE};
	int c;

	cli_init("sshare");
	argv[0] = (char *)"sshare";
	while ((c = getopt_long(argc, argv, "aA:hlmM:no:pPu:UvV", long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'U':
			o.users_only = true;
			break;
		case 'u':
			o.users = optarg;
			break;
		case 'a':
			o.all = true;
			break;
		case 'n':
			o.noheader = true;
			break;
		case 'o':
			o.format = optarg;
			break;
		case 'p':
			o.mode = CLI_FIELDS_PARSABLE;
			break;
		case 'P':
			o.mode = CLI_FIELDS_PARSABLE2;
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
			break; /* accepted, no effect in Drover */
		}
	}
	return run(&o);
}
