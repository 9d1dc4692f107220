/* verify.h - IR verifiers (verify.c). */
#ifndef PTOOPT_VERIFY_H
#define PTOOPT_VERIFY_H

#include <stdbool.h>

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

/* Each variable defined once, before its uses, used only where its
 * definition is visible.  Reports the first violation (naming after_pass
 * when not NULL) and returns false. */
bool verify_ssa(Program *p, Diag *d, const char *after_pass);

#endif
