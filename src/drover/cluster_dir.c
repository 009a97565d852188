/* cluster_dir.c — where a local cluster keeps its files, and its config.
 *
 * A cluster directory holds drover.conf, drover.key, run/ (pid files and
 * authd's socket), log/, ctld/ (the store) and spool/ (one dir per node).
 * This file computes those paths and writes a new drover.conf; it never
 * starts or signals a process (spawn.c does). */
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "common/daemon.h"
#include "drover/drover.h"

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

/* An absolute version of path (malloc'd), without trailing slashes. */
static char *absolute(const char *path)
{
	char *s;
	if (path[0] == '/') {
		s = strdup(path);
	} else {
		char cwd[4096];
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		s = join(cwd, path);
	}
	if (!s)
		return NULL;
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

/* Where root's cluster lives: the config (and key) where every user's
 * commands look by default, the state where a system service keeps it. */
#define SYSTEM_CONF_DIR "/etc/drover"
#define SYSTEM_CONF SYSTEM_CONF_DIR "/drover.conf"
#define SYSTEM_STATE_DIR "/var/lib/drover"

char *cluster_default_dir(void)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	if (xdg && xdg[0] == '/')
		return join(xdg, "drover");
	const char *home = getenv("HOME");
	if (!home || !home[0])
		return NULL;
	return join(home, ".local/state/drover");
}

int cluster_locate(const char *dir_opt, char **dir, char **conf_path,
		   struct drv_error *err)
{
	char *d = NULL, *c = NULL;
	const char *env = getenv("DROVER_CONF");
	if (dir_opt) {
		d = absolute(dir_opt);
		c = d ? join(d, "drover.conf") : NULL;
	} else if ((env && !strcmp(env, SYSTEM_CONF)) ||
		   ((!env || !env[0]) && geteuid() == 0)) {
		d = strdup(SYSTEM_STATE_DIR);
		c = strdup(SYSTEM_CONF);
	} else if (env && env[0]) {
		c = absolute(env);
		d = c ? strdup(c) : NULL;
		if (d) {
			/* c is absolute, so it has a slash; keep "/" for "/x". */
			char *slash = strrchr(d, '/');
			slash[slash == d ? 1 : 0] = '\0';
		}
	} else {
		char *def = cluster_default_dir();
		if (!def)
			return drv_error_set(
			    err, ENOENT, "no cluster directory: set HOME or use --dir");
		d = absolute(def);
		free(def);
		c = d ? join(d, "drover.conf") : NULL;
	}
	if (!d || !c) {
		free(d);
		free(c);
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	*dir = d;
	*conf_path = c;
	return 0;
}

/* conf_path's directory (malloc'd). */
static char *conf_dir_of(const char *conf_path)
{
	const char *slash = strrchr(conf_path, '/');
	if (!slash)
		return strdup(".");
	return strndup(conf_path, slash == conf_path ? 1 : (size_t)(slash - conf_path));
}

int cluster_make_dirs(const char *dir, const char *conf_path, struct drv_error *err)
{
	/* The cluster dir and run/ stay traversable so that other local users
	 * reach authd's socket and are refused by ctld with a clear message,
	 * rather than failing to connect. The store stays private. */
	static const struct {
		const char *sub;
		mode_t mode;
	} subs[] = {
	    {"", 0755}, {"run", 0755}, {"log", 0755}, {"ctld", 0700}, {"spool", 0755}};
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char *p = subs[i].sub[0] ? join(dir, subs[i].sub) : strdup(dir);
		if (!p)
			return drv_error_set(err, ENOMEM, "out of memory");
		int rc = drv_mkdir_p(p, subs[i].mode);
		if (rc < 0) {
			drv_error_set(err, -rc, "cannot create %s: %s", p, strerror(-rc));
			free(p);
			return rc;
		}
		free(p);
	}
	char *cd = conf_dir_of(conf_path); /* other users read the config */
	int rc = cd ? drv_mkdir_p(cd, 0755) : -ENOMEM;
	if (rc < 0)
		drv_error_set(err, -rc, "cannot create %s: %s", cd ? cd : conf_path,
			      strerror(-rc));
	free(cd);
	return rc < 0 ? rc : 0;
}

