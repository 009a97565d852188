/* health.c — the node's HealthCheckProgram (slurm.conf's HealthCheckProgram,
 * HealthCheckInterval, HealthCheckNodeState; Drover's HealthCheckTimeout).
 *
 * Every HealthCheckInterval seconds, at the same wall-clock moment on every
 * node (with CYCLE: each node at its own slice of the interval), noded runs
 * the program as its own user (root in cluster mode) with SLURMD_NODENAME,
 * SLURM_CONF and DROVER_CONF and nothing else in its environment (no search
 * path), when the node's state, as ctld last told it (node.register's and
 * node.ping's replies), is one HealthCheckNodeState names; once also right
 * after the first registration. The loop never waits for it: the SIGCHLD handler
 * (launch.c) reaps it, an event reads its output, and a timer kills its
 * process group after HealthCheckTimeout. A program that exits non-zero,
 * dies of a signal or is killed at the timeout drains the node (node.drain)
 * with its first output line, or a line saying what happened, as reason.
 * Slurm's own contract, a program that runs `scontrol update State=DRAIN`
 * itself, needs nothing here. A passing check changes nothing. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/child.h"
#include "common/log.h"
#include "noded/noded.h"

static bool state_matches(unsigned mask, const char *state, bool drain)
{
	if ((mask & DRV_HC_ANY) == DRV_HC_ANY)
		return true;
	if (!strcmp(state, "IDLE"))
		return (mask & DRV_HC_IDLE) ||
		       ((mask & DRV_HC_NONDRAINED_IDLE) && !drain);
	if (!strcmp(state, "ALLOCATED"))
		return mask & DRV_HC_ALLOC;
	if (!strcmp(state, "MIXED"))
		return mask & DRV_HC_MIXED;
	return false; /* DOWN, UNKNOWN: only ANY runs there */
}

/* Seconds until the next run: the next multiple of the interval (shifted by
 * this node's slice of it with CYCLE). */
static int seconds_to_next(const struct noded *nd)
{
	const struct drv_conf *conf = nd->conf;
	int64_t interval = conf->health_check_interval, offset = 0;
	int64_t now = time(NULL);
	if ((conf->health_check_node_state & DRV_HC_CYCLE) && conf->n_nodes > 0) {
		int64_t idx = nd->node - conf->nodes;
		offset = idx * interval / (int64_t)conf->n_nodes;
	}
	int64_t next = ((now - offset) / interval + 1) * interval + offset;
	return next - now < 1 ? 1 : (int)(next - now);
}

static void arm_tick(struct noded *nd)
{
	if (!nd->health_tick)
		return;
	event_del(nd->health_tick);
	if (!nd->conf->health_check_program || nd->conf->health_check_interval <= 0)
		return;
	struct timeval tv = {seconds_to_next(nd), 0};
	event_add(nd->health_tick, &tv);
}

/* Keeps the first line of the program's output (printable, at most
 * sizeof(health_line) - 1 bytes) and drops the rest. Closes the pipe at its
 * end. */
