/* error.c — formatting of struct drv_error. */
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>

int drv_error_set(struct drv_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
		va_end(ap);
	}
	return code > 0 ? -code : code;
}
