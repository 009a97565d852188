/* up.c — `drover up`: a whole local cluster on loopback in one command.
 *
 * Writes drover.conf and the key when the directory has none, starts what
 * is not running (authd, ctld, one noded per node; each daemonizes and
 * returns once ready), waits until ctld has every node registered, and
 * prints only `export` lines on stdout so that `eval "$(drover up)"` works.
 * Progress and errors go to stderr. It never stops a daemon it did not
 * start in this invocation. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/auth_munge.h"
#include "common/client.h"
#include "common/daemon.h"
#include "common/proto_gen.h"
#include "drover/drover.h"

#define UP_ATTEMPTS 5	       /* config rewrites when a port was taken */
#define UP_START_TIMEOUT 30    /* seconds for one daemon to become ready */
#define UP_REGISTER_TIMEOUT 30 /* seconds for every node to register */

struct up_opts {
	struct up_params p;
	const char *dir;
	bool shaped; /* --nodes/--cpus/--mem/--gpus/--set/--no-cgroups given */
};

static void up_usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: drover up [OPTIONS]\n\n"
	    "Starts a local cluster (authd, ctld and N noded on 127.0.0.1) as the\n"
	    "invoking user, or what is missing of one, and prints the environment\n"
	    "for it: eval \"$(drover up)\"\n\n"
	    "  -n, --nodes N      number of nodes (default 2)\n"
	    "  -c, --cpus C       CPUs per node (default: this host's)\n"
	    "  -m, --mem MB       RealMemory per node in MiB (default 4096)\n"
	    "  -g, --gpus G       fake GPUs per node (default 0)\n"
	    "  -d, --dir DIR      cluster directory (default: that of $DROVER_CONF;\n"
	    "                     else, for root, /etc/drover for the config and key\n"
	    "                     and /var/lib/drover for the state, so that every\n"
	    "                     user's commands find it; else $XDG_STATE_HOME/drover\n"
	    "                     or ~/.local/state/drover)\n"
	    "  -s, --set KEY=VAL  set a drover.conf key (repeatable)\n"
	    "      --no-cgroups   jobs run without cgroups (CgroupPlugin=disabled);\n"
	    "                     run by root, the cluster otherwise puts every job\n"
	    "                     in its cgroups: limits, and signals that reach\n"
	    "                     every process of the job\n"
	    "  -h, --help         this text\n"
	    "  -V, --version      print the version\n\n"
	    "Options that shape the cluster apply when DIR has no drover.conf yet.\n");
}

