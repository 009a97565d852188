/* fileio.h — small file helpers that survive EINTR and crashes. */
#ifndef DRV_FILEIO_H
#define DRV_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all len bytes, retrying on EINTR and short writes. 0 or -errno. */
int drv_write_all(int fd, const void *data, size_t len);

/* Writes text to an existing kernel control file (cgroupfs, /proc) in one
 * write(), as such files take each write as one command; retries EINTR.
 * 0, or -errno (-EIO for a short write). */
int drv_write_control(const char *path, const char *text);

/* Replaces DIR/NAME with data durably: writes DIR/.NAME.tmp (never through a
 * symlink), fsyncs it, renames it over NAME and fsyncs DIR. Readers see the
 * old or the new content, never a part. 0 or -errno; on failure NAME is
 * untouched and the temporary file removed. */
int drv_write_file_atomic(const char *dir, const char *name, const void *data, size_t len,
			  mode_t mode);

/* The same without the fsyncs: atomic against a crash of the writing
 * process, not against a power cut. For files that only matter while the
 * machine stays up (a running job's pid, its script). */
int drv_write_file_replace(const char *dir, const char *name, const void *data,
			   size_t len, mode_t mode);

#endif
