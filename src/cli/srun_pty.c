/* srun_pty.c — srun --pty's local terminal (srun_pty.h).
 *
 * Raw mode as Slurm's srun sets it: cfmakeraw, output processing too (the
 * remote terminal already ended its lines with CR LF). The saved mode is put back
 * by srun at the step's end, by exit() on any other way out (atexit), and
 * by a handler on the signals that would end srun without exit() (the ones
 * srun forwards to the step are read from a signalfd and never end it). */
#include "cli/srun_pty.h"

#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* The one terminal of this process: what a signal handler must reach. */
static struct termios saved;
static volatile sig_atomic_t have_saved;

void srun_pty_restore(void)
{
	if (have_saved) {
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
		have_saved = 0;
	}
}

static void restore_and_die(int sig)
{
	srun_pty_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_exit_restore(void)
{
	srun_pty_restore();
}

bool srun_pty_raw(void)
{
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved) < 0)
		return false;
	struct termios raw = saved;
	cfmakeraw(&raw);
	have_saved = 1;
	atexit(on_exit_restore);
	int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM, SIGXCPU};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_and_die;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) < 0) {
		have_saved = 0;
		return false;
	}
	return true;
}

void srun_pty_size(uint16_t *rows, uint16_t *cols)
{
	struct winsize ws;
	*rows = *cols = 0;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 ||
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}
