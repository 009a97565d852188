/* cgroup_procs.c — signals and ends that reach every process a cgroup
 * tracks (cgroup_procs.h).
 *
 * It reads cgroup.procs files and sends signals; it never creates, moves
 * or removes a cgroup (cgroup.c owns those) and never logs. */
#include "common/cgroup_procs.h"
#include "common/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH 8	 /* job/step/task: far deeper than drover makes */
#define POLL_MS 50	 /* between kill passes while a cgroup empties */
#define FREEZE_TRIES 100 /* x 1 ms for a v1 freezer to say FROZEN */

struct pidv {
	pid_t *v;
	size_t n, cap;
};

static int push(struct pidv *p, pid_t pid)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		pid_t *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = pid;
	return 0;
}

/* Appends the pids of path (a cgroup.procs file) to p. */
static int read_procs(const char *path, struct pidv *p)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno; /* removed in between */
	long v;
	int rc = 0;
	while (rc == 0 && fscanf(f, "%ld", &v) == 1)
		if (v > 0 && v <= INT_MAX)
			rc = push(p, (pid_t)v);
	fclose(f);
	return rc;
}

static int collect(const char *dir, struct pidv *p, int depth)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	int rc = read_procs(path, p);
	struct dirent *e;
	while (rc == 0 && depth < MAX_DEPTH && (e = readdir(d))) {
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			continue;
		rc = collect(path, p, depth + 1);
		if (rc == -ENOENT) /* a child cgroup removed in between */
			rc = 0;
	}
	closedir(d);
	return rc;
}

int cgp_list(const char *dir, pid_t **pids, size_t *n)
{
	struct pidv p = {0};
	int rc = collect(dir, &p, 0);
	if (rc == -ENOENT) {
		free(p.v);
		*pids = NULL;
		*n = 0;
		return rc;
	}
	if (rc < 0) {
		free(p.v);
		return rc;
	}
	*pids = p.v;
	*n = p.n;
	return 0;
}

int cgp_signal(const char *dir, int sig)
{
	pid_t *pids, self = getpid();
	size_t n;
	int rc = cgp_list(dir, &pids, &n);
	if (rc < 0)
		return rc;
	int sent = 0;
	for (size_t i = 0; i < n; i++)
		if (pids[i] != self && kill(pids[i], sig) == 0)
			sent++;
	free(pids);
	return sent;
}

int cgp_count(const char *dir)
{
	pid_t *pids;
	size_t n;
	int rc = cgp_list(dir, &pids, &n);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	free(pids);
	return n > INT_MAX ? INT_MAX : (int)n;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return drv_write_control(path, text);
}

/* v1: freezes dir's freezer cgroup and waits (briefly) until it says so.
 * True when frozen; false leaves it thawed. */
static bool freeze(const char *freezer)
{
	char path[PATH_MAX], state[32];
	if (!freezer || !freezer[0] || write_file(freezer, "freezer.state", "FROZEN") < 0)
		return false;
	snprintf(path, sizeof(path), "%s/freezer.state", freezer);
	for (int i = 0; i < FREEZE_TRIES; i++) {
		FILE *f = fopen(path, "re");
		bool frozen =
		    f && fgets(state, sizeof(state), f) && !strncmp(state, "FROZEN", 6);
		if (f)
			fclose(f);
		if (frozen)
			return true;
		pause_ms(1);
	}
	return true; /* FREEZING: what could fork is stopped all the same */
}

int cgp_kill(const char *dir, const char *freezer)
{
	/* v2 (5.14+): the kernel kills the whole subtree, forks included */
	if (write_file(dir, "cgroup.kill", "1") == 0)
		return cgp_count(dir);
	bool frozen = freeze(freezer);
	int rc = cgp_signal(dir, SIGKILL);
	if (frozen)
		write_file(freezer, "freezer.state", "THAWED");
	return rc;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cgp_end(const char *dir, const char *freezer, int64_t timeout_ms)
{
	int64_t until = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		int rc = cgp_kill(dir, freezer);
		if (rc == -ENOENT)
			return 0;
		int left = cgp_count(dir);
		if (left == 0)
			return 0;
		if (now_ms() >= until)
			return left > 0 ? -ETIMEDOUT : left;
		pause_ms(POLL_MS);
		if (cgp_count(dir) == 0)
			return 0;
	}
}
