/* io.c — the job's standard streams: file name patterns and opening them.
 *
 * Patterns follow sbatch's filename patterns: %j job id, %J "<id>.batch",
 * %x job name, %u user name, %N node name, %A array master (the job id),
 * %a array index, %n node index, %t task id, %s step ("batch"), %% a
 * percent; a number after % zero-pads numeric ones (%4j). Files are opened
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
	case 'A':
		sb_num(b, s->job_id, width);
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
		sb_num(b, 4294967294LL, width);
		break; /* not an array job */
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

static int open_into(const char *path, int target, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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

int io_setup(const char *out_path, const char *err_path, char *err, size_t errlen)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0) {
		snprintf(err, errlen, "/dev/null: %s", strerror(errno));
		return -errno;
	}
	if (null != STDIN_FILENO)
		close(null);
	int rc = open_into(out_path, STDOUT_FILENO, err, errlen);
	if (rc < 0)
		return rc;
	/* Without its own file stderr shares stdout's (one offset, as Slurm). */
	if (!*err_path || strcmp(err_path, out_path) == 0)
		return dup2(STDOUT_FILENO, STDERR_FILENO) < 0 ? -errno : 0;
	return open_into(err_path, STDERR_FILENO, err, errlen);
}
