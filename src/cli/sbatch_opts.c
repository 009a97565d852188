/* sbatch_opts.c — the option table of sbatch. Options Drover carries are
 * stored as given (sbatch_res.c checks the resource ones); options Drover
 * does not implement yet are accepted and ignored so scripts written for
 * Slurm still submit (docs/compat.md lists them); options whose meaning
 * cannot be honoured silently (--uid, --gid, --export-file) are refused
 * with a message. */
#include "cli/sbatch_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"

/* Every long option sbatch accepts; val names what happens to it. */
static const struct option long_opts[] = {
    {"job-name", required_argument, 0, 'J'},
    {"output", required_argument, 0, 'o'},
    {"error", required_argument, 0, 'e'},
    {"partition", required_argument, 0, 'p'},
    {"nodes", required_argument, 0, 'N'},
    {"time", required_argument, 0, 't'},
    {"chdir", required_argument, 0, 'D'},
    {"hold", no_argument, 0, 'H'},
    {"parsable", no_argument, 0, SBATCH_OPT_PARSABLE},
    /** check the request and print when and where the job would start, without submitting
       it */
    {"test-only", no_argument, 0, SBATCH_OPT_TEST_ONLY},
    {"comment", required_argument, 0, SBATCH_OPT_COMMENT},
    /** <command> submit a script made of "#!/bin/sh" and command */
    {"wrap", required_argument, 0, SBATCH_OPT_WRAP},
    {"export", required_argument, 0, SBATCH_OPT_EXPORT},
    {"help", no_argument, 0, SBATCH_OPT_HELP},
    {"usage", no_argument, 0, SBATCH_OPT_USAGE},
    {"version", no_argument, 0, 'V'},
    /** <indexes> submit a job array: 0-15, 1,3,5 or 0-15:4, with %N to run at most N
       tasks at once */
    {"array", required_argument, 0, 'a'},
    /** <list> start only once the dependencies hold: after, afterok, afternotok,
       afterany, aftercorr:ID, singleton; "," for all, "?" for any */
    {"dependency", required_argument, 0, 'd'},
    /** <account> charge the job to this account */
    {"account", required_argument, 0, 'A'},
    /** <ncpus> CPUs for each task */
    {"cpus-per-task", required_argument, 0, 'c'},
    /** <n> tasks the job will launch */
    {"ntasks", required_argument, 0, 'n'},
    /** <features> nodes must have these features */
    {"constraint", required_argument, 0, 'C'},
    /** <qos> quality of service of the job */
    {"qos", required_argument, 0, 'q'},
    /** <hosts> run on these nodes (at least) */
    {"nodelist", required_argument, 0, 'w'},
    /** <hosts> never run on these nodes */
    {"exclude", required_argument, 0, 'x'},
    /** <names> the cluster to submit to; Drover serves one */
    {"clusters", required_argument, 0, 'M'},
    /** <names> the same as --clusters */
    {"cluster", required_argument, 0, 'M'},
    /** <time> do not start before this time: now+60, 16:00, tomorrow, 2030-01-31T12:00:00
     */
    {"begin", required_argument, 0, 'b'},
    /** <file> the batch script's standard input */
    {"input", required_argument, 0, 'i'},
    /** <list> licenses the job needs, name[:count],... (Licenses= in drover.conf) */
    {"licenses", required_argument, 0, 'L'},
    /** <type> how tasks are laid out on the nodes: block, cyclic, arbitrary */
    {"distribution", required_argument, 0, 'm'},
    /** <[type:]n> GPUs for the whole job */
    {"gpus", required_argument, 0, 'G'},
    /** <n> cores kept for the system on each node */
    {"core-spec", required_argument, 0, 'S'},
    /** <file> run on the nodes this file lists */
    {"nodefile", required_argument, 0, 'F'},
    /** <S[:C[:T]]> sockets, cores and threads a node must have */
    {"extra-node-info", required_argument, 0, 'B'},
    /** keep the job when one of its nodes fails */
    {"no-kill", optional_argument, 0, 'k'},
    /** allow more tasks than CPUs */
    {"overcommit", no_argument, 0, 'O'},
    /** print nothing but errors */
    {"quiet", no_argument, 0, 'Q'},
    /** the job may share its resources with other jobs */
    {"oversubscribe", no_argument, 0, 's'},
    /** say more about what sbatch does */
    {"verbose", no_argument, 0, 'v'},
    /** wait until the job ends; exit with its exit code */
    {"wait", no_argument, 0, 'W'},
    {"wait-all-nodes", required_argument, 0, SBATCH_OPT_IGNORE},
    /** <size[K|M|G|T]> memory per node (MB without a unit); 0: all of it */
    {"mem", required_argument, 0, SBATCH_OPT_MEM},
    /** <size[K|M|G|T]> memory per allocated CPU */
    {"mem-per-cpu", required_argument, 0, SBATCH_OPT_MEM_PER_CPU},
    /** <size[K|M|G|T]> memory per allocated GPU */
    {"mem-per-gpu", required_argument, 0, SBATCH_OPT_MEM_PER_GPU},
    /** <n> tasks on each node */
    {"ntasks-per-node", required_argument, 0, SBATCH_OPT_NTASKS_PER_NODE},
    {"ntasks-per-core", required_argument, 0, SBATCH_OPT_IGNORE},
    {"ntasks-per-socket", required_argument, 0, SBATCH_OPT_IGNORE},
    {"ntasks-per-gpu", required_argument, 0, SBATCH_OPT_IGNORE},
    /** the job's nodes run no other job */
    {"exclusive", optional_argument, 0, SBATCH_OPT_EXCLUSIVE},
    /** <list> generic resources per node, e.g. gpu:2 */
    {"gres", required_argument, 0, SBATCH_OPT_GRES},
    {"gres-flags", required_argument, 0, SBATCH_OPT_IGNORE},
    /** <[type:]n> GPUs on each node of the job */
    {"gpus-per-node", required_argument, 0, SBATCH_OPT_GPUS_PER_NODE},
    {"gpus-per-task", required_argument, 0, SBATCH_OPT_IGNORE},
    {"gpus-per-socket", required_argument, 0, SBATCH_OPT_IGNORE},
    {"cpus-per-gpu", required_argument, 0, SBATCH_OPT_IGNORE},
    {"gpu-bind", required_argument, 0, SBATCH_OPT_IGNORE},
    {"gpu-freq", required_argument, 0, SBATCH_OPT_IGNORE},
    {"wckey", required_argument, 0, SBATCH_OPT_IGNORE},
    {"reservation", required_argument, 0, SBATCH_OPT_IGNORE},
    {"mail-type", required_argument, 0, SBATCH_OPT_IGNORE},
    {"mail-user", required_argument, 0, SBATCH_OPT_IGNORE},
    /** the job may be requeued (a node failure, scontrol requeue) */
    {"requeue", no_argument, 0, SBATCH_OPT_REQUEUE},
    /** never requeue the job */
    {"no-requeue", no_argument, 0, SBATCH_OPT_NO_REQUEUE},
    /** <[B:]sig[@secs]> send sig secs seconds (default 60) before the time limit; B: to
       the batch shell only */
    {"signal", required_argument, 0, SBATCH_OPT_SIGNAL},
    /** <append|truncate> how the output and error files are opened */
    {"open-mode", required_argument, 0, SBATCH_OPT_OPEN_MODE},
    /** <[adjustment]> lower the job's priority by adjustment (default 100); a negative
       one needs an administrator */
    {"nice", optional_argument, 0, SBATCH_OPT_NICE},
    {"priority", required_argument, 0, SBATCH_OPT_IGNORE},
    /** <size[K|M|G|T]> temporary disk space per node */
    {"tmp", required_argument, 0, SBATCH_OPT_TMP},
    /** <time> the shortest time limit the job accepts: the scheduler may lower --time
       down to it */
    {"time-min", required_argument, 0, SBATCH_OPT_TIME_MIN},
    /** <time> remove the job if it cannot end by this time */
    {"deadline", required_argument, 0, SBATCH_OPT_DEADLINE},
    {"get-user-env", optional_argument, 0, SBATCH_OPT_IGNORE},
    {"propagate", optional_argument, 0, SBATCH_OPT_IGNORE},
    /** <yes|no> cancel the job when its dependency can never hold */
    {"kill-on-invalid-dep", required_argument, 0, SBATCH_OPT_KILL_DEP},
    {"contiguous", no_argument, 0, SBATCH_OPT_IGNORE},
    {"hint", required_argument, 0, SBATCH_OPT_IGNORE},
    /** <n> at least this many CPUs on each node */
    {"mincpus", required_argument, 0, SBATCH_OPT_MINCPUS},
    {"sockets-per-node", required_argument, 0, SBATCH_OPT_IGNORE},
    {"cores-per-socket", required_argument, 0, SBATCH_OPT_IGNORE},
    {"threads-per-core", required_argument, 0, SBATCH_OPT_IGNORE},
    {"network", required_argument, 0, SBATCH_OPT_IGNORE},
    {"switches", required_argument, 0, SBATCH_OPT_IGNORE},
    {"acctg-freq", required_argument, 0, SBATCH_OPT_IGNORE},
    {"thread-spec", required_argument, 0, SBATCH_OPT_IGNORE},
    {"power", required_argument, 0, SBATCH_OPT_IGNORE},
    {"profile", required_argument, 0, SBATCH_OPT_IGNORE},
    {"reboot", no_argument, 0, SBATCH_OPT_IGNORE},
    {"spread-job", no_argument, 0, SBATCH_OPT_IGNORE},
    {"use-min-nodes", no_argument, 0, SBATCH_OPT_IGNORE},
    {"ignore-pbs", no_argument, 0, SBATCH_OPT_IGNORE},
    {"cluster-constraint", required_argument, 0, SBATCH_OPT_IGNORE},
    {"container", required_argument, 0, SBATCH_OPT_IGNORE},
    {"bb", required_argument, 0, SBATCH_OPT_IGNORE},
    {"bbf", required_argument, 0, SBATCH_OPT_IGNORE},
    {"batch", required_argument, 0, SBATCH_OPT_IGNORE},
    {"prefer", required_argument, 0, SBATCH_OPT_IGNORE},
    {"tres-per-task", required_argument, 0, SBATCH_OPT_IGNORE},
    {"mem-bind", required_argument, 0, SBATCH_OPT_IGNORE},
    {"cpu-freq", required_argument, 0, SBATCH_OPT_IGNORE},
    {"delay-boot", required_argument, 0, SBATCH_OPT_IGNORE},
    /** <file> refused: Drover reads no environment file */
    {"export-file", required_argument, 0, SBATCH_OPT_REFUSE},
    {"mcs-label", required_argument, 0, SBATCH_OPT_IGNORE},
    /** <user> refused: a job runs as the user who submits it */
    {"uid", required_argument, 0, SBATCH_OPT_REFUSE},
    /** <group> refused: a job runs with the group of its submitter */
    {"gid", required_argument, 0, SBATCH_OPT_REFUSE},
    {0, 0, 0, 0},
};

