/* error.h — a reason a person can read, passed back beside a -errno.
 * Library code never logs above debug; it fills a drv_error and the caller
 * logs or prints it once. */
#ifndef DRV_ERROR_H
#define DRV_ERROR_H

struct drv_error {
	char text[2048]; /* room for a site's job_submit.lua message (ctld) */
};

/* Formats the message into err (which may be NULL); always returns -code so
 * callers can write `return drv_error_set(err, EINVAL, "bad %s", x);`. */
int drv_error_set(struct drv_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
