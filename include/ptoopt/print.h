/* print.h - IR -> canonical text, byte-identical to the reference printer
 * (IRPythonPrinter, format=False) followed by one newline. */
#ifndef PTOOPT_PRINT_H
#define PTOOPT_PRINT_H

#include "ptoopt/ir.h"
#include "ptoopt/strbuf.h"

void print_program(StrBuf *out, Program *p);
/* The same with every function's variables named v0, v1, ... in order of
 * first appearance (parameters first) and without comments: two programs
 * that differ only in variable names print the same (--expect-mode=
 * structural).  Function names, ops, constants, types and dynamic dims
 * still print as they are. */
void print_program_canonical(StrBuf *out, Program *p);
/* A type outside any function (used in messages). */
void print_type(StrBuf *out, const Type *t);
/* One expression as the printer writes it, with the names as written (for messages). */
void print_expr_text(StrBuf *out, const Expr *e);

#endif