static int bound_socket(int port, int *out_port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof(sa);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (out_port)
		*out_port = ntohs(sa.sin_port);
	return fd;
}

int cluster_pick_ports(int *ports, size_t n, struct drv_error *err)
{
	/* All sockets stay bound until every port is picked, so the ports of one
	 * cluster are distinct. Another process may still take one before the
	 * daemon binds it; `drover up` then picks again. */
	int fds[n + 1];
	size_t got = 0;
	int rc = 0;
	for (; got < n; got++) {
		fds[got] = bound_socket(0, &ports[got]);
		if (fds[got] < 0) {
			rc = drv_error_set(err, -fds[got], "cannot pick a free port: %s",
					   strerror(-fds[got]));
			break;
		}
	}
	for (size_t i = 0; i < got; i++)
		close(fds[i]);
	return rc;
}

bool cluster_port_in_use(int port)
{
	int fd = bound_socket(port, NULL);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return fd == -EADDRINUSE;
}

/* The config as ordered key=value lines, so `--set` can replace one. */
struct conf_lines {
	char *key[64];
	char *val[64];
	size_t n;
};

static int lines_add(struct conf_lines *l, const char *key, const char *val)
{
	if (l->n >= 64)
		return -E2BIG;
	l->key[l->n] = strdup(key);
	l->val[l->n] = strdup(val);
	l->n++;
	return 0;
}

static int lines_addf(struct conf_lines *l, const char *key, const char *fmt,
		      const char *dir)
{
	char v[4096];
	snprintf(v, sizeof(v), fmt, dir);
	return lines_add(l, key, v);
}

static void lines_free(struct conf_lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->key[i]);
		free(l->val[i]);
	}
}

/* Every daemon runs as the user who brought the cluster up, so that user is
 * the one clients believe as ctld. Node daemons that are not root cannot
 * become other users: SlurmdUser says so, and the cluster then takes jobs
 * from that user only (local mode); root's cluster runs everyone's. */
static void daemon_users(struct conf_lines *l)
{
	struct passwd *pw = getpwuid(geteuid());
	char uid[16];
	snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
	lines_add(l, "SlurmUser", pw ? pw->pw_name : uid);
	if (geteuid() != 0)
		lines_add(l, "SlurmdUser", pw ? pw->pw_name : uid);
}

static void globals(struct conf_lines *l, const char *dir, const char *conf_dir,
		    int ctld_port)
{
	char port[16];
	snprintf(port, sizeof(port), "%d", ctld_port);
	lines_add(l, "ClusterName", "drover");
	lines_add(l, "SlurmctldHost", "localhost(127.0.0.1)");
	lines_add(l, "SlurmctldPort", port);
	lines_addf(l, "StateSaveLocation", "%s/ctld", dir);
	lines_addf(l, "SlurmdSpoolDir", "%s/spool/%%n", dir);
	lines_addf(l, "SlurmdLogFile", "%s/log/noded-%%n.log", dir);
	lines_addf(l, "SlurmdPidFile", "%s/run/noded-%%n.pid", dir);
	lines_addf(l, "SlurmctldLogFile", "%s/log/ctld.log", dir);
	lines_addf(l, "SlurmctldPidFile", "%s/run/ctld.pid", dir);
	lines_add(l, "AuthType", "auth/drover");
	char auth[8192];
	snprintf(auth, sizeof(auth), "socket=%s/run/authd.sock,key=%s/drover.key", dir,
		 conf_dir);
	lines_add(l, "AuthInfo", auth);
	daemon_users(l);
	lines_add(l, "SlurmdParameters", "config_overrides");
	lines_add(l, "SlurmdTimeout", "30");
	lines_add(l, "KillWait", "5");
	lines_add(l, "MinJobAge", "300");
}

/* So that jobs without --mem share nodes: each CPU brings its share of the
 * node's memory (Slurm's default would give a job the whole node). */
