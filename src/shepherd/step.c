/* step.c — drover-shepherd --step-dir DIR: this node's tasks of an srun step
 * (Slurm's slurmstepd for a step).
 *
 * It dials srun's I/O port, forks every local task into one process group as
 * the job's user with its own SLURM_PROCID/SLURM_LOCALID, and then pumps:
 * task output goes to srun as frames, srun's stdin and signals come back.
 * When a task has exited and its output is drained, srun gets its wait
 * status. Once every task has exited whatever they left is killed, as
 * Slurm ends a step: everything in the step's cgroup when it has one (a
 * daemon in a session of its own too; procs.c), else its group. SIGTERM (noded, for a
 * cancel or the job's end) terminates the tasks: SIGCONT and SIGTERM, SIGKILL after
 * KillWait; losing srun does the same. A SIGTERM whose value names a reason (a
 * drv_kill_why) first has srun say "Job step aborted" and, from the step's
 * first node, sends Slurm's "*** STEP N.S ON NODE CANCELLED AT T ***" line
 * as stderr; an OOM kill sends Slurm's OOM line. The worst status goes to
 * DIR/status.
 *
 * srun --pty: task 0 runs on a pseudo-terminal (pty.c) in a session of its
 * own (a terminal's session cannot hold the other tasks' group); what
 * reaches the group reaches that session's group too, with SIGHUP added
 * when the step is ended, since an interactive shell ignores SIGTERM. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/client.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/stepio.h"
#include "shepherd/shepherd.h"

struct task {
	uint32_t id, local;
	pid_t pid;
	int out, err, in; /* our ends; -1 when closed */
	bool exited, reported;
	bool pty;		  /* --pty's task 0: out and in are the master */
	struct timespec drain_by; /* pty: when its output counts as ended */
	int status;
	char **pmix_env; /* --mpi=pmix: its PMIX_* variables, until forked */
};

