/* scontrol.c — Slurm's scontrol for the commands Drover has: show job |
 * node | partition | licenses | hostnames | hostlist | config, hold, uhold,
 * release, update NodeName=|JobId=|PartitionName=..., create and delete
 * PartitionName=..., top, ping and version. Parses the command words, sends one
 * request per command and prints with scontrol_show.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/scontrol.h"
#include "cli/scontrol_show.h"
#include "cli/timeshow.h"
#include "common/array_spec.h"
#include "common/hostlist.h"
#include "common/proto.h"

enum { OPT_HELP = 0x100, OPT_USAGE };

static const struct option long_opts[] = {
    /** more detail (with show job: the batch script's nodes, CPUs) */
    {"details", no_argument, 0, 'd'},
    /** each record on one line */
    {"oneliner", no_argument, 0, 'o'},
    /** print no warnings */
    {"quiet", no_argument, 0, 'Q'},
    /** say more about what scontrol does */
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    /** hidden partitions and their jobs too */
    {"all", no_argument, 0, 'a'},
    /** <names> the cluster to ask; Drover serves one */
    {"clusters", required_argument, 0, 'M'},
    /** <names> the same as --clusters */
    {"cluster", required_argument, 0, 'M'},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf(
	    "scontrol [<OPTION>] [<COMMAND>]\n"
	    "    Valid <OPTION> values are:\n"
	    "     -d or --details: Include extra detail in output\n"
	    "     -h or --help: Print this help\n"
	    "     -Q or --quiet: Disable warnings\n"
	    "     -V or --version: Print version information\n\n"
	    "    Valid <COMMAND> values are:\n"
	    "     create <SPECIFICATIONS>      create a new partition.\n"
	    "     delete <SPECIFICATIONS>      delete the specified partition.\n"
	    "     hold <job_list>              prevent specified job from starting.\n"
	    "     listpids <job_id<.step>>     List pids associated with the given "
	    "jobid, or\n"
	    "                                  all jobs if no id is given (only "
	    "those on\n"
	    "                                  the nodes of this host).\n"
	    "     notify <job_id> msg          send message to specified job\n"
	    "     ping                         print status of slurmctld daemons.\n"
	    "     reconfigure                  re-read configuration files.\n"
	    "     release <job_list>           permit specified job to start.\n"
	    "     show <ENTITY> [<ID>]         display state of identified entity, "
	    "default\n"
	    "                                  is all records.\n"
	    "     top <job_list>               put specified jobs first in queue for "
	    "user.\n"
	    "     uhold <job_list>             place user hold on specified job.\n"
	    "     update <SPECIFICATIONS>      update job, node or partition "
	    "configuration.\n"
	    "     version                      display tool version number.\n"
	    "     wait_job <job_id>            wait until the nodes allocated to the "
	    "job\n"
	    "                                  are booted and usable\n"
	    "     write batch_script <job_id> <optional filename>\n"
	    "                                  Write the batch script for a given job "
	    "to a\n"
	    "                                  local file. Default is slurm-<job_id>.sh "
	    "if\n"
	    "                                  the (optional) filename is not given.\n\n"
	    "  <ENTITY> may be \"config\", \"hostlist\", \"hostnames\", \"job\", "
	    "\"licenses\",\n"
	    "  \"node\" or \"partition\".\n");
}

bool sctl_is_cmd(const char *word, const char *cmd, size_t min)
{
	size_t len = strlen(word);

	return len >= min && len <= strlen(cmd) && !strncasecmp(word, cmd, len);
}

const char *sctl_failure_text(int rc, const struct drv_error *err)
{
	if (err->text[0])
		return err->text;
	return rc > 0 ? drv_rc_text(rc)
		      : "Unable to contact slurm controller (connect failure)";
}

int sctl_call(struct sctl *s, const char *type, json_t *body, json_t **reply,
	      struct drv_error *err)
{
	if (!s->conf && cli_conf_load(&s->conf) < 0) {
		json_decref(body);
		err->text[0] = '\0';
		return -EINVAL;
	}
	return cli_call(s->conf, type, body, reply, err);
}

/* Prints one record (text as scontrol_show.c makes it) to stdout; with -o
 * the continuation breaks become spaces and the record ends in one newline,
 * as Slurm's one-liner form. text is consumed. */