static void memory_default(struct conf_lines *l, const struct up_params *p)
{
	unsigned long long per_cpu =
	    p->cpus > 0 ? p->mem_mb / (unsigned long long)p->cpus : 0;
	char v[32];
	snprintf(v, sizeof(v), "%llu", per_cpu ? per_cpu : 1);
	lines_add(l, "DefMemPerCPU", v);
}

static void node_lines(struct conf_lines *l, const struct up_params *p, const int *ports)
{
	for (int i = 0; i < p->nodes; i++) {
		char key[32], val[256], gres[32] = "";
		snprintf(key, sizeof(key), "n%d", i + 1);
		if (p->gpus > 0)
			snprintf(gres, sizeof(gres), " Gres=gpu:%d", p->gpus);
		snprintf(val, sizeof(val),
			 "%s NodeHostname=localhost NodeAddr=127.0.0.1 Port=%d CPUs=%d "
			 "RealMemory=%llu%s",
			 key, ports[i + 1], p->cpus, (unsigned long long)p->mem_mb, gres);
		lines_add(l, "NodeName", val);
	}
	lines_add(l, "PartitionName",
		  "debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP");
}

/* Applies one --set: replaces every line with that key, or adds it. Node and
 * partition lines are replaced as a group by the first --set of that key. */
static int apply_set(struct conf_lines *l, const char *set, bool *replaced_group)
{
	const char *eq = strchr(set, '=');
	if (!eq || eq == set)
		return -EINVAL;
	char key[128];
	size_t kl = (size_t)(eq - set);
	if (kl >= sizeof(key))
		return -EINVAL;
	memcpy(key, set, kl);
	key[kl] = '\0';
	bool group = !strcasecmp(key, "NodeName") || !strcasecmp(key, "PartitionName");
	bool found = false;
	for (size_t i = 0; i < l->n; i++) {
		if (strcasecmp(l->key[i], key))
			continue;
		if (group && *replaced_group) {
			continue;
		} else if (!found || group) {
			free(l->val[i]);
			l->val[i] = strdup(eq + 1);
			found = true;
			if (group) {
				/* Drop the rest of the generated group. */
				for (size_t j = i + 1; j < l->n; j++)
					if (!strcasecmp(l->key[j], key))
						l->val[j][0] = '\0';
				*replaced_group = true;
				return 0;
			}
		}
	}
	return found ? 0 : lines_add(l, key, eq + 1);
}

static int write_lines(const char *conf_path, const struct conf_lines *l,
		       struct drv_error *err)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", conf_path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return drv_error_set(err, errno, "cannot write %s: %s", tmp,
				     strerror(errno));
	fprintf(f, "# drover.conf, written by `drover up`. slurm.conf syntax.\n");
	for (size_t i = 0; i < l->n; i++)
		if (l->val[i][0])
			fprintf(f, "%s=%s\n", l->key[i], l->val[i]);
	int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, conf_path) < 0) {
		int e = errno;
		unlink(tmp);
		return drv_error_set(err, e, "cannot write %s: %s", conf_path,
				     strerror(e));
	}
	return 0;
}

/* --set AuthType=auth/munge without --set AuthInfo: the site's munged on its
 * own socket, not authd's socket in this directory, so the generated
 * AuthInfo keeps only its key= (the daemons' frames still need the key). */
static void munge_auth_info(struct conf_lines *l, const struct up_params *p)
{
	for (size_t i = 0; i < p->n_sets; i++)
		if (!strncasecmp(p->sets[i], "AuthInfo=", 9))
			return;
	bool munge = false;
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->key[i], "AuthType"))
			munge = !strcasecmp(l->val[i], "auth/munge");
	for (size_t i = 0; munge && i < l->n; i++) {
		char *key = strstr(l->val[i], ",key=");
		if (!strcasecmp(l->key[i], "AuthInfo") && key)
			memmove(l->val[i], key + 1, strlen(key + 1) + 1);
	}
}