#define SHORT_OPTS "+J:o:e:p:N:t:D:HVhA:c:n:C:q:w:x:M:b:i:L:m:G:S:F:B:k::OQsvWa:d:"

/* Stores the resource and policy options; 1 when c is not one of them. */
static int store_res(struct sbatch_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'n':
		o->ntasks = arg;
		break;
	case 'c':
		o->cpus_per_task = arg;
		break;
	case SBATCH_OPT_NTASKS_PER_NODE:
		o->ntasks_per_node = arg;
		break;
	case SBATCH_OPT_MEM:
		o->mem = arg;
		break;
	case SBATCH_OPT_MEM_PER_CPU:
		o->mem_per_cpu = arg;
		break;
	case SBATCH_OPT_MEM_PER_GPU:
		o->mem_per_gpu = arg;
		break;
	case 'G':
		o->gpus = arg;
		break;
	case SBATCH_OPT_GRES:
		o->gres = arg;
		break;
	case SBATCH_OPT_GPUS_PER_NODE:
		o->gpus_per_node = arg;
		break;
	case SBATCH_OPT_EXCLUSIVE:
		o->exclusive = arg ? arg : "exclusive";
		break;
	case 's':
		o->oversubscribe = true;
		break;
	case SBATCH_OPT_NICE:
		o->nice = arg ? arg : "100";
		break;
	case 'w':
		o->nodelist = arg;
		break;
	case 'x':
		o->exclude = arg;
		break;
	case 'F':
		o->nodefile = arg;
		break;
	case 'C':
		o->constraint = arg;
		break;
	case 'L':
		o->licenses = arg;
		break;
	case SBATCH_OPT_MINCPUS:
		o->mincpus = arg;
		break;
	case SBATCH_OPT_TMP:
		o->tmp = arg;
		break;
	case SBATCH_OPT_SIGNAL:
		o->signal = arg;
		break;
	case SBATCH_OPT_TIME_MIN:
		o->time_min = arg;
		break;
	default:
		return 1;
	}
	return 0;
}

