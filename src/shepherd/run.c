/* run.c — forks the batch script in its own process group, as its user,
 * and waits for it.
 *
 * The child makes itself a process group leader and then waits on a pipe
 * until the parent has recorded the group id in the job dir, so noded can
 * signal the whole job from the moment it runs. The shepherd itself is never
 * in that group. While it runs, limit.c enforces its time limit; when the
 * script ends, what it left behind is killed, as Slurm does at the end of a
 * batch step: its whole cgroup when it has one (a daemon that changed its
 * session included, waited for up to UnkillableStepTimeout), else its
 * group. Once its streams are open the child hands the
 * shepherd its stderr (SCM_RIGHTS), so that Slurm's own lines (cancel, time
 * limit, OOM; lines.c) land in the job's stderr file, opened as the user. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "shepherd/shepherd.h"

/* What the child needs, all prepared before the fork. */
struct child_ctx {
	const struct spec *s;
	const char *script_path;
	char **argv;
	char **envp;
	char *out_path, *err_path, *in_path;
	int release_fd; /* read end: one byte once the pgid is recorded */
	int err_fd;	/* write end: why it failed before exec */
	int fd_sock[2]; /* the child sends its stderr on [1], we read [0] */
};

/* Sends fd over the unix socket sock; failures are dropped (no lines). */
static void send_fd(int sock, int fd)
{
	char byte = 'e';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	ssize_t n;
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
}

/* The fd the child sent, if it did (it has exec'd or exited by now): the
 * fd, or -1. */
static int recv_fd(int sock)
{
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	struct cmsghdr *cm = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void __attribute__((noreturn, format(printf, 3, 4)))
child_fail(const struct child_ctx *c, int code, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0) {
		ssize_t w = write(c->err_fd, buf, strnlen(buf, sizeof(buf)));
		(void)w;
	}
	_exit(code);
}

static void drop_privileges(const struct child_ctx *c)
{
	char err[256];
	if (shepherd_become_user(c->s->root, c->s->uid, c->s->gid, err, sizeof(err)) < 0)
		child_fail(c, 1, "%s", err);
}

/* The submitter's umask, which sbatch passed as SLURM_UMASK (octal). */
void apply_umask(char **envp)
{
	for (char **p = envp; *p; p++) {
		if (strncmp(*p, "SLURM_UMASK=", 12) != 0)
			continue;
		char *end;
		unsigned long m = strtoul(*p + 12, &end, 8);
		if (end != *p + 12 && !*end && m <= 0777)
			umask((mode_t)m);
		return;
	}
}

