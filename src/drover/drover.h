/* drover.h — the admin tool's internal interface, shared by its files only.
 *
 * main.c dispatches to one cmd_ function per subcommand; cluster_dir.c knows
 * where a local cluster keeps its files and writes its config; spawn.c starts
 * and stops daemons and reads their locks. Nothing here is used outside
 * src/drover. */
#ifndef DROVER_DROVER_H
#define DROVER_DROVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/conf.h"
#include "common/error.h"

/* Subcommands: argv[0] is the subcommand's name. Return the exit status. */
int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_keygen(int argc, char **argv);

/* Parses --dir/--help/--version for down and status (argv[0] is the
 * subcommand). Returns 0 to go on, 1 when done, -1 on a usage error. */
int drover_parse_dir_opts(int argc, char **argv, const char **dir, void (*usage)(FILE *));

/* Prints "drover VERSION" on stdout. */
void drover_print_version(void);

/* --- cluster_dir.c ----------------------------------------------------- */

/* What `drover up` writes into a new drover.conf. */
struct up_params {
	int nodes;
	int cpus;
	uint64_t mem_mb;
	int gpus;
	char **sets; /* "Key=Value" strings, borrowed */
	size_t n_sets;
};

/* $XDG_STATE_HOME/drover or ~/.local/state/drover (malloc'd), NULL if
 * neither XDG_STATE_HOME nor HOME is set. */
char *cluster_default_dir(void);

/* Resolves which cluster a command talks to: --dir DIR (dir_opt) gives
 * DIR/drover.conf; else $DROVER_CONF (its directory holds the state,
 * except for /etc/drover/drover.conf: /var/lib/drover); else, for root,
 * /etc/drover/drover.conf and /var/lib/drover; else the default dir. On success sets
 * *dir and *conf_path (absolute, malloc'd, caller frees) and returns 0;
 * -errno with err otherwise. */
int cluster_locate(const char *dir_opt, char **dir, char **conf_path,
		   struct drv_error *err);

/* Makes DIR and its run/, log/, ctld/ and spool/ subdirectories, and the
 * config's directory (mode 0755: every user reads the config). */
int cluster_make_dirs(const char *dir, const char *conf_path, struct drv_error *err);

/* Picks n distinct free TCP ports on 127.0.0.1 by binding port 0. */
int cluster_pick_ports(int *ports, size_t n, struct drv_error *err);

/* True when 127.0.0.1:port cannot be bound because something holds it. */
bool cluster_port_in_use(int port);

/* Writes conf_path (atomically) for a cluster in dir: ports[0] is ctld's,
 * ports[1..nodes] the nodes'. 0 or -errno with err. */
int cluster_write_conf(const char *dir, const char *conf_path, const struct up_params *p,
		       const int *ports, struct drv_error *err);

/* One daemon of a cluster, as `up`, `down` and `status` see it. */
struct cluster_daemon {
	char label[80]; /* "authd", "ctld", "noded n1" */
	char *prog;	/* "drover-ctld" (static string) */
	char *node;	/* node name for noded, else NULL */
	char *pidfile;	/* malloc'd, NULL when the config names none */
	char *logfile;	/* malloc'd, never NULL */
	int port;	/* TCP port it binds, 0 for none */
};

/* The daemons of the cluster described by conf, living in dir: authd, ctld,
 * then one noded per node. *out is a new array the caller frees with
 * cluster_daemons_free(). */
int cluster_daemons(const struct drv_conf *conf, const char *dir,
		    struct cluster_daemon **out, size_t *n, struct drv_error *err);
void cluster_daemons_free(struct cluster_daemon *d, size_t n);

/* Loads conf_path, printing warnings on stderr when warn is true. */
int cluster_load_conf(const char *conf_path, bool warn, struct drv_conf **out,
		      struct drv_error *err);

/* --- run_as.c ---------------------------------------------------------- */

/* The account ctld runs as, when root starts it for an ordinary SlurmUser. */
struct run_as {
	bool active; /* false: ctld runs as drover does */
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* Fills *as from conf's SlurmUser when drover runs as root and SlurmUser is
 * not root; else leaves it inactive. 0, or -errno with err. */
int run_as_slurm_user(const struct drv_conf *conf, struct run_as *as,
		      struct drv_error *err);

/* Hands ctld's store directory (and its files), log, pid file and the
 * cluster key to as (log and pid file created when missing). 0 or -errno. */
int run_as_give_ctld_files(const struct drv_conf *conf, const char *ctld_log,
			   const struct run_as *as, struct drv_error *err);

/* In a child about to exec: becomes as (groups, gid, uid), or exits 127
 * saying why. Nothing when as is NULL or inactive. */
void run_as_become(const struct run_as *as);

/* --- spawn.c ----------------------------------------------------------- */

/* The directory holding this program (where its sibling daemons live).
 * malloc'd, or NULL with errno. */
char *spawn_bindir(void);

/* Runs BINDIR/prog with args (NULL-terminated, borrowed), stdin from
 * /dev/null and stdout/stderr appended to logfile, as `as` when it is active
 * (NULL: as drover runs), and waits (deadline timeout_s) for it to exit. Returns 0 when
 * it exited 0 (the daemon is ready), -errno otherwise; on failure the log lines it wrote
 * are printed on stderr. */
int spawn_daemon(const char *bindir, const char *prog, char *const args[],
		 const char *logfile, const struct run_as *as, int timeout_s,
		 struct drv_error *err);

/* True when the log lines written since offset `from` mention an address
 * that is already in use. */
bool spawn_log_says_in_use(const char *logfile, off_t from);

/* Size of path, 0 when it does not exist. */
off_t spawn_file_size(const char *path);

/* Is an exclusive flock held on path by some process? False when the file
 * does not exist. */
bool spawn_lock_held(const char *path);

/* Stops the daemon holding pidfile's lock: SIGTERM, wait until the lock is
 * released (deadline timeout_s), then SIGKILL and wait a little more.
 * Returns 0 when it is stopped (or was not running), -ETIMEDOUT otherwise. */
int spawn_stop(const char *label, const char *pidfile, int timeout_s);

/* Sends SIGTERM to the daemon holding pidfile's lock; 0 if one was signalled,
 * -ESRCH when none runs. */
int spawn_signal(const char *pidfile, int sig);

/* Waits until pidfile's lock is free, SIGKILLs after timeout_s. */
int spawn_wait_stopped(const char *label, const char *pidfile, int timeout_s);

/* Reads a decimal integer from path. 0 or -errno. */
int spawn_read_int(const char *path, long *out);

#endif