static void read_output(struct noded *nd)
{
	char buf[512];
	ssize_t n;
	while (nd->health_fd >= 0 && (n = read(nd->health_fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return; /* EAGAIN: more later (or never: the reaper closes) */
		for (ssize_t i = 0; i < n && !nd->health_line_done; i++) {
			unsigned char ch = (unsigned char)buf[i];
			if (ch == '\n') {
				nd->health_line_done = nd->health_len > 0;
				continue;
			}
			if (nd->health_len + 1 >= sizeof(nd->health_line))
				continue;
			/* a reason is one line of plain text (JSON wants UTF-8) */
			nd->health_line[nd->health_len++] =
			    ch < 0x20 || ch >= 0x7f ? ' ' : (char)ch;
		}
	}
	event_del(nd->health_out);
	close(nd->health_fd);
	nd->health_fd = -1;
}

static void on_output(evutil_socket_t fd, short what, void *arg)
{
	read_output(arg);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	if (nd->health_pid <= 0)
		return;
	log_warn("node=%s HealthCheckProgram ran past %d s: killing it", nd->name,
		 nd->conf->health_check_timeout);
	nd->health_timed_out = true;
	kill(-nd->health_pid, SIGKILL);
}

static void run_check(struct noded *nd)
{
	const char *path = nd->conf->health_check_program;
	/* DROVER_CONF too: Drover's scontrol finds the config through it */
	static const char *const names[] = {"SLURMD_NODENAME", "SLURM_CONF",
					    "DROVER_CONF"};
	const char *values[] = {nd->name, nd->conf_path, nd->conf_path};
	char *env[4] = {NULL, NULL, NULL, NULL};
	bool ok = true;
	for (size_t i = 0; i < 3; i++)
		if (asprintf(&env[i], "%s=%s", names[i], values[i]) < 0) {
			env[i] = NULL;
			ok = false;
		}
	int fd = -1;
	pid_t pid = ok ? drv_child_spawn_output(path, env, &fd) : -ENOMEM;
	for (size_t i = 0; i < 3; i++)
		free(env[i]);
	if (pid < 0) {
		log_error("node=%s cannot start HealthCheckProgram %s: %s", nd->name,
			  path, strerror((int)-pid));
		return;
	}
	nd->health_pid = pid;
	nd->health_fd = fd;
	nd->health_timed_out = false;
	nd->health_len = 0;
	nd->health_line_done = false;
	event_assign(nd->health_out, nd->base, fd, EV_READ | EV_PERSIST, on_output, nd);
	event_add(nd->health_out, NULL);
	struct timeval tv = {nd->conf->health_check_timeout, 0};
	event_add(nd->health_kill, &tv);
	log_debug("node=%s HealthCheckProgram %s started, pid %d", nd->name, path,
		  (int)pid);
}

/* Runs the check now when it is configured, none runs, and the node's state
 * is one HealthCheckNodeState names. */
static void run_if_due(struct noded *nd)
{
	const struct drv_conf *conf = nd->conf;
	if (!conf->health_check_program || conf->health_check_interval <= 0 ||
	    !nd->registered || !nd->node_state[0])
		return;
	if (nd->health_pid > 0) {
		log_debug("node=%s HealthCheckProgram still runs; skipping a turn",
			  nd->name);
		return;
	}
	if (state_matches(conf->health_check_node_state, nd->node_state, nd->node_drain))
		run_check(nd);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	run_if_due(nd);
	arm_tick(nd);
}

/* The reason a failed run drains the node with. */
static void failure_reason(const struct noded *nd, int status, char *why, size_t len)
{
	if (nd->health_timed_out)
		snprintf(why, len, "HealthCheck timed out after %d sec",
			 nd->conf->health_check_timeout);
	else if (nd->health_len > 0)
		snprintf(why, len, "%.*s", (int)nd->health_len, nd->health_line);
	else if (WIFSIGNALED(status))
		snprintf(why, len, "HealthCheck failed: signal %d", WTERMSIG(status));
	else
		snprintf(why, len, "HealthCheck failed: exit %d", WEXITSTATUS(status));
}

static void send_drain(struct noded *nd, const char *why)
{
	struct drv_node_drain m = {.name = nd->name, .reason = (char *)why};
	json_t *body = drv_node_drain_encode(&m);
	if (!body || link_send_request(nd, "node.drain", body, NULL) < 0)
		log_error("node=%s cannot ask ctld to drain it: %s", nd->name, why);
}

bool health_reaped(struct noded *nd, pid_t pid, int status)
{
	if (pid != nd->health_pid || pid <= 0)
		return false;
	nd->health_pid = 0;
	event_del(nd->health_kill);
	read_output(nd); /* what is left; a daemonized child cannot hold us */
	if (nd->health_fd >= 0) {
		event_del(nd->health_out);
		close(nd->health_fd);
		nd->health_fd = -1;
	}
	if (!nd->health_timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		log_debug("node=%s HealthCheckProgram passed", nd->name);
		return true;
	}
	char why[200];
	failure_reason(nd, status, why, sizeof(why));
	log_warn("node=%s HealthCheckProgram failed (status %d:%d): draining it: %s",
		 nd->name, WIFEXITED(status) ? WEXITSTATUS(status) : 0,
		 WIFSIGNALED(status) ? WTERMSIG(status) : 0, why);
	send_drain(nd, why);
	return true;
}

void health_node_state(struct noded *nd, const char *state, bool drain, bool registered)
{
	snprintf(nd->node_state, sizeof(nd->node_state), "%s", state ? state : "");
	nd->node_drain = drain;
	if (registered && !nd->health_first_done) {
		/* as slurmd, once at start; then at each interval */
		nd->health_first_done = true;
		run_if_due(nd);
	}
}

void health_reconfigured(struct noded *nd)
{
	arm_tick(nd);
}

int health_start(struct noded *nd)
{
	nd->health_fd = -1;
	nd->health_tick = evtimer_new(nd->base, on_tick, nd);
	nd->health_kill = evtimer_new(nd->base, on_timeout, nd);
	nd->health_out = event_new(nd->base, -1, 0, on_output, nd);
	if (!nd->health_tick || !nd->health_kill || !nd->health_out)
		return -ENOMEM;
	arm_tick(nd);
	return 0;
}

void health_stop(struct noded *nd)
{
	if (nd->health_pid > 0)
		kill(-nd->health_pid, SIGKILL); /* ours: it dies with us */
	if (nd->health_fd >= 0)
		close(nd->health_fd);
	nd->health_fd = -1;
	struct event **evs[] = {&nd->health_tick, &nd->health_kill, &nd->health_out};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		if (*evs[i])
			event_free(*evs[i]);
		*evs[i] = NULL;
	}
}