void sctl_emit(const struct sctl *s, char *text)
{
	size_t len;

	if (!text)
		return;
	if (s->oneliner) {
		char *o = text;
		for (const char *p = text; *p; p++) {
			if (!strncmp(p, "\n   ", 4)) {
				*o++ = ' ';
				p += 3;
			} else {
				*o++ = *p;
			}
		}
		*o = '\0';
		len = strlen(text);
		if (len >= 2 && !strcmp(text + len - 2, "\n\n"))
			text[len - 1] = '\0';
	}
	fputs(text, stdout);
	free(text);
}

/* A memory stream for one record; sctl_emit() prints and frees it. */
struct rec {
	char *text;
	size_t len;
	FILE *f;
};

static FILE *rec_open(struct rec *r)
{
	r->text = NULL;
	r->f = open_memstream(&r->text, &r->len);
	return r->f;
}

static void rec_emit(const struct sctl *s, struct rec *r)
{
	fclose(r->f);
	sctl_emit(s, r->text);
}

/* --- show job ------------------------------------------------------------ */

/* A job id as `show job` takes it: "N", or "N_T" (an array task; *task
 * set). Returns 0, or -1 for text Slurm refuses. */
static int parse_job_arg(const char *arg, int64_t *id, int64_t *task)
{
	char buf[32];
	const char *us = strchr(arg, '_');

	*task = -1;
	if (!us)
		return cli_parse_int(arg, 0, INT64_MAX, id) < 0 ? -1 : 0;
	if ((size_t)(us - arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%.*s", (int)(us - arg), arg);
	if (cli_parse_int(buf, 1, INT64_MAX, id) < 0 ||
	    cli_parse_int(us + 1, 0, INT64_MAX, task) < 0)
		return -1;
	return 0;
}

/* Does the array record j hold index task, as its own task or in its
 * pending rest? */
static bool has_task(const struct cli_job *j, int64_t task)
{
	struct drv_array set;
	bool in;

	if (!j->array_task_str)
		return j->array_task_id == task;
	if (drv_array_parse(j->array_task_str, 0, &set) < 0)
		return false;
	in = task <= UINT32_MAX && drv_array_test(&set, (uint32_t)task);
	drv_array_fini(&set);
	return in;
}

/* The records `show job` prints, as Slurm orders them: for an array's id
 * the array's own record first, then its tasks newest first; for "N_T" only
 * the record that holds task T. Fills out (room for n) and returns how many. */
static size_t shown_jobs(struct cli_job *all, size_t n, int64_t id, int64_t task,
			 struct cli_job **out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct cli_job *j = &all[i];
		bool member = id > 0 && j->array_job_id == id;
		size_t at = k;

		if (task >= 0 && !(member && has_task(j, task)))
			continue;
		if (member && j->job_id == id)
			at = 0;
		else if (member && k > 0)
			at = 1;
		memmove(&out[at + 1], &out[at], (k - at) * sizeof(*out));
		out[at] = j;
		k++;
	}
	return k;
}

json_t *sctl_job_query_body(int64_t id)
{
	struct drv_job_query q = {.all_states = true};
	json_t *body = drv_job_query_encode(&q);

	if (id > 0) /* 0 means every job, as in Slurm */
		json_object_set_new(
		    body, drv_shape_job_query.fields[DRV_JOB_QUERY__JOB_IDS].name,
		    json_pack("[I]", (json_int_t)id));
	return body;
}

/* Prints the records of jobs[0..n) that id and task name. */
static int print_jobs(struct sctl *s, struct cli_job *jobs, size_t n, int64_t now,
		      const char *id_str, int64_t id, int64_t task)
{
	struct cli_job **shown = calloc(n + 1, sizeof(*shown));

	if (!shown)
		return 1;
	n = shown_jobs(jobs, n, id, task, shown);
	if (n == 0)
		printf("Job %s not found\n", id_str);
	for (size_t i = 0; i < n; i++) {
		struct cli_job *job = shown[i];
		struct rec r;

		if (task >= 0 && job->array_task_str) {
			job->array_task_id = task; /* one pending task of the rest */
			job->array_task_str = NULL;
		}
		if (!rec_open(&r))
			break;
		scs_print_job(r.f, job, now, s->detail > 0);
		rec_emit(s, &r);
	}
	free(shown);
	return n == 0;
}

static int show_job(struct sctl *s, const char *id_str)
{
	struct drv_error err = {{0}};
	struct cli_job *jobs = NULL;
	json_t *reply = NULL;
	int64_t id = 0, task = -1, now;
	size_t n;
	int rc;

	if (id_str && parse_job_arg(id_str, &id, &task) < 0) {
		fprintf(stderr, "scontrol_print_job error: %s\n",
			drv_rc_text(DRV_RC_INVALID_JOB_ID));
		return 1;
	}
	rc = sctl_call(s, "job.query", sctl_job_query_body(id), &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "slurm_load_jobs error: %s\n",
			sctl_failure_text(rc, &err));
		return 1;
	}
	n = cli_jobs_from_reply(reply, &jobs, &now);
	if (!jobs)
		rc = 1;
	else if (n == 0 && id > 0)
		rc = fprintf(stderr, "slurm_load_jobs error: %s\n",
			     drv_rc_text(DRV_RC_INVALID_JOB_ID)) > 0;
	else if (n == 0)
		rc = printf("No jobs in the system\n") < 0;
	else
		rc = print_jobs(s, jobs, n, now, id_str, id, task);
	free(jobs);
	json_decref(reply);
	return rc;
}

