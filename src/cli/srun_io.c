/* srun_io.c — the I/O of one step, seen from srun (srun_io.h).
 *
 * One poll loop: the listening socket (a shepherd per node dials in and
 * proves itself with the step's key), the shepherds' frames, srun's stdin
 * and a signalfd. Output is written a line at a time per task (as Slurm's
 * srun does unless -u), with "N: " first under -l; exits are printed the
 * way Slurm's srun prints them, consecutive tasks of one node with the same
 * end in one line ("srun: error: n1: tasks 0-1: Exited with exit code 3").
 *
 * sattach joins at the same port (stepio.h): an attached connection gets
 * the recent output again, then a copy of every output and exit frame, and
 * its stdin goes to the tasks. A sattach that stops reading is dropped
 * after a while rather than holding up the step. */
#include "cli/srun_io.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli/common.h"
#include "cli/srun_pty.h"
#include "common/fileio.h"
#include "common/proto_gen.h"
#include "common/stepio.h"

struct linebuf {
	char *buf;
	size_t len, cap;
};

struct srun_io_task {
	bool exited, printed;
	int status;
	int64_t exit_ms; /* when its exit came */
	int node;	 /* index into conns, -1 before its shepherd said hello */
	struct linebuf out, err;
	int out_fd, err_fd;
};

struct srun_io_conn {
	int fd;
	bool hello;
	char node[256];
	uint32_t *tasks;
	size_t n_tasks;
	bool attacher; /* a sattach, not a shepherd: no tasks of its own */
	char *fence;   /* its FENCE_UP blob while a fence is open */
	uint32_t fence_len;
	bool in_fence;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int srun_io_listen(struct srun_io *io)
{
	io->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (io->lfd < 0)
		return -errno;
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_ANY)};
	socklen_t len = sizeof(sa);
	if (bind(io->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(io->lfd, 128) < 0 ||
	    getsockname(io->lfd, (struct sockaddr *)&sa, &len) < 0)
		return -errno;
	io->port = ntohs(sa.sin_port);
	unsigned char raw[32];
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(io->key, sizeof(io->key), raw, sizeof(raw));
	stepio_attach_key(io->key, io->attach_key);
	io->stdin_fd = -1;
	/* From here on the signals srun forwards are read, never default: a
	 * Ctrl-C while the step is being created is seen once it runs. */
	sigset_t mask;
	sigemptyset(&mask);
	int fwd[] = {SIGINT,  SIGTERM, SIGHUP,	SIGQUIT, SIGUSR1,
		     SIGUSR2, SIGCONT, SIGTSTP, SIGWINCH};
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaddset(&mask, fwd[i]);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	io->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return 0;
}

/* --- output ------------------------------------------------------------- */

static int label_width(uint32_t ntasks)
{
	int w = 1;
	for (uint32_t v = ntasks ? ntasks - 1 : 0; v >= 10; v /= 10)
		w++;
	return w;
}

static void emit(struct srun_io *io, uint32_t task, int fd, const char *p, size_t n)
{
	if (!io->o.label) {
		(void)drv_write_all(fd, p, n);
		return;
	}
	char lab[32];
	int l = snprintf(lab, sizeof(lab), "%*u: ", label_width(io->ntasks), task);
	(void)drv_write_all(fd, lab, (size_t)l);
	(void)drv_write_all(fd, p, n);
}

