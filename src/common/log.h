/* log.h — one line per event on stderr, for operators.
 * Daemons call drv_log_init() once with their name; lines look like
 * "2026-11-30T13:12:49.123 drover-ctld[123]: info: job=5 started on n1". */
#ifndef DRV_LOG_H
#define DRV_LOG_H

enum drv_log_level { DRV_LOG_ERROR, DRV_LOG_WARN, DRV_LOG_INFO, DRV_LOG_DEBUG };

void drv_log_init(const char *prog, enum drv_log_level level);
/* Reopens stderr onto path (append). Returns 0 or -errno. */
int drv_log_to_file(const char *path);
void drv_log(enum drv_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A warning about what a peer ("host:port") sent, at most a few lines per
 * host every few seconds, then one line counting the rest (log_limit.c). */
void drv_log_warn_limited(const char *peer, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints the counts of intervals that have ended; call it now and then (a
 * daemon's tick), so that a flood that stopped is still reported. */
void drv_log_limit_flush(void);

#define log_error(...) drv_log(DRV_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) drv_log(DRV_LOG_WARN, __VA_ARGS__)
#define log_info(...) drv_log(DRV_LOG_INFO, __VA_ARGS__)
#define log_debug(...) drv_log(DRV_LOG_DEBUG, __VA_ARGS__)

#endif