static int parse_num(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "drover up: invalid %s '%s' (expected %ld..%ld)\n", opt,
			s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* --no-cgroups: one of the "Key=Value" sets (the array holds char *) */
static char no_cgroups[] = "CgroupPlugin=disabled";

/* Returns 0 to go on, 1 when done (help/version), -1 on a usage error. */
static int parse_up(int argc, char **argv, struct up_opts *o, char **sets)
{
	/** <N> number of nodes (default 2) */
	static const struct option longs[] = {
	    {"nodes", required_argument, NULL, 'n'},
	    /** <C> CPUs per node (default: this host's) */
	    {"cpus", required_argument, NULL, 'c'},
	    {"mem", required_argument, NULL, 'm'},
	    /** <G> fake GPUs per node (default 0) */
	    {"gpus", required_argument, NULL, 'g'},
	    {"dir", required_argument, NULL, 'd'},
	    {"set", required_argument, NULL, 's'},
	    /** jobs run without cgroups (writes CgroupPlugin=disabled) */
	    {"no-cgroups", no_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long v = 0;
	o->p = (struct up_params){
	    .nodes = 2, .cpus = cpus > 0 ? (int)cpus : 1, .mem_mb = 4096};
	o->p.sets = sets;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:c:m:g:d:s:hV", longs, NULL)) != -1) {
		int rc = 0;
		o->shaped |=
		    c == 'n' || c == 'c' || c == 'm' || c == 'g' || c == 's' || c == 'C';
		switch (c) {
		case 'n':
			rc = parse_num("--nodes", optarg, 1, 512, &v);
			o->p.nodes = (int)v;
			break;
		case 'c':
			rc = parse_num("--cpus", optarg, 1, 1000000, &v);
			o->p.cpus = (int)v;
			break;
		case 'm':
			rc = parse_num("--mem", optarg, 1, 1L << 40, &v);
			o->p.mem_mb = (uint64_t)v;
			break;
		case 'g':
			rc = parse_num("--gpus", optarg, 0, 1024, &v);
			o->p.gpus = (int)v;
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 's':
			sets[o->p.n_sets++] = optarg;
			break;
		case 'C':
			sets[o->p.n_sets++] = no_cgroups;
			break;
		case 'h':
			up_usage(stdout);
			return 1;
		case 'V':
			drover_print_version();
			return 1;
		default:
			up_usage(stderr);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "drover up: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int ensure_key(const char *path)
{
	if (access(path, F_OK) == 0)
		return 0;
	struct drv_error err = {""};
	if (drv_key_generate(path, &err) < 0) {
		fprintf(stderr, "drover up: %s\n", err.text);
		return -1;
	}
	fprintf(stderr, "drover: wrote cluster key %s\n", path);
	return 0;
}

/* Starts d unless it runs. Sets *conflict when it failed because its port
 * was taken. Returns 1 when started, 0 when it already ran, -1 on failure. */
static int start_one(const struct cluster_daemon *d, const char *conf_path,
		     const char *bindir, const struct run_as *as, bool *conflict)
{
	pid_t pid = 0;
	if (!d->pidfile) {
		fprintf(stderr, "drover up: the config names no pid file for %s\n",
			d->label);
		return -1;
	}
	if (drv_pidfile_alive(d->pidfile, &pid)) {
		fprintf(stderr, "drover: %s already running (pid %d)\n", d->label,
			(int)pid);
		return 0;
	}
	char *args[12] = {"-f", (char *)conf_path};
	size_t n = 2;
	if (d->node) {
		args[n++] = "-N";
		args[n++] = d->node;
	} else if (!strcmp(d->prog, "drover-authd")) { /* its pid file and log are ours */
		args[n++] = "-P";
		args[n++] = d->pidfile;
		args[n++] = "-L";
		args[n++] = d->logfile;
	}
	args[n] = NULL;
	off_t from = spawn_file_size(d->logfile);
	struct drv_error err = {""};
	bool ctld = !strcmp(d->prog, "drover-ctld");
	if (spawn_daemon(bindir, d->prog, args, d->logfile, ctld ? as : NULL,
			 UP_START_TIMEOUT, &err) < 0) {
		*conflict = d->port && (spawn_log_says_in_use(d->logfile, from) ||
					cluster_port_in_use(d->port));
		fprintf(stderr, "drover up: %s%s\n", err.text,
			*conflict ? " (its port is in use)" : "");
		return -1;
	}
	drv_pidfile_alive(d->pidfile, &pid);
	fprintf(stderr, "drover: started %s (pid %d)\n", d->label, (int)pid);
	return 1;
}

/* Starts what is missing. On failure stops the TCP daemons this call
 * started (so a retry with new ports starts clean) and returns -1, or
 * -EADDRINUSE when a port was taken. */
static int start_missing(struct cluster_daemon *d, size_t n, const char *conf_path,
			 const char *bindir, const struct run_as *as)
{
	bool started[n];
	bool conflict = false;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		int r = start_one(&d[i], conf_path, bindir, as, &conflict);
		started[i] = r > 0;
		if (r < 0) {
			rc = conflict ? -EADDRINUSE : -1;
			for (size_t j = 0; j < i; j++)
				if (started[j] && d[j].port)
					spawn_signal(d[j].pidfile, SIGTERM);
			for (size_t j = 0; j < i; j++)
				if (started[j] && d[j].port)
					spawn_wait_stopped(d[j].label, d[j].pidfile, 10);
			break;
		}
	}
	return rc;
}

/* Is node `name` registered and responding in ctld's node.query reply? */
static bool node_ready(const struct drv_node_query_reply *q, const char *name)
{
	for (size_t i = 0; i < q->n_nodes; i++) {
		const struct drv_rec_node *n = &q->nodes[i];
		if (strcmp(n->name, name))
			continue;
		return strcmp(n->state, "UNKNOWN") && strncmp(n->state, "DOWN", 4) &&
		       !n->not_responding;
	}
	return false;
}

/* Polls ctld until every configured node is up. The name of the first node
 * that is not goes into missing. */
static int nodes_registered(const struct drv_conf *conf, char *missing, size_t len,
			    struct drv_error *err)
{
	struct drv_node_query nq = {0};
	struct drv_node_query_reply q = {0};
	json_t *body = drv_node_query_encode(&nq);
	json_t *reply = NULL;
	int rc = drv_client_call(conf, "node.query", body, &reply, err);
	json_decref(body);
	if (rc != 0)
		return rc < 0 ? rc : -EPROTO;
	rc = drv_node_query_reply_decode(reply, &q, err);
	for (size_t i = 0; i < conf->n_nodes && rc == 0; i++) {
		if (!node_ready(&q, conf->nodes[i].name)) {
			snprintf(missing, len, "%s", conf->nodes[i].name);
			rc = -EAGAIN;
		}
	}
	drv_node_query_reply_free(&q);
	json_decref(reply);
	return rc;
}

static int wait_registered(const struct drv_conf *conf)
{
	double deadline = now_s() + UP_REGISTER_TIMEOUT;
	struct drv_error err = {""};
	char missing[128] = "";
	for (;;) {
		int rc = nodes_registered(conf, missing, sizeof(missing), &err);
		if (rc == 0)
			return 0;
		if (now_s() > deadline) {
			if (rc == -EAGAIN)
				fprintf(
				    stderr,
				    "drover up: node %s did not register within %d s\n",
				    missing, UP_REGISTER_TIMEOUT);
			else
				fprintf(
				    stderr,
				    "drover up: ctld did not answer within %d s: %s\n",
				    UP_REGISTER_TIMEOUT, err.text);
			return -ETIMEDOUT;
		}
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Prints s for a POSIX shell: as is when it is plain, else single-quoted. */
static void print_shell_word(const char *s)
{
	if (s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			"/._-+,@%")] == '\0') {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	putchar('\'');
}

static void print_exports(const char *conf_path, const char *bindir)
{
	fputs("export DROVER_CONF=", stdout);
	print_shell_word(conf_path);
	fputs("\nexport PATH=", stdout);
	print_shell_word(bindir);
	fputs(":$PATH\n", stdout);
	/* run from a build: its pages, before the system's (an empty
	 * MANPATH's trailing colon keeps man's own search path) */
	char man[PATH_MAX];
	struct stat st;
	if (snprintf(man, sizeof(man), "%s/man/man1", bindir) < (int)sizeof(man) &&
	    stat(man, &st) == 0 && S_ISDIR(st.st_mode)) {
		man[strlen(man) - strlen("/man1")] = '\0';
		fputs("export MANPATH=", stdout);
		print_shell_word(man);
		fputs(":$MANPATH\n", stdout);
	}
	fflush(stdout);
}

/* One attempt: (re)write the config if it is ours, then start what is
 * missing and wait for the nodes. */
static int up_attempt(const struct up_opts *o, const char *dir, const char *conf_path,
		      const char *bindir, bool wrote, bool first)
{
	struct drv_error err = {""};
	int ports[o->p.nodes + 1];
	if (wrote && (cluster_pick_ports(ports, (size_t)o->p.nodes + 1, &err) < 0 ||
		      cluster_write_conf(dir, conf_path, &o->p, ports, &err) < 0)) {
		fprintf(stderr, "drover up: %s\n", err.text);
		return -1;
	}
	struct drv_conf *conf = NULL;
	if (cluster_load_conf(conf_path, first, &conf, &err) < 0) {
		fprintf(stderr, "drover up: %s\n", err.text);
		/* a config this run wrote from a bad --set is not kept: the next
		 * `drover up` with the --set corrected writes a new one */
		if (wrote && unlink(conf_path) == 0)
			fprintf(stderr, "drover: removed %s\n", conf_path);
		return -1;
	}
	struct cluster_daemon *d = NULL;
	struct run_as as;
	size_t n = 0;
	int rc = ensure_key(conf->auth_key);
	/* d[1] is ctld (cluster_daemons' order) */
	if (rc == 0 && (cluster_daemons(conf, dir, &d, &n, &err) < 0 ||
			run_as_slurm_user(conf, &as, &err) < 0 ||
			run_as_give_ctld_files(conf, d[1].logfile, &as, &err) < 0)) {
		fprintf(stderr, "drover up: %s\n", err.text);
		rc = -1;
	}
	/* auth/munge: the site's munged signs for the clients, not authd
	 * (d[0]); say so now if it does not answer, rather than after the
	 * nodes' registration timeout */
	size_t skip = drv_auth_munge(conf) ? 1 : 0;
	if (rc == 0 && skip && drv_munge_probe(conf->auth_socket, &err) < 0) {
		fprintf(stderr, "drover up: %s\n", err.text);
		rc = -1;
	}
	if (rc == 0)
		rc = start_missing(d + skip, n - skip, conf_path, bindir, &as);
	if (rc == 0)
		rc = wait_registered(conf) < 0 ? -1 : 0;
	cluster_daemons_free(d, n);
	drv_conf_free(conf);
	return rc;
}

/* Two `drover up` on one directory: the first takes DIR/run/up.lock (an
 * flock held until it exits, its pid in the file); the second says who
 * starts the cluster and leaves it alone. Returns the lock's fd, or -1
 * with the message printed. */
static int take_up_lock(const char *dir)
{
	char path[PATH_MAX], pid_text[32] = "";
	snprintf(path, sizeof(path), "%s/run/up.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		fprintf(stderr, "drover up: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n = -1;
		/* the holder writes its pid just after it locks: wait a moment */
		for (int i = 0; errno == EWOULDBLOCK && n <= 0 && i < 20; i++) {
			struct timespec ts = {0, 50 * 1000 * 1000};
			n = pread(fd, pid_text, sizeof(pid_text) - 1, 0);
			if (n <= 0)
				nanosleep(&ts, NULL);
		}
		long pid = n > 0 ? strtol(pid_text, NULL, 10) : 0;
		if (pid > 0)
			fprintf(stderr,
				"drover up: the cluster is being started by pid %ld\n",
				pid);
		else
			fprintf(stderr, "drover up: cannot lock %s: %s\n", path,
				errno == EWOULDBLOCK ? "held by another drover up"
						     : strerror(errno));
		close(fd);
		return -1;
	}
	int len = snprintf(pid_text, sizeof(pid_text), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid_text, (size_t)len, 0) != len) {
		fprintf(stderr, "drover up: cannot write %s: %s\n", path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int cmd_up(int argc, char **argv)
{
	struct up_opts o = {.dir = NULL};
	char *sets[argc + 1];
	int rc = parse_up(argc, argv, &o, sets);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	char *dir = NULL, *conf_path = NULL, *bindir = spawn_bindir();
	struct drv_error err = {""};
	if (!bindir || cluster_locate(o.dir, &dir, &conf_path, &err) < 0 ||
	    cluster_make_dirs(dir, conf_path, &err) < 0) {
		fprintf(stderr, "drover up: %s\n",
			bindir ? err.text : "cannot find my directory");
		free(bindir);
		free(dir);
		free(conf_path);
		return 1;
	}
	int lock_fd = take_up_lock(dir);
	if (lock_fd < 0) {
		free(bindir);
		free(dir);
		free(conf_path);
		return 1;
	}
	bool wrote = access(conf_path, F_OK) != 0;
	if (!wrote && o.shaped)
		fprintf(stderr,
			"drover: %s exists; --nodes/--cpus/--mem/--gpus/--set ignored\n",
			conf_path);
	if (wrote)
		fprintf(stderr, "drover: writing %s\n", conf_path);
	rc = -1;
	for (int attempt = 0; attempt < UP_ATTEMPTS; attempt++) {
		rc = up_attempt(&o, dir, conf_path, bindir, wrote, attempt == 0);
		if (rc != -EADDRINUSE || !wrote)
			break;
		fprintf(stderr, "drover: a port was taken; picking new ports\n");
	}
	if (rc == 0)
		print_exports(conf_path, bindir);
	close(lock_fd); /* the next drover up may go on */
	free(bindir);
	free(dir);
	free(conf_path);
	return rc == 0 ? 0 : 1;
}
