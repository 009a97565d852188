/* child.h — what a daemon's forked child does before it runs an admin's
 * program (Prolog, Epilog, PrologSlurmctld, ...). */
#ifndef DRV_CHILD_H
#define DRV_CHILD_H

#include <signal.h>
#include <sys/types.h>

/* In the forked child, async-signal-safe calls only: default signal
 * dispositions, oldmask restored, a process group of its own, stdio on
 * /dev/null, no other descriptors, cwd "/", then execve(path, {path},
 * envp). Never returns: _exit(126) when "/" is unreachable, 127 when the
 * exec fails. */
void drv_child_exec_quiet(const char *path, char **envp, const sigset_t *oldmask)
    __attribute__((noreturn));

/* Forks a child that runs path as drv_child_exec_quiet() does, with every
 * signal blocked across the fork so no handler runs in the child; the
 * child leads its own process group (set from both sides, so a kill of the
 * group cannot miss it). Returns the pid, or -errno. */
pid_t drv_child_spawn_quiet(const char *path, char **envp);

/* The same, with the child's stdout and stderr on a pipe whose read end
 * (non-blocking, close-on-exec; the caller closes it) goes to *out_rd.
 * Returns the pid, or -errno (then nothing is left open). */
pid_t drv_child_spawn_output(const char *path, char **envp, int *out_rd);

#endif
