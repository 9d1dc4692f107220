/* golden.h - golden-file comparison (--expect, --expect-mode, --update). */
#ifndef PTOOPT_GOLDEN_H
#define PTOOPT_GOLDEN_H

#include "ptoopt/driver.h"
#include "ptoopt/ir.h"

/* Compare the result prog (of the input shown as `shown`) with the golden
 * file (c->expect, or in a directory c->expect the input's name):
 * 0 when equal (byte for byte, or in structural mode up to variable
 * names), otherwise 1 with a unified diff on stdout.  With c->update the
 * file is rewritten (atomically) instead, unless it already matches. */
int golden_check(const DriverConfig *c, const char *golden, Program *prog, const char *shown);
/* The same for a result that is a text (--split-input-file), compared byte
 * for byte. */
int golden_check_text(const DriverConfig *c, const char *golden, const char *text, size_t len, const char *shown);

#endif
