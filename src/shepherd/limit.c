/* limit.c — the job's time limit, enforced by the shepherd that owns it.
 *
 * With --signal=[B:]SIG@secs, SIG goes to the job's processes (or with B:
 * to the batch shell alone) secs before the deadline, once. At the
 * deadline they all get SIGCONT and SIGTERM, and KillWait seconds later
 * SIGKILL if the batch shell still runs. "The job's processes" are those of
 * its cgroup when it has one (procs.c: a `setsid` child too), else its
 * process group. The shepherd
 * owns the timer so that the limit holds whatever happens to noded. The
 * deadline is kept on CLOCK_MONOTONIC: a change of the wall clock after the
 * start neither shortens nor stretches a running job. A cancel that noded
 * passes on (DRV_SHEPHERD_KILL_SIG) ends the group the same way. Either
 * way Slurm's "*** JOB N ON NODE CANCELLED AT T ***" line goes to the job's
 * stderr first, as slurmstepd writes it. While noded says the job is
 * suspended (DRV_SHEPHERD_SUSPEND, then DRV_SHEPHERD_RESUME) the clock
 * stops: the deadlines move by the time it was suspended, as in Slurm.
 * This file signals only the job it is given and never reaps. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "common/log.h"
#include "shepherd/shepherd.h"

#define NS_PER_S 1000000000LL

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t limit_now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void limit_init(struct limit *l, const struct spec *s, int64_t started)
{
	l->term_at = 0;
	l->kill_at = 0;
	l->kill_wait_ns = (s->kill_wait > 0 ? s->kill_wait : 0) * NS_PER_S;
	l->timed_out = false;
	l->ended = false;
	l->warn_at = 0;
	l->paused_at = 0;
	l->warn_signal = (int)s->warn_signal;
	l->warn_batch = s->warn_batch;
	l->err_fd = -1;
	l->node = s->node;
	l->cg = NULL;
	l->sampler = NULL;
	if (s->time_limit <= 0) /* -1 unlimited; -t 0 asks for no limit */
		return;
	int64_t limit_ns = s->time_limit * NS_PER_S;
	/* ctld's start is in whole seconds: when the job starts in that second or
	 * the next (the usual case), its own start is the exact one; a launch
	 * much later than the allocation (sent again after a restart) counts
	 * from ctld's start, as Slurm does. */
	int64_t elapsed =
	    s->start_time > 0 ? clock_ns(CLOCK_REALTIME) - s->start_time * NS_PER_S : 0;
	if (elapsed > 2 * NS_PER_S) {
		l->term_at = limit_now() - elapsed + limit_ns;
	} else {
		l->term_at = started + limit_ns;
	}
	if (l->term_at <= 0)
		l->term_at = 1; /* already due */
	if (l->warn_signal > 0) {
		/* A job shorter than the warning gets it at once, as in Slurm. */
		l->warn_at = l->term_at - s->warn_time * NS_PER_S;
		if (l->warn_at <= 0)
			l->warn_at = 1;
	}
}

/* Slurm's line, then SIGCONT and SIGTERM to the job; SIGKILL is due
 * KillWait later. Once only. */
static void terminate(struct limit *l, pid_t pid, int64_t job_id, int why, int64_t now)
{
	if (l->ended)
		return;
	char entity[32], line[160];
	snprintf(entity, sizeof(entity), "JOB %lld", (long long)job_id);
	lines_write(l->err_fd, line,
		    lines_cancelled(line, sizeof(line), entity, l->node, why));
	l->ended = true;
	l->kill_at = now + l->kill_wait_ns;
	procs_signal(l->cg, pid, SIGCONT);
	procs_signal(l->cg, pid, SIGTERM);
}

/* Acts on whichever deadline has passed; returns the next one (0: none). */
static int64_t limit_step(struct limit *l, pid_t pid, int64_t job_id, int64_t now)
{
	if (l->paused_at && !l->ended)
		return 0; /* suspended: no deadline runs */
	if (l->warn_at && now >= l->warn_at) {
		log_info("job=%lld time limit near, signal %d to %s %d",
			 (long long)job_id, l->warn_signal,
			 l->warn_batch ? "batch shell" : "group", (int)pid);
		if (l->warn_batch)
			kill(pid, l->warn_signal);
		else
			procs_signal(l->cg, pid, l->warn_signal);
		l->warn_at = 0;
	}
	if (l->term_at && !l->ended && now >= l->term_at) {
		log_info("job=%lld time limit reached, SIGTERM to group %d, SIGKILL "
			 "in %llds",
			 (long long)job_id, (int)pid,
			 (long long)(l->kill_wait_ns / NS_PER_S));
		l->timed_out = true;
		terminate(l, pid, job_id, DRV_KILL_WHY_TIME_LIMIT, now);
	}
	if (l->kill_at && now >= l->kill_at) {
		log_info("job=%lld still running after KillWait, SIGKILL to group %d",
			 (long long)job_id, (int)pid);
		procs_signal(l->cg, pid, SIGKILL);
		l->kill_at = 0;
	}
	if (l->ended)
		return l->kill_at;
	return l->warn_at && l->warn_at < l->term_at ? l->warn_at : l->term_at;
}

