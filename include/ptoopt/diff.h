/* diff.h - unified diffs of two texts, line by line (diff.c). */
#ifndef PTOOPT_DIFF_H
#define PTOOPT_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "ptoopt/strbuf.h"

/* Append a unified diff of a (labelled label_a) against b to out: "---" /
 * "+++" headers, "@@ -l,n +l,n @@" hunks with `context` lines around each
 * change, "\ No newline at end of file" where a text lacks its last
 * newline; ANSI colours when color.  Nothing is appended when the texts are
 * equal.  Returns whether they differ. */
bool diff_unified(StrBuf *out, const char *label_a, const char *a, size_t alen, const char *label_b, const char *b,
		  size_t blen, int context, bool color);

#endif