/* --- show node / partition ------------------------------------------------ */

/* Prints the nodes of nr or (nodes false) the partitions of pr; not found
 * or none: says so. */
static int print_records(struct sctl *s, bool nodes,
			 const struct drv_node_query_reply *nr,
			 const struct drv_part_query_reply *pr, const char *name)
{
	size_t n = nodes ? nr->n_nodes : pr->n_partitions;

	if (n == 0 && name) {
		printf("%s %s not found\n", nodes ? "Node" : "Partition", name);
		return 1;
	}
	if (n == 0)
		printf("No %s in the system\n", nodes ? "nodes" : "partitions");
	for (size_t i = 0; i < n; i++) {
		struct rec r;

		if (!rec_open(&r))
			break;
		if (nodes)
			scs_print_node(r.f, &nr->nodes[i]);
		else
			scs_print_part(r.f, &pr->partitions[i]);
		rec_emit(s, &r);
	}
	return 0;
}

/* show node / show partition, of name or all. */
static int show_records(struct sctl *s, bool nodes, const char *name)
{
	struct drv_error err = {{0}};
	struct drv_node_query nq = {
	    .names = &name, .n_names = 1, .has_names = name != NULL};
	struct drv_part_query pq = {
	    .names = &name, .n_names = 1, .has_names = name != NULL};
	struct drv_node_query_reply nr = {0};
	struct drv_part_query_reply pr = {0};
	json_t *reply = NULL;
	int rc =
	    sctl_call(s, nodes ? "node.query" : "part.query",
		      nodes ? drv_node_query_encode(&nq) : drv_part_query_encode(&pq),
		      &reply, &err);

	if (rc != 0) {
		fprintf(stderr, "slurm_load_%s error: %s\n",
			nodes ? "node" : "partitions", sctl_failure_text(rc, &err));
		return 1;
	}
	rc = nodes ? drv_node_query_reply_decode(reply, &nr, &err)
		   : drv_part_query_reply_decode(reply, &pr, &err);
	if (rc == 0)
		rc = print_records(s, nodes, &nr, &pr, name);
	drv_node_query_reply_free(&nr);
	drv_part_query_reply_free(&pr);
	json_decref(reply);
	return rc != 0;
}

/* --- show config ------------------------------------------------------------ */

static int show_config(struct sctl *s)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL, *kv;
	char when[64];
	size_t i;
	int rc = sctl_call(s, "conf.query", json_object(), &reply, &err);

	if (rc != 0) {
		fprintf(stderr, "slurm_load_ctl_conf error: %s\n",
			sctl_failure_text(rc, &err));
		return 1;
	}
	cli_fmt_time(time(NULL), when, sizeof(when));
	printf("Configuration data as of %s\n", when);
	struct drv_conf_query_reply q = {0};
	(void)drv_conf_query_reply_decode(reply, &q, &err); /* else q lists nothing */
	json_array_foreach(q.config, i, kv)
	{
		printf("%-23s = %s\n", json_string_value(json_array_get(kv, 0)) ?: "",
		       json_string_value(json_array_get(kv, 1)) ?: "(null)");
	}
	json_decref(reply);
	/* The reply came from the primary controller: it is up. */
	printf("\nSlurmctld(primary) at %s is UP\n", s->conf->ctld_hosts[0].name);
	return 0;
}

