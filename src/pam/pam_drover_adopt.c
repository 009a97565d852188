/* pam_drover_adopt.c — Slurm's pam_slurm_adopt for Drover: an account module
 * for sshd that lets a user onto a compute node only while they have a job
 * there, and moves the session's process into that job's extern step
 * (PrologFlags=Contain), so that what they start is accounted, limited and
 * killed with the job.
 *
 * It reads what drover-noded keeps on the node, never what a user could
 * write: each running batch job's dir in noded's spool (SlurmdSpoolDir)
 * holds DIR/extern, written by the job's shepherd as root (job, uid, start,
 * the step's cgroup.procs files), and DIR/lock, held by that shepherd while
 * the job lives. Every directory and file on the way must be root's and
 * writable by root alone. Nothing of libdrover is linked: a PAM module is
 * loaded into sshd and stays small.
 *
 * Options (Slurm's, and Drover's spool=): action_no_jobs=deny|ignore,
 * action_unknown=newest|allow|deny (a user with several jobs here: Drover
 * has no callerid RPC to find the ssh's source job, so this decides),
 * action_adopt_failure=allow|deny, action_generic_failure=ignore|allow|deny,
 * spool=GLOB (noded's spool dirs; default: every dir under
 * /var/spool/drover/d, SlurmdSpoolDir's default), and
 * log_level=, nodename=, disable_x11=, join_container= (accepted, no
 * effect). Root is let through untouched (PAM_IGNORE), as in Slurm. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#define DEFAULT_SPOOL "/var/spool/drover/d/*"
#define MAX_RECORD 65536
#define MAX_PROCS 16

enum act { ACT_DENY, ACT_IGNORE, ACT_ALLOW, ACT_NEWEST };

struct opts {
	enum act no_jobs, unknown, adopt_failure, generic_failure;
	const char *spool;
	bool debug;
};

/* One job of the user on this node. */
struct job {
	long long job_id, start;
	char procs[MAX_PROCS][PATH_MAX];
	int n_procs;
};

static bool parse_act(const char *v, const char *allowed, enum act *out)
{
	static const char *const names[] = {"deny", "ignore", "allow", "newest"};
	for (int i = 0; i < 4; i++) {
		size_t n = strlen(names[i]);
		const char *hit = strstr(allowed, names[i]);
		if (!strcmp(v, names[i]) && hit && (hit[n] == '|' || !hit[n])) {
			*out = (enum act)i;
			return true;
		}
	}
	return false;
}

static const struct {
	const char *key, *allowed;
	size_t field; /* offsetof struct opts */
} act_keys[] = {
    {"action_no_jobs", "deny|ignore", offsetof(struct opts, no_jobs)},
    {"action_unknown", "newest|allow|deny", offsetof(struct opts, unknown)},
    {"action_adopt_failure", "allow|deny", offsetof(struct opts, adopt_failure)},
    {"action_generic_failure", "ignore|allow|deny",
     offsetof(struct opts, generic_failure)},
};

/* One option: true when known (a bad value is logged and the default
 * kept). */
static bool parse_opt(pam_handle_t *pamh, const char *arg, struct opts *o)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *v = eq ? eq + 1 : "";
	for (size_t i = 0; i < sizeof(act_keys) / sizeof(act_keys[0]); i++) {
		if (strlen(act_keys[i].key) != klen ||
		    strncmp(arg, act_keys[i].key, klen))
			continue;
		enum act *field = (enum act *)((char *)o + act_keys[i].field);
		if (!parse_act(v, act_keys[i].allowed, field))
			pam_syslog(pamh, LOG_ERR,
				   "bad value '%s' for %s (%s): the default stays", v,
				   act_keys[i].key, act_keys[i].allowed);
		return true;
	}
	if (klen == 5 && !strncmp(arg, "spool", 5) && eq && *v == '/') {
		o->spool = v;
		return true;
	}
	if (klen == 9 && !strncmp(arg, "log_level", 9)) {
		o->debug = !strncmp(v, "debug", 5);
		return true;
	}
	static const char *const inert[] = {"nodename", "disable_x11", "join_container"};
	for (size_t i = 0; i < 3; i++)
		if (strlen(inert[i]) == klen && !strncmp(arg, inert[i], klen))
			return true;
	return false;
}

