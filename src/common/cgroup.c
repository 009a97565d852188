/* cgroup.c — one job step's control groups (v1 and v2): detection, the
 * step's directories (every controller's), OOM detection and removal.
 * What each controller is told lives in cgroup_limits.c.
 *
 * It owns nothing but the directories it creates; it never moves the caller
 * itself, so the shepherd stays outside the limit it sets and survives its
 * tasks' OOM kill to report it. No logging here (callers log once). */
#include "common/cgroup.h"
#include "common/cgroup_internal.h"
#include "common/fileio.h"

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

int cg_read_text(const char *path, char *buf, size_t len)
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

static int write_file(const char *path, const char *text, bool create)
{
	if (create) { /* fake trees in tests: the file may not exist yet */
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	return drv_write_control(path, text);
}

static int write_text(const char *path, const char *text)
{
	return write_file(path, text, false);
}

int cg_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cg_write_in(const char *dir, const char *name, const char *text, bool create)
{
	char p[PATH_MAX];
	int rc = cg_join(p, sizeof(p), dir, name);
	return rc < 0 ? rc : write_file(p, text, create);
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];
	return cg_join(p, sizeof(p), dir, name) == 0 && access(p, F_OK) == 0;
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

/* Each controller's name: its v1 mount under ROOT, its word in v2's
 * cgroup.controllers. */
static const char *const ctl_names[CG_NCTL] = {"cpuset", "devices", "pids"};

int cg_detect(const char *root, struct cg_layout *l)
{
	struct cg_layout d = {.version = CG_NONE};
	char p[PATH_MAX], text[512];
	if (cg_join(p, sizeof(p), root, "cgroup.controllers") < 0)
		return -ENAMETOOLONG;
	if (cg_read_text(p, text, sizeof(text)) == 0 && has_word(text, "memory")) {
		d.version = CG_V2;
		snprintf(d.mem_root, sizeof(d.mem_root), "%s", root);
		d.v2_ctls = 1u << CG_DEVICES;
		for (int i = 0; i < CG_NCTL; i++)
			if (i != CG_DEVICES && has_word(text, ctl_names[i]))
				d.v2_ctls |= 1u << i;
	} else {
		if (cg_join(d.mem_root, sizeof(d.mem_root), root, "memory") < 0)
			return -ENAMETOOLONG;
		if (!exists(d.mem_root, "memory.limit_in_bytes"))
			return -ENOENT;
		d.version = CG_V1;
		d.memsw = exists(d.mem_root, "memory.memsw.limit_in_bytes");
		char frz[PATH_MAX];
		if (cg_join(frz, sizeof(frz), root, "freezer") == 0 &&
		    exists(frz, "cgroup.procs"))
			snprintf(d.freezer_root, sizeof(d.freezer_root), "%s", frz);
		for (int i = 0; i < CG_NCTL; i++)
			if (cg_join(frz, sizeof(frz), root, ctl_names[i]) == 0 &&
			    exists(frz, "cgroup.procs") && access(frz, W_OK) == 0)
				snprintf(d.ctl_root[i], PATH_MAX, "%s", frz);
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

/* 1 when made, 0 when it was there, or -errno. */
static int make_dir(const char *path)
{
	if (mkdir(path, 0755) == 0)
		return 1;
	return errno == EEXIST ? 0 : -errno;
}

/* What a tree is for: its controller decides what each new level needs. */
enum tree_kind { TREE_MEM, TREE_FRZ, TREE_V2, TREE_CPUSET, TREE_DEVICES, TREE_OTHER };

/* v2: children of dir may use the controllers the layout has. Each is
 * written alone: one the kernel refuses must not take the others along. */
static void enable_controllers(const struct cg_layout *l, const char *dir)
{
	static const char *const plus[CG_NCTL] = {"+cpuset", NULL, "+pids"};
	cg_write_in(dir, "cgroup.subtree_control", "+memory", l->plain_dirs);
	for (int i = 0; i < CG_NCTL; i++)
		if (plus[i] && l->v2_ctls >> i & 1)
			cg_write_in(dir, "cgroup.subtree_control", plus[i],
				    l->plain_dirs);
}

/* v1 cpuset: a cgroup takes no process until its cpus and mems are set;
 * mems (and cpus where lim names none, or at the node's level) come from
 * the parent. A job's and a step's cpus are lim's. */
static int cpuset_init(const struct cg_layout *l, const char *parent, const char *dir,
		       const char *cpus)
{
	char pc[PATH_MAX], text[4096];
	int rc = 0;
	if (!cpus) {
		if (cg_join(pc, sizeof(pc), parent, "cpuset.cpus") == 0 &&
		    cg_read_text(pc, text, sizeof(text)) == 0)
			rc = cg_write_in(dir, "cpuset.cpus", text, l->plain_dirs);
	} else {
		rc = cg_write_in(dir, "cpuset.cpus", cpus, l->plain_dirs);
	}
	if (rc == 0 && cg_join(pc, sizeof(pc), parent, "cpuset.mems") == 0 &&
	    cg_read_text(pc, text, sizeof(text)) == 0)
		rc = cg_write_in(dir, "cpuset.mems", text, l->plain_dirs);
	return rc;
}

/* dirs: the node's, the job's and the step's directory under base. Returns
 * 1 when the job's directory was made here, 0 when it was there, -errno.
 * v1 devices: a cgroup with children takes no "deny all", so the job's
 * rules go in as it is made, before its step's directory. */
static int make_tree(const struct cg_layout *l, enum tree_kind kind, const char *base,
		     const char *node, int64_t job_id, const char *step, char *dirs[3],
		     const struct cg_limits *lim)
{
	int rc = cg_path(dirs[1], PATH_MAX, base, node, job_id, NULL);
	if (rc == 0)
		rc = cg_path(dirs[2], PATH_MAX, base, node, job_id, step);
	if (rc < 0)
		return rc;
	snprintf(dirs[0], PATH_MAX, "%s", dirs[1]);
	*strrchr(dirs[0], '/') = '\0';
	if (kind == TREE_V2)
		enable_controllers(l, base);
	int job_new = 0;
	for (int i = 0; i < 3; i++) {
		if ((rc = make_dir(dirs[i])) < 0)
			return rc;
		if (i == 1)
			job_new = rc;
		if (kind == TREE_V2 && i < 2)
			enable_controllers(l, dirs[i]);
		if (kind == TREE_CPUSET &&
		    (rc = cpuset_init(l, i ? dirs[i - 1] : base, dirs[i],
				      i ? lim->cpus : NULL)) < 0)
			return rc;
		if (kind == TREE_DEVICES && i == 1 && job_new &&
		    (rc = cg_v1_devices(dirs[1], lim, l->plain_dirs)) < 0)
			return rc;
	}
	return job_new;
}

/* The v1 trees of cpuset, devices and pids that lim asks for; each absent
 * controller's bit goes to c->missing. Bit i of the result: controller i's
 * job directory was made here; or -errno. */
static int make_ctl_trees(struct cg_step *c, const char *node, int64_t job_id,
			  const char *step, const struct cg_limits *lim, char *err,
			  size_t errlen)
{
	bool want[CG_NCTL] = {lim->cpus != NULL, lim->devices, lim->pids_max > 0};
	static const enum tree_kind kinds[CG_NCTL] = {TREE_CPUSET, TREE_DEVICES,
						      TREE_OTHER};
	int made = 0;
	for (int i = 0; i < CG_NCTL; i++) {
		if (!want[i])
			continue;
		if (!c->lay.ctl_root[i][0]) {
			c->missing |= 1u << i;
			continue;
		}
		char *dirs[3] = {c->ctl_node[i], c->ctl_job[i], c->ctl[i]};
		int rc;
		for (int t = 0; t < 3; t++)
			if ((rc = make_tree(&c->lay, kinds[i], c->lay.ctl_root[i], node,
					    job_id, step, dirs, lim)) != -ENOENT)
				break;
		if (rc < 0) {
			snprintf(err, errlen, "cannot create %s: %s",
				 c->ctl[i][0] ? c->ctl[i] : c->lay.ctl_root[i],
				 strerror(-rc));
			return rc;
		}
		made |= rc << i;
	}
	return made;
}

int cg_step_create(struct cg_step *cg, const struct cg_layout *l, const char *node,
		   int64_t job_id, const char *step, const struct cg_limits *lim,
		   char *err, size_t errlen)
{
	static const struct cg_limits none;
	if (!lim)
		lim = &none;
	/* large (a few pages a controller): the caller's, not the stack's */
	struct cg_step *c = cg;
	memset(c, 0, sizeof(*c));
	c->lay = *l;
	c->limit_mib = lim->mem_mib > 0 ? lim->mem_mib : 0;
	bool v2 = l->version == CG_V2;
	char *dirs[3] = {c->mem_node, c->mem_job, c->mem};
	int rc;
	/* a sibling step's end may remove the job's directory in between */
	for (int i = 0; i < 3; i++)
		if ((rc = make_tree(l, v2 ? TREE_V2 : TREE_MEM, l->mem_root, node, job_id,
				    step, dirs, lim)) != -ENOENT)
			break;
	if (rc < 0) {
		snprintf(err, errlen, "cannot create %s: %s",
			 c->mem[0] ? c->mem : l->mem_root, strerror(-rc));
		memset(c, 0, sizeof(*c));
		return rc;
	}
	int job_new = rc ? 1 << CG_NCTL : 0;
	char *fdirs[3] = {c->frz_node, c->frz_job, c->frz};
	if (!v2 && l->freezer_root[0] &&
	    make_tree(l, TREE_FRZ, l->freezer_root, node, job_id, step, fdirs, lim) < 0)
		c->frz[0] = c->frz_job[0] = c->frz_node[0] = '\0'; /* optional */
	c->active = true;
	rc = v2 ? 0 : make_ctl_trees(c, node, job_id, step, lim, err, errlen);
	if (rc >= 0)
		job_new |= rc;
	if (rc >= 0)
		rc = cg_limits_apply(c, lim, job_new, err, errlen);
	if (rc < 0) {
		cg_step_destroy(c);
		return rc;
	}
	return 0;
}

int cg_step_attach(const struct cg_step *cg, pid_t pid)
{
	if (!cg->active)
		return 0;
	char p[PATH_MAX], v[24];
	snprintf(v, sizeof(v), "%d", (int)pid);
	int rc = cg_join(p, sizeof(p), cg->mem, "cgroup.procs");
	if (rc == 0)
		rc = write_text(p, v);
	if (rc == 0 && cg->frz[0] && cg_join(p, sizeof(p), cg->frz, "cgroup.procs") == 0)
		write_text(p, v);
	/* a limit that cannot hold the process is no limit: an error */
	for (int i = 0; rc == 0 && i < CG_NCTL; i++)
		if (cg->ctl[i][0])
			rc = cg_write_in(cg->ctl[i], "cgroup.procs", v, false);
	return rc;
}

static int64_t read_count(const char *dir, const char *file)
{
	char p[PATH_MAX], text[1024];
	int64_t n = 0;
	if (cg_join(p, sizeof(p), dir, file) < 0 ||
	    cg_read_text(p, text, sizeof(text)) < 0)
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
	if (cg_join(p, sizeof(p), dir, "cgroup.procs") < 0 ||
	    cg_read_text(p, text, sizeof(text)) < 0)
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
	if (cg->lay.version == CG_V2 &&
	    cg_join(p, sizeof(p), cg->mem, "cgroup.kill") == 0)
		write_text(p, "1");
	char state[PATH_MAX] = "";
	if (cg->frz[0] && cg_join(state, sizeof(state), cg->frz, "freezer.state") == 0 &&
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
	for (int i = 0; i < CG_NCTL; i++)
		remove_dir(cg->ctl[i], 300);
	/* siblings (other steps of the job, other jobs) keep these */
	remove_dir(cg->mem_job, 100);
	remove_dir(cg->frz_job, 100);
	for (int i = 0; i < CG_NCTL; i++)
		remove_dir(cg->ctl_job[i], 100);
	remove_dir(cg->mem_node, 100);
	remove_dir(cg->frz_node, 100);
	for (int i = 0; i < CG_NCTL; i++)
		remove_dir(cg->ctl_node[i], 100);
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
		    cg_join(p, sizeof(p), job, e->d_name) == 0)
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
	if (l->version != CG_V1)
		return;
	forget_under(l->freezer_root, node, job_id);
	for (int i = 0; i < CG_NCTL; i++)
		forget_under(l->ctl_root[i], node, job_id);
}
