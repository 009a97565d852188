/* log.c — timestamped operator log lines on stderr. */
#include "common/log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *log_prog = "drover";
static enum drv_log_level log_level = DRV_LOG_INFO;

void drv_log_init(const char *prog, enum drv_log_level level)
{
	log_prog = prog;
	log_level = level;
}

int drv_log_to_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0)
		return -1;
	dup2(fd, STDERR_FILENO);
	close(fd);
	return 0;
}

void drv_log(enum drv_log_level level, const char *fmt, ...)
{
	static const char *names[] = {"error", "warning", "info", "debug"};
	if (level > log_level)
		return;
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	localtime_r(&tv.tv_sec, &tm);
	char line[1024];
	int n =
	    snprintf(line, sizeof(line),
		     "%04d-%02d-%02dT%02d:%02d:%02d.%03d %s[%d]: %s: ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     (int)(tv.tv_usec / 1000), log_prog, (int)getpid(), names[level]);
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}
