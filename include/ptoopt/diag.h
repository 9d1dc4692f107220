/* diag.h - located error messages: FILE:LINE:COL: error: MSG, the source
 * line and a caret under the column. */
#ifndef PTOOPT_DIAG_H
#define PTOOPT_DIAG_H

#include <stddef.h>
#include <stdio.h>

typedef struct Diag {
	const char *file;  /* name shown in messages ("<stdin>" for -) */
	const char *src;   /* source text (may be NULL: no source line shown) */
	size_t len;
	int first_line;    /* the line number of src's first line (1 unless src is
	                    * a part of a file: --split-input-file) */
	int nerrors;
	FILE *out;         /* stderr unless a test redirects it */
	/* when set, diagnostics go here instead of out (--verify-diagnostics):
	 * kind "error" / "warning" / "note", line 0 when unlocated */
	void (*sink)(void *ctx, const char *kind, int line, int col, const char *msg);
	void *sink_ctx;
} Diag;

void diag_init(Diag *d, const char *file, const char *src, size_t len);
/* line/col 1-based; line 0 gives "FILE: error: MSG" without a location. */
void diag_error(Diag *d, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_note(Diag *d, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_warning(Diag *d, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