static void lb_append(struct linebuf *b, const char *p, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2;
		char *g = realloc(b->buf, cap);
		if (!g)
			return;
		b->buf = g;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

/* Writes the whole lines of b (all of it at the end of the stream). */
static void lb_flush(struct srun_io *io, uint32_t task, struct linebuf *b, int fd,
		     bool all)
{
	size_t start = 0;
	for (size_t i = 0; i < b->len; i++) {
		if (b->buf[i] != '\n')
			continue;
		emit(io, task, fd, b->buf + start, i + 1 - start);
		start = i + 1;
	}
	if (all && start < b->len) {
		emit(io, task, fd, b->buf + start, b->len - start);
		if (io->o.label)
			(void)drv_write_all(fd, "\n", 1);
		start = b->len;
	}
	if (start)
		memmove(b->buf, b->buf + start, b->len - start);
	b->len -= start;
}

static int open_out(struct srun_io *io, char **paths, uint32_t task, int dflt)
{
	if (!paths || !paths[task])
		return dflt;
	for (uint32_t t = 0; t < task; t++) /* tasks writing one file share it */
		if (paths[t] && !strcmp(paths[t], paths[task]))
			return paths == io->o.out_paths ? io->tasks[t].out_fd
							: io->tasks[t].err_fd;
	int flags =
	    O_WRONLY | O_CREAT | O_CLOEXEC | (io->o.open_append ? O_APPEND : O_TRUNC);
	int fd = open(paths[task], flags, 0644);
	if (fd < 0) {
		cli_error("error: Could not open stdout file %s: %s", paths[task],
			  strerror(errno));
		return dflt;
	}
	return fd;
}

static void task_output(struct srun_io *io, uint32_t task, uint8_t type, const char *p,
			size_t n)
{
	struct srun_io_task *t = &io->tasks[task];
	if (io->o.pty && task != 0)
		return; /* Slurm's --pty: the other tasks' output is /dev/null */
	bool err = type == STEPIO_STDERR;
	struct linebuf *b = err ? &t->err : &t->out;
	int fd = err ? t->err_fd : t->out_fd;
	if (io->o.unbuffered && !io->o.label) {
		(void)drv_write_all(fd, p, n);
		return;
	}
	lb_append(b, p, n);
	lb_flush(io, task, b, fd, n == 0);
}

/* --- exits ---------------------------------------------------------------- */

static int status_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void describe(int status, char *buf, size_t len)
{
	if (status & STEPIO_EXIT_OOM) /* the shepherd saw the cgroup's OOM kill */
		snprintf(buf, len, "Out Of Memory");
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "%s%s", strsignal(WTERMSIG(status)),
			 WCOREDUMP(status) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "Exited with exit code %d", WEXITSTATUS(status));
}

/* A node's exits are printed together, once all its tasks ended or the
 * first of them a moment ago (its shepherd sends them as they come). */
static bool node_settled(const struct srun_io *io, int node, int64_t now, bool all)
{
	if (all)
		return true;
	for (uint32_t t = 0; t < io->ntasks; t++) {
		const struct srun_io_task *x = &io->tasks[t];
		if (x->node != node)
			continue;
		if (x->exited && !x->printed && now - x->exit_ms >= 250)
			return true;
		if (!x->exited)
			return false;
	}
	return true;
}

/* Prints the ends not printed yet: runs of one node's tasks that ended
 * alike share a line. Clean exits print nothing, as in Slurm. */
static void print_exits(struct srun_io *io, bool all)
{
	int64_t now = now_ms();
	for (uint32_t t = 0; t < io->ntasks; t++) {
		struct srun_io_task *a = &io->tasks[t];
		if (!a->exited || a->printed || !node_settled(io, a->node, now, all))
			continue;
		uint32_t last = t;
		while (last + 1 < io->ntasks && io->tasks[last + 1].exited &&
		       !io->tasks[last + 1].printed &&
		       io->tasks[last + 1].node == a->node &&
		       io->tasks[last + 1].status == a->status)
			last++;
		for (uint32_t k = t; k <= last; k++)
			io->tasks[k].printed = true;
		if (a->status == 0)
			continue;
		char what[128], ids[32];
		describe(a->status, what, sizeof(what));
		if (last == t)
			snprintf(ids, sizeof(ids), "task %u", t);
		else
			snprintf(ids, sizeof(ids), "tasks %u-%u", t, last);
		const char *node = a->node >= 0 ? io->conns[a->node].node : "?";
		/* --pty: the line ends as on a raw terminal, whatever stderr is,
		 * as Slurm's srun writes it */
		fprintf(stderr, "srun: error: %s: %s: %s%s", node, ids, what,
			io->o.pty ? "\r\n" : "\n");
	}
}

/* --- shepherds ------------------------------------------------------------ */

static void send_all_conns(struct srun_io *io, uint8_t type, uint32_t task, const void *p,
			   uint32_t n)
{
	for (size_t c = 0; c < io->n_conns; c++)
		if (io->conns[c].fd >= 0 && io->conns[c].hello && !io->conns[c].attacher)
			stepio_send(io->conns[c].fd, type, task, p, n);
}

static void signal_tasks(struct srun_io *io, int sig)
{
	uint8_t b[4] = {(uint8_t)(sig >> 24), (uint8_t)(sig >> 16), (uint8_t)(sig >> 8),
			(uint8_t)sig};
	send_all_conns(io, STEPIO_SIGNAL, 0, b, 4);
}

