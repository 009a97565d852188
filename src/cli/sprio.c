/* sprio.c — Slurm 22.05's sprio: the priority factors of pending jobs
 * (prio.query), printed by sprio_format.c. Options as Slurm's: -j[LIST]
 * (also the first argument after it), -u, -p, -l, -n, -o (or
 * SPRIO_FORMAT), -h, -w, -S; -M, -v, --federation, --local and --sibling
 * are accepted. The weights, and whether priority/multifactor runs at all,
 * come from the local config, as Slurm's sprio reads its slurm.conf. */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/sprio_format.h"
#include "common/proto.h"
#include "common/proto_gen.h"

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_LOCAL, OPT_SIBLING, OPT_FEDERATION };

struct opts {
	bool no_header, long_list, normalized, weights, job_flag, sibling, local;
	const char *jobs, *users, *parts, *format, *sort;
};

static const struct option long_opts[] = {
    /** print no header line */
    {"noheader", no_argument, 0, 'h'},
    /** <[ids]> only these jobs */
    {"jobs", optional_argument, 0, 'j'},
    /** every factor, weighted, one column each */
    {"long", no_argument, 0, 'l'},
    /** <names> the cluster to ask; Drover serves one */
    {"cluster", required_argument, 0, 'M'},
    /** <names> the same as --cluster */
    {"clusters", required_argument, 0, 'M'},
    /** the factors normalised (0 to 1), unweighted */
    {"norm", no_argument, 0, 'n'},
    /** <format> the columns, as Slurm's % fields */
    {"format", required_argument, 0, 'o'},
    /** <fields> sort by these columns */
    {"sort", required_argument, 0, 'S'},
    /** <names> only jobs in these partitions */
    {"partition", required_argument, 0, 'p'},
    /** <names> only the jobs of these users */
    {"user", required_argument, 0, 'u'},
    /** <names> the same as --user */
    {"users", required_argument, 0, 'u'},
    /** say more about what sprio does */
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    /** print the configured weights of the factors */
    {"weights", no_argument, 0, 'w'},
    /** accepted; Drover serves one cluster */
    {"federation", no_argument, 0, OPT_FEDERATION},
    {"help", no_argument, 0, OPT_HELP},
    /** accepted; Drover serves one cluster */
    {"local", no_argument, 0, OPT_LOCAL},
    /** accepted; Drover serves one cluster */
    {"sib", no_argument, 0, OPT_SIBLING},
    /** accepted; Drover serves one cluster */
    {"sibling", no_argument, 0, OPT_SIBLING},
    {"usage", no_argument, 0, OPT_USAGE},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf(
	    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n");
	printf("   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n");
}

static void help(void)
{
	printf("\
Usage: sprio [OPTIONS]\n\
      --federation                display jobs in federation if a member of one\n\
  -h, --noheader                  no headers on output\n\
  -j, --jobs                      comma separated list of jobs\n\
                                  to view, default is all\n\
      --local                     display jobs on local cluster only\n\
  -l, --long                      long report\n\
  -M, --cluster=cluster_name      cluster to issue commands to.  Default is\n\
                                  current cluster.  cluster with no name will\n\
                                  reset to default.\n\
                                  NOTE: SlurmDBD must be up.\n\
  -n, --norm                      display normalized values\n\
  -o, --format=format             format specification\n\
      --sibling                   display job records separately for each federation cluster\n\
  -p, --partition=partition_name  comma separated list of partitions\n\
  -u, --user=user_name            comma separated list of users to view\n\
  -v, --verbose                   verbosity level\n\
  -V, --version                   output version information and exit\n\
  -w, --weights                   show the weights for each priority factor\n\
\nHelp options:\n\
  --help                          show this help message\n\
  --usage                         display a brief summary of sprio options\n");
}

/* -j's list as job ids; Slurm's "Invalid job id" ends sprio. */
static int job_ids(const char *list, json_t *out)
{
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : 1;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		int64_t id;
		if (cli_parse_int(t, 1, 4294967294LL, &id) < 0) {
			cli_error("Invalid job id: %s", t);
			rc = 1;
		} else {
			json_array_append_new(out, json_integer(id));
		}
	}
	free(copy);
	return rc;
}

/* -u's names (or uids) as uids; an unknown one is said and left out. */
static void user_ids(const char *list, json_t *out)
{
	char *copy = strdup(list), *save = NULL;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		struct passwd *pw = getpwnam(t);
		int64_t uid;
		if (pw)
			json_array_append_new(out, json_integer(pw->pw_uid));
		else if (cli_parse_int(t, 0, 4294967294LL, &uid) == 0)
			json_array_append_new(out, json_integer(uid));
		else
			cli_error("Invalid user: %s\n", t);
	}
	free(copy);
}

