/* sample.c — what a step's tasks hold while they run (Slurm's
 * jobacct_gather/linux): every JobAcctGatherFrequency seconds the step's
 * processes are read from /proc (RSS, virtual size, CPU time), summed per
 * task, and each task's peaks kept; DIR/usage then holds the step's usage
 * so far ("usage", docs/protocol.md), which noded hands to sstat.
 *
 * The step's processes are its cgroup's (cgroup.procs: daemonized ones
 * too) when it has one, else the processes under this shepherd. A process
 * belongs to the task whose pid is its nearest ancestor; one under no task
 * (reparented away) counts for the first task. Owns nothing outside the
 * sampler; never signals or waits for anything. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "shepherd/shepherd.h"

#define NS_PER_S 1000000000LL

struct proc {
	pid_t pid, ppid;
	int64_t rss_kib, vsize_kib, user_usec, sys_usec;
	bool member;
};

int sampler_init(struct sampler *sm, const char *dir, int64_t period_s, uint32_t ntasks)
{
	memset(sm, 0, sizeof(*sm));
	sm->dir = dir;
	sm->root = getpid();
	sm->period_ns = period_s > 0 ? period_s * NS_PER_S : 0;
	sm->n = ntasks;
	sm->t = calloc(ntasks ? ntasks : 1, sizeof(*sm->t));
	return sm->t ? 0 : -ENOMEM;
}

void sampler_set_task(struct sampler *sm, uint32_t k, uint32_t id, pid_t pid)
{
	if (k < sm->n) {
		sm->t[k].id = id;
		sm->t[k].pid = pid;
	}
}

void sampler_set_cgroup(struct sampler *sm, const struct cg_step *cg)
{
	int n = cg->active ? snprintf(sm->procs, sizeof(sm->procs), "%.*s/cgroup.procs",
				      (int)sizeof(sm->procs) - 16, cg->mem)
			   : -1;
	if (n < 0 || (size_t)n >= sizeof(sm->procs))
		sm->procs[0] = '\0';
}

void sampler_fini(struct sampler *sm)
{
	free(sm->t);
	free(sm->pids);
	memset(sm, 0, sizeof(*sm));
}

/* Fields 4 (ppid), 14-17 (utime stime cutime cstime), 23 (vsize) and 24
 * (rss) of /proc/PID/stat, counted after the command's closing ')'. */
static int read_stat(pid_t pid, struct proc *p, long tck, long page_kib)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *s = strrchr(buf, ')');
	if (!s)
		return -EBADMSG;
	long long v[25] = {0};
	int field = 2; /* s points at the end of field 2 */
	for (char *tok = strtok(s + 1, " "); tok && field < 24; tok = strtok(NULL, " "))
		v[++field] = strtoll(tok, NULL, 10);
	if (field < 24)
		return -EBADMSG;
	p->pid = pid;
	p->ppid = (pid_t)v[4];
	p->user_usec = (v[14] + v[16]) * 1000000 / tck; /* with reaped children's */
	p->sys_usec = (v[15] + v[17]) * 1000000 / tck;
	p->vsize_kib = v[23] / 1024;
	p->rss_kib = v[24] * page_kib;
	p->member = false;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct proc *find(struct proc *v, size_t n, pid_t pid)
{
	struct proc key = {.pid = pid};
	return bsearch(&key, v, n, sizeof(*v), by_pid);
}

/* Every process of the host, sorted by pid. */
static int read_all(struct proc **out, size_t *count)
{
	long tck = sysconf(_SC_CLK_TCK), page_kib = sysconf(_SC_PAGESIZE) / 1024;
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	struct proc *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			struct proc *nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (read_stat((pid_t)atol(e->d_name), &v[n], tck > 0 ? tck : 100,
			      page_kib > 0 ? page_kib : 4) == 0)
			n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), by_pid);
	*out = v;
	*count = n;
	return 0;
}