/* --pty: our terminal's size to task 0's shepherd (stepio.h). */
static void send_winsize(struct srun_io *io)
{
	int node = io->ntasks ? io->tasks[0].node : -1;
	if (!io->o.pty || node < 0 || io->conns[node].fd < 0)
		return;
	uint16_t rows, cols;
	srun_pty_size(&rows, &cols);
	uint8_t b[4] = {(uint8_t)(rows >> 8), (uint8_t)rows, (uint8_t)(cols >> 8),
			(uint8_t)cols};
	stepio_send(io->conns[node].fd, STEPIO_WINSIZE, 0, b, 4);
}

static void accept_conn(struct srun_io *io)
{
	int fd = accept4(io->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (io->n_conns == io->cap_conns) {
		size_t cap = io->cap_conns ? io->cap_conns * 2 : 8;
		struct srun_io_conn *g = realloc(io->conns, cap * sizeof(*g));
		if (!g) {
			close(fd);
			return;
		}
		io->conns = g;
		io->cap_conns = cap;
	}
	io->conns[io->n_conns++] = (struct srun_io_conn){.fd = fd};
}

static void drop_conn(struct srun_io *io, struct srun_io_conn *c)
{
	close(c->fd);
	c->fd = -1;
	/* a shepherd gone without a word: its tasks' ends are lost */
	for (size_t k = 0; c->hello && k < c->n_tasks; k++) {
		struct srun_io_task *t = &io->tasks[c->tasks[k]];
		if (!t->exited) {
			t->exited = true;
			t->status = SIGKILL;
			io->n_exited++;
		}
	}
}

/* Every task of c reported: we close, which is what the shepherd waits for
 * before it closes its own end (see hang_up in shepherd/step.c). */
static void hang_up_when_done(struct srun_io *io, struct srun_io_conn *c)
{
	for (size_t k = 0; k < c->n_tasks; k++)
		if (!io->tasks[c->tasks[k]].exited)
			return;
	close(c->fd);
	c->fd = -1;
}

/* HELLO: the key proves the shepherd is the step's; its tasks are its. */
static bool hello(struct srun_io *io, struct srun_io_conn *c, const char *p, size_t n)
{
	json_t *h = json_loadb(p, n, 0, NULL);
	struct drv_rec_stdio_hello m;
	struct drv_error err;
	bool decoded = h && drv_rec_stdio_hello_decode(h, &m, &err) == 0;
	bool ok = decoded && sodium_memcmp(m.io_key, io->key, 64) == 0;
	c->tasks = ok ? calloc(m.n_tasks ? m.n_tasks : 1, sizeof(*c->tasks)) : NULL;
	for (size_t k = 0; c->tasks && k < m.n_tasks; k++) {
		uint32_t id = m.tasks[k];
		if (id >= io->ntasks) {
			ok = false;
			break;
		}
		c->tasks[c->n_tasks++] = id;
		io->tasks[id].node = (int)(c - io->conns);
	}
	snprintf(c->node, sizeof(c->node), "%s", ok ? m.node : "?");
	if (decoded)
		drv_rec_stdio_hello_free(&m);
	json_decref(h);
	c->hello = ok && c->tasks;
	return c->hello;
}

/* --mpi=pmix: a fence is complete once every node's shepherd is here and
 * sent its part; all of them then get every part (stepio.h). */
static void fence_up(struct srun_io *io, struct srun_io_conn *c, char *p, uint32_t n)
{
	if (c->in_fence) /* a second one before the first completed: ignored */
		return;
	free(c->fence);
	c->fence = p;
	c->fence_len = n;
	c->in_fence = true;
}

static bool all_connected(const struct srun_io *io);

static void fence_check(struct srun_io *io)
{
	size_t total = 0, parts = 0;
	for (size_t c = 0; c < io->n_conns; c++) {
		const struct srun_io_conn *x = &io->conns[c];
		if (x->fd < 0 || !x->hello || x->attacher)
			continue;
		if (!x->in_fence)
			return;
		total += 4 + (size_t)x->fence_len;
		parts++;
	}
	if (!parts || !all_connected(io))
		return;
	uint8_t *all = malloc(total ? total : 1), *q = all;
	if (!all || total > STEPIO_MAX_PAYLOAD) {
		free(all);
		cli_error("error: PMIx fence data too large (%zu bytes)", total);
		return;
	}
	for (size_t c = 0; c < io->n_conns; c++) {
		struct srun_io_conn *x = &io->conns[c];
		if (x->fd < 0 || !x->hello || x->attacher)
			continue;
		uint32_t n = x->fence_len;
		q[0] = (uint8_t)(n >> 24);
		q[1] = (uint8_t)(n >> 16);
		q[2] = (uint8_t)(n >> 8);
		q[3] = (uint8_t)n;
		memcpy(q + 4, x->fence, n);
		q += 4 + n;
		free(x->fence);
		x->fence = NULL;
		x->fence_len = 0;
		x->in_fence = false;
	}
	send_all_conns(io, STEPIO_FENCE_DOWN, 0, all, (uint32_t)total);
	free(all);
}

/* --- sattach ---------------------------------------------------------------- */

/* The output kept for the next sattach: whole frames, oldest first
 * (v[head] to v[n - 1]), at most STEPIO_REPLAY_MAX bytes of payload. The
 * oldest go by moving head; the array is compacted only when full. */
struct srun_io_replay {
	struct replay_frame {
		uint8_t type;
		uint32_t task, len;
		char *data;
	} * v;
	size_t head, n, cap, bytes;
};

static void replay_keep(struct srun_io *io, uint8_t type, uint32_t task, const char *p,
			uint32_t n)
{
	if (!io->replay && !(io->replay = calloc(1, sizeof(*io->replay))))
		return;
	struct srun_io_replay *r = io->replay;
	while (r->head < r->n && r->bytes + n > STEPIO_REPLAY_MAX) { /* oldest go */
		r->bytes -= r->v[r->head].len;
		free(r->v[r->head++].data);
	}
	if (n > STEPIO_REPLAY_MAX)
		return;
	if (r->n == r->cap && r->head) {
		memmove(r->v, r->v + r->head, (r->n - r->head) * sizeof(*r->v));
		r->n -= r->head;
		r->head = 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct replay_frame *g = realloc(r->v, cap * sizeof(*g));
		if (!g)
			return;
		r->v = g;
		r->cap = cap;
	}
	char *copy = malloc(n ? n : 1);
	if (!copy)
		return;
	memcpy(copy, p, n);
	r->v[r->n++] = (struct replay_frame){type, task, n, copy};
	r->bytes += n;
}

static void replay_free(struct srun_io_replay *r)
{
	for (size_t i = r ? r->head : 0; r && i < r->n; i++)
		free(r->v[i].data);
	if (r)
		free(r->v);
	free(r);
}

/* Output and exits to every sattach (one that cannot take them is
 * dropped), and output into the replay. */
static void to_attachers(struct srun_io *io, uint8_t type, uint32_t task, const char *p,
			 uint32_t n)
{
	if (type != STEPIO_EXIT)
		replay_keep(io, type, task, p, n);
	for (size_t c = 0; c < io->n_conns; c++) {
		struct srun_io_conn *x = &io->conns[c];
		if (x->fd >= 0 && x->attacher && stepio_send(x->fd, type, task, p, n) < 0)
			drop_conn(io, x);
	}
}

static int u32be(uint32_t v, uint8_t b[4])
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
	return 4;
}