/* --begin, --deadline, --kill-on-invalid-dep; 1 when c is none of them. */
static int store_lifecycle(struct sbatch_opts *o, int c, const char *arg)
{
	if (c == 'b')
		o->begin = arg;
	else if (c == SBATCH_OPT_DEADLINE)
		o->deadline = arg;
	else if (c == SBATCH_OPT_KILL_DEP)
		o->kill_invalid_dep = arg;
	else
		return 1;
	return 0;
}

/* The options that only switch something on (or off). */
static int store_flag(struct sbatch_opts *o, int c)
{
	switch (c) {
	case 'H':
		o->hold = true;
		return 0;
	case SBATCH_OPT_REQUEUE:
	case SBATCH_OPT_NO_REQUEUE:
		o->requeue = c == SBATCH_OPT_REQUEUE;
		o->no_requeue = c == SBATCH_OPT_NO_REQUEUE;
		return 0;
	case SBATCH_OPT_PARSABLE:
		o->parsable = true;
		return 0;
	case SBATCH_OPT_TEST_ONLY:
		o->test_only = true;
		return 0;
	case 'W':
		o->wait = true;
		return 0;
	case 'Q':
		o->quiet = true;
		return 0;
	default:
		return 1;
	}
}

int sbatch_opts_store(struct sbatch_opts *o, int c, const char *arg)
{
	if (store_res(o, c, arg) == 0 || store_lifecycle(o, c, arg) == 0 ||
	    store_flag(o, c) == 0)
		return 0;
	switch (c) {
	case 'A':
		o->account = arg;
		break;
	case 'q':
		o->qos = arg;
		break;
	case 'd':
		o->dependency = arg;
		break;
	case 'a':
		o->array = arg;
		break;
	case 'i':
		o->input = arg;
		break;
	case SBATCH_OPT_OPEN_MODE:
		o->open_mode = arg;
		break;
	case 'J':
		o->job_name = arg;
		break;
	case 'o':
		o->output = arg;
		break;
	case 'e':
		o->error = arg;
		break;
	case 'p':
		o->partition = arg;
		break;
	case 'N':
		o->nodes = arg;
		break;
	case 't':
		o->time = arg;
		break;
	case 'D':
		o->chdir = arg;
		break;
	case SBATCH_OPT_COMMENT:
		o->comment = arg;
		break;
	case SBATCH_OPT_WRAP:
		o->wrap = arg;
		break;
	case SBATCH_OPT_EXPORT:
		o->export_spec = arg;
		break;
	case SBATCH_OPT_HELP:
	case SBATCH_OPT_USAGE:
	case 'h':
		o->help = true;
		break;
	case 'V':
		o->version = true;
		break;
	case 'M':
		o->clusters = arg;
		break;
	default:
		return 1;
	}
	return 0;
}