static bool leader_exited(pid_t pid)
{
	siginfo_t si = {0};
	int rc;
	do
		rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
	while (rc < 0 && errno == EINTR);
	/* ECHILD: not ours to wait for any more, so nothing left to limit. */
	return rc < 0 || si.si_pid == pid;
}

/* scontrol suspend stops the clock; resume moves the deadlines on by the
 * time it stood still. */
static void pause_clock(struct limit *l, int64_t job_id, bool suspend)
{
	int64_t now = limit_now();
	if (suspend && !l->paused_at) {
		l->paused_at = now;
		log_info("job=%lld suspended: its time limit waits", (long long)job_id);
	} else if (!suspend && l->paused_at) {
		int64_t stood = now - l->paused_at;
		if (l->term_at)
			l->term_at += stood;
		if (l->warn_at)
			l->warn_at += stood;
		l->paused_at = 0;
		log_info("job=%lld resumed: its time limit moves on by %llds",
			 (long long)job_id, (long long)(stood / NS_PER_S));
	}
}

/* Waits up to ts for a signal of set; noded's kill (its sigqueue() with a
 * known reason: a plain kill() carries none) ends the job; its suspend and
 * resume stop and start the clock. */
static void take_signal(struct limit *l, pid_t pid, int64_t job_id, const sigset_t *set,
			const struct timespec *ts)
{
	siginfo_t si;
	if (sigtimedwait(set, &si, ts) != DRV_SHEPHERD_KILL_SIG || si.si_code != SI_QUEUE)
		return;
	if (si.si_value.sival_int == DRV_SHEPHERD_SUSPEND ||
	    si.si_value.sival_int == DRV_SHEPHERD_RESUME) {
		pause_clock(l, job_id, si.si_value.sival_int == DRV_SHEPHERD_SUSPEND);
		return;
	}
	if (si.si_value.sival_int <= DRV_KILL_WHY_NONE ||
	    si.si_value.sival_int > DRV_KILL_WHY_REQUEUE)
		return;
	log_info("job=%lld ending it as noded asks, SIGKILL in %llds", (long long)job_id,
		 (long long)(l->kill_wait_ns / NS_PER_S));
	/* ctld's clock may reach the limit a moment before ours */
	if (si.si_value.sival_int == DRV_KILL_WHY_TIME_LIMIT && !l->ended)
		l->timed_out = true;
	terminate(l, pid, job_id, si.si_value.sival_int, limit_now());
}

void limit_wait(struct limit *l, pid_t pid, int64_t job_id)
{
	sigset_t chld, kill_only;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigaddset(&chld, DRV_SHEPHERD_KILL_SIG);
	sigemptyset(&kill_only);
	sigaddset(&kill_only, DRV_SHEPHERD_KILL_SIG);
	while (!leader_exited(pid)) {
		int64_t now = limit_now();
		int64_t next = limit_step(l, pid, job_id, now);
		if (leader_exited(pid))
			break;
		/* Without a deadline, still wake now and then: cheap, and it
		 * bounds the cost of a SIGCHLD lost to another waiter. */
		int64_t wait_ns = next ? next - now : 60 * NS_PER_S;
		if (l->sampler) {
			sampler_tick(l->sampler, now);
			int64_t due = sampler_next(l->sampler);
			if (due && due - now < wait_ns)
				wait_ns = due - now;
		}
		if (wait_ns < 0)
			wait_ns = 0;
		struct timespec ts = {.tv_sec = (time_t)(wait_ns / NS_PER_S),
				      .tv_nsec = (long)(wait_ns % NS_PER_S)};
		/* EINTR, EAGAIN (the deadline) and SIGCHLD all loop back. */
		take_signal(l, pid, job_id, &chld, &ts);
	}
	/* a kill that came as the script ended still has its line written (and
	 * what the script left gets SIGTERM before the SIGKILL that follows) */
	struct timespec zero = {0, 0};
	take_signal(l, pid, job_id, &kill_only, &zero);
}
