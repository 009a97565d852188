/* daemon.h — what every Drover daemon does at start: lock its pid file, go to
 * the background once it is ready, and send its log to a file. */
#ifndef DRV_DAEMON_H
#define DRV_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"

/* Opens path, takes an exclusive non-blocking flock on it and writes our pid.
 * The returned fd (close-on-exec) must stay open for the daemon's life: the
 * lock is how `drover status` tells a live daemon from a stale pid file.
 * Returns the fd, or -EEXIST (another live daemon holds it) / -errno, with err. */
int drv_pidfile_lock(const char *path, struct drv_error *err);

/* Rewrites our pid into the locked pid file (after drv_daemonize forks). */
int drv_pidfile_update(int fd);

/* Is a daemon holding the lock on path? Sets *pid from the file when it is.
 * Returns true when the lock is held. */
bool drv_pidfile_alive(const char *path, pid_t *pid);

/* Forks into the background: the parent waits until the child calls
 * drv_daemon_ready() (or exits) and exits with 0 when it did, 1 otherwise,
 * so a caller of the daemon knows it is listening when the command returns.
 * In the child: new session, stdin from /dev/null. Returns 0 in the child. */
int drv_daemonize(struct drv_error *err);
/* Tells the waiting parent that start-up succeeded (no-op in the foreground). */
void drv_daemon_ready(void);

/* mkdir -p with mode for each created component. 0 or -errno. */
int drv_mkdir_p(const char *path, mode_t mode);

#endif
