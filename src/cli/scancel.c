/* scancel.c — cancels jobs or sends them a signal: one job.cancel for all
 * the ids, then Slurm's message for each id ctld refused. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/signame.h"
#include "common/proto.h"

struct sc_opts {
	int signal; /* 0: cancel */
	bool quiet, batch;
	json_t *ids;
};

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_IGNORE };

static const struct option long_opts[] = {
    {"signal", required_argument, 0, 's'},
    {"quiet", no_argument, 0, 'Q'},
    {"batch", no_argument, 0, 'b'},
    {"full", no_argument, 0, 'f'},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {"version", no_argument, 0, 'V'},
    {"verbose", no_argument, 0, 'v'},
    {"clusters", required_argument, 0, 'M'},
    {"cluster", required_argument, 0, 'M'},
    {"hurry", no_argument, 0, 'H'},
    {"interactive", no_argument, 0, 'i'},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf("Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n "
	       "job_name]\n"
	       "               [-p partition] [--hurry] [-Q] [--qos qos] [--reservation "
	       "reservation]\n"
	       "               [-s signal | integer] [-t PENDING | RUNNING | SUSPENDED]\n"
	       "               [--usage] [-u user_name] [--verbose] [-w hostlist]\n"
	       "               [-M cluster_name] [job_id[_array_id][.step_id]]\n");
}

/* 1: exit 0 now (help, version); <0: exit 1. */
static int parse_opts(int argc, char **argv, struct sc_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "bfHiM:Qs:vV", long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->signal = cli_signal_parse(optarg);
			if (o->signal < 0) {
				cli_error("Invalid job signal: %s", optarg);
				return -EINVAL;
			}
			break;
		case 'Q':
			o->quiet = true;
			break;
		case 'b':
			o->batch = true;
			break;
		case OPT_HELP:
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
	}
	return 0;
}

static int parse_ids(int argc, char **argv, struct sc_opts *o)
{
	int64_t id;

	o->ids = json_array();
	for (int i = optind; i < argc; i++) {
		if (cli_parse_int(argv[i], 1, INT64_MAX, &id) < 0) {
			cli_error("Invalid job id %s", argv[i]);
			return -EINVAL;
		}
		json_array_append_new(o->ids, json_integer(id));
	}
	if (json_array_size(o->ids) == 0) {
		cli_error("No job identification provided");
		return -EINVAL;
	}
	return 0;
}

/* One result: prints Slurm's message; returns 1 when it fails the run. A
 * plain cancel of a job that already ended is not an error (Slurm ignores
 * it silently); a signal to it is. */
static int report(const struct sc_opts *o, const json_t *res)
{
	int rc = (int)cli_json_int(res, "rc", 0);
	const char *text = cli_json_str(res, "error", NULL);

	if (rc == 0)
		return 0;
	if (rc == DRV_RC_ALREADY_DONE)
		return o->signal ? 1 : 0;
	if (!o->quiet)
		cli_error("Kill job error on job id %lld: %s",
			  (long long)cli_json_int(res, "job_id", 0),
			  text && *text ? text : drv_rc_text(rc));
	return 1;
}

static int cancel(const struct sc_opts *o)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	json_t *reply = NULL, *res, *body;
	size_t i;
	int rc, failed = 0;

	if (cli_conf_load(&conf) < 0)
		return 1;
	body = json_pack("{s:O}", "job_ids", o->ids);
	if (o->signal)
		json_object_set_new(body, "signal", json_integer(o->signal));
	if (o->batch)
		json_object_set_new(body, "batch_only", json_true());
	rc = cli_call(conf, "job.cancel", body, &reply, &err);
	drv_conf_free(conf);
	if (rc != 0) {
		if (!o->quiet)
			cli_error(
			    "Kill job error on job id %lld: %s",
			    (long long)json_integer_value(json_array_get(o->ids, 0)),
			    err.text[0] ? err.text : drv_rc_text(rc > 0 ? rc : 1));
		return 1;
	}
	json_array_foreach(json_object_get(reply, "results"), i, res) failed |=
	    report(o, res);
	json_decref(reply);
	return failed;
}

int main(int argc, char **argv)
{
	struct sc_opts o = {0};
	int rc;

	cli_init("scancel");
	argv[0] = (char *)"scancel";
	rc = parse_opts(argc, argv, &o);
	if (rc == 0)
		rc = parse_ids(argc, argv, &o) < 0 ? 1 : cancel(&o);
	else
		rc = rc > 0 ? 0 : 1;
	json_decref(o.ids);
	return rc;
}
