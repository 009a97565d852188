/* sattach.c — attaches to a running step's I/O: sattach JOBID.STEP.
 *
 * ctld says where the step's I/O is joined (step.attach: srun's port and a
 * key only the job's owner gets); sattach dials it, proves itself with
 * ATTACH (common/stepio.h) and then prints the tasks' output as srun does
 * (a line at a time per task, "N: " first under -l), sends its stdin to
 * the tasks, and ends when every task has: with the highest exit code,
 * each non-zero one named as Slurm's sattach names it. Options, messages
 * and exit codes are Slurm 22.05's. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/common.h"
#include "common/client.h"
#include "common/fileio.h"
#include "common/hostlist.h"
#include "common/proto.h"
#include "common/proto_gen.h"
#include "common/stepio.h"

struct sattach_opts {
	int64_t in_filter, out_filter, err_filter; /* -1: every task */
	bool label, layout, quiet;
	int verbose;
	uint32_t job_id, step_id;
};

struct linebuf {
	char *buf;
	size_t len, cap;
};

struct sattach {
	struct sattach_opts o;
	struct drv_step_attach_reply step;
	int sock;
	uint32_t ntasks, n_exited;
	bool *exited;
	int *status; /* each task's wait status, once exited */
	int code;
	struct linebuf *out, *err; /* per task */
};

enum { OPT_IN = 0x100, OPT_OUT, OPT_ERR, OPT_LAYOUT };

static const struct option long_opts[] = {
    {"input-filter", required_argument, 0, OPT_IN},
    {"output-filter", required_argument, 0, OPT_OUT},
    {"error-filter", required_argument, 0, OPT_ERR},
    {"label", no_argument, 0, 'l'},
    {"layout", no_argument, 0, OPT_LAYOUT},
    {"quiet", no_argument, 0, 'Q'},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {"help", no_argument, 0, 'h'},
    {"usage", no_argument, 0, 'u'},
    {0, 0, 0, 0},
};

static void usage(void)
{
	printf("Usage: sattach [options] <jobid.stepid>\n");
}

static void help(void)
{
	usage();
	printf("      --input-filter=taskid  send stdin to only the specified task\n"
	       "      --output-filter=taskid only print stdout from the specified task\n"
	       "      --error-filter=taskid  only print stderr from the specified task\n"
	       "  -l, --label        prepend task number to lines of stdout & stderr\n"
	       "      --layout       print task layout info and exit (does not attach "
	       "to tasks)\n"
	       "  -Q, --quiet        quiet mode (suppress informational messages)\n"
	       "  -v, --verbose      verbose mode (multiple -v's increase verbosity)\n"
	       "  -V, --version      print the Slurm version and exit\n"
	       "\n"
	       "Help options:\n"
	       "  -h, --help         print this help message\n"
	       "  -u, --usage        print a brief usage message\n");
}

/* A task id for a filter, as Slurm's sattach checks it. */
static int filter_arg(const char *arg, const char *name, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (end == arg || *end || v < 0) {
		cli_error("Invalid numeric value \"%s\" for %s.", arg, name);
		return -1;
	}
	if (errno == ERANGE || v > INT32_MAX) {
		cli_error("Numeric argument %s to big for %s.", arg, name);
		return -1;
	}
	*out = v;
	return 0;
}

/* JOBID.STEP; Slurm reads the step as a number (or batch or extern, which
 * name no srun step here) and ignores what follows it. */
static int parse_step(const char *arg, struct sattach_opts *o)
{
	char *end;
	unsigned long long j = strtoull(arg, &end, 10);
	if (end == arg || *end != '.' || !j || j > UINT32_MAX)
		return -1;
	const char *s = end + 1;
	if (!strncmp(s, "batch", 5) || !strncmp(s, "extern", 6)) {
		o->job_id = (uint32_t)j;
		o->step_id = UINT32_MAX;
		return 0;
	}
	unsigned long long st = strtoull(s, &end, 10);
	if (end == s || st > INT32_MAX)
		return -1;
	o->job_id = (uint32_t)j;
	o->step_id = (uint32_t)st;
	return 0;
}