static int show(struct sctl *s, int argc, char **argv)
{
	const char *what = argc > 0 ? argv[0] : NULL;
	const char *id = argc > 1 ? argv[1] : NULL;

	if (!what) {
		fprintf(stderr, "too few arguments for keyword:show\n");
		return 1;
	}
	if (argc > 2) {
		fprintf(stderr, "too many arguments for keyword:show\n");
		return 1;
	}
	if (sctl_is_cmd(what, "hostnames", 5))
		return sctl_show_hosts(id, false);
	if (sctl_is_cmd(what, "hostlistsorted", 9) || sctl_is_cmd(what, "hostlist", 5))
		return sctl_show_hosts(id, true);
	if (sctl_is_cmd(what, "jobs", 1) || sctl_is_cmd(what, "jobid", 4))
		return show_job(s, id);
	if (sctl_is_cmd(what, "steps", 2))
		return sctl_show_step(s, id);
	if (sctl_is_cmd(what, "nodes", 1))
		return show_records(s, true, id);
	if (sctl_is_cmd(what, "partitions", 1))
		return show_records(s, false, id);
	if (sctl_is_cmd(what, "licenses", 2))
		return sctl_show_licenses(s, id);
	if (sctl_is_cmd(what, "config", 1))
		return show_config(s);
	fprintf(stderr, "invalid entity:%s for keyword:show \n", what);
	return 1;
}

static int dispatch(struct sctl *s, int argc, char **argv)
{
	const char *cmd = argv[0];

	if (sctl_is_cmd(cmd, "show", 3))
		return show(s, argc - 1, argv + 1);
	if (sctl_is_cmd(cmd, "hold", 2) || sctl_is_cmd(cmd, "uhold", 2) ||
	    sctl_is_cmd(cmd, "release", 3))
		return sctl_hold(s, argc, argv);
	if (sctl_is_cmd(cmd, "update", 1))
		return sctl_update(s, argc - 1, argv + 1);
	if (sctl_is_cmd(cmd, "create", 2))
		return sctl_create(s, argc - 1, argv + 1);
	if (sctl_is_cmd(cmd, "delete", 3))
		return sctl_delete(s, argc - 1, argv + 1);
	if (sctl_is_cmd(cmd, "ping", 2))
		return sctl_ping(s);
	if (sctl_is_cmd(cmd, "reconfigure", 3))
		return sctl_reconfigure(s, argc);
	if (sctl_is_cmd(cmd, "top", 3))
		return sctl_top(s, argc, argv);
	if (sctl_is_cmd(cmd, "requeuehold", 8) || sctl_is_cmd(cmd, "requeue", 3))
		return sctl_requeue(s, argc, argv);
	/** JOBID[,JOBID...]: freeze (suspend) or thaw (resume) a running job
	 * on all its nodes; administrators only */
	if (sctl_is_cmd(cmd, "suspend", 2) || sctl_is_cmd(cmd, "resume", 3))
		return sctl_suspend(s, argc, argv);
	if (sctl_is_cmd(cmd, "wait_job", 2))
		return sctl_wait_job(s, argc, argv);
	if (sctl_is_cmd(cmd, "notify", 1))
		return sctl_notify(s, argc, argv);
	if (sctl_is_cmd(cmd, "listpids", 1))
		return sctl_listpids(s, argc, argv);
	if (sctl_is_cmd(cmd, "write", 5))
		return sctl_write(s, argc, argv);
	if (sctl_is_cmd(cmd, "version", 2)) {
		cli_print_version();
		return 0;
	}
	fprintf(stderr, "invalid keyword: %s\n", cmd);
	return 1;
}

int main(int argc, char **argv)
{
	struct sctl s = {0};
	int c, rc;

	cli_init("scontrol");
	argv[0] = (char *)"scontrol";
	while ((c = getopt_long(argc, argv, "adhM:oQvV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			s.detail++;
			break;
		case 'Q':
			s.quiet = true;
			break;
		case 'o':
			s.oneliner = true;
			break;
		case 'h':
		case OPT_HELP:
		case OPT_USAGE:
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
	if (optind >= argc) {
		usage();
		return 1;
	}
	rc = dispatch(&s, argc - optind, argv + optind);
	drv_conf_free(s.conf);
	return rc;
}