static void parse_opts(pam_handle_t *pamh, int argc, const char **argv, struct opts *o)
{
	*o = (struct opts){ACT_DENY,   ACT_NEWEST,    ACT_ALLOW,
			   ACT_IGNORE, DEFAULT_SPOOL, false};
	for (int i = 0; i < argc; i++)
		if (!parse_opt(pamh, argv[i], o))
			pam_syslog(pamh, LOG_ERR, "unknown option '%s': ignored",
				   argv[i]);
}

/* Root's, and no one else may write it (nor swap it: no symlink). */
static bool trusted(const struct stat *st, mode_t type)
{
	return (st->st_mode & S_IFMT) == type && st->st_uid == 0 &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static bool trusted_path(const char *path, mode_t type)
{
	struct stat st;
	return lstat(path, &st) == 0 && trusted(&st, type);
}

/* Is the job's shepherd alive (it holds DIR/lock for its whole life)? */
static bool shepherd_alive(const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/lock", dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd); /* drops our lock when we got it */
	return held;
}

static json_t *read_record(const char *dir)
{
	char path[PATH_MAX], *buf = NULL;
	struct stat st;
	json_t *rec = NULL;
	snprintf(path, sizeof(path), "%s/extern", dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && trusted(&st, S_IFREG) && st.st_size > 0 &&
	    st.st_size < MAX_RECORD && (buf = malloc((size_t)st.st_size))) {
		ssize_t n = read(fd, buf, (size_t)st.st_size);
		if (n == st.st_size)
			rec = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, NULL);
	}
	free(buf);
	close(fd);
	return rec;
}

/* A cgroup.procs of a step_extern, spelled plainly. */
static bool extern_procs_path(const char *p)
{
	static const char tail[] = "/step_extern/cgroup.procs";
	size_t n = strlen(p), t = sizeof(tail) - 1;
	return p[0] == '/' && n > t && n < PATH_MAX && !strcmp(p + n - t, tail) &&
	       !strstr(p, "/../") && !strstr(p, "/./") && !strstr(p, "//");
}

/* dir's job when it is uid's, alive and recorded in full. */
static bool load_job(const char *dir, uid_t uid, struct job *j)
{
	if (!trusted_path(dir, S_IFDIR))
		return false;
	json_t *rec = read_record(dir), *procs, *p;
	size_t i;
	bool ok = false;
	json_int_t id = 0, owner = -1, start = 0;
	if (!rec ||
	    json_unpack(rec, "{s:I,s:I,s:I,s:o}", "job_id", &id, "uid", &owner,
			"start_time", &start, "procs", &procs) < 0 ||
	    owner != (json_int_t)uid || !json_is_array(procs) ||
	    !json_array_size(procs) || json_array_size(procs) > MAX_PROCS)
		goto out;
	*j = (struct job){.job_id = id, .start = start};
	json_array_foreach(procs, i, p)
	{
		const char *s = json_string_value(p);
		if (!s || !extern_procs_path(s))
			goto out;
		snprintf(j->procs[j->n_procs++], PATH_MAX, "%s", s);
	}
	ok = shepherd_alive(dir);
out:
	json_decref(rec);
	return ok;
}

static bool newer(const struct job *a, const struct job *b)
{
	return a->start != b->start ? a->start > b->start : a->job_id > b->job_id;
}

/* The spool dirs spool names: uid's jobs alive here, how many (*n), the
 * newest in *best. 0, or -errno when the spool cannot be read. */