/* 1: exit 0 now (help, usage, version); <0: exit 1. */
static int parse_opts(int argc, char **argv, struct sattach_opts *o)
{
	int c;
	*o = (struct sattach_opts){.in_filter = -1, .out_filter = -1, .err_filter = -1};
	bool err_given = false;
	while ((c = getopt_long(argc, argv, "+lQvVhu", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_IN:
			if (filter_arg(optarg, "input-filter", &o->in_filter) < 0)
				return -1;
			break;
		case OPT_OUT:
			if (filter_arg(optarg, "output-filter", &o->out_filter) < 0)
				return -1;
			break;
		case OPT_ERR:
			if (filter_arg(optarg, "error-filter", &o->err_filter) < 0)
				return -1;
			err_given = true;
			break;
		case 'l':
			o->label = true;
			break;
		case OPT_LAYOUT:
			o->layout = true;
			break;
		case 'Q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			cli_print_version();
			return 1;
		case 'h':
			help();
			return 1;
		case 'u':
			usage();
			return 1;
		default:
			cli_try_help();
			return -1;
		}
	}
	/* Slurm: an output filter without an error filter filters both */
	if (!err_given)
		o->err_filter = o->out_filter;
	if (argc - optind != 1) {
		cli_error("too many parameters");
		usage();
		return -1;
	}
	if (parse_step(argv[optind], o) < 0) {
		cli_error("Failed to parse stepid from command line options");
		usage();
		return -1;
	}
	return 0;
}

/* --- the step's output ---------------------------------------------------- */

static void emit(const struct sattach *a, uint32_t task, int fd, const char *p, size_t n)
{
	if (a->o.label) {
		int w = 1;
		for (uint32_t v = a->ntasks ? a->ntasks - 1 : 0; v >= 10; v /= 10)
			w++;
		char lab[32];
		int l = snprintf(lab, sizeof(lab), "%*u: ", w, task);
		(void)drv_write_all(fd, lab, (size_t)l);
	}
	(void)drv_write_all(fd, p, n);
}

/* Appends p to task's buffer and writes its whole lines (all at the end). */
static void output(struct sattach *a, uint32_t task, bool err, const char *p, size_t n)
{
	int64_t filter = err ? a->o.err_filter : a->o.out_filter;
	if (task >= a->ntasks || (filter >= 0 && filter != (int64_t)task))
		return;
	struct linebuf *b = err ? &a->err[task] : &a->out[task];
	int fd = err ? STDERR_FILENO : STDOUT_FILENO;
	if (n && b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2;
		char *g = realloc(b->buf, cap);
		if (!g)
			return;
		b->buf = g;
		b->cap = cap;
	}
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
	size_t start = 0;
	for (size_t i = 0; i < b->len; i++)
		if (b->buf[i] == '\n') {
			emit(a, task, fd, b->buf + start, i + 1 - start);
			start = i + 1;
		}
	if (n == 0 && start < b->len) { /* the stream ended mid-line */
		emit(a, task, fd, b->buf + start, b->len - start);
		if (a->o.label)
			(void)drv_write_all(fd, "\n", 1);
		start = b->len;
	}
	memmove(b->buf, b->buf + start, b->len - start);
	b->len -= start;
}

static void task_exit(struct sattach *a, uint32_t task, const uint8_t *b)
{
	if (task >= a->ntasks || a->exited[task])
		return;
	int status = (int)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			   (uint32_t)b[2] << 8 | b[3]) &
		     ~(int)STEPIO_EXIT_OOM;
	a->exited[task] = true;
	a->status[task] = status;
	a->n_exited++;
	output(a, task, false, NULL, 0);
	output(a, task, true, NULL, 0);
}

/* Every task's end, in task order, as Slurm 22.05's sattach reports them:
 * a non-zero exit is an error and the highest is ours; a task killed by a
 * signal is only told under -v and leaves our exit code alone (the peer
 * exits 0 then). */
static void report_exits(struct sattach *a)
{
	for (uint32_t t = 0; t < a->ntasks; t++) {
		int s = a->status[t];
		if (!a->exited[t])
			continue;
		if (WIFEXITED(s) && WEXITSTATUS(s)) {
			cli_error("task %u exited with exit code %d", t, WEXITSTATUS(s));
			if (WEXITSTATUS(s) > a->code)
				a->code = WEXITSTATUS(s);
		} else if (WIFSIGNALED(s) && a->o.verbose) {
			fprintf(stderr, "sattach: task %u killed by signal %d\n", t,
				WTERMSIG(s));
		}
	}
}

/* One frame from srun; false when the connection ended. */
static bool from_srun(struct sattach *a)
{
	uint8_t hdr[STEPIO_HDR_LEN];
	struct stepio_hdr h;
	if (stepio_read_full(a->sock, hdr, sizeof(hdr)) < 0 ||
	    stepio_hdr_unpack(hdr, &h) < 0)
		return false;
	char *p = malloc(h.len ? h.len : 1);
	if (!p || stepio_read_full(a->sock, p, h.len) < 0) {
		free(p);
		return false;
	}
	if (h.type == STEPIO_STDOUT || h.type == STEPIO_STDERR)
		output(a, h.task, h.type == STEPIO_STDERR, p, h.len);
	else if (h.type == STEPIO_EXIT && h.len == 4)
		task_exit(a, h.task, (const uint8_t *)p);
	free(p);
	return true;
}

