/* sshare.c — Slurm's sshare over Drover's association tree (assoc.query):
 * the local cluster's associations, parents before children, account rows
 * and the users asked for (-u, -a: all, default: the caller), -A to keep
 * some accounts, -U for user rows only, -l for the long columns, -m for
 * partitions, -o/--format, -n, -p, -P.
 *
 * The fair-share figures (RawUsage of a subtree, NormShares, NormUsage,
 * EffectvUsage, FairShare, LevelFS) come with assoc.query's reply under
 * priority/multifactor, computed by ctld (sched_fairshare); figures() reads
 * them. With priority/basic there are none, as in Slurm. */
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/acct_tables.h"
#include "cli/common.h"
#include "cli/fields.h"

enum {
	F_ACCOUNT,
	F_CLUSTER,
	F_EFF_USAGE,
	F_FAIRSHARE,
	F_GRP_TRES_MINS,
	F_GRP_TRES_RAW,
	F_ID,
	F_LEVEL_FS,
	F_NORM_SHARES,
	F_NORM_USAGE,
	F_PARTITION,
	F_RAW_SHARES,
	F_RAW_USAGE,
	F_TRES_RUN_MINS,
	F_USER,
};

/* Slurm's sshare fields, in its (alphabetical) order: a prefix picks the
 * first that it starts. */
static const struct cli_field_def share_fields[] = {
    {"Account", "Account", -20, F_ACCOUNT, 0},
    {"Cluster", "Cluster", 10, F_CLUSTER, 0},
    {"EffectvUsage", "EffectvUsage", 13, F_EFF_USAGE, 0},
    {"FairShare", "FairShare", 10, F_FAIRSHARE, 0},
    {"GrpTRESMins", "GrpTRESMins", 30, F_GRP_TRES_MINS, 0},
    {"GrpTRESRaw", "GrpTRESRaw", 30, F_GRP_TRES_RAW, 0},
    {"ID", "ID", 6, F_ID, 0},
    {"LevelFS", "LevelFS", 10, F_LEVEL_FS, 0},
    {"NormShares", "NormShares", 11, F_NORM_SHARES, 0},
    {"NormUsage", "NormUsage", 11, F_NORM_USAGE, 0},
    {"Partition", "Partition", 12, F_PARTITION, 0},
    {"RawShares", "RawShares", 10, F_RAW_SHARES, 0},
    {"RawUsage", "RawUsage", 11, F_RAW_USAGE, 0},
    {"TRESRunMins", "TRESRunMins", 30, F_TRES_RUN_MINS, 0},
    {"User", "User", 10, F_USER, 0},
    {0, 0, 0, 0, 0},
};

/* Every TRES Drover counts, at zero: the run minutes and the raw group
 * usage until the priority work keeps them. */
#define ZERO_TRES                                                                        \
	"cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0,gres/gpu=0"

struct opts {
	bool users_only, all, noheader, long_fmt, partitions;
	bool classic; /* PriorityFlags=NO_FAIR_TREE: every row has a FairShare */
	enum cli_fields_mode mode;
	const char *users, *accounts, *format;
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
    /** <names> the cluster to ask; Drover serves one */
    {"clusters", required_argument, 0, 'M'},
    {"long", no_argument, 0, 'l'},
    {"partition", no_argument, 0, 'm'},
    /** say more about what sshare does */
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
	       "    -A or --accounts=      display specific accounts (comma separated "
	       "list)\n"
	       "    -l or --long           include normalized usage in output\n"
	       "    -m or --partition      print the partition part of the association\n"
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

/* Is name in the comma list (NULL: everything)? */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	if (!list)
		return true;
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && !strncmp(p, name, len))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* One association's fair-share figures, as sshare prints them. */
struct fig {
	bool known; /* false: NormShares and NormUsage print empty */
	double norm_shares, norm_usage, eff_usage, level_fs, factor;
};

/* The figures ctld sent for association i (billionths, see store.schema's
 * acct_assoc); none with priority/basic: NormShares and NormUsage print
 * empty, the others 0, as Slurm prints them then. */
static void figures(const struct cli_acct *t, size_t i, struct fig *out)
{
	const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
	*out = (struct fig){0};
	if (!a->has_norm_shares)
		return;
	out->known = true;
	out->norm_shares = (double)a->norm_shares / 1e9;
	out->norm_usage = (double)a->norm_usage / 1e9;
	out->eff_usage = (double)a->eff_usage / 1e9;
	out->factor = (double)a->fairshare / 1e9;
	out->level_fs = a->level_fs_inf ? INFINITY : (double)a->level_fs / 1e9;
}

/* Slurm's print_fields_double: "%f", in a table at most width characters
 * (an exponent form when "%f" is longer). */
static const char *dbl(char *buf, size_t len, double v, int width,
		       enum cli_fields_mode mode)
{
	int w = width < 0 ? -width : width;
	int n = snprintf(buf, len, "%*f", w, v);
	if (mode != CLI_FIELDS_TABLE) {
		snprintf(buf, len, "%f", v);
	} else if (n > w) {
		int p = w, e = snprintf(NULL, 0, "%*.*e", w, w, v);
		if (e > w)
			p -= e - w;
		snprintf(buf, len, "%.*e", p > 0 ? p : 0, v);
	} else {
		snprintf(buf, len, "%f", v);
	}
	return buf;
}

/* The tree's indentation (Slurm's slurmdb_tree_name_get): one more than
 * the last printed row of the parent account, none without one. */
struct tree {
	const char **names;
	int *depth;
	size_t n;
};

static int tree_depth(struct tree *tr, const char *name, const char *parent, bool user)
{
	int depth = 0;
	for (size_t k = tr->n; parent && k > 0; k--)
		if (!strcmp(tr->names[k - 1], parent)) {
			depth = tr->depth[k - 1] + 1;
			break;
		}
	if (!user) {
		tr->names[tr->n] = name;
		tr->depth[tr->n++] = depth;
	}
	return depth;
}