static void __attribute__((noreturn)) child_main(struct child_ctx *c)
{
	setpgid(0, 0);
	char byte;
	ssize_t n;
	do
		n = read(c->release_fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(1); /* the shepherd died before releasing us */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	char why[256];
	if (container_join(&c->s->ns, c->s->job_id, c->s->uid, c->s->gid, why,
			   sizeof(why)) < 0)
		child_fail(c, 1, "%s", why);
	drop_privileges(c);
	int chdir_errno = 0;
	if (chdir(c->s->workdir) < 0) {
		chdir_errno = errno;
		if (chdir("/tmp") < 0)
			child_fail(c, 1, "chdir /tmp: %s", strerror(errno));
	}
	apply_umask(c->envp);
	char err[256];
	struct io_paths io = {.in = c->in_path,
			      .out = c->out_path,
			      .err = c->err_path,
			      .append = c->s->open_append};
	if (io_setup(&io, err, sizeof(err)) < 0)
		child_fail(c, 1, "%s", err);
	send_fd(c->fd_sock[1], STDERR_FILENO);
	if (chdir_errno)
		dprintf(STDERR_FILENO,
			"slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp "
			"instead\n",
			c->s->workdir, strerror(chdir_errno));
	char pid[24];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	env_set(&c->envp, "SLURM_TASK_PID", pid);
	if (*c->s->task_prolog && task_prolog_run(c->s->task_prolog, &c->envp) < 0)
		child_fail(c, 1, "TaskProlog: out of memory");
	execve(c->script_path, c->argv, c->envp);
	int e = errno;
	dprintf(STDERR_FILENO, "slurmstepd: error: execve(): %s: %s\n", c->script_path,
		strerror(e));
	child_fail(c, e == ENOENT ? 127 : 126, "execve %s: %s", c->script_path,
		   strerror(e));
}

/* TaskEpilog as the user, in the job's directory and environment, its
 * output appended to the job's. */
static void run_task_epilog(struct child_ctx *c)
{
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		c->err_fd = -1;
		char why[256];
		if (container_join(&c->s->ns, c->s->job_id, c->s->uid, c->s->gid, why,
				   sizeof(why)) < 0)
			_exit(1);
		drop_privileges(c);
		if (chdir(c->s->workdir) < 0 && chdir("/tmp") < 0)
			_exit(1);
		char err[256];
		struct io_paths io = {
		    .in = "", .out = c->out_path, .err = c->err_path, .append = true};
		if (io_setup(&io, err, sizeof(err)) < 0)
			_exit(1);
		task_epilog_run(c->s->task_epilog, c->envp);
		_exit(0);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int prepare(struct child_ctx *c, const struct spec *s, const char *script_path)
{
	c->s = s;
	c->script_path = script_path;
	c->argv = calloc(s->n_argv + 2, sizeof(*c->argv));
	if (!c->argv)
		return -ENOMEM;
	c->argv[0] = (char *)script_path;
	for (size_t i = 0; i < s->n_argv; i++)
		c->argv[i + 1] = (char *)s->argv[i];
	c->envp = env_build(s);
	const char *out = *s->stdout_pat ? s->stdout_pat : "slurm-%j.out";
	c->out_path = io_expand(out, s);
	c->err_path = io_expand(s->stderr_pat, s);
	c->in_path = io_expand(s->stdin_pat, s);
	return c->envp && c->out_path && c->err_path && c->in_path ? 0 : -ENOMEM;
}

static void cleanup(struct child_ctx *c)
{
	free(c->argv);
	env_free(c->envp);
	free(c->out_path);
	free(c->err_path);
	free(c->in_path);
}

/* Waits for the script under its time limit; kills what is left of its
 * group while the leader is still a zombie (so its pid, the group id,
 * cannot have been reused), and everything in its cgroup. */
static void wait_job(const struct spec *s, struct limit *l, pid_t pid,
		     struct job_result *res)
{
	limit_wait(l, pid, s->job_id);
	res->timeout = l->timed_out;
	/* SIGTERM sent: the rest has until KillWait to finish, as promised */
	if (l->ended && l->kill_at)
		procs_linger(l->cg, l->kill_at);
	kill(-pid, SIGKILL);
	procs_signal(l->cg, 0, SIGKILL); /* before the wait for it to empty */
	int st = 0;
	struct rusage ru;
	pid_t got;
	while ((got = wait4(pid, &st, 0, &ru)) < 0 && errno == EINTR)
		;
	if (got == pid)
		usage_add(&res->usage, 0, &ru,
			  l->sampler ? sampler_task(l->sampler, pid) : NULL);
	if (WIFSIGNALED(st)) {
		res->exit_code = 0;
		res->sig = WTERMSIG(st);
	} else {
		res->exit_code = WEXITSTATUS(st);
		res->sig = 0;
	}
}

/* The parent's side of the start: record the group, release the child,
 * learn whether exec happened. */
static void release_child(const char *dir, pid_t pid, int release_wr, int err_rd,
			  struct job_result *res)
{
	setpgid(pid, pid);
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	int rc = drv_write_file_replace(dir, "pgid", buf, (size_t)n, 0644);
	if (rc < 0)
		log_error("cannot write %s/pgid: %s", dir, strerror(-rc));
	ssize_t w;
	do
		w = write(release_wr, "x", 1);
	while (w < 0 && errno == EINTR);
	close(release_wr);
	ssize_t r;
	size_t got = 0;
	while (got < sizeof(res->message) - 1) {
		r = read(err_rd, res->message + got, sizeof(res->message) - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	res->message[got] = '\0';
	close(err_rd);
}

/* Forks the child; 0 with *pid, or -errno with nothing left open. */
static int start_child(struct child_ctx *c, int rel[2], int errp[2], pid_t *pid)
{
	if (pipe2(rel, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		int e = errno;
		close(rel[0]);
		close(rel[1]);
		return -e;
	}
	pid_t child = fork();
	if (child == 0) {
		close(rel[1]);
		close(errp[0]);
		close(c->fd_sock[0]);
		c->release_fd = rel[0];
		c->err_fd = errp[1];
		child_main(c);
	}
	if (child < 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			close(rel[i]);
			close(errp[i]);
		}
		return -e;
	}
	close(rel[0]);
	close(errp[1]);
	close(c->fd_sock[1]);
	c->fd_sock[1] = -1;
	*pid = child;
	return 0;
}

/* DIR/stderr_path: where the job's stderr goes (its stdout's file when it
 * has none of its own), absolute, for noded to append scontrol notify's
 * lines to as the job's user. */
static void record_stderr_path(const char *dir, const struct child_ctx *c)
{
	const char *p = *c->err_path ? c->err_path : c->out_path;
	char *text = NULL;
	int n = p[0] == '/' ? asprintf(&text, "%s\n", p)
			    : asprintf(&text, "%s/%s\n", c->s->workdir, p);
	if (n < 0)
		return;
	int rc = drv_write_file_replace(dir, "stderr_path", text, (size_t)n, 0644);
	if (rc < 0)
		log_warn("cannot write %s/stderr_path: %s", dir, strerror(-rc));
	free(text);
}

/* The batch step was OOM-killed: the log, and Slurm's line in its stderr. */
static void report_oom(const struct spec *s, const struct cg_step *cg, int err_fd)
{
	log_error("job=%lld: the batch step was OOM-killed (limit %lld MiB)",
		  (long long)s->job_id, (long long)cg->limit_mib);
	char id[40], line[256];
	int64_t kills = cg_step_oom_kills(cg);
	snprintf(id, sizeof(id), "%lld.batch", (long long)s->job_id);
	lines_write(err_fd, line,
		    lines_oom(line, sizeof(line), id, kills > 0 ? kills : 1));
}

/* The batch step has ended: nothing of it may outlive it (a daemon it
 * started, a `setsid` child); what SIGKILL cannot end within
 * UnkillableStepTimeout is reported, and noded drains the node. */
static void end_job(const struct spec *s, const struct cg_step *cg,
		    struct job_result *res)
{
	char who[40];
	snprintf(who, sizeof(who), "job=%lld", (long long)s->job_id);
	res->unkillable = procs_end(cg, 0, PROCS_UNKILLABLE_S(&s->ns), who);
}

int run_job(const char *dir, const struct spec *s, const char *script_path,
	    struct job_result *res)
{
	struct limit lim;
	limit_init(&lim, s, limit_now());
	struct child_ctx c = {.fd_sock = {-1, -1}};
	int rel[2], errp[2];
	memset(res, 0, sizeof(*res));
	/* SIGCHLD stays blocked so limit_wait can wait for it with a timeout;
	 * the child unblocks everything before exec. */
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid_t pid = 0;
	int rc = prepare(&c, s, script_path);
	static struct cg_step cg, ext; /* large; one job per shepherd */
	memset(&cg, 0, sizeof(cg));
	if (rc == 0) /* PrologFlags=Contain: the extern step comes first */
		extern_begin(&ext, dir, s);
	if (rc == 0)
		isolate_begin(&cg, &s->ns, s->job_id, "batch", isolate_batch_mib(s));
	if (rc == 0 && socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, c.fd_sock) < 0)
		rc = -errno;
	if (rc == 0)
		rc = start_child(&c, rel, errp, &pid);
	if (rc == 0) {
		record_stderr_path(dir, &c);
		log_info("job=%lld script running, pid %d", (long long)s->job_id,
			 (int)pid);
		/* in its cgroup before it is released to exec */
		isolate_attach(&cg, pid, s->job_id);
		lim.cg = &cg;
		release_child(dir, pid, rel[1], errp[0], res);
		lim.err_fd = recv_fd(c.fd_sock[0]);
		struct sampler sm;
		if (sampler_init(&sm, dir, s->ns.has_acct_freq ? s->ns.acct_freq : 0,
				 1) == 0) {
			sampler_set_task(&sm, 0, 0, pid);
			sampler_set_cgroup(&sm, &cg);
			lim.sampler = &sm;
		}
		wait_job(s, &lim, pid, res);
		lim.sampler = NULL;
		sampler_fini(&sm);
		end_job(s, &cg, res);
		res->oom = cg_step_oom(&cg, res->sig == SIGKILL);
		if (res->oom)
			report_oom(s, &cg, lim.err_fd);
		if (*s->task_epilog)
			run_task_epilog(&c);
		if (lim.err_fd >= 0)
			close(lim.err_fd);
	}
	for (int i = 0; i < 2; i++)
		if (c.fd_sock[i] >= 0)
			close(c.fd_sock[i]);
	cg_step_destroy(&cg);
	/* after the batch step: the job's end ends what ssh sessions left */
	if (extern_end(&ext, dir, s) && rc == 0)
		res->unkillable = true;
	cleanup(&c);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