/* Marks the step's processes: the cgroup's, else those under root. */
static void mark_members(const struct sampler *sm, struct proc *v, size_t n)
{
	FILE *f = sm->procs[0] ? fopen(sm->procs, "re") : NULL;
	if (f) {
		long pid;
		while (fscanf(f, "%ld", &pid) == 1) {
			struct proc *p = find(v, n, (pid_t)pid);
			if (p)
				p->member = true;
		}
		fclose(f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		pid_t up = v[i].ppid;
		for (int depth = 0; up > 1 && depth < 256; depth++) {
			if (up == sm->root) {
				v[i].member = true;
				break;
			}
			const struct proc *p = find(v, n, up);
			up = p ? p->ppid : 0;
		}
	}
}

/* The index of the task p belongs to: its nearest ancestor (itself
 * included) that is a task, else 0. */
static uint32_t task_of(const struct sampler *sm, struct proc *v, size_t n,
			const struct proc *p)
{
	for (int depth = 0; p && p->pid > 1 && depth < 256; depth++) {
		for (uint32_t k = 0; k < sm->n; k++)
			if (sm->t[k].pid == p->pid)
				return k;
		p = find(v, n, p->ppid);
	}
	return 0;
}

static void take(struct sampler *sm)
{
	struct proc *v = NULL;
	size_t n = 0;
	if (read_all(&v, &n) < 0 || sm->n == 0) {
		free(v);
		return;
	}
	mark_members(sm, v, n);
	int64_t *rss = calloc(sm->n, sizeof(*rss)), *vsz = calloc(sm->n, sizeof(*vsz));
	int64_t *usr = calloc(sm->n, sizeof(*usr)), *sys = calloc(sm->n, sizeof(*sys));
	uint32_t *pids = calloc(n ? n : 1, sizeof(*pids));
	size_t np = 0;
	for (size_t i = 0; rss && vsz && usr && sys && pids && i < n; i++) {
		if (!v[i].member || v[i].pid == sm->root)
			continue;
		uint32_t k = task_of(sm, v, n, &v[i]);
		rss[k] += v[i].rss_kib;
		vsz[k] += v[i].vsize_kib;
		usr[k] += v[i].user_usec;
		sys[k] += v[i].sys_usec;
		pids[np++] = (uint32_t)v[i].pid;
	}
	for (uint32_t k = 0; rss && vsz && usr && sys && pids && k < sm->n; k++) {
		struct task_sample *t = &sm->t[k];
		if (rss[k] > t->rss_kib)
			t->rss_kib = rss[k];
		if (vsz[k] > t->vsize_kib)
			t->vsize_kib = vsz[k];
		if (usr[k] + sys[k] > t->user_usec + t->sys_usec) {
			t->user_usec = usr[k];
			t->sys_usec = sys[k];
		}
	}
	if (pids) {
		free(sm->pids);
		sm->pids = pids;
		sm->n_pids = np;
	}
	free(rss);
	free(vsz);
	free(usr);
	free(sys);
	free(v);
	sm->taken = true;
}

/* DIR/usage: the peaks so far, CPU times as last seen, and the pids. */
static void write_usage(const struct sampler *sm)
{
	struct usage u = {0};
	for (uint32_t k = 0; k < sm->n; k++)
		usage_add_sample(&u, &sm->t[k]);
	json_t *o = usage_to_json(&u);
	json_t *pids = json_array();
	for (size_t i = 0; pids && i < sm->n_pids; i++)
		json_array_append_new(pids, json_integer(sm->pids[i]));
	if (o && pids)
		json_object_set_new(o, "pids", pids);
	else
		json_decref(pids);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (text)
		drv_write_file_replace(sm->dir, "usage", text, strlen(text), 0600);
	free(text);
}

int64_t sampler_next(const struct sampler *sm)
{
	return sm->period_ns ? sm->next_at : 0;
}

void sampler_tick(struct sampler *sm, int64_t now)
{
	if (!sm->period_ns || now < sm->next_at)
		return;
	take(sm);
	write_usage(sm);
	sm->next_at = now + sm->period_ns;
}

const struct task_sample *sampler_task(const struct sampler *sm, pid_t pid)
{
	for (uint32_t k = 0; sm->taken && k < sm->n; k++)
		if (sm->t[k].pid == pid)
			return &sm->t[k];
	return NULL;
}
