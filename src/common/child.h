/* child.h — what a daemon's forked child does before it runs an admin's
 * program (Prolog, Epilog, PrologSlurmctld, ...). */
#ifndef DRV_CHILD_H
#define DRV_CHILD_H

#include <signal.h>

/* In the forked child, async-signal-safe calls only: default signal
 * dispositions, oldmask restored, a process group of its own, stdio on
 * /dev/null, no other descriptors, cwd "/", then execve(path, {path},
 * envp). Never returns: _exit(126) when "/" is unreachable, 127 when the
 * exec fails. */
void drv_child_exec_quiet(const char *path, char **envp, const sigset_t *oldmask)
    __attribute__((noreturn));

#endif