struct step {
	json_t *spec;
	struct drv_rec_node_spec ns; /* what noded added to the step.launch body */
	const char *dir, *user, *node, *cwd;
	int64_t job_id, step_id;
	uid_t uid;
	gid_t gid;
	int kill_wait;
	struct task *tasks;
	uint32_t n;
	pid_t pgid;	     /* the tasks' process group (0: none of them) */
	pid_t pty_pgid;	     /* --pty's task 0 session and group (0: none) */
	uint16_t rows, cols; /* --pty: srun's terminal size, 0 0 without one */
	int sock, sigfd;
	bool terminating, srun_gone;
	struct timespec kill_at;     /* SIGKILL to the group when terminating */
	struct timespec rest_killed; /* when what the tasks left got SIGKILL */
	char message[256];
	struct usage usage;   /* of the tasks reaped so far */
	struct sampler sm;    /* their samples while they run (sample.c) */
	struct cg_step cg;    /* the step's cgroup (isolate.c), inactive when none */
	bool oom;	      /* the kernel OOM-killed one of its processes */
	bool unkillable;      /* processes outlived SIGKILL (procs_end) */
	struct pmixsrv *pmix; /* --mpi=pmix: this node's PMIx server (pmix.c) */
};

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static int64_t num(json_t *o, const char *key, int64_t def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

/* --- tasks --------------------------------------------------------------- */

/* argv of task id: --multi-prog's line for it, else srun's command. */
static char **task_argv(const struct step *st, uint32_t id, json_t *multi)
{
	json_t *argv = multi ? json_array_get(multi, id) : NULL;
	if (!json_is_array(argv))
		argv = json_object_get(st->spec, "argv");
	size_t n = json_array_size(argv);
	char **v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		v[i] = (char *)json_string_value(json_array_get(argv, i));
	return v;
}

static void __attribute__((noreturn))
task_child(const struct step *st, struct task *t, int out, int err, int in, int release,
	   char **env, char **argv)
{
	if (t->pty)
		setsid();
	else
		setpgid(0, st->pgid ? st->pgid : 0);
	char byte;
	ssize_t r;
	do
		r = read(release, &byte, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(1);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(in, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	if (t->pty && pty_make_controlling(STDIN_FILENO) < 0)
		_exit(1);
	char why[256];
	if (container_join(&st->ns, st->job_id, st->uid, st->gid, why, sizeof(why)) < 0 ||
	    shepherd_become_user(st->spec, st->uid, st->gid, why, sizeof(why)) < 0) {
		dprintf(STDERR_FILENO, "slurmstepd: error: %s\n", why);
		_exit(1);
	}
	if (chdir(st->cwd) < 0) {
		dprintf(STDERR_FILENO,
			"slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp "
			"instead\n",
			st->cwd, strerror(errno));
		if (chdir("/tmp") < 0)
			_exit(1);
	}
	apply_umask(env);
	char buf[24];
	snprintf(buf, sizeof(buf), "%u", t->id);
	env_set(&env, "SLURM_PROCID", buf);
	snprintf(buf, sizeof(buf), "%u", t->local);
	env_set(&env, "SLURM_LOCALID", buf);
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	env_set(&env, "SLURM_TASK_PID", buf);
	step_env_gpus(&env, st->spec, t->local);
	if (cpu_bind_apply(json_string_value(json_object_get(st->spec, "cpu_bind")),
			   (uint32_t)num(st->spec, "cpus_per_task", 1), st->node, t->id,
			   t->local, why, sizeof(why)) < 0) {
		dprintf(STDERR_FILENO, "slurmstepd: error: %s\n", why);
		_exit(1);
	}
	for (char **e = t->pmix_env; e && *e; e++) {
		char *eq = strchr(*e, '=');
		if (eq) {
			*eq = '\0';
			env_set(&env, *e, eq + 1);
		}
	}
	if (!argv || !argv[0]) {
		dprintf(STDERR_FILENO, "slurmstepd: error: no command for task %u\n",
			t->id);
		_exit(2);
	}
	/* srun finds the program in the task's PATH, as execvp does */
	for (char **e = env; *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			setenv("PATH", *e + 5, 1);
	execvpe(argv[0], argv, env);
	dprintf(STDERR_FILENO, "slurmstepd: error: execve(): %s: %s\n", argv[0],
		strerror(errno));
	_exit(2);
}

static int open_pipes(int out[2], int err[2], int in[2], bool with_stdin)
{
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return -errno;
	if (with_stdin)
		return pipe2(in, O_CLOEXEC) < 0 ? -errno : 0;
	in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	in[1] = -1;
	return in[0] < 0 ? -errno : 0;
}

/* --pty's task 0: the task's three ends are the slave, ours the master
 * (out) and a second descriptor of it (in), so each closes on its own. */
static int open_pty(struct step *st, int out[2], int err[2], int in[2])
{
	int master, slave;
	char why[200];
	int rc = pty_open(&master, &slave, st->uid, st->gid, why, sizeof(why));
	if (rc < 0) {
		snprintf(st->message, sizeof(st->message), "%s", why);
		return rc;
	}
	pty_set_size(master, st->rows, st->cols);
	in[1] = fcntl(master, F_DUPFD_CLOEXEC, 0);
	if (in[1] < 0) {
		close(master);
		close(slave);
		return -errno;
	}
	out[0] = master;
	out[1] = slave;
	err[0] = -1;
	err[1] = slave;
	in[0] = slave;
	return 0;
}

static bool gets_stdin(json_t *spec, uint32_t id)
{
	return json_is_true(json_object_get(spec, "stdin_all")) ||
	       num(spec, "stdin_task", 0) == (int64_t)id;
}

/* DIR/tasks: "PID LOCALID GLOBALID" a line for each started task, for
 * scontrol listpids. */
static void write_task_pids(const struct step *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	for (uint32_t k = 0; k < st->n; k++)
		if (st->tasks[k].pid > 0)
			fprintf(f, "%d %u %u\n", (int)st->tasks[k].pid,
				st->tasks[k].local, st->tasks[k].id);
	fclose(f);
	if (text)
		drv_write_file_replace(st->dir, "tasks", text, len, 0644);
	free(text);
}

/* Forks every task, records the group, then lets them all go at once. */
static int start_tasks(struct step *st)
{
	char **env = step_env_node(st->spec, st->node, st->ns.conf_path);
	int rel[2];
	if (!env || pipe2(rel, O_CLOEXEC) < 0)
		return -ENOMEM;
	char step_name[24];
	snprintf(step_name, sizeof(step_name), "%lld", (long long)st->step_id);
	isolate_begin(&st->cg, &st->ns, st->job_id, step_name, num(st->spec, "mem", 0));
	json_t *multi = NULL;
	const char *mp = str(st->spec, "task_argv");
	if (*mp)
		multi = json_loads(mp, 0, NULL);
	int rc = 0;
	for (uint32_t k = 0; k < st->n && !rc; k++) {
		struct task *t = &st->tasks[k];
		int out[2], err[2], in[2];
		t->pty = t->id == 0 && json_is_true(json_object_get(st->spec, "pty"));
		rc = t->pty ? open_pty(st, out, err, in)
			    : open_pipes(out, err, in, gets_stdin(st->spec, t->id));
		if (rc)
			break;
		if (st->pmix && !(t->pmix_env = pmixsrv_task_env(st->pmix, t->id))) {
			rc = -EIO;
			break;
		}
		char **argv = task_argv(st, t->id, multi);
		pid_t pid = fork();
		if (pid == 0) {
			close(rel[1]);
			task_child(st, t, out[1], err[1], in[0], rel[0], env, argv);
		}
		free(argv);
		env_free(t->pmix_env);
		t->pmix_env = NULL;
		close(out[1]);
		if (!t->pty) { /* the pty's slave is out[1], err[1] and in[0] */
			close(err[1]);
			close(in[0]);
		}
		t->out = out[0];
		t->err = err[0];
		t->in = in[1];
		if (pid < 0) {
			rc = -errno;
			break;
		}
		t->pid = pid;
		if (t->pty) {
			st->pty_pgid = pid; /* setsid() made it its session's leader */
		} else {
			if (!st->pgid)
				st->pgid = pid;
			setpgid(pid, st->pgid);
		}
		isolate_attach(&st->cg, pid, st->job_id); /* before its release */
	}
	json_decref(multi);
	env_free(env);
	close(rel[0]);
	if (st->pmix && st->pgid)
		pmixsrv_set_pgid(st->pmix, st->pgid);
	if (st->pgid || st->pty_pgid) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%d\n",
				 (int)(st->pgid ? st->pgid : st->pty_pgid));
		drv_write_file_replace(st->dir, "pgid", buf, (size_t)n, 0644);
		write_task_pids(st);
	}
	for (uint32_t k = 0; k < st->n; k++) {
		ssize_t w =
		    write(rel[1], "x", 1); /* one byte each; the failed ones never read */
		(void)w;
	}
	close(rel[1]);
	return rc;
}

/* --- srun's connection ------------------------------------------------- */

static int say_hello(struct step *st)
{
	json_t *tasks = json_object_get(st->spec, "tasks");
	struct drv_rec_stdio_hello m = {.io_key = str(st->spec, "io_key"),
					.node_id = (uint32_t)num(st->spec, "node_id", 0),
					.node = st->node,
					.n_tasks = json_array_size(tasks)};
	m.tasks = calloc(m.n_tasks ? m.n_tasks : 1, sizeof(*m.tasks));
	for (size_t k = 0; m.tasks && k < m.n_tasks; k++)
		m.tasks[k] = (uint32_t)json_integer_value(json_array_get(tasks, k));
	json_t *h = m.tasks ? drv_rec_stdio_hello_encode(&m) : NULL;
	free(m.tasks);
	char *text = h ? json_dumps(h, JSON_COMPACT) : NULL;
	json_decref(h);
	if (!text)
		return -ENOMEM;
	int rc = stepio_send(st->sock, STEPIO_HELLO, 0, text, (uint32_t)strlen(text));
	free(text);
	return rc;
}

/* The step cannot start here: srun prints why and every task's exit 1,
 * then ends the step on the other nodes (ABORT). */
static void tell_srun_failed(struct step *st)
{
	char line[320];
	int n =
	    snprintf(line, sizeof(line), "srun: error: %s: %s\n", st->node, st->message);
	if (st->n &&
	    stepio_send(st->sock, STEPIO_STDERR, st->tasks[0].id, line, (uint32_t)n) < 0)
		return;
	for (uint32_t k = 0; k < st->n; k++) {
		uint8_t b[4] = {0, 0, 1, 0}; /* exited with 1 */
		stepio_send(st->sock, STEPIO_STDERR, st->tasks[k].id, NULL, 0);
		stepio_send(st->sock, STEPIO_STDOUT, st->tasks[k].id, NULL, 0);
		stepio_send(st->sock, STEPIO_EXIT, st->tasks[k].id, b, 4);
	}
	/* the other nodes' tasks would wait for these in their first fence */
	stepio_send(st->sock, STEPIO_ABORT, 0, NULL, 0);
	/* closing with srun's frames unread would reset the connection and
	 * could lose ours: wait (a while) for srun to hang up first */
	shutdown(st->sock, SHUT_WR);
	struct pollfd pfd = {.fd = st->sock, .events = POLLIN};
	char sink[4096];
	while (poll(&pfd, 1, 5000) > 0 && read(st->sock, sink, sizeof(sink)) > 0)
		;
}

static struct task *task_by_id(struct step *st, uint32_t id)
{
	for (uint32_t k = 0; k < st->n; k++)
		if (st->tasks[k].id == id)
			return &st->tasks[k];
	return NULL;
}

/* sig to every process of the step's cgroup (procs.c); without one, to
 * the tasks' group and to --pty's terminal session group. */
static void signal_tasks(const struct step *st, int sig)
{
	procs_signal(&st->cg, st->pgid, sig);
	if (st->pty_pgid && !st->cg.active)
		kill(-st->pty_pgid, sig);
}

static void terminate(struct step *st, const char *why)
{
	if (st->terminating || (!st->pgid && !st->pty_pgid))
		return;
	log_info("step=%lld.%lld: %s: terminating its tasks", (long long)st->job_id,
		 (long long)st->step_id, why);
	st->terminating = true;
	signal_tasks(st, SIGCONT);
	if (st->pty_pgid) /* a terminal hung up: what ends interactive shells */
		kill(-st->pty_pgid, SIGHUP);
	signal_tasks(st, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &st->kill_at);
	st->kill_at.tv_sec += st->kill_wait;
}

/* Slurm's line for srun to print, as task id's stderr (slurmstepd's log
 * goes to srun). */
static void say_to_srun(struct step *st, const char *line, int n)
{
	if (st->srun_gone || n <= 0 || !st->n)
		return;
	stepio_send(st->sock, STEPIO_STDERR, st->tasks[0].id, line, (uint32_t)n);
}

/* noded ends the step for why: srun hears of it before the tasks do. */
static void announce_end(struct step *st, int why)
{
	if (why == DRV_KILL_WHY_NONE || st->terminating || st->srun_gone)
		return;
	char entity[48], line[200];
	snprintf(entity, sizeof(entity), "STEP %lld.%lld", (long long)st->job_id,
		 (long long)st->step_id);
	int n = lines_cancelled(line, sizeof(line), entity, st->node, why);
	/* Slurm's line comes from the step's first node only */
	bool first = num(st->spec, "node_id", 0) == 0;
	uint32_t kw = (uint32_t)st->kill_wait;
	uint8_t b[4] = {(uint8_t)(kw >> 24), (uint8_t)(kw >> 16), (uint8_t)(kw >> 8),
			(uint8_t)kw};
	if (first && why == DRV_KILL_WHY_TIME_LIMIT)
		say_to_srun(st, line, n);
	stepio_send(st->sock, STEPIO_ABORTING, 0, b, 4);
	if (first && why != DRV_KILL_WHY_TIME_LIMIT)
		say_to_srun(st, line, n);
}

/* srun's connection failed: no more frames go to it (why goes to the log). */
static void lose_srun(struct step *st, const char *what, int err)
{
	if (!st->srun_gone)
		log_info("step=%lld.%lld: srun's connection: %s: %s",
			 (long long)st->job_id, (long long)st->step_id, what,
			 err ? strerror(err) : "closed");
	st->srun_gone = true;
}

/* --pty: srun sends task 0's shepherd its terminal's size first of all
 * (stepio.h), so that the task starts with it. A while at most. */
static void first_winsize(struct step *st)
{
	json_t *tasks = json_object_get(st->spec, "tasks");
	bool has_task0 = false;
	for (size_t k = 0; k < json_array_size(tasks); k++)
		has_task0 |= json_integer_value(json_array_get(tasks, k)) == 0;
	if (!has_task0 || !json_is_true(json_object_get(st->spec, "pty")))
		return;
	struct pollfd p = {.fd = st->sock, .events = POLLIN};
	uint8_t hdr[STEPIO_HDR_LEN], b[4];
	struct stepio_hdr h;
	if (poll(&p, 1, 10000) <= 0 || stepio_read_full(st->sock, hdr, sizeof(hdr)) < 0 ||
	    stepio_hdr_unpack(hdr, &h) < 0 || h.type != STEPIO_WINSIZE || h.len != 4 ||
	    stepio_read_full(st->sock, b, 4) < 0) {
		lose_srun(st, "waiting for the terminal's size", 0);
		return;
	}
	st->rows = (uint16_t)(b[0] << 8 | b[1]);
	st->cols = (uint16_t)(b[2] << 8 | b[3]);
}

/* One frame from srun: stdin for a task, or a signal for all. */
static void from_srun(struct step *st)
{
	uint8_t hdr[STEPIO_HDR_LEN];
	struct stepio_hdr h;
	int rc = stepio_read_full(st->sock, hdr, sizeof(hdr));
	if (rc < 0 || stepio_hdr_unpack(hdr, &h) < 0) {
		lose_srun(st, "reading a frame", rc == -EPIPE ? 0 : -rc);
		return;
	}
	char *data = malloc(h.len ? h.len : 1);
	if (!data || (rc = stepio_read_full(st->sock, data, h.len)) < 0) {
		free(data);
		lose_srun(st, "reading a frame", rc == -EPIPE ? 0 : -rc);
		return;
	}
	struct task *t = task_by_id(st, h.task);
	if (h.type == STEPIO_STDIN && t && t->in >= 0) {
		/* a terminal's end of input is ^D, not a hang-up */
		if (h.len == 0 && t->pty) {
			ssize_t w = write(t->in, "\x04", 1);
			(void)w;
		}
		if (h.len == 0 || write(t->in, data, h.len) < 0) {
			close(t->in);
			t->in = -1;
		}
	} else if (h.type == STEPIO_SIGNAL && h.len == 4) {
		int sig = (int)((uint32_t)(uint8_t)data[0] << 24 |
				(uint32_t)(uint8_t)data[1] << 16 |
				(uint32_t)(uint8_t)data[2] << 8 | (uint8_t)data[3]);
		if (sig > 0 && sig < NSIG)
			signal_tasks(st, sig);
	} else if (h.type == STEPIO_WINSIZE && h.len == 4) {
		const uint8_t *b = (const uint8_t *)data;
		st->rows = (uint16_t)(b[0] << 8 | b[1]);
		st->cols = (uint16_t)(b[2] << 8 | b[3]);
		for (uint32_t k = 0; k < st->n; k++)
			if (st->tasks[k].pty && st->tasks[k].out >= 0)
				pty_set_size(st->tasks[k].out, st->rows, st->cols);
	} else if (h.type == STEPIO_FENCE_DOWN && st->pmix) {
		if (pmixsrv_fence_down(st->pmix, st->sock, data, h.len) < 0)
			st->srun_gone = true;
	}
	free(data);
}

/* --mpi=pmix: a fence to send up, or MPI_Abort: srun ends the whole step
 * (STEPIO_ABORT); without srun this node's tasks end. */
static void pmix_event(struct step *st)
{
	int rc = st->srun_gone ? 1 : pmixsrv_ready(st->pmix, st->sock);
	if (rc == 1 && !st->srun_gone &&
	    stepio_send(st->sock, STEPIO_ABORT, 0, NULL, 0) == 0)
		return;
	if (rc)
		st->srun_gone = true; /* run_loop terminates the tasks */
}

static void pump(struct step *st, struct task *t, int *fd, uint8_t type)
{
	char buf[65536];
	ssize_t n;
	do
		n = read(*fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN) /* a pty drained after its task's end */
		return;
	if (n <= 0) { /* a pty's master reads EIO once no slave is open */
		close(*fd);
		*fd = -1;
		n = 0;
	}
	int rc;
	if (!st->srun_gone &&
	    (rc = stepio_send(st->sock, type, t->id, buf, (uint32_t)n)) < 0)
		lose_srun(st, "sending output", -rc);
}

/* A pty task ended: what it wrote is still read, but a process it left
 * behind may hold the slave open for ever, so the output counts as ended
 * once nothing came for a moment after the end. */
static void pty_drain_soon(struct task *t)
{
	fcntl(t->out, F_SETFL, fcntl(t->out, F_GETFL) | O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &t->drain_by);
	t->drain_by.tv_sec += 1;
}

static void reap(struct step *st)
{
	struct signalfd_siginfo si;
	while (read(st->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo == SIGTERM) {
			announce_end(st, si.ssi_int);
			terminate(st, "asked to end");
		}
	int status;
	pid_t pid;
	struct rusage ru;
	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0)
		for (uint32_t k = 0; k < st->n; k++)
			if (st->tasks[k].pid == pid) {
				struct task *t = &st->tasks[k];
				t->exited = true;
				t->status = status;
				usage_add(&st->usage, t->id, &ru,
					  sampler_task(&st->sm, pid));
				if (t->pty && t->out >= 0)
					pty_drain_soon(t);
			}
}

static void pty_drain_check(struct step *st, struct task *t)
{
	if (!t->pty || !t->exited || t->out < 0)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec < t->drain_by.tv_sec ||
	    (now.tv_sec == t->drain_by.tv_sec && now.tv_nsec < t->drain_by.tv_nsec))
		return;
	pump(st, t, &t->out, STEPIO_STDOUT); /* the last of it, then EOF */
	if (t->out >= 0) {
		close(t->out);
		t->out = -1;
		if (!st->srun_gone)
			stepio_send(st->sock, STEPIO_STDOUT, t->id, NULL, 0);
	}
}

static bool all_exited(const struct step *st)
{
	for (uint32_t k = 0; k < st->n; k++)
		if (st->tasks[k].pid && !st->tasks[k].exited)
			return false;
	return true;
}

/* Slurm's OOM line, before the exits srun turns into "Out Of Memory". */
static void say_oom(struct step *st)
{
	char id[48], line[256];
	int64_t kills = cg_step_oom_kills(&st->cg);
	snprintf(id, sizeof(id), "%lld.%lld", (long long)st->job_id,
		 (long long)st->step_id);
	say_to_srun(st, line, lines_oom(line, sizeof(line), id, kills > 0 ? kills : 1));
}

/* Sends the exit of every task whose output is drained. True when all are. */
static bool report_exits(struct step *st)
{
	bool all = true;
	for (uint32_t k = 0; k < st->n; k++) {
		struct task *t = &st->tasks[k];
		if (t->reported)
			continue;
		if (!t->exited || t->out >= 0 || t->err >= 0) {
			all = false;
			continue;
		}
		uint32_t status = (uint32_t)t->status;
		/* a SIGKILL in a step whose cgroup saw an OOM kill: srun says
		 * "Out Of Memory" for it */
		if (WIFSIGNALED(t->status) && WTERMSIG(t->status) == SIGKILL &&
		    cg_step_oom(&st->cg, true)) {
			status |= STEPIO_EXIT_OOM;
			if (!st->oom)
				say_oom(st);
			st->oom = true;
		}
		uint8_t b[4] = {(uint8_t)(status >> 24), (uint8_t)(status >> 16),
				(uint8_t)(status >> 8), (uint8_t)status};
		int rc;
		if (!st->srun_gone &&
		    (rc = stepio_send(st->sock, STEPIO_EXIT, t->id, b, 4)) < 0)
			lose_srun(st, "sending an exit", -rc);
		t->reported = true;
	}
	return all;
}

static int poll_timeout(const struct step *st)
{
	if (!st->terminating)
		return 1000;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long ms = (st->kill_at.tv_sec - now.tv_sec) * 1000 +
		  (st->kill_at.tv_nsec - now.tv_nsec) / 1000000;
	/* lingering processes are no children of ours: look again soon */
	long most = all_exited(st) ? 100 : 1000;
	return ms < 0 ? 0 : ms > most ? (int)most : (int)ms;
}

/* What the tasks left holds their output open and outlived its SIGKILL by
 * UnkillableStepTimeout: their output ends here (EOF to srun), so that the
 * step can end and report it unkillable. */
static void give_up_output(struct step *st)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t limit = PROCS_UNKILLABLE_S(&st->ns);
	if (now.tv_sec - st->rest_killed.tv_sec < (limit > 0 ? limit : 60) ||
	    !procs_left(&st->cg))
		return;
	for (uint32_t k = 0; k < st->n; k++) {
		struct task *t = &st->tasks[k];
		int *fds[2] = {&t->out, &t->err};
		for (int i = 0; i < 2; i++) {
			if (*fds[i] < 0)
				continue;
			close(*fds[i]);
			*fds[i] = -1;
			if (!st->srun_gone)
				stepio_send(st->sock, i ? STEPIO_STDERR : STEPIO_STDOUT,
					    t->id, NULL, 0);
		}
	}
}

