/* scontrol_listpids.c — `scontrol listpids [JOBID[.STEP]] [NODE]`: the
 * processes of the jobs and steps running on this host, as Slurm 22.05
 * prints them. Like Slurm's, which asks the slurmstepd sockets in the
 * node's spool, it reads the node's spool directly, never ctld: a job dir
 * SPOOL/job.N (the batch step; its pgid file names the script's process
 * group, the script being task 0) and a step dir SPOOL/step.J.S (pgid,
 * and tasks: "PID LOCALID GLOBALID" lines). A dir with a status file has
 * ended. NODE names the node whose spool is read; without it every node
 * of the config whose spool exists here (local mode runs them all on one
 * host), and Slurm's messages name the node "(null)" as Slurm's do. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/common.h"
#include "cli/scontrol.h"

#define STEP_BATCH (-1) /* the batch script's step */
#define STEP_ANY (-2)	/* every step of the job */

struct live_step {
	long job_id;
	long step_id; /* STEP_BATCH for the batch step */
	char dir[PATH_MAX];
};

struct step_list {
	struct live_step *v;
	size_t n, cap;
};

static long read_long(const char *dir, const char *name)
{
	char path[PATH_MAX];
	long v = -1;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool has_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	return snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
	       stat(path, &st) == 0;
}

/* "job.N" or "step.J.S" into js; false for any other name. */
static bool parse_dir_name(const char *name, struct live_step *js)
{
	char *end;
	if (!strncmp(name, "job.", 4) && isdigit((unsigned char)name[4])) {
		js->job_id = strtol(name + 4, &end, 10);
		js->step_id = STEP_BATCH;
		return *end == '\0';
	}
	if (!strncmp(name, "step.", 5) && isdigit((unsigned char)name[5])) {
		js->job_id = strtol(name + 5, &end, 10);
		if (*end != '.' || !isdigit((unsigned char)end[1]))
			return false;
		js->step_id = strtol(end + 1, &end, 10);
		return *end == '\0';
	}
	return false;
}

static void add_spool(struct step_list *l, const char *spool)
{
	DIR *d = opendir(spool);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		struct live_step js = {0};
		if (!parse_dir_name(e->d_name, &js) ||
		    snprintf(js.dir, sizeof(js.dir), "%s/%s", spool, e->d_name) >=
			(int)sizeof(js.dir) ||
		    has_file(js.dir, "status") || read_long(js.dir, "pgid") <= 0)
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 16;
			struct live_step *v = realloc(l->v, cap * sizeof(*v));
			if (!v)
				break;
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = js;
	}
	if (d)
		closedir(d);
}

static int by_job_step(const void *a, const void *b)
{
	const struct live_step *x = a, *y = b;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return (x->step_id > y->step_id) - (x->step_id < y->step_id);
}

/* The live steps in node's spool, or every local node's when node is NULL. */
static void collect(const struct drv_conf *conf, const char *node, struct step_list *l)
{
	for (size_t i = 0; i < conf->n_nodes; i++) {
		const struct drv_node_conf *nc = &conf->nodes[i];
		if (node && strcmp(node, nc->name))
			continue;
		char *spool =
		    drv_conf_node_path(conf->slurmd_spool_dir, nc->name, nc->hostname);
		if (spool)
			add_spool(l, spool);
		free(spool);
	}
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_job_step);
}

/* The pids whose process group is pgid, ascending (new array, *n set). */
static pid_t *group_members(long pgid, size_t *n)
{
	pid_t *v = NULL;
	size_t cap = 0;
	*n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		char path[300], buf[512];
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t got = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[got] = '\0';
		char *p = strrchr(buf, ')'); /* the name may hold spaces */
		char state;
		long ppid, pgrp;
		if (!p || sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 ||
		    pgrp != pgid || state == 'Z')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			pid_t *nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = (pid_t)atol(e->d_name);
	}
	if (d)
		closedir(d);
	for (size_t i = 1; i < *n; i++) /* insertion sort: a handful of pids */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			pid_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v;
}

