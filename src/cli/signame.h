/* signame.h — signal names as scancel -s takes them: "USR1", "SIGUSR1",
 * "usr1" or a number. Pure. */
#ifndef DRV_CLI_SIGNAME_H
#define DRV_CLI_SIGNAME_H

/* Returns the signal number (1..64), or -EINVAL. */
int cli_signal_parse(const char *name);

#endif
