/* status.c — how the job ended, made durable, then a word to noded.
 *
 * DIR/status is written to a temporary file, synced and renamed, then the
 * directory is synced: once it exists it is whole, and it survives a crash
 * of the host. Only then is noded told (a datagram on SPOOL/noded.sock); if
 * noded is down, its spool scan finds the status when it comes back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

int status_record(const char *dir, const struct spec *s, const struct job_result *res)
{
	json_t *st = json_pack("{s:i, s:i, s:I}", "exit_code", res->exit_code, "signal",
			       res->sig, "restart", (json_int_t)s->restart);
	if (!st)
		return -ENOMEM;
	if (res->timeout)
		json_object_set_new(st, "timeout", json_true());
	if (res->oom)
		json_object_set_new(st, "oom", json_true());
	if (res->unkillable)
		json_object_set_new(st, "unkillable", json_true());
	if (res->message[0])
		json_object_set_new(st, "message", json_string(res->message));
	if (res->usage.ntasks)
		json_object_set_new(st, "usage", usage_to_json(&res->usage));
	char *text = json_dumps(st, JSON_COMPACT);
	json_decref(st);
	if (!text)
		return -ENOMEM;
	size_t len = strlen(text);
	int rc = drv_write_file_atomic(dir, "status", text, len, 0600);
	free(text);
	return rc;
}

void status_notify(const char *dir, int64_t job_id)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char spool[PATH_MAX];
	snprintf(spool, sizeof(spool), "%s", dir);
	char *slash = strrchr(spool, '/');
	if (!slash)
		return;
	*slash = '\0';
	int n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/noded.sock", spool);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return; /* too long for a socket: noded's scan will find it */
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	char msg[32];
	int len = snprintf(msg, sizeof(msg), "%lld\n", (long long)job_id);
	if (sendto(fd, msg, (size_t)len, MSG_DONTWAIT, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		/* noded is down or busy; it rescans its spool every second */
	}
	close(fd);
}