/* A new sattach proved itself: what it missed, then it is one of them. */
static bool attach(struct srun_io *io, struct srun_io_conn *c, const char *key,
		   uint32_t len)
{
	if (len != 64 || sodium_memcmp(key, io->attach_key, 64) != 0)
		return false;
	/* a sattach that stops reading must not stop the step's output */
	struct timeval tv = {.tv_sec = 2};
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	c->hello = c->attacher = true;
	for (size_t i = io->replay ? io->replay->head : 0;
	     io->replay && i < io->replay->n; i++) {
		const struct replay_frame *f = &io->replay->v[i];
		if (stepio_send(c->fd, f->type, f->task, f->data, f->len) < 0)
			return false;
	}
	for (uint32_t t = 0; t < io->ntasks; t++) {
		uint8_t b[4];
		if (io->tasks[t].exited &&
		    stepio_send(c->fd, STEPIO_EXIT, t, b,
				(uint32_t)u32be((uint32_t)io->tasks[t].status, b)) < 0)
			return false;
	}
	return true;
}

/* A frame from a sattach: its ATTACH, then stdin for a task or for each
 * (STEPIO_ALL_TASKS). False drops it. */
static bool from_attacher(struct srun_io *io, struct srun_io_conn *c,
			  const struct stepio_hdr *h, const char *p)
{
	if (h->type == STEPIO_ATTACH)
		return attach(io, c, p, h->len);
	if (h->type != STEPIO_STDIN)
		return true; /* nothing else is a sattach's to send */
	for (uint32_t t = 0; t < io->ntasks; t++) {
		int node = io->tasks[t].node;
		if ((h->task == STEPIO_ALL_TASKS || h->task == t) && node >= 0 &&
		    io->conns[node].fd >= 0 && !io->tasks[t].exited)
			stepio_send(io->conns[node].fd, STEPIO_STDIN, t, p, h->len);
	}
	return true;
}

