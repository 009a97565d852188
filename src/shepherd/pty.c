/* pty.c — srun --pty: the pseudo-terminal task 0 runs on.
 *
 * The shepherd holds the master: what the task writes on the slave goes to
 * srun as task 0's stdout, srun's stdin is written into the master, so the
 * slave's line discipline echoes it and turns ^C, ^Z and ^\ into signals
 * for the terminal's foreground process group, as a local terminal does.
 * The task gets the slave as its controlling terminal in a session of its
 * own. This file only opens, sizes and hands over the terminal; step.c
 * decides when. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

int pty_open(int *master, int *slave, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0) {
		int e = errno;
		snprintf(err, errlen, "posix_openpt: %s", strerror(e));
		return -e;
	}
	char name[128];
	int s = -1;
	if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof(name)) != 0 ||
	    (s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open a pseudo-terminal: %s", strerror(e));
		close(m);
		return -e;
	}
	/* run by root for another user: the terminal is the user's, as login
	 * makes it (mode 0620: others may not read it) */
	if (geteuid() == 0 && uid != 0 &&
	    (fchown(s, uid, gid) < 0 || fchmod(s, 0620) < 0)) {
		int e = errno;
		snprintf(err, errlen, "cannot give %s to uid %u: %s", name, (unsigned)uid,
			 strerror(e));
		close(s);
		close(m);
		return -e;
	}
	*master = m;
	*slave = s;
	return 0;
}

int pty_set_size(int master, uint16_t rows, uint16_t cols)
{
	if (!rows || !cols) /* srun has no terminal: the kernel's default */
		return 0;
	struct winsize ws = {.ws_row = rows, .ws_col = cols};
	return ioctl(master, TIOCSWINSZ, &ws) < 0 ? -errno : 0;
}

int pty_make_controlling(int fd)
{
	return ioctl(fd, TIOCSCTTY, 0) < 0 ? -errno : 0;
}
