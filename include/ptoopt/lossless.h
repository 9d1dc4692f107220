/* lossless.h - what printing a program would drop of its input's text.
 *
 * The printed program is what the reference prints, and the reference
 * drops some text: comments at module and class level and after the last
 * statement of a block, docstrings, module-level constants (inlined where
 * they are used).  Rewriting a file in place must not lose them silently:
 * -i refuses (unless --allow-lossy) and --check-lossless reports, each lost
 * piece located in the input.  The check compares texts, so it holds
 * whatever the printer does: a comment of the input counts as kept when the
 * output has a comment of the same text (the printer moves trailing
 * comments above their statement), a constant when the output still
 * defines it, a docstring when its text is still there.
 */
#ifndef PTOOPT_LOSSLESS_H
#define PTOOPT_LOSSLESS_H

#include <stdbool.h>
#include <stddef.h>

#include "ptoopt/diag.h"

/* Report (as errors through d, or notes when !as_error) every piece of the
 * input text src that the output text out lacks; returns how many. */
int lossless_check(Diag *d, const char *src, size_t len, const char *out, size_t olen, bool as_error);

#endif