/* A shepherd is ending the step: Slurm's srun says so once, unless it
 * ended the step itself (-K, -W, Ctrl-C twice: Slurm's says "Force
 * Terminated" then). */
static void aborting(struct srun_io *io, const uint8_t *b)
{
	uint32_t kill_wait =
	    (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	if (io->aborting_said || io->killed)
		return;
	io->aborting_said = true;
	fprintf(stderr,
		"srun: Job step aborted: Waiting up to %u seconds for job step to "
		"finish.\n",
		kill_wait + 2);
}

static void on_frame(struct srun_io *io, struct srun_io_conn *c)
{
	uint8_t hdr[STEPIO_HDR_LEN];
	struct stepio_hdr h;
	if (stepio_read_full(c->fd, hdr, sizeof(hdr)) < 0 ||
	    stepio_hdr_unpack(hdr, &h) < 0 ||
	    (!c->hello && h.type != STEPIO_HELLO && h.type != STEPIO_ATTACH) ||
	    (c->hello && h.type == STEPIO_ATTACH)) {
		drop_conn(io, c);
		return;
	}
	char *p = malloc(h.len + 1);
	if (!p || stepio_read_full(c->fd, p, h.len) < 0) {
		free(p);
		drop_conn(io, c);
		return;
	}
	if (c->attacher || h.type == STEPIO_ATTACH) {
		if (!from_attacher(io, c, &h, p))
			drop_conn(io, c);
	} else if (h.type == STEPIO_HELLO) {
		if (!hello(io, c, p, h.len))
			drop_conn(io, c);
		else if (io->ntasks && io->tasks[0].node == (int)(c - io->conns))
			send_winsize(io); /* its first frame, before any stdin */
	} else if (h.type == STEPIO_ABORT) {
		io->abort_asked = true;
	} else if (h.type == STEPIO_ABORTING && h.len == 4) {
		aborting(io, (const uint8_t *)p);
	} else if (h.type == STEPIO_FENCE_UP) {
		fence_up(io, c, p, h.len);
		p = NULL; /* the conn holds it now */
	} else if (h.task >= io->ntasks ||
		   io->tasks[h.task].node != (int)(c - io->conns)) {
		/* not one of this shepherd's tasks: ignored */
	} else if (h.type == STEPIO_STDOUT || h.type == STEPIO_STDERR) {
		task_output(io, h.task, h.type, p, h.len);
		to_attachers(io, h.type, h.task, p, h.len);
	} else if (h.type == STEPIO_EXIT && h.len == 4 && !io->tasks[h.task].exited) {
		to_attachers(io, h.type, h.task, p, h.len);
		const uint8_t *b = (const uint8_t *)p;
		io->tasks[h.task].status =
		    (int)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			  (uint32_t)b[2] << 8 | b[3]);
		io->tasks[h.task].exited = true;
		io->tasks[h.task].exit_ms = now_ms();
		io->n_exited++;
		if (!io->first_exit_ms)
			io->first_exit_ms = now_ms();
		hang_up_when_done(io, c);
	}
	free(p);
}

/* --- stdin and signals ------------------------------------------------------ */

static void forward_stdin(struct srun_io *io)
{
	char buf[65536];
	ssize_t n = read(io->stdin_fd, buf, sizeof(buf));
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		n = 0;
		if (io->stdin_fd > 0)
			close(io->stdin_fd);
		io->stdin_fd = -1;
	}
	for (uint32_t t = 0; t < io->ntasks; t++) {
		if (io->o.stdin_task >= 0 && (uint32_t)io->o.stdin_task != t)
			continue;
		int node = io->tasks[t].node;
		if (node >= 0 && io->conns[node].fd >= 0)
			stepio_send(io->conns[node].fd, STEPIO_STDIN, t, buf,
				    (uint32_t)n);
	}
}

