/* bcast.c — bcast.write (sbcast): one block of a file for this node.
 *
 * Blocks go to a hidden file beside DEST (".NAME.sbcast.JOBID.NODE"): the first
 * creates it, the others append, the last one gives it the source's mode
 * (and with preserve its times), fsyncs it, puts it in place (rename with
 * force, else link, which refuses an existing DEST as Slurm's O_EXCL does)
 * and fsyncs the directory, so that an answered last block is on disk and
 * a failed or aborted transfer leaves DEST as it was. "%n" in DEST is this
 * node's name (local mode runs every node on one host).
 *
 * The files are the job's user's: when noded runs as root the work is done
 * in a child that took the job's uid and gid first. The reply's rc is an
 * errno (0 when the block is written), which sbcast prints per node. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "common/fileio.h"
#include "common/log.h"
#include "common/proto.h"
#include "noded/noded.h"

struct bcast_paths {
	char dest[PATH_MAX], tmp[PATH_MAX], dir[PATH_MAX];
};

/* DEST with %n expanded, the hidden file beside it and their directory. */
static int make_paths(const struct noded *nd, const struct drv_bcast_write *m,
		      struct bcast_paths *p)
{
	const char *host = nd->node && nd->node->hostname ? nd->node->hostname : nd->name;
	char *dest = drv_conf_node_path(m->dest, nd->name, host);
	if (!dest)
		return ENOMEM;
	int rc = 0;
	if (snprintf(p->dest, sizeof(p->dest), "%s", dest) >= (int)sizeof(p->dest))
		rc = ENAMETOOLONG;
	free(dest);
	if (rc)
		return rc;
	char a[PATH_MAX], b[PATH_MAX];
	memcpy(a, p->dest, sizeof(a));
	memcpy(b, p->dest, sizeof(b));
	const char *dir = dirname(a), *base = basename(b);
	if (snprintf(p->dir, sizeof(p->dir), "%s", dir) >= (int)sizeof(p->dir) ||
	    snprintf(p->tmp, sizeof(p->tmp), "%s/.%s.sbcast.%u.%s", dir, base, m->job_id,
		     nd->name) >= (int)sizeof(p->tmp))
		return ENAMETOOLONG;
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int rc = fsync(fd) < 0 ? errno : 0;
	close(fd);
	return rc;
}

/* The last block's work on the complete hidden file (open as fd). */
static int put_in_place(int fd, const struct drv_bcast_write *m,
			const struct bcast_paths *p)
{
	if (fchmod(fd, (mode_t)(m->mode & 07777)) < 0)
		return errno;
	if (m->preserve) {
		struct timespec ts[2] = {{(time_t)m->atime, 0}, {(time_t)m->mtime, 0}};
		if (futimens(fd, ts) < 0)
			return errno;
	}
	if (fsync(fd) < 0)
		return errno;
	if (m->force ? rename(p->tmp, p->dest) < 0 : link(p->tmp, p->dest) < 0)
		return errno;
	if (!m->force)
		unlink(p->tmp);
	return fsync_dir(p->dir);
}

/* The block's whole work, as the caller's identity; returns an errno. */
static int write_block(const struct drv_bcast_write *m, const struct bcast_paths *p,
		       const unsigned char *data, size_t len)
{
	struct stat st;
	if (m->abort) {
		unlink(p->tmp);
		return 0;
	}
	if (m->block == 0 && !m->force && lstat(p->dest, &st) == 0)
		return EEXIST;
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
		    (m->block == 0 ? O_CREAT | O_TRUNC : O_APPEND);
	int fd = open(p->tmp, flags, 0600);
	if (fd < 0)
		return errno;
	int rc = -drv_write_all(fd, data, len);
	if (rc == 0 && m->last)
		rc = put_in_place(fd, m, p);
	close(fd);
	if (rc != 0)
		unlink(p->tmp); /* a failed transfer leaves nothing behind */
	return rc;
}

/* write_block as uid/gid: in a child when we are root, else directly. */
static int write_as(const struct drv_bcast_write *m, const struct bcast_paths *p,
		    const unsigned char *data, size_t len)
{
	if (geteuid() != 0 || m->uid == 0)
		return write_block(m, p, data, len);
	pid_t pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		gid_t gid = (gid_t)m->gid;
		if (setgroups(1, &gid) < 0 || setgid(gid) < 0 ||
		    setuid((uid_t)m->uid) < 0)
			_exit(EPERM);
		_exit(write_block(m, p, data, len));
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}

int bcast_write(struct noded *nd, const struct drv_bcast_write *m, struct drv_error *err)
{
	struct bcast_paths p;
	size_t cap = strlen(m->data) / 4 * 3 + 3, len = 0;
	unsigned char *data = malloc(cap + 1);
	int rc = data ? make_paths(nd, m, &p) : ENOMEM;
	if (rc == 0 && sodium_base642bin(data, cap, m->data, strlen(m->data), NULL, &len,
					 NULL, sodium_base64_VARIANT_ORIGINAL) != 0)
		rc = EINVAL;
	if (rc == 0)
		rc = write_as(m, &p, data, len);
	free(data);
	if (rc != 0) {
		drv_error_set(err, rc, "%s", strerror(rc));
		log_warn("job=%u sbcast %s block %u: %s", m->job_id, m->dest, m->block,
			 strerror(rc));
	} else if (m->last) {
		log_info("job=%u sbcast wrote %s", m->job_id, p.dest);
	}
	return rc;
}