/* Our stdin to the tasks (--input-filter's, else each); false at its end. */
static bool from_stdin(struct sattach *a)
{
	char buf[65536];
	ssize_t n;
	do
		n = read(STDIN_FILENO, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	uint32_t to = a->o.in_filter >= 0 ? (uint32_t)a->o.in_filter : STEPIO_ALL_TASKS;
	stepio_send(a->sock, STEPIO_STDIN, to, buf, n > 0 ? (uint32_t)n : 0);
	return n > 0;
}

static void pump(struct sattach *a)
{
	/* Slurm's sattach says this of a task it does not have, and goes on
	 * without sending its stdin anywhere */
	bool stdin_open = a->o.in_filter < (int64_t)a->ntasks;
	if (!stdin_open)
		cli_error("A valid node id must be specified for SLURM_IO_STDIN");
	while (a->n_exited < a->ntasks) {
		struct pollfd pfd[2] = {
		    {.fd = a->sock, .events = POLLIN},
		    {.fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN}};
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents && !from_srun(a))
			break;
		if (pfd[1].revents)
			stdin_open = from_stdin(a);
	}
	for (uint32_t t = 0; t < a->ntasks; t++) {
		output(a, t, false, NULL, 0);
		output(a, t, true, NULL, 0);
	}
}

/* --- ctld and srun ---------------------------------------------------------- */

/* step.attach; 0, or 1 after Slurm's message. */
static int ask_ctld(const struct drv_conf *conf, struct sattach *a, json_t **reply)
{
	struct drv_error err = {{0}};
	int rc = DRV_RC_INVALID_JOB_ID; /* ID.batch, ID.extern: no srun step */
	if (a->o.step_id != UINT32_MAX) {
		struct drv_step_attach q = {.job_id = a->o.job_id,
					    .step_id = a->o.step_id};
		rc = cli_call(conf, "step.attach", drv_step_attach_encode(&q), reply,
			      &err);
		if (rc == 0 && drv_step_attach_reply_decode(*reply, &a->step, &err) < 0)
			rc = -EBADMSG;
	}
	if (rc == 0)
		return 0;
	cli_error("Could not get job step info: %s", rc > 0 && !err.text[0]
							 ? drv_rc_text(rc)
						     : err.text[0] ? err.text
								   : drv_rc_text(rc));
	return 1;
}

/* --layout: the step's tasks per node, in Slurm's words. */
static void print_layout(const struct drv_step_attach_reply *s)
{
	char *list = drv_hostlist_compress((char *const *)s->node_names, s->n_node_names);
	printf("Job step layout:\n\t%u tasks, %zu nodes (%s)\n\n", s->ntasks,
	       s->n_node_names, list ? list : "");
	free(list);
	for (size_t k = 0; k < s->n_node_names; k++) {
		json_t *ids = json_array_get(s->node_task_ids, k);
		printf("\tNode %zu (%s), %zu task(s): ", k, s->node_names[k],
		       json_array_size(ids));
		for (size_t i = 0; i < json_array_size(ids); i++)
			printf("%lld ",
			       (long long)json_integer_value(json_array_get(ids, i)));
		printf("\n");
	}
}

static int attach_and_pump(struct sattach *a)
{
	a->sock = drv_tcp_dial(a->step.io_host, a->step.io_port);
	if (a->sock < 0 || stepio_send(a->sock, STEPIO_ATTACH, 0, a->step.attach_key,
				       (uint32_t)strlen(a->step.attach_key)) < 0) {
		cli_error("Could not attach to StepId=%u.%u at %s:%u: %s", a->o.job_id,
			  a->o.step_id, a->step.io_host, a->step.io_port,
			  strerror(a->sock < 0 ? -a->sock : errno));
		return 1;
	}
	a->ntasks = a->step.ntasks;
	a->exited = calloc(a->ntasks, sizeof(*a->exited));
	a->status = calloc(a->ntasks, sizeof(*a->status));
	a->out = calloc(a->ntasks, sizeof(*a->out));
	a->err = calloc(a->ntasks, sizeof(*a->err));
	if (!a->exited || !a->status || !a->out || !a->err)
		return 1;
	pump(a);
	for (uint32_t t = 0; t < a->ntasks; t++) {
		free(a->out[t].buf);
		free(a->err[t].buf);
	}
	close(a->sock);
	if (!a->n_exited) { /* srun let go of the step before we were in */
		cli_error("Could not get job step info: %s",
			  drv_rc_text(DRV_RC_ALREADY_DONE));
		return 1;
	}
	report_exits(a);
	return a->code;
}

int main(int argc, char **argv)
{
	cli_init("sattach");
	signal(SIGPIPE, SIG_IGN);
	struct sattach a = {.sock = -1};
	int rc = parse_opts(argc, argv, &a.o);
	if (rc)
		return rc > 0 ? 0 : 1;
	struct drv_conf *conf = NULL;
	if (cli_conf_load(&conf) < 0)
		return 1;
	json_t *reply = NULL;
	rc = ask_ctld(conf, &a, &reply);
	drv_conf_free(conf);
	if (!rc && a.o.layout)
		print_layout(&a.step);
	else if (!rc)
		rc = attach_and_pump(&a);
	if (reply)
		drv_step_attach_reply_free(&a.step);
	json_decref(reply);
	free(a.exited);
	free(a.status);
	free(a.out);
	free(a.err);
	return rc;
}
