/* srun_opts.c — the option tables of srun and salloc. Options shared with
 * sbatch go through sbatch_opts_store() into the embedded sbatch_opts (its
 * checks run later, in sbatch_res.c and sbatch_place.c); the step and
 * launch options are checked here with Slurm's messages. Options Drover
 * does not implement are accepted and ignored where ignoring them cannot
 * change what a program computes (docs/compat.md), and refused where it
 * could (--het-group, --bcast, --prolog, --no-allocate, ...). */
#include "cli/srun_opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/sbatch_res.h"

/* Codes of the long-only options sbatch does not have. */
enum {
	SRUN_OPT_JOBID = 0x200,
	SRUN_OPT_MPI,
	SRUN_OPT_MULTI_PROG,
	SRUN_OPT_EXACT,
	SRUN_OPT_OVERLAP,
	SRUN_OPT_CPU_BIND,
	SRUN_OPT_GPU_BIND,
	SRUN_OPT_GPUS_PER_TASK,
	SRUN_OPT_NTASKS_PER_GPU,
	SRUN_OPT_PROPAGATE,
	SRUN_OPT_CPU_FREQ,
	SRUN_OPT_PTY,
	SRUN_OPT_QUIT_ON_INTERRUPT,
	SRUN_OPT_NO_SHELL,
};

#define S 1 /* srun */
#define A 2 /* salloc */
#define B 3 /* both */

