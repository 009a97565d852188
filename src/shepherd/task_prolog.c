/* task_prolog.c — TaskProlog and TaskEpilog: slurm.conf's programs the
 * shepherd runs as the job's user, in the job's environment, just before
 * the batch script and just after it.
 *
 * What TaskProlog prints on its standard output shapes the job, as in
 * Slurm: "export NAME=value" sets a variable (everything after the first
 * '=' to the end of the line is the value), "unset NAME" clears one,
 * "print TEXT" writes TEXT to the job's standard output; other lines are
 * ignored. The parser is pure (task_prolog_apply); the runners fork. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shepherd/shepherd.h"

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* One line (without its newline). */
static int apply_line(char ***envp, const char *line, size_t len, int out_fd)
{
	if (len >= 7 && !strncmp(line, "export ", 7)) {
		const char *name = line + 7, *eq = memchr(name, '=', len - 7);
		if (!eq || !valid_name(name, (size_t)(eq - name)))
			return 0;
		char *n = strndup(name, (size_t)(eq - name));
		char *v = strndup(eq + 1, len - (size_t)(eq + 1 - line));
		int rc = n && v ? env_set(envp, n, v) : -ENOMEM;
		free(n);
		free(v);
		return rc;
	}
	if (len >= 6 && !strncmp(line, "unset ", 6)) {
		const char *name = line + 6;
		size_t n = len - 6;
		while (n && name[n - 1] == ' ')
			n--;
		if (!valid_name(name, n))
			return 0;
		char *nm = strndup(name, n);
		if (!nm)
			return -ENOMEM;
		env_unset(*envp, nm);
		free(nm);
		return 0;
	}
	if (len >= 6 && !strncmp(line, "print ", 6) && out_fd >= 0) {
		ssize_t w = write(out_fd, line + 6, len - 6);
		w = write(out_fd, "\n", 1);
		(void)w;
	}
	return 0;
}

int task_prolog_apply(char ***envp, const char *text, size_t len, int out_fd)
{
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		size_t n = i - start;
		if (n && text[start + n - 1] == '\r')
			n--;
		int rc = apply_line(envp, text + start, n, out_fd);
		if (rc < 0)
			return rc;
		start = i + 1;
	}
	return 0;
}

/* Runs path with envp, its stdout into a pipe we read whole; stderr stays
 * the job's. Returns the output (malloc'd, *len bytes) or NULL. */
static char *run_capture(const char *path, char **envp, size_t *len)
{
	int p[2];
	if (pipe(p) < 0)
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		close(p[1]);
		char *argv[] = {(char *)path, NULL};
		execve(path, argv, envp);
		_exit(127);
	}
	close(p[1]);
	char *buf = NULL;
	size_t used = 0, cap = 0;
	ssize_t r;
	while (pid > 0) {
		if (used + 4096 > cap) {
			char *g = realloc(buf, cap = cap * 2 + 4096);
			if (!g)
				break;
			buf = g;
		}
		r = read(p[0], buf + used, cap - used);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		used += (size_t)r;
	}
	close(p[0]);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	*len = used;
	return buf;
}

int task_prolog_run(const char *path, char ***envp)
{
	size_t len = 0;
	char *out = run_capture(path, *envp, &len);
	if (!out)
		return 0; /* it printed nothing (or could not run) */
	int rc = task_prolog_apply(envp, out, len, STDOUT_FILENO);
	free(out);
	return rc;
}

void task_epilog_run(const char *path, char **envp)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {(char *)path, NULL};
		execve(path, argv, envp);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