int cluster_write_conf(const char *dir, const char *conf_path, const struct up_params *p,
		       const int *ports, struct drv_error *err)
{
	struct conf_lines g = {.n = 0}, nodes = {.n = 0};
	char *conf_dir = conf_dir_of(conf_path);
	if (!conf_dir)
		return drv_error_set(err, ENOMEM, "out of memory");
	globals(&g, dir, conf_dir, ports[0]);
	free(conf_dir);
	memory_default(&g, p);
	node_lines(&nodes, p, ports);
	bool node_group = false, part_group = false;
	int rc = 0;
	for (size_t i = 0; i < p->n_sets && rc == 0; i++) {
		const char *s = p->sets[i];
		bool is_node = !strncasecmp(s, "NodeName=", 9);
		bool is_part = !strncasecmp(s, "PartitionName=", 14);
		if (is_node || is_part)
			rc = apply_set(&nodes, s, is_node ? &node_group : &part_group);
		else
			rc = apply_set(&g, s, &node_group);
		if (rc < 0)
			drv_error_set(err, -rc, "--set %s: expected Key=Value", s);
	}
	if (rc == 0)
		munge_auth_info(&g, p);
	for (size_t i = 0; i < nodes.n && rc == 0; i++)
		rc = lines_add(&g, nodes.key[i], nodes.val[i]);
	if (rc == 0)
		rc = write_lines(conf_path, &g, err);
	lines_free(&g);
	lines_free(&nodes);
	return rc;
}

static void print_warning(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "drover: warning: %s\n", msg);
}

int cluster_load_conf(const char *conf_path, bool warn, struct drv_conf **out,
		      struct drv_error *err)
{
	return drv_conf_load(conf_path, warn ? print_warning : NULL, NULL, out, err);
}

static int add_daemon(struct cluster_daemon *d, const char *label, const char *prog,
		      const char *node, char *pidfile, char *logfile, int port)
{
	snprintf(d->label, sizeof(d->label), "%s", label);
	d->prog = (char *)prog;
	d->node = node ? strdup(node) : NULL;
	d->pidfile = pidfile;
	d->logfile = logfile;
	d->port = port;
	return (!logfile || (node && !d->node)) ? -ENOMEM : 0;
}

int cluster_daemons(const struct drv_conf *conf, const char *dir,
		    struct cluster_daemon **out, size_t *n, struct drv_error *err)
{
	size_t total = 2 + conf->n_nodes;
	struct cluster_daemon *d = calloc(total, sizeof(*d));
	if (!d)
		return drv_error_set(err, ENOMEM, "out of memory");
	int rc = add_daemon(&d[0], "authd", "drover-authd", NULL,
			    join(dir, "run/authd.pid"), join(dir, "log/authd.log"), 0);
	if (rc == 0)
		rc = add_daemon(&d[1], "ctld", "drover-ctld", NULL,
				conf->ctld_pid_file ? strdup(conf->ctld_pid_file) : NULL,
				conf->ctld_log_file ? strdup(conf->ctld_log_file)
						    : join(dir, "log/ctld.log"),
				conf->ctld_port);
	for (size_t i = 0; i < conf->n_nodes && rc == 0; i++) {
		const struct drv_node_conf *nc = &conf->nodes[i];
		char label[80], logname[128];
		snprintf(label, sizeof(label), "noded %s", nc->name);
		snprintf(logname, sizeof(logname), "log/noded-%s.log", nc->name);
		char *log =
		    drv_conf_node_path(conf->slurmd_log_file, nc->name, nc->hostname);
		rc = add_daemon(
		    &d[2 + i], label, "drover-noded", nc->name,
		    drv_conf_node_path(conf->slurmd_pid_file, nc->name, nc->hostname),
		    log ? log : join(dir, logname), nc->port);
	}
	if (rc < 0) {
		cluster_daemons_free(d, total);
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	*out = d;
	*n = total;
	return 0;
}

void cluster_daemons_free(struct cluster_daemon *d, size_t n)
{
	if (!d)
		return;
	for (size_t i = 0; i < n; i++) {
		free(d[i].node);
		free(d[i].pidfile);
		free(d[i].logfile);
	}
	free(d);
}
