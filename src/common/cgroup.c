/* cgroup.c — one job step's control groups (v1 and v2): detection, the
 * step's directories and memory limit, OOM detection and removal.
 *
 * It owns nothing but the directories it creates; it never moves the caller
 * itself, so the shepherd stays outside the limit it sets and survives its
 * tasks' OOM kill to report it. No logging here (callers log once). */
#include "common/cgroup.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	return 0;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t w;
	do
		w = write(fd, text, len);
	while (w < 0 && errno == EINTR);
	int e = w < 0 ? errno : (size_t)w == len ? 0 : EIO;
	close(fd);
	return -e;
}

static int join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];
	return join(p, sizeof(p), dir, name) == 0 && access(p, F_OK) == 0;
}

/* Does a whitespace-separated list hold word? */
static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; *p;) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \n\t");
		if (n == wl && !strncmp(p, word, wl))
			return true;
		p += n;
	}
	return false;
}

int cg_detect(const char *root, struct cg_layout *l)
{
	struct cg_layout d = {.version = CG_NONE};
	char p[PATH_MAX], text[512];
	if (join(p, sizeof(p), root, "cgroup.controllers") < 0)
		return -ENAMETOOLONG;
	if (read_text(p, text, sizeof(text)) == 0 && has_word(text, "memory")) {
		d.version = CG_V2;
		snprintf(d.mem_root, sizeof(d.mem_root), "%s", root);
	} else {
		if (join(d.mem_root, sizeof(d.mem_root), root, "memory") < 0)
			return -ENAMETOOLONG;
		if (!exists(d.mem_root, "memory.limit_in_bytes"))
			return -ENOENT;
		d.version = CG_V1;
		d.memsw = exists(d.mem_root, "memory.memsw.limit_in_bytes");
		char frz[PATH_MAX];
		if (join(frz, sizeof(frz), root, "freezer") == 0 &&
		    exists(frz, "cgroup.procs"))
			snprintf(d.freezer_root, sizeof(d.freezer_root), "%s", frz);
	}
	if (access(d.mem_root, W_OK) < 0)
		return -EACCES;
	*l = d;
	return 0;
}

int cg_path(char *buf, size_t len, const char *base, const char *node, int64_t job_id,
	    const char *step)
{
	const char *n = node && *node ? node : "local";
	int w = step ? snprintf(buf, len, "%s/drover_%s/job_%lld/step_%s", base, n,
				(long long)job_id, step)
		     : snprintf(buf, len, "%s/drover_%s/job_%lld", base, n,
				(long long)job_id);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int cg_parse_oom_kill(const char *text, int64_t *n)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "oom_kill ", 9) != 0)
			continue;
		/* The kernel writes an unsigned decimal: a sign, a blank or a
		 * value past INT64_MAX is not a count (strtoll takes the first
		 * two and clamps the last). */
		char *end;
		errno = 0;
		long long v = strtoll(p + 9, &end, 10);
		if (!isdigit((unsigned char)p[9]) || errno || (*end && *end != '\n'))
			return -EINVAL;
		*n = v;
		return 0;
	}
	return -ENOENT;
}

/* --- one step ----------------------------------------------------------- */

