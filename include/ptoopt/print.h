/* print.h - IR -> canonical text, byte-identical to the reference printer
 * (IRPythonPrinter, format=False) followed by one newline. */
#ifndef PTOOPT_PRINT_H
#define PTOOPT_PRINT_H

#include "ptoopt/ir.h"
#include "ptoopt/strbuf.h"

void print_program(StrBuf *out, Program *p);
/* A type outside any function (used in messages). */
void print_type(StrBuf *out, const Type *t);

#endif
