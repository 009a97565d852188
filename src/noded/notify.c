/* notify.c — the UNIX datagram socket SPOOL/noded.sock on which a shepherd
 * says "job N ended" right after it wrote the job's status.
 *
 * A datagram is only a hint to look now: the status file is the truth, so
 * the handler rescans the spool rather than trusting the message. When the
 * path does not fit a sockaddr_un the once-a-second scan still finds ends. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "noded/noded.h"

static void on_notify(evutil_socket_t fd, short what, void *arg)
{
	struct noded *nd = arg;
	char buf[64];
	bool any = false;
	/* Drain everything queued; one scan answers them all. */
	while (recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT) >= 0)
		any = true;
	if (any)
		spool_scan(nd);
}

int notify_start(struct noded *nd)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char path[sizeof(sa.sun_path) + 64];
	int n = snprintf(path, sizeof(path), "%s/noded.sock", nd->spool_dir);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		log_warn("%s/noded.sock is too long for a socket; ends are found by the "
			 "spool scan only",
			 nd->spool_dir);
		return 0;
	}
	memcpy(sa.sun_path, path, (size_t)n + 1);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* Our pid file lock makes us the only noded for this spool, so a socket
	 * file left here belongs to a noded that died. */
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	nd->notify_fd = fd;
	nd->notify_path = strdup(path);
	nd->notify_ev = event_new(nd->base, fd, EV_READ | EV_PERSIST, on_notify, nd);
	if (!nd->notify_ev || !nd->notify_path)
		return -ENOMEM;
	event_add(nd->notify_ev, NULL);
	return 0;
}

void notify_stop(struct noded *nd)
{
	if (nd->notify_ev)
		event_free(nd->notify_ev);
	nd->notify_ev = NULL;
	if (nd->notify_fd >= 0)
		close(nd->notify_fd);
	nd->notify_fd = -1;
	if (nd->notify_path)
		unlink(nd->notify_path);
	free(nd->notify_path);
	nd->notify_path = NULL;
}