static int make_dir(const char *path)
{
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* v2: children of dir may use the memory controller. */
static void enable_memory(const char *dir)
{
	char p[PATH_MAX];
	if (join(p, sizeof(p), dir, "cgroup.subtree_control") == 0)
		write_text(p, "+memory");
}

static int make_tree(const char *base, const char *node, int64_t job_id, const char *step,
		     char *node_dir, char *job_dir, char *step_dir, bool v2)
{
	int rc = cg_path(job_dir, PATH_MAX, base, node, job_id, NULL);
	if (rc == 0)
		rc = cg_path(step_dir, PATH_MAX, base, node, job_id, step);
	if (rc < 0)
		return rc;
	snprintf(node_dir, PATH_MAX, "%s", job_dir);
	*strrchr(node_dir, '/') = '\0';
	if (v2)
		enable_memory(base);
	if ((rc = make_dir(node_dir)) < 0)
		return rc;
	if (v2)
		enable_memory(node_dir);
	if ((rc = make_dir(job_dir)) < 0)
		return rc;
	if (v2)
		enable_memory(job_dir);
	return make_dir(step_dir);
}

static int set_limit(struct cg_step *cg, int64_t mib)
{
	char p[PATH_MAX], v[32];
	snprintf(v, sizeof(v), "%lld", (long long)mib * 1024 * 1024);
	int rc;
	if (cg->lay.version == CG_V2) {
		if ((rc = join(p, sizeof(p), cg->mem, "memory.max")) < 0 ||
		    (rc = write_text(p, v)) < 0)
			return rc;
		if (join(p, sizeof(p), cg->mem, "memory.swap.max") == 0)
			write_text(p, "0"); /* absent without swap accounting */
		return 0;
	}
	if ((rc = join(p, sizeof(p), cg->mem, "memory.limit_in_bytes")) < 0 ||
	    (rc = write_text(p, v)) < 0)
		return rc;
	/* memsw is memory + swap: equal to the limit, the step gets no swap */
	if (cg->lay.memsw &&
	    join(p, sizeof(p), cg->mem, "memory.memsw.limit_in_bytes") == 0)
		write_text(p, v);
	return 0;
}

int cg_step_create(struct cg_step *cg, const struct cg_layout *l, const char *node,
		   int64_t job_id, const char *step, int64_t limit_mib, char *err,
		   size_t errlen)
{
	struct cg_step c = {.lay = *l, .limit_mib = limit_mib > 0 ? limit_mib : 0};
	bool v2 = l->version == CG_V2;
	int rc;
	/* a sibling step's end may remove the job's directory in between */
	for (int i = 0; i < 3; i++)
		if ((rc = make_tree(l->mem_root, node, job_id, step, c.mem_node,
				    c.mem_job, c.mem, v2)) != -ENOENT)
			break;
	if (rc < 0) {
		snprintf(err, errlen, "cannot create %s: %s",
			 c.mem[0] ? c.mem : l->mem_root, strerror(-rc));
		return rc;
	}
	if (!v2 && l->freezer_root[0] &&
	    make_tree(l->freezer_root, node, job_id, step, c.frz_node, c.frz_job, c.frz,
		      false) < 0)
		c.frz[0] = c.frz_job[0] = c.frz_node[0] = '\0'; /* optional */
	c.active = true;
	if (c.limit_mib && (rc = set_limit(&c, c.limit_mib)) < 0) {
		snprintf(err, errlen, "cannot set the memory limit of %s: %s", c.mem,
			 strerror(-rc));
		cg_step_destroy(&c);
		return rc;
	}
	*cg = c;
	return 0;
}

int cg_step_attach(const struct cg_step *cg, pid_t pid)
{
	if (!cg->active)
		return 0;
	char p[PATH_MAX], v[24];
	snprintf(v, sizeof(v), "%d", (int)pid);
	int rc = join(p, sizeof(p), cg->mem, "cgroup.procs");
	if (rc == 0)
		rc = write_text(p, v);
	if (rc == 0 && cg->frz[0] && join(p, sizeof(p), cg->frz, "cgroup.procs") == 0)
		write_text(p, v);
	return rc;
}

static int64_t read_count(const char *dir, const char *file)
{
	char p[PATH_MAX], text[1024];
	int64_t n = 0;
	if (join(p, sizeof(p), dir, file) < 0 || read_text(p, text, sizeof(text)) < 0)
		return -1;
	if (!strcmp(file, "memory.failcnt"))
		return strtoll(text, NULL, 10);
	return cg_parse_oom_kill(text, &n) == 0 ? n : -1;
}

bool cg_step_oom(const struct cg_step *cg, bool sigkilled)
{
	if (!cg->active || !cg->limit_mib)
		return false;
	if (cg->lay.version == CG_V2)
		return read_count(cg->mem, "memory.events") > 0;
	int64_t n = read_count(cg->mem, "memory.oom_control");
	if (n >= 0)
		return n > 0;
	return sigkilled && read_count(cg->mem, "memory.failcnt") > 0;
}

int64_t cg_step_oom_kills(const struct cg_step *cg)
{
	if (!cg->active || !cg->limit_mib)
		return 0;
	int64_t n = read_count(cg->mem, cg->lay.version == CG_V2 ? "memory.events"
								 : "memory.oom_control");
	return n > 0 ? n : 0;
}

/* SIGKILL to every process listed in dir/cgroup.procs; how many there were. */
static int kill_listed(const char *dir)
{
	char p[PATH_MAX], text[8192];
	if (join(p, sizeof(p), dir, "cgroup.procs") < 0 ||
	    read_text(p, text, sizeof(text)) < 0)
		return 0;
	int n = 0;
	for (char *s = text, *end; *s; s = end) {
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	}
	return n;
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void kill_all(const struct cg_step *cg)
{
	char p[PATH_MAX];
	if (cg->lay.version == CG_V2 && join(p, sizeof(p), cg->mem, "cgroup.kill") == 0)
		write_text(p, "1");
	char state[PATH_MAX] = "";
	if (cg->frz[0] && join(state, sizeof(state), cg->frz, "freezer.state") == 0 &&
	    write_text(state, "FROZEN") < 0)
		state[0] = '\0';
	/* Frozen, nothing can fork between our read and the kill; a frozen
	 * process dies of SIGKILL once thawed. */
	for (int i = 0; i < 200; i++) {
		int n = kill_listed(cg->mem) + (cg->frz[0] ? kill_listed(cg->frz) : 0);
		if (state[0]) {
			write_text(state, "THAWED");
			state[0] = '\0';
		}
		if (!n)
			break;
		pause_ms(10);
	}
}

static bool has_subdirs(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	struct dirent *e;
	bool any = false;
	while (!any && (e = readdir(d)))
		any = e->d_type == DT_DIR && strcmp(e->d_name, ".") &&
		      strcmp(e->d_name, "..");
	closedir(d);
	return any;
}

/* A cgroup stays busy a moment after its last process, or its last child,
 * is gone; one that still has children (other steps, other jobs) is left
 * at once. */
static void remove_dir(const char *dir, int tries)
{
	if (!dir[0])
		return;
	for (int i = 0;
	     i < tries && rmdir(dir) < 0 && errno == EBUSY && !has_subdirs(dir); i++)
		pause_ms(10);
}

void cg_step_destroy(struct cg_step *cg)
{
	if (!cg || !cg->active)
		return;
	kill_all(cg);
	remove_dir(cg->mem, 300);
	remove_dir(cg->frz, 300);
	/* siblings (other steps of the job, other jobs) keep these */
	remove_dir(cg->mem_job, 100);
	remove_dir(cg->frz_job, 100);
	remove_dir(cg->mem_node, 100);
	remove_dir(cg->frz_node, 100);
	cg->active = false;
}

static void forget_under(const char *base, const char *node, int64_t job_id)
{
	char job[PATH_MAX], p[PATH_MAX];
	if (!base[0] || cg_path(job, sizeof(job), base, node, job_id, NULL) < 0)
		return;
	DIR *d = opendir(job); /* NULL when gone already: the node's may remain */
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "step_", 5) &&
		    join(p, sizeof(p), job, e->d_name) == 0)
			rmdir(p);
	if (d)
		closedir(d);
	remove_dir(job, 100);
	*strrchr(job, '/') = '\0';
	remove_dir(job, 100);
}