static int find_jobs(const struct opts *o, uid_t uid, struct job *best, int *n)
{
	glob_t g;
	*n = 0;
	int rc = glob(o->spool, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g);
	if (rc == GLOB_NOMATCH)
		return 0; /* no noded has run here: no jobs */
	if (rc != 0)
		return -EIO;
	struct job *j = malloc(sizeof(*j));
	for (size_t i = 0; j && i < g.gl_pathc; i++) {
		if (!trusted_path(g.gl_pathv[i], S_IFDIR))
			continue;
		char pat[PATH_MAX];
		glob_t jg;
		snprintf(pat, sizeof(pat), "%s/job.[0-9]*", g.gl_pathv[i]);
		if (glob(pat, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &jg) != 0)
			continue;
		for (size_t k = 0; k < jg.gl_pathc; k++) {
			if (!load_job(jg.gl_pathv[k], uid, j))
				continue;
			if (!(*n)++ || newer(j, best))
				*best = *j;
		}
		globfree(&jg);
	}
	rc = j ? 0 : -ENOMEM;
	free(j);
	globfree(&g);
	return rc;
}

/* Our process (sshd's for this connection) into every controller's
 * step_extern. 0 or -errno of the first write that failed. */
static int adopt(const struct job *j)
{
	char pid[24];
	int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	for (int i = 0; i < j->n_procs; i++) {
		int fd = open(j->procs[i], O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ssize_t w = write(fd, pid, (size_t)len);
		int e = errno;
		close(fd);
		if (w != len)
			return w < 0 ? -e : -EIO;
	}
	return 0;
}

static int act_rc(enum act a)
{
	return a == ACT_DENY	 ? PAM_PERM_DENIED
	       : a == ACT_IGNORE ? PAM_IGNORE
				 : PAM_SUCCESS;
}

static int deny_no_jobs(pam_handle_t *pamh, const struct opts *o, const char *user)
{
	if (o->no_jobs == ACT_IGNORE)
		return PAM_IGNORE;
	pam_syslog(pamh, LOG_INFO, "access denied to %s: no active jobs on this node",
		   user);
	pam_error(pamh, "Access denied by pam_drover_adopt: you have no active jobs on "
			"this node");
	return PAM_PERM_DENIED;
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc,
				const char **argv)
{
	struct opts o;
	const char *user = NULL;
	parse_opts(pamh, argc, argv, &o);
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || !user || !*user) {
		pam_syslog(pamh, LOG_ERR, "cannot tell which user logs in");
		return act_rc(o.generic_failure);
	}
	struct passwd *pw = getpwnam(user);
	if (!pw) {
		pam_syslog(pamh, LOG_ERR, "user %s: not in the passwd database", user);
		return act_rc(o.generic_failure);
	}
	if (pw->pw_uid == 0)
		return PAM_IGNORE; /* root: the rest of the stack decides */
	struct job best;
	memset(&best, 0, sizeof(best));
	int n = 0, rc = find_jobs(&o, pw->pw_uid, &best, &n);
	if (rc < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot read %s: %s", o.spool, strerror(-rc));
		return act_rc(o.generic_failure);
	}
	if (n == 0)
		return deny_no_jobs(pamh, &o, user);
	if (n > 1 && o.unknown != ACT_NEWEST) {
		pam_syslog(pamh, LOG_INFO,
			   "%s has %d jobs here, none known as the source: %s", user, n,
			   o.unknown == ACT_ALLOW ? "allowed" : "denied");
		if (o.unknown == ACT_DENY)
			pam_error(pamh,
				  "Access denied by pam_drover_adopt: cannot tell which "
				  "of your jobs this connection belongs to");
		return act_rc(o.unknown);
	}
	rc = adopt(&best);
	if (rc < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot move pid %d of %s into job %lld: %s",
			   (int)getpid(), user, best.job_id, strerror(-rc));
		return act_rc(o.adopt_failure);
	}
	pam_syslog(pamh, o.debug ? LOG_DEBUG : LOG_INFO,
		   "process %d of %s adopted into job %lld", (int)getpid(), user,
		   best.job_id);
	return PAM_SUCCESS;
}