static void print_running(struct srun_io *io)
{
	uint32_t first = 0;
	bool any = false;
	for (uint32_t t = 0; t <= io->ntasks; t++) {
		bool run = t < io->ntasks && !io->tasks[t].exited;
		if (run && !any) {
			first = t;
			any = true;
		} else if (!run && any) {
			if (t - 1 == first)
				fprintf(stderr, "srun: StepId=%u.%u task %u: running\n",
					io->job_id, io->step_id, first);
			else
				fprintf(stderr,
					"srun: StepId=%u.%u tasks %u-%u: running\n",
					io->job_id, io->step_id, first, t - 1);
			any = false;
		}
	}
}

/* SIGTERM, SIGHUP, SIGQUIT (the batch job's end reaches an srun in it)
 * and SIGCONT, as Slurm's srun takes them: its lines, and SIGKILL to the
 * tasks for the first three. False for other signals. */
static bool slurm_handles(struct srun_io *io, int sig)
{
	if (sig == SIGCONT) {
		if (!io->o.quiet)
			fprintf(stderr, "srun: got SIGCONT\n");
		return true;
	}
	if (sig != SIGTERM && sig != SIGHUP && sig != SIGQUIT)
		return false;
	if (sig == SIGQUIT && !io->o.quiet)
		fprintf(stderr, "srun: Quit\n");
	if (!io->o.quiet)
		fprintf(stderr, "srun: forcing job termination\n");
	signal_tasks(io, SIGKILL);
	return true;
}

/* Ctrl-C once reports the tasks; twice within a second ends the step, as
 * Slurm's srun. Other signals go to the tasks. */
static void on_signal(struct srun_io *io, bool *kill_step)
{
	/* The kernel hands pending signals over lowest number first; a group's
	 * SIGCONT, SIGTERM is taken in that order (Slurm prints "got SIGCONT"
	 * before "forcing job termination"). */
	struct signalfd_siginfo got[16];
	size_t n = 0;
	while (n < 16 && read(io->sigfd, &got[n], sizeof(got[n])) == sizeof(got[n]))
		n++;
	for (size_t k = 1; k < n; k++)
		if (got[k].ssi_signo == SIGCONT) {
			struct signalfd_siginfo cont = got[k];
			memmove(&got[1], &got[0], k * sizeof(got[0]));
			got[0] = cont;
		}
	for (size_t k = 0; k < n; k++) {
		int sig = (int)got[k].ssi_signo;
		if (sig == SIGWINCH) { /* the terminal's, not the tasks' */
			send_winsize(io);
			continue;
		}
		if (sig != SIGINT) {
			if (!slurm_handles(io, sig))
				signal_tasks(io, sig);
			continue;
		}
		int64_t now = now_ms();
		if (now - io->last_int_ms <= 1000) {
			fprintf(stderr, "srun: forcing job termination\n");
			*kill_step = true;
		} else {
			fprintf(stderr,
				"srun: interrupt (one more within 1 sec to abort)\n");
			print_running(io);
		}
		io->last_int_ms = now;
	}
}

/* -K and -W: the rest of the tasks go when one failed or the wait is over. */
static bool should_kill(struct srun_io *io)
{
	if (io->killed || !io->first_exit_ms)
		return false;
	for (uint32_t t = 0; io->o.kill_on_bad_exit > 0 && t < io->ntasks; t++)
		if (io->tasks[t].exited && io->tasks[t].status)
			return true;
	if (io->o.wait_secs > 0 &&
	    now_ms() - io->first_exit_ms >= io->o.wait_secs * 1000LL) {
		fprintf(stderr, "srun: error: First task exited %ds ago\n",
			io->o.wait_secs);
		return true;
	}
	return false;
}

static bool all_connected(const struct srun_io *io)
{
	for (uint32_t t = 0; t < io->ntasks; t++)
		if (io->tasks[t].node < 0)
			return false;
	return true;
}

static int result(const struct srun_io *io)
{
	int code = 0;
	for (uint32_t t = 0; t < io->ntasks; t++) {
		int c = io->tasks[t].exited
			    ? status_code(io->tasks[t].status & ~(int)STEPIO_EXIT_OOM)
			    : 0;
		if (c > code)
			code = c;
	}
	return code;
}

