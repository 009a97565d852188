/* io.c — the job's standard streams: file name patterns and opening them.
 *
 * Patterns follow sbatch's filename patterns: %j job id, %J "<id>.batch",
 * %x job name, %u user name, %N node name, %A array master (the job id
 * outside arrays), %a array index (4294967294, Slurm's NO_VAL-1, outside
 * arrays), %n node index, %t task id, %s step ("batch"), %% a percent; a
 * number after % zero-pads numeric ones (%4j). Files are opened
 * in the job's child after it became the user and chdir'd, so that relative
 * names land in the working directory and permissions are the user's. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *g = realloc(b->s, cap);
		if (!g) {
			b->oom = true;
			return;
		}
		b->s = g;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_num(struct sbuf *b, long long v, int width)
{
	char buf[48];
	int n = snprintf(buf, sizeof(buf), "%0*lld", width, v);
	sb_add(b, buf, (size_t)n);
}

/* One %-sequence at p (after the %); returns how many bytes it used. */
static size_t expand_one(struct sbuf *b, const char *p, const struct spec *s)
{
	int width = 0;
	size_t used = 0;
	while (used < 2 && isdigit((unsigned char)p[used]))
		width = width * 10 + (p[used++] - '0');
	char c = p[used];
	switch (c) {
	case 'j':
		sb_num(b, s->job_id, width);
		break;
	case 'A':
		sb_num(b, s->array_job_id > 0 ? s->array_job_id : s->job_id, width);
		break;
	case 'J':
		sb_num(b, s->job_id, width);
		sb_add(b, ".batch", 6);
		break;
	case 'x':
		sb_add(b, s->name, strlen(s->name));
		break;
	case 'u':
		sb_add(b, s->user, strlen(s->user));
		break;
	case 'N':
		sb_add(b, s->node, strlen(s->node));
		break;
	case 'a':
		sb_num(b, s->array_task_id >= 0 ? s->array_task_id : 4294967294LL, width);
		break;
	case 'n':
	case 't':
		sb_num(b, 0, width);
		break;
	case 's':
		sb_add(b, "batch", 5);
		break;
	case '%':
		sb_add(b, "%", 1);
		break;
	case '\0':
		sb_add(b, "%", 1);
		return used; /* a lone trailing % */
	default:	     /* not a pattern: keep it as written */
		sb_add(b, p - 1, used + 2);
		break;
	}
	return used + 1;
}

char *io_expand(const char *pattern, const struct spec *s)
{
	struct sbuf b = {0};
	sb_add(&b, "", 0);
	for (const char *p = pattern; *p;) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			sb_add(&b, p, strlen(p));
			break;
		}
		sb_add(&b, p, (size_t)(pct - p));
		p = pct + 1 + expand_one(&b, pct + 1, s);
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

static int open_into(const char *path, int target, bool append, char *err, size_t errlen)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
	int fd = open(path, flags, 0666);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	if (dup2(fd, target) < 0) {
		int e = errno;
		close(fd);
		snprintf(err, errlen, "dup2: %s", strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}

/* stdin: the -i file read-only. A missing one fails the job, and the job's
 * stderr (already open) says why, as slurmstepd's error does. */
static int open_input(const char *path, char *err, size_t errlen)
{
	const char *name = *path ? path : "/dev/null";
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "Could not open stdin file %s: %s", name,
			 strerror(e));
		dprintf(STDERR_FILENO, "slurmstepd: error: %s\n", err);
		return -e;
	}
	if (fd != STDIN_FILENO) {
		int rc = dup2(fd, STDIN_FILENO) < 0 ? -errno : 0;
		close(fd);
		if (rc < 0) {
			snprintf(err, errlen, "dup2: %s", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int io_setup(const struct io_paths *p, char *err, size_t errlen)
{
	int rc = open_into(p->out, STDOUT_FILENO, p->append, err, errlen);
	if (rc < 0)
		return rc;
	/* Without its own file stderr shares stdout's (one offset, as Slurm). */
	if (!*p->err || strcmp(p->err, p->out) == 0)
		rc = dup2(STDOUT_FILENO, STDERR_FILENO) < 0 ? -errno : 0;
	else
		rc = open_into(p->err, STDERR_FILENO, p->append, err, errlen);
	if (rc < 0)
		return rc;
	return open_input(p->in, err, errlen);
}