static const char *num(char *buf, size_t len, const char *fmt, double v)
{
	snprintf(buf, len, fmt, v);
	return buf;
}

static void row(const struct opts *o, const struct cli_fields *fl,
		const struct drv_rec_acct_assoc *a, const struct fig *f, int depth)
{
	const char *v[CLI_FIELDS_MAX];
	char bufs[CLI_FIELDS_MAX][64], acct[512];
	bool user = a->user != NULL;
	bool root = !user && !a->parent;
	snprintf(acct, sizeof(acct), "%*s%s", depth, "", a->account);
	for (size_t i = 0; i < fl->n; i++) {
		char *b = bufs[i];
		size_t len = sizeof(bufs[i]);
		int w = fl->width[i];
		switch (fl->def[i]->id) {
		case F_ACCOUNT:
			v[i] = acct;
			break;
		case F_CLUSTER:
			v[i] = a->cluster;
			break;
		case F_USER:
			v[i] = user ? a->user : "";
			break;
		case F_PARTITION:
			v[i] = a->partition ? a->partition : "";
			break;
		case F_ID:
			v[i] = num(b, len, "%.0f", a->id);
			break;
		case F_RAW_SHARES:
			v[i] = root ? ""
			       : a->shares == 2147483647u
				   ? "parent"
				   : num(b, len, "%.0f", a->shares);
			break;
		case F_RAW_USAGE:
			v[i] = num(b, len, "%.0f", (double)a->raw_usage);
			break;
		case F_NORM_SHARES:
			v[i] = f->known ? dbl(b, len, f->norm_shares, w, o->mode) : "";
			break;
		case F_NORM_USAGE:
			v[i] = f->known ? dbl(b, len, f->norm_usage, w, o->mode) : "";
			break;
		case F_EFF_USAGE:
			v[i] = dbl(b, len, f->eff_usage, w, o->mode);
			break;
		case F_FAIRSHARE: /* fair tree: users only */
			v[i] =
			    user || o->classic ? dbl(b, len, f->factor, w, o->mode) : "";
			break;
		case F_LEVEL_FS:
			v[i] = a->shares == 2147483647u
				   ? ""
				   : dbl(b, len, f->level_fs, w, o->mode);
			break;
		case F_TRES_RUN_MINS:
		case F_GRP_TRES_RAW:
			v[i] = ZERO_TRES;
			break;
		default:
			v[i] = "";
		}
	}
	cli_fields_row(stdout, fl, o->mode, v);
}

static void print_rows(const struct opts *o, const struct cli_fields *fl,
		       const struct cli_acct *t, const char *cluster, const char *users)
{
	struct tree tr = {calloc(t->r.n_assocs + 1, sizeof(char *)),
			  calloc(t->r.n_assocs + 1, sizeof(int)), 0};
	for (size_t i = 0; tr.names && tr.depth && i < t->r.n_assocs; i++) {
		const struct drv_rec_acct_assoc *a = &t->r.assocs[i];
		bool user = a->user != NULL;
		if (strcmp(a->cluster, cluster) || (user && !listed(users, a->user)) ||
		    !listed(o->accounts, a->account) || (o->users_only && !user))
			continue;
		struct fig f;
		figures(t, i, &f);
		int depth =
		    tree_depth(&tr, a->account, user ? a->account : a->parent, user);
		row(o, fl, a, &f, depth);
	}
	free(tr.names);
	free(tr.depth);
}

static const char *default_format(const struct opts *o)
{
	if (o->long_fmt)
		return o->partitions
			   ? "A,User,P,RawShares,NormShares,RawUsage,NormUsage,Eff,"
			     "Fairshare,LevelFS,GrpTRESMins,TRESRunMins"
			   : "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,"
			     "Fairshare,LevelFS,GrpTRESMins,TRESRunMins";
	return o->partitions ? "A,User,P,RawShares,NormShares,RawUsage,Eff,Fairshare"
			     : "A,User,RawShares,NormShares,RawUsage,Eff,Fairshare";
}

static int run(struct opts *o)
{
	struct cli_fields fl = {.n = 0};
	struct drv_error err = {{0}};
	struct drv_conf *conf = NULL;
	struct cli_acct t;
	char bad[64], me[256] = "";

	if (cli_fields_parse(o->format ? o->format : default_format(o), share_fields, &fl,
			     bad, sizeof(bad)) < 0) {
		for (char *p = bad; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		cli_error("Invalid field requested: \"%s\"", bad);
		return 1;
	}
	if (!o->users && !o->all) { /* the caller's own rows */
		struct passwd *pw = getpwuid(getuid());
		snprintf(me, sizeof(me), "%s", pw ? pw->pw_name : "");
	}
	if (cli_conf_load(&conf) < 0)
		return 1;
	o->classic = conf->prio.flags & DRV_PRIO_NO_FAIR_TREE;
	if (cli_acct_load(conf, &t, &err) != 0) {
		cli_error("%s",
			  err.text[0] ? err.text : "Unable to contact slurm controller");
		drv_conf_free(conf);
		return 1;
	}
	if (!o->noheader)
		cli_fields_header(stdout, &fl, o->mode);
	print_rows(o, &fl, &t, conf->cluster_name,
		   o->all     ? NULL
		   : o->users ? o->users
			      : me);
	cli_acct_fini(&t);
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
		case 'A':
			o.accounts = optarg;
			break;
		case 'l':
			o.long_fmt = true;
			break;
		case 'm':
			o.partitions = true;
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
			break; /* -M, -v: accepted, no effect in Drover */
		}
	}
	return run(&o);
}