static void setup(struct srun_io *io, uint32_t ntasks)
{
	io->ntasks = ntasks;
	io->tasks = calloc(ntasks ? ntasks : 1, sizeof(*io->tasks));
	if (!io->tasks)
		abort();
	for (uint32_t t = 0; t < ntasks; t++) {
		io->tasks[t].node = -1;
		io->tasks[t].out_fd = open_out(io, io->o.out_paths, t, STDOUT_FILENO);
		int err_dflt = io->o.out_paths && io->o.out_paths[t] ? io->tasks[t].out_fd
								     : STDERR_FILENO;
		io->tasks[t].err_fd = open_out(io, io->o.err_paths, t, err_dflt);
	}
	if (io->o.stdin_task != -2) {
		io->stdin_fd = io->o.stdin_path
				   ? open(io->o.stdin_path, O_RDONLY | O_CLOEXEC)
				   : STDIN_FILENO;
		if (io->stdin_fd < 0)
			cli_error("error: Could not open stdin file %s: %s",
				  io->o.stdin_path, strerror(errno));
	}
}

int srun_io_run(struct srun_io *io, uint32_t ntasks, srun_io_tick_f tick, void *arg)
{
	setup(io, ntasks);
	int64_t next_tick = now_ms() + 1000, over_since = 0;
	int ctld_code = 0;
	while (io->n_exited < io->ntasks) {
		size_t n = 0, cap = 3 + io->n_conns;
		struct pollfd *pfd = calloc(cap, sizeof(*pfd));
		if (!pfd)
			abort();
		pfd[n++] = (struct pollfd){.fd = io->lfd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = io->sigfd, .events = POLLIN};
		/* stdin only once every shepherd is there to take it */
		pfd[n++] = (struct pollfd){.fd = all_connected(io) ? io->stdin_fd : -1,
					   .events = POLLIN};
		for (size_t c = 0; c < io->n_conns; c++)
			pfd[n++] =
			    (struct pollfd){.fd = io->conns[c].fd, .events = POLLIN};
		int r = poll(pfd, n, 200);
		bool kill_step = false;
		if (r > 0) {
			if (pfd[1].revents)
				on_signal(io, &kill_step);
			if (pfd[2].revents)
				forward_stdin(io);
			for (size_t c = 0; c + 3 < n; c++)
				if (pfd[3 + c].revents && io->conns[c].fd >= 0)
					on_frame(io, &io->conns[c]);
			fence_check(io);
			if (pfd[0].revents)
				accept_conn(io);
		}
		free(pfd);
		if (io->abort_asked && !io->killed)
			kill_step = true; /* MPI_Abort (--mpi=pmix) */
		if (should_kill(io)) {
			kill_step = true;
			print_exits(io, true); /* the failure before "Terminating" */
		}
		print_exits(io, false);
		if (kill_step && !io->killed) {
			/* as a step cancel: SIGTERM now; ctld's cancel (tick) has
			 * the shepherds SIGKILL what is left after KillWait */
			io->killed = true;
			signal_tasks(io, SIGCONT);
			signal_tasks(io, SIGTERM);
		}
		int64_t now = now_ms();
		if (kill_step || now >= next_tick) {
			next_tick = now + 1000;
			if (tick(arg, kill_step, &ctld_code) && !over_since)
				over_since = now;
		}
		/* ctld says it is over: what has not reported by now never will */
		if (over_since && now - over_since > 3000)
			break;
	}
	print_exits(io, true);
	close(io->lfd); /* a sattach from now on finds the step over */
	io->lfd = -1;
	for (uint32_t t = 0; t < io->ntasks; t++) {
		lb_flush(io, t, &io->tasks[t].out, io->tasks[t].out_fd, true);
		lb_flush(io, t, &io->tasks[t].err, io->tasks[t].err_fd, true);
	}
	int code = result(io);
	if (io->n_exited < io->ntasks && !code)
		code = ctld_code ? ctld_code : 1;
	return code;
}

void srun_io_close(struct srun_io *io)
{
	for (size_t c = 0; c < io->n_conns; c++) {
		if (io->conns[c].fd >= 0)
			close(io->conns[c].fd);
		free(io->conns[c].tasks);
		free(io->conns[c].fence);
	}
	free(io->conns);
	for (uint32_t t = 0; io->tasks && t < io->ntasks; t++) {
		free(io->tasks[t].out.buf);
		free(io->tasks[t].err.buf);
	}
	free(io->tasks);
	replay_free(io->replay);
	if (io->lfd >= 0)
		close(io->lfd);
	if (io->sigfd >= 0)
		close(io->sigfd);
}
