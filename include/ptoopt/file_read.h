/* file_read.h - reading a whole file or stream into memory.
 *
 * One reader for every file ptoopt takes in (programs, pipeline configs,
 * op registries, golden files), so that each gets the same size limit, the
 * same error reporting and a NUL after the last byte.
 */
#ifndef PTOOPT_FILE_READ_H
#define PTOOPT_FILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* All of f, NUL-terminated, its length in *len; release it with file_free.
 * NULL on failure: *too_big when the text exceeds limit bytes, otherwise
 * errno says why.  Large inputs land in huge pages (see xzalloc_big). */
char *file_read_stream(FILE *f, size_t limit, size_t *len, bool *too_big);

/* All of the file at path, as file_read_stream; a directory fails with
 * errno EISDIR. */
char *file_read(const char *path, size_t limit, size_t *len, bool *too_big);

/* Release what file_read / file_read_stream returned (NULL is fine). */
void file_free(char *text);

#endif
