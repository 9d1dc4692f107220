/* diag_expect.h - --verify-diagnostics: the diagnostics a test input
 * expects, written in its comments as mlir-opt's tests write them, checked
 * against the ones a run produced.
 *
 *   x = pl.tile.exq(a)   # expected-error {{Unknown operation}}
 *   # expected-error@+1 {{did you mean}}      the next line
 *   # expected-warning@-2 {{...}}             two lines up
 *   # expected-note@below {{...}}             the next line that is not
 *                                             itself only expectations
 *   # expected-error@above {{...}}            likewise, upwards
 *
 * Each expectation must be met by exactly one diagnostic of its kind at its
 * line whose message contains the text between the braces, and every
 * diagnostic must be expected.
 */
#ifndef PTOOPT_DIAG_EXPECT_H
#define PTOOPT_DIAG_EXPECT_H

#include <stddef.h>

#include "ptoopt/diag.h"

typedef struct DiagExpect DiagExpect;

/* Read the expectations of src[0..len) (lines numbered from 1) and route d's
 * diagnostics into the returned state. */
DiagExpect *dexp_begin(Diag *d, const char *src, size_t len);
/* Route d's diagnostics back to its output and compare: 0 when everything
 * matched; 1 after listing, on stderr, each unexpected diagnostic and each
 * unmet expectation (FILE:LINE: ...).  Frees the state. */
int dexp_end(DiagExpect *x, Diag *d);

#endif