/* Each step of job under l, as a cg_step whose destroy kills and removes. */
static void remove_steps(const struct cg_layout *l, const char *node, int64_t job_id)
{
	char job[PATH_MAX];
	if (cg_path(job, sizeof(job), l->mem_root, node, job_id, NULL) < 0)
		return;
	DIR *d = opendir(job);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "step_", 5))
			continue;
		struct cg_step c = {.lay = *l, .active = true};
		const char *step = e->d_name + 5;
		cg_path(c.mem, PATH_MAX, l->mem_root, node, job_id, step);
		cg_path(c.mem_job, PATH_MAX, l->mem_root, node, job_id, NULL);
		if (l->version == CG_V1 && l->freezer_root[0]) {
			cg_path(c.frz, PATH_MAX, l->freezer_root, node, job_id, step);
			cg_path(c.frz_job, PATH_MAX, l->freezer_root, node, job_id, NULL);
			if (access(c.frz, F_OK) < 0)
				c.frz[0] = c.frz_job[0] = '\0';
		}
		cg_step_destroy(&c);
	}
	closedir(d);
}

void cg_each_job(const struct cg_layout *l, const char *node,
		 void (*fn)(int64_t job_id, void *arg), void *arg)
{
	char dir[PATH_MAX];
	if (l->version == CG_NONE ||
	    cg_path(dir, sizeof(dir), l->mem_root, node, 0, NULL) < 0)
		return;
	*strrchr(dir, '/') = '\0'; /* MOUNT/drover_NODE */
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long long id =
		    strncmp(e->d_name, "job_", 4) ? 0 : strtoll(e->d_name + 4, &end, 10);
		if (id > 0 && !*end)
			fn(id, arg);
	}
	closedir(d);
}

struct node_ref {
	const struct cg_layout *l;
	const char *node;
};

static void remove_job(int64_t job_id, void *arg)
{
	const struct node_ref *r = arg;
	remove_steps(r->l, r->node, job_id);
	cg_job_forget(r->l, r->node, job_id);
}

void cg_node_remove(const struct cg_layout *l, const char *node)
{
	struct node_ref r = {l, node};
	cg_each_job(l, node, remove_job, &r);
}

void cg_job_forget(const struct cg_layout *l, const char *node, int64_t job_id)
{
	if (l->version == CG_NONE)
		return;
	forget_under(l->mem_root, node, job_id);
	if (l->version == CG_V1)
		forget_under(l->freezer_root, node, job_id);
}