static json_t *names(const char *list)
{
	json_t *a = json_array();
	char *copy = strdup(list), *save = NULL;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_string(t));
	free(copy);
	return a;
}

static int request(const struct opts *o, json_t *body)
{
	if (o->jobs) {
		json_t *ids = json_array();
		if (job_ids(o->jobs, ids)) {
			json_decref(ids);
			return 1;
		}
		cli_body_set(body, &drv_shape_prio_query, DRV_PRIO_QUERY__JOB_IDS, ids);
		json_decref(ids);
	}
	if (o->users) {
		json_t *uids = json_array();
		user_ids(o->users, uids);
		cli_body_set(body, &drv_shape_prio_query, DRV_PRIO_QUERY__UIDS, uids);
		json_decref(uids);
	}
	if (o->parts) {
		json_t *p = names(o->parts);
		cli_body_set(body, &drv_shape_prio_query, DRV_PRIO_QUERY__PARTITIONS, p);
		json_decref(p);
	}
	return 0;
}

static double weight_of(const struct drv_conf *conf, const char *name)
{
	static const struct {
		const char *name;
		enum drv_tres_id id;
	} map[] = {{"cpu", DRV_TRES_CPU},
		   {"mem", DRV_TRES_MEM},
		   {"node", DRV_TRES_NODE},
		   {"billing", DRV_TRES_BILLING},
		   {"gres/gpu", DRV_TRES_GPU}};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, name))
			return conf->prio.weight_tres.w[map[i].id];
	return 0.0;
}

/* The reply's rows as sprio_format's jobs; strings borrowed from r, the
 * TRES entries and user numbers from the arrays returned. */
static struct sprio_job *jobs_of(const struct drv_conf *conf,
				 const struct drv_prio_query_reply *r, bool sibling,
				 struct sprio_tres **tres_out, char (**uids_out)[16])
{
	size_t n = r->n_rows ? r->n_rows : 1, n_tres = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		n_tres += r->rows[i].n_tres;
	struct sprio_job *jobs = calloc(n, sizeof(*jobs));
	struct sprio_tres *tres = calloc(n_tres + 1, sizeof(*tres));
	char(*uids)[16] = calloc(n, sizeof(*uids));
	if (!jobs || !tres || !uids)
		abort();
	size_t t = 0;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct drv_rec_prio_row *w = &r->rows[i];
		snprintf(uids[i], sizeof(uids[i]), "%u", w->uid);
		jobs[i] = (struct sprio_job){
		    .job_id = w->job_id,
		    .user = w->user && *w->user ? w->user : uids[i],
		    .account = w->account,
		    .partition = w->partition,
		    .qos = w->qos,
		    .cluster = sibling ? conf->cluster_name : NULL,
		    .age = (double)w->age / 1e9,
		    .assoc = (double)w->assoc / 1e9,
		    .fairshare = (double)w->fairshare / 1e9,
		    .job_size = (double)w->job_size / 1e9,
		    .part = (double)w->part_factor / 1e9,
		    .qos_factor = (double)w->qos_factor / 1e9,
		    .tres = &tres[t],
		    .n_tres = w->n_tres,
		    .site = w->site,
		    .nice = w->nice,
		    .direct_prio = w->direct_prio,
		};
		for (size_t k = 0; k < w->n_tres; k++, t++)
			tres[t] = (struct sprio_tres){w->tres[k].name,
						      (double)w->tres[k].factor / 1e9,
						      weight_of(conf, w->tres[k].name)};
	}
	*tres_out = tres;
	*uids_out = uids;
	return jobs;
}

static void bad_letter(char letter, void *arg)
{
	(void)arg;
	cli_error("Invalid job format specification: %c", letter);
}