static void run_loop(struct step *st)
{
	struct pollfd *pfd = calloc(3 + 2 * (size_t)st->n, sizeof(*pfd));
	if (!pfd)
		return;
	bool killed_rest = false, sent_kill = false;
	for (;;) {
		size_t n = 0;
		pfd[n++] = (struct pollfd){.fd = st->sigfd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = st->srun_gone ? -1 : st->sock,
					   .events = POLLIN};
		for (uint32_t k = 0; k < st->n; k++) {
			pfd[n++] =
			    (struct pollfd){.fd = st->tasks[k].out, .events = POLLIN};
			pfd[n++] =
			    (struct pollfd){.fd = st->tasks[k].err, .events = POLLIN};
		}
		size_t pmix_at = n; /* --mpi=pmix: a fence to send up */
		pfd[n++] = (struct pollfd){.fd = pmixsrv_fd(st->pmix), .events = POLLIN};
		sampler_tick(&st->sm, limit_now());
		int r = poll(pfd, n, poll_timeout(st));
		if (r < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			reap(st);
		if (pfd[1].revents)
			from_srun(st);
		if (pfd[pmix_at].revents)
			pmix_event(st);
		for (uint32_t k = 0; k < st->n; k++) {
			struct task *t = &st->tasks[k];
			if (pfd[2 + 2 * k].revents && t->out >= 0)
				pump(st, t, &t->out, STEPIO_STDOUT);
			if (pfd[3 + 2 * k].revents && t->err >= 0)
				pump(st, t, &t->err, STEPIO_STDERR);
			pty_drain_check(st, t);
		}
		if (st->srun_gone)
			terminate(st, "srun is gone");
		if (st->terminating && !sent_kill && poll_timeout(st) == 0) {
			signal_tasks(st, SIGKILL);
			sent_kill = true;
		}
		/* what the tasks left behind; after a SIGTERM it has until
		 * KillWait to end by itself, as the SIGTERM promises */
		if (all_exited(st) && !killed_rest &&
		    (!st->terminating || sent_kill || !procs_left(&st->cg))) {
			signal_tasks(st, SIGKILL);
			killed_rest = true;
			clock_gettime(CLOCK_MONOTONIC, &st->rest_killed);
		}
		if (killed_rest)
			give_up_output(st);
		if (report_exits(st) && all_exited(st) && killed_rest)
			break;
	}
	free(pfd);
}

/* Ends srun's connection so that what we sent reaches it: a close with
 * srun's frames (stdin, signals) still unread would send a reset, and a
 * reset can throw away our last frames before srun read them. So: no more
 * writes, then srun's bytes are read and dropped until it closes (it does
 * once it has every task's exit), for at most a few seconds. */
static void hang_up(struct step *st)
{
	if (st->sock < 0)
		return;
	shutdown(st->sock, SHUT_WR);
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 5;
	char buf[4096];
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (end.tv_sec - now.tv_sec) * 1000 +
			  (end.tv_nsec - now.tv_nsec) / 1000000;
		struct pollfd p = {.fd = st->sock, .events = POLLIN};
		if (ms <= 0 || poll(&p, 1, (int)ms) <= 0)
			break;
		ssize_t n = read(st->sock, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	close(st->sock);
	st->sock = -1;
}

/* --- the whole step ---------------------------------------------------- */

static void record(struct step *st, bool launch_failed)
{
	int code = 0, sig = 0;
	for (uint32_t k = 0; k < st->n; k++) {
		int s = st->tasks[k].status;
		if (!st->tasks[k].pid)
			code = code < 1 ? 1 : code;
		else if (WIFEXITED(s) && WEXITSTATUS(s) > code)
			code = WEXITSTATUS(s);
		else if (WIFSIGNALED(s) && !sig)
			sig = WTERMSIG(s);
	}
	json_t *o = json_pack("{s:i,s:i,s:b}", "exit_code", launch_failed ? 1 : code,
			      "signal", sig, "launch_failed", launch_failed);
	if (st->oom)
		json_object_set_new(o, "oom", json_true());
	if (st->terminating) /* ended by a cancel, or because srun went away */
		json_object_set_new(o, "cancelled", json_true());
	if (st->unkillable)
		json_object_set_new(o, "unkillable", json_true());
	if (st->message[0])
		json_object_set_new(o, "message", json_string(st->message));
	if (st->usage.ntasks)
		json_object_set_new(o, "usage", usage_to_json(&st->usage));
	char *text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (text)
		drv_write_file_atomic(st->dir, "status", text, strlen(text), 0600);
	free(text);
	status_notify(st->dir, st->job_id);
}

static int load(struct step *st, const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/spec.json", dir);
	json_error_t jerr;
	st->spec = json_load_file(path, 0, &jerr);
	if (!st->spec)
		return snprintf(st->message, sizeof(st->message),
				"cannot read spec.json: %.160s", jerr.text),
		       -1;
	struct drv_error err;
	if (drv_rec_node_spec_decode(st->spec, &st->ns, &err) < 0)
		return snprintf(st->message, sizeof(st->message), "spec.json: %.160s",
				err.text),
		       -1;
	st->dir = dir;
	st->job_id = num(st->spec, "job_id", 0);
	st->step_id = num(st->spec, "step_id", 0);
	st->user = str(st->spec, "user");
	st->node = st->ns.node ? st->ns.node : "";
	st->cwd = str(st->spec, "cwd");
	st->uid = (uid_t)num(st->spec, "uid", 0);
	st->gid = (gid_t)num(st->spec, "gid", 0);
	st->kill_wait = (int)num(st->spec, "kill_wait", 30);
	json_t *tasks = json_object_get(st->spec, "tasks");
	st->n = (uint32_t)json_array_size(tasks);
	st->tasks = calloc(st->n ? st->n : 1, sizeof(*st->tasks));
	if (!st->tasks)
		return -1;
	for (uint32_t k = 0; k < st->n; k++)
		st->tasks[k] = (struct task){
		    .id = (uint32_t)json_integer_value(json_array_get(tasks, k)),
		    .local = k,
		    .out = -1,
		    .err = -1,
		    .in = -1};
	return 0;
}

int step_main(const char *dir)
{
	struct step st = {.sock = -1, .sigfd = -1};
	char pidbuf[24];
	int n = snprintf(pidbuf, sizeof(pidbuf), "%d\n", (int)getpid());
	drv_write_file_replace(dir, "shepherd.pid", pidbuf, (size_t)n, 0644);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	st.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	bool failed = load(&st, dir) < 0;
	if (!failed) {
		st.sock = drv_tcp_dial(str(st.spec, "io_host"),
				       (int)num(st.spec, "io_port", 0));
		if (st.sock < 0 || say_hello(&st) < 0) {
			snprintf(st.message, sizeof(st.message),
				 "cannot reach srun at %s:%lld", str(st.spec, "io_host"),
				 (long long)num(st.spec, "io_port", 0));
			failed = true;
		}
	}
	if (!failed)
		first_winsize(&st);
	if (!failed && !strcmp(str(st.spec, "mpi"), "pmix")) {
		st.pmix = pmixsrv_new(st.spec, st.node, st.job_id, st.step_id, st.uid,
				      st.gid, st.message, sizeof(st.message));
		if (!st.pmix) {
			tell_srun_failed(&st);
			failed = true;
		}
	}
	if (!failed && start_tasks(&st) < 0) {
		snprintf(st.message, sizeof(st.message), "cannot start the tasks: %s",
			 strerror(errno));
		terminate(&st, "start failed");
	}
	if (!failed &&
	    sampler_init(&st.sm, dir, st.ns.has_acct_freq ? st.ns.acct_freq : 0, st.n) ==
		0) {
		for (uint32_t k = 0; k < st.n; k++)
			sampler_set_task(&st.sm, k, st.tasks[k].id, st.tasks[k].pid);
		sampler_set_cgroup(&st.sm, &st.cg);
	}
	if (!failed)
		run_loop(&st);
	pmixsrv_free(st.pmix);
	bool sigkilled = false;
	for (uint32_t k = 0; k < st.n; k++)
		sigkilled |= st.tasks[k].exited && WIFSIGNALED(st.tasks[k].status) &&
			     WTERMSIG(st.tasks[k].status) == SIGKILL;
	if (cg_step_oom(&st.cg, sigkilled)) {
		st.oom = true;
		log_error("step=%lld.%lld: some of the step's tasks were OOM-killed "
			  "(limit %lld MiB)",
			  (long long)st.job_id, (long long)st.step_id,
			  (long long)st.cg.limit_mib);
	}
	/* nothing of the step outlives it: what the tasks left (a daemon in
	 * a session of its own too) is killed and waited for */
	char who[64];
	snprintf(who, sizeof(who), "step=%lld.%lld", (long long)st.job_id,
		 (long long)st.step_id);
	st.unkillable = procs_end(&st.cg, 0, PROCS_UNKILLABLE_S(&st.ns), who);
	cg_step_destroy(&st.cg);
	if (st.message[0])
		log_error("step=%lld.%lld: %s", (long long)st.job_id,
			  (long long)st.step_id, st.message);
	record(&st, failed);
	sampler_fini(&st.sm);
	hang_up(&st);
	json_decref(st.spec);
	free(st.tasks);
	return 0;
}