static bool pid_in(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* Slurm's _list_pids_one_step: the live tasks with their ids, then the
 * other processes of the step with "-". */
static void print_step(const struct live_step *js)
{
	char step[24];
	if (js->step_id == STEP_BATCH)
		snprintf(step, sizeof(step), "batch");
	else
		snprintf(step, sizeof(step), "%ld", js->step_id);
	long pgid = read_long(js->dir, "pgid");
	size_t n = 0, nt = 0;
	pid_t *members = group_members(pgid, &n);
	pid_t tasks[1024];
	if (js->step_id == STEP_BATCH) {
		if (pid_in(members, n, (pid_t)pgid)) {
			printf("%-8ld %-8ld %-8s %-7d %-8d\n", pgid, js->job_id, step, 0,
			       0);
			tasks[nt++] = (pid_t)pgid;
		}
	} else {
		char path[PATH_MAX + 8];
		snprintf(path, sizeof(path), "%s/tasks", js->dir);
		FILE *f = fopen(path, "re");
		long pid, local, global;
		while (f && nt < 1024 &&
		       fscanf(f, "%ld %ld %ld", &pid, &local, &global) == 3) {
			if (!pid_in(members, n, (pid_t)pid))
				continue; /* exited */
			printf("%-8ld %-8ld %-8s %-7ld %-8ld\n", pid, js->job_id, step,
			       local, global);
			tasks[nt++] = (pid_t)pid;
		}
		if (f)
			fclose(f);
	}
	for (size_t i = 0; i < n; i++)
		if (!pid_in(tasks, nt, members[i]))
			printf("%-8d %-8ld %-8s %-7s %-8s\n", (int)members[i], js->job_id,
			       step, "-", "-");
	free(members);
}

/* Slurm's log_build_step_id_str: "JobId=N" or "StepId=N.S". */
static void step_id_str(long job, long step, char *buf, size_t len)
{
	if (step == STEP_ANY)
		snprintf(buf, len, "JobId=%ld", job);
	else
		snprintf(buf, len, "StepId=%ld.%ld", job, step);
}

/* Parses JOBID[.STEP] as Slurm's _parse_jobid and _parse_stepid: 0, or
 * -1 for a bad job id and 1 for a bad step id, after Slurm's message
 * (Slurm exits 1 after the first, 0 after the second). */
static int parse_id(const char *arg, long *job, long *step)
{
	char *end;
	size_t n = strcspn(arg, ".");
	char head[64];
	snprintf(head, sizeof(head), "%.*s", (int)(n < 63 ? n : 63), arg);
	*job = strtol(head, &end, 10);
	if (*end && strspn(end, " \t\n") != strlen(end)) {
		fprintf(stderr, "\"%s\" does not look like a jobid\n", head);
		return -1;
	}
	*step = STEP_ANY;
	if (!arg[n])
		return 0;
	*step = strtol(arg + n + 1, &end, 10);
	if (*end && strspn(end, " \t\n") != strlen(end))
		return 1;
	return 0;
}

/* Prints the steps of job (step: one, or STEP_ANY); returns the exit status. */
static int list_job(const struct step_list *l, long job, long step, const char *node)
{
	char idbuf[64];
	int count = 0;
	if (l->n == 0) {
		step_id_str(job, step, idbuf, sizeof(idbuf));
		fprintf(stderr, "%s does not exist on node %s.\n", idbuf,
			node ? node : "(null)");
		return 1;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].job_id != job ||
		    (step != STEP_ANY && l->v[i].step_id != step))
			continue;
		print_step(&l->v[i]);
		count++;
	}
	if (count)
		return 0;
	if (step != STEP_ANY) {
		step_id_str(job, step, idbuf, sizeof(idbuf));
		fprintf(stderr, "%s does not exist on node %s.\n", idbuf,
			node ? node : "(null)");
	} else {
		fprintf(stderr, "There are no steps for job %ld on node %s.\n", job,
			node ? node : "(null)");
	}
	return 1;
}

int sctl_listpids(struct sctl *s, int argc, char **argv)
{
	if (argc > 3) {
		fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
		return 1;
	}
	const char *id = argc > 1 ? argv[1] : NULL;
	const char *node = argc > 2 ? argv[2] : NULL;
	long job = 0, step = STEP_ANY;
	bool all = !id || id[0] == '*';
	int parsed = all ? 0 : parse_id(id, &job, &step);
	if (parsed < 0)
		return 1;
	if (!s->conf && cli_conf_load(&s->conf) < 0)
		return 1;
	printf("%-8s %-8s %-8s %-7s %-8s\n", "PID", "JOBID", "STEPID", "LOCALID",
	       "GLOBALID");
	if (parsed > 0) { /* after the header, as Slurm */
		fflush(stdout);
		fprintf(stderr, "\"%s\" does not look like a stepid\n", id);
		return 0;
	}
	struct step_list l = {0};
	collect(s->conf, node, &l);
	int rc = 0;
	if (all) {
		if (l.n == 0) {
			fprintf(stderr, "No job steps exist on this node.\n");
			rc = 1;
		}
		for (size_t i = 0; i < l.n; i++)
			print_step(&l.v[i]);
	} else {
		rc = list_job(&l, job, step, node);
	}
	free(l.v);
	return rc;
}
