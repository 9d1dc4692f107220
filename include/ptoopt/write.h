/* write.h - safe replacement of output files (-o, -i, --update, dumps).
 *
 * A file is written to a temporary file in the directory of its final
 * target and renamed over it only when everything was written, so a failed
 * or interrupted run never leaves a partial file.  The target is the file a
 * symbolic link points to (as shell redirection and sed -i
 * --follow-symlinks write it), keeping the link; a replaced file keeps its
 * owner, group and mode (set-user/group-ID bits are dropped when its owner
 * cannot be kept); a device or FIFO is written to directly.  SIGINT,
 * SIGTERM and SIGHUP during a write remove the temporary file, then exit
 * with 128 + the signal number.
 */
#ifndef PTOOPT_WRITE_H
#define PTOOPT_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Fills f with the output; returns 0 or an errno. */
typedef int (*WriteFn)(FILE *f, void *ctx);

/* Write what fn produces to path as described above; 0, or 1 after a
 * message on stderr. */
int write_atomic(const char *path, WriteFn fn, void *ctx);
int write_file_atomic(const char *path, const char *data, size_t len);

/* Install the signal handlers that clean up an interrupted write (once,
 * before the first write). */
void write_install_signal_handlers(void);

/* Remove the temporary file of a write under way; for a signal handler
 * that ends the process (async-signal-safe). */
void write_discard_tmp_in_signal(void);

#endif