static int print(const struct opts *o, const struct drv_conf *conf,
		 const struct drv_prio_query_reply *r)
{
	struct sprio_weights w = {
	    .age = conf->prio.weight_age,
	    .assoc = conf->prio.weight_assoc,
	    .fairshare = conf->prio.weight_fairshare,
	    .job_size = conf->prio.weight_job_size,
	    .partition = conf->prio.weight_partition,
	    .qos = conf->prio.weight_qos,
	    .tres = conf->prio.weight_tres.set ? conf->prio.weight_tres.text : NULL,
	};
	struct sprio_mode m = {o->normalized, o->long_list, o->users != NULL,
			       o->sibling && !o->local};
	char def[256];
	const char *fmt =
	    o->format ? o->format : sprio_default_format(&w, &m, def, sizeof(def));
	struct sprio_format f;
	if (sprio_format_parse(fmt, &f, bad_letter, NULL) < 0)
		return 1;
	if (o->jobs && !r->n_rows) {
		printf("Unable to find jobs matching user/id(s) specified\n");
		sprio_format_fini(&f);
		return 0;
	}
	struct sprio_tres *tres;
	char(*uids)[16];
	struct sprio_job *jobs = jobs_of(conf, r, m.sibling, &tres, &uids);
	char bad = 0;
	int rc = o->weights ? 0 : sprio_sort(jobs, r->n_rows, o->sort, &w, &bad);
	if (rc == -EINVAL)
		cli_error("Invalid sort specification: %c", bad);
	else if (rc == 0)
		sprio_print(&f, &w, jobs, r->n_rows, o->no_header, o->weights, stdout);
	free(jobs);
	free(tres);
	free(uids);
	sprio_format_fini(&f);
	return rc ? 1 : 0;
}

static int run(const struct opts *o)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	json_t *reply = NULL, *body;
	int rc;

	if (cli_conf_load(&conf) < 0)
		return 1;
	if (!conf->prio.multifactor) {
		fprintf(stderr, "You are not running a supported priority plugin\n"
				"(priority/basic).\n"
				"Only 'priority/multifactor' is supported.\n");
		drv_conf_free(conf);
		return 1;
	}
	body = json_object();
	if (request(o, body)) {
		json_decref(body);
		drv_conf_free(conf);
		return 1;
	}
	rc = cli_call(conf, "prio.query", body, &reply, &err);
	struct drv_prio_query_reply r = {0};
	if (rc == 0 && drv_prio_query_reply_decode(reply, &r, &err) < 0)
		rc = DRV_RC_PROTOCOL;
	if (rc != 0) {
		fprintf(stderr, "Couldn't get priority factors from controller: %s\n",
			err.text[0] ? err.text
			: rc > 0
			    ? drv_rc_text(rc)
			    : "Unable to contact slurm controller (connect failure)");
		json_decref(reply);
		drv_conf_free(conf);
		return 1;
	}
	rc = print(o, conf, &r);
	drv_prio_query_reply_free(&r);
	json_decref(reply);
	drv_conf_free(conf);
	return rc;
}

/* Parses argv into o; -1 to exit with 1, 1 to exit with 0 (help). */
static int parse(int argc, char **argv, struct opts *o)
{
	bool format_given = false;
	int c;
	while ((c = getopt_long(argc, argv, "hj::lM:no:S:p:u:vVw", long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			o->no_header = true;
			break;
		case 'j':
			if (optarg)
				o->jobs = optarg;
			o->job_flag = true;
			break;
		case 'l':
			o->long_list = format_given = true;
			break;
		case 'n':
			o->normalized = true;
			break;
		case 'o':
			o->format = optarg;
			format_given = true;
			break;
		case 'S':
			o->sort = optarg;
			break;
		case 'p':
			o->parts = optarg;
			break;
		case 'u':
			o->users = optarg;
			break;
		case 'V':
			cli_print_version();
			return 1;
		case 'w':
			o->weights = true;
			break;
		case OPT_HELP:
			help();
			return 1;
		case OPT_USAGE:
			usage();
			return 1;
		case OPT_LOCAL:
			o->local = true;
			break;
		case OPT_SIBLING:
			o->sibling = true;
			break;
		case '?':
			fprintf(stderr, "Try \"sprio --help\" for more information\n");
			return -1;
		default:
			break; /* -M, -v, --federation: nothing to do in Drover */
		}
	}
	if (o->long_list && o->format) {
		fprintf(stderr, "sprio: fatal: Options -o(--format) and -l(--long) are "
				"mutually exclusive. Please remove one and retry.\n");
		return -1;
	}
	if (!format_given && getenv("SPRIO_FORMAT"))
		o->format = getenv("SPRIO_FORMAT");
	if (optind < argc && o->job_flag)
		o->jobs = argv[optind++];
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage();
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};

	cli_init("sprio");
	argv[0] = (char *)"sprio";
	if (getenv("SPRIO_LOCAL"))
		o.local = true;
	if (getenv("SPRIO_SIBLING"))
		o.sibling = true;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 1 : 0;
	return run(&o);
}