int sbatch_opts_parse(int argc, char **argv, struct sbatch_opts *o, int *script_idx)
{
	int c, idx = 0;

	optind = 0; /* glibc: start over, also for a second vector */
	while ((c = getopt_long(argc, argv, SHORT_OPTS, long_opts, &idx)) != -1) {
		if (c == '?') {
			cli_try_help();
			return -EDOM;
		}
		if (c == SBATCH_OPT_REFUSE) {
			cli_error("--%s is not supported by Drover yet",
				  long_opts[idx].name);
			return -EINVAL;
		}
		sbatch_opts_store(o, c,
				  optarg); /* anything else is accepted and ignored */
	}
	if (script_idx)
		*script_idx = optind;
	return 0;
}

/* How an input variable sets its option: a value, a flag (on when empty,
 * "yes" or a non-zero number, as sbatch(1) says), or an option whose
 * argument is optional (empty: given without one). */
enum env_kind { ENV_VALUE, ENV_FLAG, ENV_OPTIONAL };

/* The input variables of Slurm's sbatch(1) for the options Drover reads;
 * variables for options Drover accepts and ignores need no row. */
static const struct {
	const char *var;
	enum env_kind kind;
	size_t off;
} env_vars[] = {
    {"SBATCH_JOB_NAME", ENV_VALUE, offsetof(struct sbatch_opts, job_name)},
    {"SBATCH_PARTITION", ENV_VALUE, offsetof(struct sbatch_opts, partition)},
    {"SBATCH_TIMELIMIT", ENV_VALUE, offsetof(struct sbatch_opts, time)},
    {"SBATCH_EXPORT", ENV_VALUE, offsetof(struct sbatch_opts, export_spec)},
    {"SBATCH_ACCOUNT", ENV_VALUE, offsetof(struct sbatch_opts, account)},
    {"SBATCH_QOS", ENV_VALUE, offsetof(struct sbatch_opts, qos)},
    {"SBATCH_GPUS", ENV_VALUE, offsetof(struct sbatch_opts, gpus)},
    {"SBATCH_GRES", ENV_VALUE, offsetof(struct sbatch_opts, gres)},
    {"SBATCH_GPUS_PER_NODE", ENV_VALUE, offsetof(struct sbatch_opts, gpus_per_node)},
    {"SBATCH_MEM_PER_NODE", ENV_VALUE, offsetof(struct sbatch_opts, mem)},
    {"SBATCH_MEM_PER_CPU", ENV_VALUE, offsetof(struct sbatch_opts, mem_per_cpu)},
    {"SBATCH_MEM_PER_GPU", ENV_VALUE, offsetof(struct sbatch_opts, mem_per_gpu)},
    {"SBATCH_EXCLUSIVE", ENV_OPTIONAL, offsetof(struct sbatch_opts, exclusive)},
    {"SBATCH_OPEN_MODE", ENV_VALUE, offsetof(struct sbatch_opts, open_mode)},
    {"SBATCH_OUTPUT", ENV_VALUE, offsetof(struct sbatch_opts, output)},
    {"SBATCH_ERROR", ENV_VALUE, offsetof(struct sbatch_opts, error)},
    {"SBATCH_INPUT", ENV_VALUE, offsetof(struct sbatch_opts, input)},
    {"SLURM_CLUSTERS", ENV_VALUE, offsetof(struct sbatch_opts, clusters)},
    {"SBATCH_CLUSTERS", ENV_VALUE, offsetof(struct sbatch_opts, clusters)},
    {"SBATCH_WAIT", ENV_FLAG, offsetof(struct sbatch_opts, wait)},
    {"SBATCH_OVERSUBSCRIBE", ENV_FLAG, offsetof(struct sbatch_opts, oversubscribe)},
    {"SBATCH_REQUEUE", ENV_FLAG, offsetof(struct sbatch_opts, requeue)},
    {"SBATCH_NO_REQUEUE", ENV_FLAG, offsetof(struct sbatch_opts, no_requeue)},
    {"SBATCH_SIGNAL", ENV_VALUE, offsetof(struct sbatch_opts, signal)},
    {"SBATCH_CONSTRAINT", ENV_VALUE, offsetof(struct sbatch_opts, constraint)},
    {"SBATCH_ARRAY_INX", ENV_VALUE, offsetof(struct sbatch_opts, array)},
};