/* Every long option of srun and salloc, with the programs that have it. */
static const struct {
	struct option opt;
	unsigned who;
} rows[] = {
    {{"account", required_argument, 0, 'A'}, B},
    {{"begin", required_argument, 0, 'b'}, B},
    {{"cpus-per-task", required_argument, 0, 'c'}, B},
    {{"comment", required_argument, 0, SBATCH_OPT_COMMENT}, B},
    /** <list> start only once the dependencies hold (as sbatch --dependency) */
    {{"dependency", required_argument, 0, 'd'}, B},
    {{"deadline", required_argument, 0, SBATCH_OPT_DEADLINE}, B},
    {{"chdir", required_argument, 0, 'D'}, B},
    {{"export", required_argument, 0, SBATCH_OPT_EXPORT}, S},
    {{"error", required_argument, 0, 'e'}, S},
    {{"output", required_argument, 0, 'o'}, S},
    {{"input", required_argument, 0, 'i'}, S},
    {{"preserve-env", no_argument, 0, 'E'}, S},
    {{"gres", required_argument, 0, SBATCH_OPT_GRES}, B},
    {{"hold", no_argument, 0, 'H'}, B},
    {{"immediate", optional_argument, 0, 'I'}, B},
    /** <id> run as a step of this existing job */
    {{"jobid", required_argument, 0, SRUN_OPT_JOBID}, S},
    {{"job-name", required_argument, 0, 'J'}, B},
    /** <[0|1]> end the step when any task exits non-zero */
    {{"kill-on-bad-exit", optional_argument, 0, 'K'}, S},
    {{"kill-command", optional_argument, 0, 'K'}, A},
    {{"label", no_argument, 0, 'l'}, S},
    /** <names> the cluster to run on; Drover serves one */
    {{"clusters", required_argument, 0, 'M'}, B},
    /** <names> the same as --clusters */
    {{"cluster", required_argument, 0, 'M'}, B},
    {{"distribution", required_argument, 0, 'm'}, B},
    {{"mpi", required_argument, 0, SRUN_OPT_MPI}, S},
    /** the program is a file naming the program and arguments of each task */
    {{"multi-prog", no_argument, 0, SRUN_OPT_MULTI_PROG}, S},
    /** <n> tasks to run */
    {{"ntasks", required_argument, 0, 'n'}, B},
    {{"nice", optional_argument, 0, SBATCH_OPT_NICE}, B},
    {{"ntasks-per-node", required_argument, 0, SBATCH_OPT_NTASKS_PER_NODE}, B},
    {{"nodes", required_argument, 0, 'N'}, B},
    {{"overcommit", no_argument, 0, 'O'}, B},
    {{"overlap", no_argument, 0, SRUN_OPT_OVERLAP}, S},
    {{"partition", required_argument, 0, 'p'}, B},
    /** <[rlimits]> pass these (default: all) resource limits of the shell to the tasks */
    {{"propagate", optional_argument, 0, SRUN_OPT_PROPAGATE}, S},
    {{"pty", no_argument, 0, SRUN_OPT_PTY}, S},
    /** end the step at the first Ctrl-C */
    {{"quit-on-interrupt", no_argument, 0, SRUN_OPT_QUIT_ON_INTERRUPT}, S},
    {{"qos", required_argument, 0, 'q'}, B},
    {{"quiet", no_argument, 0, 'Q'}, B},
    /** <[B:]sig[@secs]> send sig secs seconds (default 60) before the time limit */
    {{"signal", required_argument, 0, SBATCH_OPT_SIGNAL}, B},
    {{"time", required_argument, 0, 't'}, B},
    {{"time-min", required_argument, 0, SBATCH_OPT_TIME_MIN}, B},
    {{"unbuffered", no_argument, 0, 'u'}, S},
    {{"verbose", no_argument, 0, 'v'}, B},
    /** <secs> after the first task ends, end the others after secs seconds */
    {{"wait", required_argument, 0, 'W'}, S},
    {{"constraint", required_argument, 0, 'C'}, B},
    {{"mem", required_argument, 0, SBATCH_OPT_MEM}, B},
    {{"mincpus", required_argument, 0, SBATCH_OPT_MINCPUS}, B},
    {{"tmp", required_argument, 0, SBATCH_OPT_TMP}, B},
    {{"nodelist", required_argument, 0, 'w'}, B},
    /** <file> run on the nodes this file lists */
    {{"nodefile", required_argument, 0, 'F'}, B},
    {{"exclude", required_argument, 0, 'x'}, B},
    {{"exact", no_argument, 0, SRUN_OPT_EXACT}, S},
    {{"exclusive", optional_argument, 0, SBATCH_OPT_EXCLUSIVE}, B},
    {{"mem-per-cpu", required_argument, 0, SBATCH_OPT_MEM_PER_CPU}, B},
    {{"mem-per-gpu", required_argument, 0, SBATCH_OPT_MEM_PER_GPU}, B},
    {{"gpus", required_argument, 0, 'G'}, B},
    {{"gpu-bind", required_argument, 0, SRUN_OPT_GPU_BIND}, B},
    {{"gpus-per-node", required_argument, 0, SBATCH_OPT_GPUS_PER_NODE}, B},
    {{"gpus-per-task", required_argument, 0, SRUN_OPT_GPUS_PER_TASK}, B},
    /** <n> tasks for each GPU */
    {{"ntasks-per-gpu", required_argument, 0, SRUN_OPT_NTASKS_PER_GPU}, B},
    {{"cpu-bind", required_argument, 0, SRUN_OPT_CPU_BIND}, S},
    /** <type> the same as --cpu-bind */
    {{"cpu_bind", required_argument, 0, SRUN_OPT_CPU_BIND}, S},
    /** <freq> CPU frequency request (accepted; Drover sets none) */
    {{"cpu-freq", required_argument, 0, SRUN_OPT_CPU_FREQ}, B},
    {{"no-shell", no_argument, 0, SRUN_OPT_NO_SHELL}, A},
    {{"help", no_argument, 0, SBATCH_OPT_HELP}, B},
    {{"usage", no_argument, 0, SBATCH_OPT_USAGE}, B},
    {{"version", no_argument, 0, 'V'}, B},
    /* accepted and ignored */
    /** keep the allocation when one of its nodes fails */
    {{"no-kill", optional_argument, 0, 'k'}, B},
    /** <list> licenses the job needs, name[:count],... */
    {{"licenses", required_argument, 0, 'L'}, B},
    /** the job may share its resources with other jobs */
    {{"oversubscribe", no_argument, 0, 's'}, B},
    /** <n> cores kept for the system on each node */
    {{"core-spec", required_argument, 0, 'S'}, B},
    /** <n> threads srun uses to launch tasks */
    {{"threads", required_argument, 0, 'T'}, S},
    /** one Ctrl-C ends the step instead of printing its status */
    {{"disable-status", no_argument, 0, 'X'}, S},
    /** <S[:C[:T]]> sockets, cores and threads a node must have */
    {{"extra-node-info", required_argument, 0, 'B'}, B},
    {{"acctg-freq", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"bb", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"bbf", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"bell", no_argument, 0, SBATCH_OPT_IGNORE}, A},
    {{"no-bell", no_argument, 0, SBATCH_OPT_IGNORE}, A},
    {{"compress", optional_argument, 0, SBATCH_OPT_IGNORE}, S},
    {{"container", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"delay-boot", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"get-user-env", optional_argument, 0, SBATCH_OPT_IGNORE}, A},
    {{"gres-flags", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"mail-type", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"mail-user", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"mcs-label", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"power", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"priority", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"profile", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"reboot", no_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"send-libs", optional_argument, 0, SBATCH_OPT_IGNORE}, S},
    {{"slurmd-debug", required_argument, 0, SBATCH_OPT_IGNORE}, S},
    {{"spread-job", no_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"switches", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"thread-spec", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"use-min-nodes", no_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"wckey", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"cluster-constraint", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"contiguous", no_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"reservation", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"resv-ports", optional_argument, 0, SBATCH_OPT_IGNORE}, S},
    {{"sockets-per-node", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"cores-per-socket", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"threads-per-core", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"ntasks-per-core", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"ntasks-per-socket", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"cpus-per-gpu", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"gpu-freq", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"gpus-per-socket", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"hint", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"mem-bind", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"network", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    {{"accel-bind", required_argument, 0, SBATCH_OPT_IGNORE}, S},
    /** <append|truncate> how output and error files are opened */
    {{"open-mode", required_argument, 0, SBATCH_OPT_OPEN_MODE}, S},
    {{"wait-all-nodes", required_argument, 0, SBATCH_OPT_IGNORE}, A},
    {{"wait4switch", required_argument, 0, SBATCH_OPT_IGNORE}, B},
    /* refused: ignoring them would run something other than what was asked */
    /** <list> the components of a heterogeneous job to run on */
    {{"het-group", required_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <[dest]> copy the program to the nodes before running it */
    {{"bcast", optional_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <paths> libraries --bcast does not copy */
    {{"bcast-exclude", required_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <program> run after the step, on the submitting host */
    {{"epilog", required_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <program> run before the step, on the submitting host */
    {{"prolog", required_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <program> run after each task, on its node */
    {{"task-epilog", required_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <program> run before each task, on its node */
    {{"task-prolog", required_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <n> start the step on the n-th node of the allocation */
    {{"relative", required_argument, 0, 'r'}, S},
    /** run without an allocation (administrators only) */
    {{"no-allocate", no_argument, 0, 'Z'}, S},
    /** check the request and print when it would start, without running it */
    {{"test-only", no_argument, 0, SBATCH_OPT_REFUSE}, S},
    /** <[all|first|last]> forward X11 to the tasks */
    {{"x11", optional_argument, 0, SBATCH_OPT_REFUSE}, B},
    /** <user> refused: a job runs as the user who submits it */
    {{"uid", required_argument, 0, SBATCH_OPT_REFUSE}, A},
    /** <group> refused: a job runs with the group of its submitter */
    {{"gid", required_argument, 0, SBATCH_OPT_REFUSE}, A},
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/* Slurm 22.05's short options (src/srun/libsrun/opt.c, src/salloc/opt.c). */
#define SRUN_SHORT                                                                       \
	"+A:b:B:c:C:d:D:e:EF:G:hHi:I::J:k::K::lL:m:M:n:N:o:Op:q:Qr:sS:t:T:uvVw:W:x:XZ"
#define SALLOC_SHORT "+A:b:B:c:C:d:D:F:G:hHI::J:k::K::L:m:M:n:N:Op:q:QsS:t:vVw:x:"

static void fatal(const char *msg)
{
	fprintf(stderr, "%s: fatal: %s\n", cli_prog(), msg);
}

/* Slurm's parse_int(): a whole number >= 0 (> 0 when positive). */
static int number(const char *name, const char *arg, bool positive, int64_t *out)
{
	if (cli_parse_int(arg, positive ? 1 : 0, INT32_MAX, out) < 0) {
		cli_error("Invalid numeric value \"%s\" for %s.", arg, name);
		return -EINVAL;
	}
	return 0;
}

/* Options whose value is checked now: -W, -K, -I, --jobid and salloc's -K. */
static int store_number(struct srun_opts *o, int c, const char *arg, bool salloc)
{
	int64_t v = 1;

	switch (c) {
	case 'W':
		if (number("--wait", arg, false, &v) < 0)
			return -EINVAL;
		o->wait_secs = (int)v;
		return 0;
	case 'K':
		if (salloc) {
			o->kill_command = arg ? arg : "TERM";
			return 0;
		}
		if (arg && number("--kill-on-bad-exit", arg, false, &v) < 0)
			return -EINVAL;
		o->kill_on_bad_exit = v != 0;
		return 0;
	case 'I':
		if (arg && number("immediate", arg, false, &v) < 0)
			return -EINVAL;
		o->immediate = (int)v;
		return 0;
	case SRUN_OPT_JOBID:
		if (number("--jobid", arg, true, &v) < 0)
			return -EINVAL;
		o->jobid = v;
		return 0;
	default:
		return 1;
	}
}

/* Stores srun's own flags and strings; 1 when c is none of them. */
static int store_step(struct srun_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case 'e':
		o->error = arg;
		break;
	case 'i':
		o->input = arg;
		break;
	case 'l':
		o->label = true;
		break;
	case 'u':
		o->unbuffered = true;
		break;
	case 'E':
		o->preserve_env = true;
		break;
	case 'm':
		o->distribution = arg;
		break;
	case 'O':
		o->overcommit = true;
		break;
	case 'Q':
		o->quiet = true;
		break;
	case 'v':
		o->verbose++;
		break;
	case SRUN_OPT_MPI:
		o->mpi = arg;
		break;
	case SRUN_OPT_MULTI_PROG:
		o->multi_prog = true;
		break;
	case SRUN_OPT_EXACT:
		o->exact = true;
		break;
	case SRUN_OPT_OVERLAP:
		o->overlap = true;
		break;
	case SRUN_OPT_CPU_BIND:
		o->cpu_bind = arg;
		break;
	case SRUN_OPT_GPU_BIND:
		o->gpu_bind = arg;
		break;
	case SRUN_OPT_GPUS_PER_TASK:
		o->gpus_per_task = arg;
		break;
	case SRUN_OPT_PROPAGATE:
		o->propagate = arg ? arg : "ALL";
		break;
	case SRUN_OPT_CPU_FREQ:
		o->cpu_freq = arg;
		break;
	case SRUN_OPT_PTY:
		o->pty = true;
		break;
	case SRUN_OPT_QUIT_ON_INTERRUPT:
		o->quit_on_interrupt = true;
		break;
	case SRUN_OPT_NO_SHELL:
		o->no_shell = true;
		break;
	default:
		return 1;
	}
	return 0;
}

/* One memory option on the command line overrides the others, wherever
 * they came from (SLURM_MEM_PER_CPU inside a job, say). */
static void store_mem(struct sbatch_opts *j, int c)
{
	if (c != SBATCH_OPT_MEM)
		j->mem = NULL;
	if (c != SBATCH_OPT_MEM_PER_CPU)
		j->mem_per_cpu = NULL;
	if (c != SBATCH_OPT_MEM_PER_GPU)
		j->mem_per_gpu = NULL;
}

static int store(struct srun_opts *o, int c, const char *arg, bool salloc)
{
	int rc = store_number(o, c, arg, salloc);

	if (rc <= 0)
		return rc;
	if (c == SRUN_OPT_NTASKS_PER_GPU) {
		int64_t v;
		if (number("--ntasks-per-gpu", arg, true, &v) < 0)
			return -EINVAL;
		o->ntasks_per_gpu = v;
		return 0;
	}
	if (store_step(o, c, arg) == 0)
		return 0;
	if (c == SBATCH_OPT_MEM || c == SBATCH_OPT_MEM_PER_CPU ||
	    c == SBATCH_OPT_MEM_PER_GPU)
		store_mem(&o->job, c);
	sbatch_opts_store(&o->job, c, arg); /* anything else is ignored */
	return 0;
}

static const char *refused_name(int c, const struct option *opts, int idx)
{
	if (c == 'r')
		return "relative";
	if (c == 'Z')
		return "no-allocate";
	return opts[idx].name;
}

/* One ":"-level of -m after the node level. */
static bool dist_level_ok(const char *s, size_t len)
{
	static const char *const words[] = {"block", "cyclic", "fcyclic", "*"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == len && !strncasecmp(s, words[i], len))
			return true;
	return false;
}

static int dist_node_level(const char *s, size_t len, enum drv_dist *dist,
			   uint32_t *plane)
{
	*plane = 0;
	if ((len == 5 && !strncasecmp(s, "block", 5)) || (len == 1 && *s == '*'))
		*dist = DIST_BLOCK;
	else if (len == 6 && !strncasecmp(s, "cyclic", 6))
		*dist = DIST_CYCLIC;
	else if (len == 9 && !strncasecmp(s, "arbitrary", 9))
		*dist = DIST_ARBITRARY;
	else if (len > 6 && !strncasecmp(s, "plane=", 6)) {
		char buf[16];
		int64_t v;
		if (len - 6 >= sizeof(buf))
			return -ERANGE;
		memcpy(buf, s + 6, len - 6);
		buf[len - 6] = '\0';
		if (cli_parse_int(buf, 1, INT32_MAX, &v) < 0)
			return -ERANGE;
		*dist = DIST_PLANE;
		*plane = (uint32_t)v;
	} else if (len >= 5 && !strncasecmp(s, "plane", 5))
		return -ERANGE;
	else
		return -EINVAL;
	return 0;
}

/* -ERANGE: a plane without a good size (Slurm says so first). */
static int dist_parse(const char *s, enum drv_dist *dist, uint32_t *plane)
{
	const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);
	const char *p = s, *colon;
	int levels = 0, rc;

	if (!strncasecmp(s, "plane", 5)) /* Slurm reads the rest as the size */
		return dist_node_level(s, strlen(s), dist, plane);
	if (comma && strcasecmp(comma + 1, "Pack") && strcasecmp(comma + 1, "NoPack"))
		return -EINVAL;
	colon = memchr(s, ':', (size_t)(end - s));
	rc = dist_node_level(s, (size_t)((colon ? colon : end) - s), dist, plane);
	if (rc < 0)
		return rc;
	for (p = colon; p && p < end; p = colon) {
		const char *w = p + 1;
		colon = memchr(w, ':', (size_t)(end - w));
		if (++levels > 2 ||
		    !dist_level_ok(w, (size_t)((colon ? colon : end) - w)))
			return -EINVAL;
	}
	return 0;
}

int srun_dist_parse(const char *s, enum drv_dist *dist, uint32_t *plane)
{
	enum drv_dist d;
	uint32_t pl;

	if (!s || dist_parse(s, &d, &pl) < 0)
		return -EINVAL;
	*dist = d;
	*plane = pl;
	return 0;
}

/* Slurm's _isvalue(): where a comma starts a list value, not a keyword. */
static bool is_value(const char *s)
{
	if (isdigit((unsigned char)*s))
		return true;
	while (isxdigit((unsigned char)*s))
		s++;
	return *s == ',' || *s == '\0';
}

/* A map_/mask_ list item: a number (hex with 0x), optionally "*count".
 * Returns the offending character, or 0 when the item is good. */
static char bind_item_bad(const char *s, size_t len)
{
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i == len)
		return len ? s[len - 1] : ' ';
	for (; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != '*')
			return s[i];
	return 0;
}

/* Checks the list at s up to the first comma before a keyword; *end is
 * where it stops. Prints Slurm's message for a bad item. */
static int bind_list(const char *s, const char **end, bool cpu)
{
	const char *p = s;

	for (;;) {
		size_t len = strcspn(p, ",");
		char bad = bind_item_bad(p, len);
		if (bad) {
			if (cpu)
				cli_error(
				    "Failed to validate number: %.*s, the offending "
				    "character is %c",
				    (int)len, p, bad);
			else
				cli_error(
				    "Failed to validate %.*s, offending character is %c",
				    (int)len, p, bad);
			return -EINVAL;
		}
		p += len;
		if (*p != ',' || !is_value(p + 1))
			break;
		p++;
	}
	*end = p;
	return 0;
}

/* One --cpu-bind keyword; *list set when it takes a list. */
static int cpu_bind_token(const char *t, size_t len, const char **list)
{
	static const char *const words[] = {
	    "q",	 "quiet",   "v",     "verbose", "no",	 "none",  "rank",
	    "rank_ldom", "sockets", "cores", "threads", "ldoms", "boards"};
	static const char *const lists[] = {"map_cpu", "mask_cpu", "map_ldom",
					    "mask_ldom"};

	*list = NULL;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == len && !strncasecmp(t, words[i], len))
			return 0;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		size_t k = strlen(lists[i]);
		if (!strncasecmp(t, lists[i], k) && (len == k || t[k] == ':')) {
			*list = lists[i];
			return 0;
		}
	}
	return -EINVAL;
}

static int cpu_bind_check(const char *s)
{
	const char *p = s;

	while (*p) {
		const char *list, *end = p + strcspn(p, ",:");
		if (cpu_bind_token(p, (size_t)(end - p), &list) < 0) {
			cli_error("unrecognized --cpu-bind argument \"%.*s\"",
				  (int)strcspn(p, ","), p);
			goto bad;
		}
		if (list) {
			if (*end != ':' || !end[1]) {
				cli_error("missing list for \"--cpu-bind=%s:<list>\"",
					  list);
				goto bad;
			}
			if (bind_list(end + 1, &end, true) < 0)
				goto bad;
		} else if (*end == ':') {
			cli_error("unrecognized --cpu-bind argument \"%.*s\"",
				  (int)strcspn(p, ","), p);
			goto bad;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
bad:
	fatal("Failed to parse --cpu-bind= values.");
	return -EINVAL;
}

static bool positive_after(const char *s, const char *prefix)
{
	int64_t v;
	size_t k = strlen(prefix);

	return !strncasecmp(s, prefix, k) && cli_parse_int(s + k, 1, INT32_MAX, &v) == 0;
}

/* map_gpu:/mask_gpu: with a good list; -1 when t is neither. */
static int gpu_list(const char *t)
{
	const char *end;
	size_t k = !strncasecmp(t, "map_gpu:", 8)    ? 8
		   : !strncasecmp(t, "mask_gpu:", 9) ? 9
						     : 0;

	if (!k)
		return -1;
	return t[k] && bind_list(t + k, &end, false) == 0 && !*end ? 0 : 1;
}

static int gpu_bind_check(const char *s)
{
	const char *t = s;
	int list;

	if (!strncasecmp(t, "verbose,", 8))
		t += 8;
	list = gpu_list(t);
	if (list == 0 ||
	    (list < 0 &&
	     (!strcasecmp(t, "closest") || !strcasecmp(t, "none") ||
	      positive_after(t, "per_task:") || positive_after(t, "single:"))))
		return 0;
	cli_error("Invalid --gpu-bind argument: gpu:%s", s);
	return -EDOM;
}

/* --propagate's names (Slurm's rlimits table), with or without RLIMIT_. */
static int propagate_check(const char *s)
{
	static const char *const names[] = {"ALL",    "NONE",  "AS",	"CORE",
					    "CPU",    "DATA",  "FSIZE", "MEMLOCK",
					    "NOFILE", "NPROC", "RSS",	"STACK"};
	char buf[256], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const char *n = strncmp(t, "RLIMIT_", 7) ? t : t + 7;
		size_t i = 0;
		while (i < sizeof(names) / sizeof(names[0]) && strcmp(n, names[i]))
			i++;
		if (i == sizeof(names) / sizeof(names[0])) {
			cli_error("Bad rlimit name: %s", t);
			goto bad;
		}
	}
	return 0;
bad:
	cli_error("--propagate=%s is not valid.", s);
	return -EINVAL;
}

static void input_mode(struct srun_opts *o)
{
	int64_t v;

	if (!o->input && o->pty) { /* Slurm: --pty's stdin is task 0's */
		o->input_mode = SRUN_IN_TASK;
		o->input_task = 0;
	} else if (!o->input || !strcasecmp(o->input, "all"))
		o->input_mode = SRUN_IN_ALL;
	else if (!strcasecmp(o->input, "none"))
		o->input_mode = SRUN_IN_NONE;
	else if (cli_parse_int(o->input, 0, INT32_MAX, &v) == 0) {
		o->input_mode = SRUN_IN_TASK;
		o->input_task = (int)v;
	} else
		o->input_mode = SRUN_IN_FILE;
}

/* The checks that apply whatever set the value (an option or a variable). */
static int check(struct srun_opts *o)
{
	int rc;

	if (o->distribution) {
		rc = dist_parse(o->distribution, &o->dist, &o->plane_size);
		if (rc == -ERANGE)
			cli_error("Invalid plane size or size not specified");
		if (rc < 0) {
			cli_error("Invalid --distribution specification");
			return -EDOM;
		}
	}
	if (o->cpu_bind && cpu_bind_check(o->cpu_bind) < 0)
		return -EINVAL;
	if (o->gpu_bind && gpu_bind_check(o->gpu_bind) < 0)
		return -EDOM;
	if (o->propagate && propagate_check(o->propagate) < 0)
		return -EINVAL;
	if (o->gpus_per_task) {
		char type[64];
		if (sbatch_gpus_parse(o->gpus_per_task, &o->gpus_per_task_n, type,
				      sizeof(type)) < 0 ||
		    o->gpus_per_task_n < 1) {
			cli_error("Invalid --gpus-per-task specification");
			return -EINVAL;
		}
	}
	input_mode(o);
	return 0;
}

int srun_opts_parse(int argc, char **argv, struct srun_opts *o, int *cmd_idx, bool salloc)
{
	struct option opts[N_ROWS + 1];
	size_t n = 0;
	int c, idx = 0, rc;

	for (size_t i = 0; i < N_ROWS; i++)
		if (rows[i].who & (salloc ? A : S))
			opts[n++] = rows[i].opt;
	memset(&opts[n], 0, sizeof(opts[n]));
	optind = 0; /* glibc: start over, also for a second vector */
	while ((c = getopt_long(argc, argv, salloc ? SALLOC_SHORT : SRUN_SHORT, opts,
				&idx)) != -1) {
		if (c == '?') {
			cli_try_help();
			return -EDOM;
		}
		if (c == SBATCH_OPT_REFUSE || c == 'r' || c == 'Z') {
			cli_error("--%s is not supported by Drover yet",
				  refused_name(c, opts, idx));
			return -EINVAL;
		}
		rc = store(o, c, optarg, salloc);
		if (rc < 0)
			return rc;
	}
	if (cmd_idx)
		*cmd_idx = optind;
	return check(o);
}

void srun_opts_init(struct srun_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->input_task = -1;
	o->kill_on_bad_exit = -1;
	o->wait_secs = -1;
	o->gpus_per_task_n = -1;
	o->ntasks_per_gpu = -1;
	o->immediate = -1;
}

/* How an input variable sets its field. */
enum env_kind { ENV_STR, ENV_FLAG, ENV_INT, ENV_EXCLUSIVE };

#define J(f) offsetof(struct srun_opts, job.f)
#define O(f) offsetof(struct srun_opts, f)

/* srun(1) and salloc(1) "INPUT ENVIRONMENT VARIABLES" for the options
 * Drover reads. SLURM_NTASKS, SLURM_NNODES and SLURM_NTASKS_PER_NODE are
 * left out on purpose (see srun_opts.h). */
static const struct {
	const char *var;
	enum env_kind kind;
	size_t off;
	unsigned who;
} env_vars[] = {
    {"SLURM_ACCOUNT", ENV_STR, J(account), S},
    {"SLURM_CLUSTERS", ENV_STR, J(clusters), B},
    {"SLURM_CONSTRAINT", ENV_STR, J(constraint), S},
    {"SLURM_CPU_BIND", ENV_STR, O(cpu_bind), S},
    {"SLURM_CPU_FREQ_REQ", ENV_STR, O(cpu_freq), S},
    {"SLURM_DEPENDENCY", ENV_STR, J(dependency), S},
    {"SLURM_DISTRIBUTION", ENV_STR, O(distribution), S},
    {"SLURM_EXACT", ENV_FLAG, O(exact), S},
    {"SLURM_EXCLUSIVE", ENV_EXCLUSIVE, J(exclusive), S},
    {"SLURM_EXPORT_ENV", ENV_STR, J(export_spec), S},
    {"SLURM_GPU_BIND", ENV_STR, O(gpu_bind), S},
    {"SLURM_GPUS", ENV_STR, J(gpus), S},
    {"SLURM_GPUS_PER_NODE", ENV_STR, J(gpus_per_node), S},
    {"SLURM_GPUS_PER_TASK", ENV_STR, O(gpus_per_task), S},
    {"SLURM_STEP_GRES", ENV_STR, J(gres), S},
    {"SLURM_IMMEDIATE", ENV_INT, O(immediate), S},
    {"SLURM_JOB_NAME", ENV_STR, J(job_name), S},
    {"SLURM_KILL_BAD_EXIT", ENV_INT, O(kill_on_bad_exit), S},
    {"SLURM_LABELIO", ENV_FLAG, O(label), S},
    {"SLURM_MEM_PER_CPU", ENV_STR, J(mem_per_cpu), S},
    {"SLURM_MEM_PER_GPU", ENV_STR, J(mem_per_gpu), S},
    {"SLURM_MEM_PER_NODE", ENV_STR, J(mem), S},
    {"SLURM_MPI_TYPE", ENV_STR, O(mpi), S},
    {"SLURM_NTASKS_PER_GPU", ENV_INT, O(ntasks_per_gpu), S},
    {"SLURM_OPEN_MODE", ENV_STR, J(open_mode), S},
    {"SLURM_OVERCOMMIT", ENV_FLAG, O(overcommit), S},
    {"SLURM_OVERLAP", ENV_FLAG, O(overlap), S},
    {"SLURM_PARTITION", ENV_STR, J(partition), S},
    {"SLURM_QOS", ENV_STR, J(qos), S},
    {"SLURM_SIGNAL", ENV_STR, J(signal), S},
    {"SLURM_STDERRMODE", ENV_STR, O(error), S},
    {"SLURM_STDINMODE", ENV_STR, O(input), S},
    {"SLURM_STDOUTMODE", ENV_STR, O(output), S},
    {"SLURM_TIMELIMIT", ENV_STR, J(time), S},
    {"SLURM_UNBUFFEREDIO", ENV_FLAG, O(unbuffered), S},
    {"SLURM_WAIT", ENV_INT, O(wait_secs), S},
    {"SLURM_WORKING_DIR", ENV_STR, J(chdir), S},
    {"SALLOC_ACCOUNT", ENV_STR, J(account), A},
    {"SALLOC_CLUSTERS", ENV_STR, J(clusters), A},
    {"SALLOC_CONSTRAINT", ENV_STR, J(constraint), A},
    {"SALLOC_CPU_FREQ_REQ", ENV_STR, O(cpu_freq), A},
    {"SALLOC_EXCLUSIVE", ENV_EXCLUSIVE, J(exclusive), A},
    {"SALLOC_GPU_BIND", ENV_STR, O(gpu_bind), A},
    {"SALLOC_GPUS", ENV_STR, J(gpus), A},
    {"SALLOC_GPUS_PER_NODE", ENV_STR, J(gpus_per_node), A},
    {"SALLOC_GPUS_PER_TASK", ENV_STR, O(gpus_per_task), A},
    {"SALLOC_GRES", ENV_STR, J(gres), A},
    {"SALLOC_IMMEDIATE", ENV_INT, O(immediate), A},
    {"SALLOC_KILL_CMD", ENV_STR, O(kill_command), A},
    {"SALLOC_MEM_PER_CPU", ENV_STR, J(mem_per_cpu), A},
    {"SALLOC_MEM_PER_GPU", ENV_STR, J(mem_per_gpu), A},
    {"SALLOC_MEM_PER_NODE", ENV_STR, J(mem), A},
    {"SALLOC_OVERCOMMIT", ENV_FLAG, O(overcommit), A},
    {"SALLOC_PARTITION", ENV_STR, J(partition), A},
    {"SALLOC_QOS", ENV_STR, J(qos), A},
    {"SALLOC_SIGNAL", ENV_STR, J(signal), A},
    {"SALLOC_TIMELIMIT", ENV_STR, J(time), A},
};

static void env_int(int64_t *wide, int *narrow, const char *v)
{
	int64_t n;

	if (cli_parse_int(v, 0, INT32_MAX, &n) < 0)
		return;
	if (wide)
		*wide = n;
	else
		*narrow = (int)n;
}

void srun_opts_from_env(struct srun_opts *o, bool salloc)
{
	for (size_t i = 0; i < sizeof(env_vars) / sizeof(env_vars[0]); i++) {
		const char *v = getenv(env_vars[i].var);
		void *field = (char *)o + env_vars[i].off;

		if (!v || !(env_vars[i].who & (salloc ? A : S)))
			continue;
		if (env_vars[i].kind == ENV_FLAG)
			*(bool *)field = sbatch_env_flag_on(v);
		else if (env_vars[i].kind == ENV_EXCLUSIVE)
			*(const char **)field = *v ? v : "exclusive";
		else if (env_vars[i].kind == ENV_INT)
			env_int(env_vars[i].off == O(ntasks_per_gpu) ? field : NULL,
				field, v);
		else if (*v)
			*(const char **)field = v;
	}
	if (o->kill_on_bad_exit > 1)
		o->kill_on_bad_exit = 1;
	if (!salloc) {
		const char *id = getenv("SLURM_JOB_ID");
		if (!id || !*id)
			id = getenv("SLURM_JOBID");
		if (id && *id)
			o->env_jobid = id;
	}
}
