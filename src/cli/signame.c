/* signame.c — the signal name table for scancel -s. */
#include "cli/signame.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <strings.h>

struct sig_row {
	const char *name;
	int num;
};

static const struct sig_row sigs[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},	      {"QUIT", SIGQUIT}, {"ILL", SIGILL},
    {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},     {"IOT", SIGIOT},	 {"BUS", SIGBUS},
    {"FPE", SIGFPE},   {"KILL", SIGKILL},     {"USR1", SIGUSR1}, {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2}, {"PIPE", SIGPIPE},     {"ALRM", SIGALRM}, {"TERM", SIGTERM},
    {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},	 {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
    {"IO", SIGIO},     {"POLL", SIGPOLL},     {"PWR", SIGPWR},	 {"SYS", SIGSYS},
};

int cli_signal_parse(const char *name)
{
	char *end = NULL;
	long v;

	if (!name || !*name)
		return -EINVAL;
	if (name[0] >= '0' && name[0] <= '9') {
		v = strtol(name, &end, 10);
		if (*end || v < 1 || v > 64)
			return -EINVAL;
		return (int)v;
	}
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(sigs[i].name, name))
			return sigs[i].num;
	return -EINVAL;
}