bool sbatch_env_flag_on(const char *v)
{
	char *end = NULL;
	long n;

	if (!*v || !strcasecmp(v, "yes"))
		return true;
	n = strtol(v, &end, 10);
	return end != v && !*end && n != 0;
}

void sbatch_opts_from_env(struct sbatch_opts *o)
{
	for (size_t i = 0; i < sizeof(env_vars) / sizeof(env_vars[0]); i++) {
		const char *v = getenv(env_vars[i].var);
		void *field = (char *)o + env_vars[i].off;

		if (!v)
			continue;
		if (env_vars[i].kind == ENV_FLAG) {
			if (sbatch_env_flag_on(v))
				*(bool *)field = true;
		} else if (env_vars[i].kind == ENV_OPTIONAL) {
			*(const char **)field = *v ? v : "exclusive";
		} else if (*v) {
			*(const char **)field = v;
		}
	}
	/* Either requeue variable overrides a directive's choice. */
	const char *no = getenv("SBATCH_NO_REQUEUE"), *yes = getenv("SBATCH_REQUEUE");
	if (no && sbatch_env_flag_on(no))
		o->requeue = false;
	else if (yes && sbatch_env_flag_on(yes))
		o->no_requeue = false;
}

void sbatch_usage(void)
{
	printf("Usage: sbatch [OPTIONS...] executable [args...]\n"
	       "\n"
	       "Parallel run options:\n"
	       "  -D, --chdir=directory       set working directory for batch script\n"
	       "      --comment=name          arbitrary comment\n"
	       "  -e, --error=err             file for batch script's standard error\n"
	       "      --export[=names]        specify environment variables to export\n"
	       "  -H, --hold                  submit job in held state\n"
	       "  -J, --job-name=jobname      name of job\n"
	       "  -N, --nodes=N               number of nodes on which to run (N = "
	       "min[-max])\n"
	       "  -o, --output=out            file for batch script's standard output\n"
	       "  -p, --partition=partition   partition requested\n"
	       "      --parsable              outputs only the jobid and cluster name "
	       "(if present),\n"
	       "                              separated by semicolon, only on successful "
	       "submission.\n"
	       "  -t, --time=minutes          time limit\n"
	       "      --wrap[=command string] wrap command string in a sh script and "
	       "submit\n"
	       "\n"
	       "Help options:\n"
	       "  -h, --help                  show this help message\n"
	       "      --usage                 display brief usage message\n"
	       "\n"
	       "Other options:\n"
	       "  -V, --version               output version information and exit\n");
}
