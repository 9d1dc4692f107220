/* parse.h - .pto text -> IR.
 *
 * The parser reads the canonical text the reference prints and the
 * hand-written forms its tests use, binding names to Var objects by the
 * reference's scoping rules (text-format.md §7.1).  The first error is
 * reported through the Diag (FILE:LINE:COL + source line) and parse_program
 * returns NULL.
 */
#ifndef PTOOPT_PARSE_H
#define PTOOPT_PARSE_H

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

Program *parse_program(Arena *a, Diag *d, const char *src, size_t len);
/* The same, with the lines from src[jump_off] (a line start) on numbered
 * jump_lines further: a module header followed by one part of its class
 * (parallel.c), numbered as in the whole file; with jump_off 0, a part of
 * a --split-input-file input (the Diag's first_line agrees). */
Program *parse_program_jump(Arena *a, Diag *d, const char *src, size_t len, size_t jump_off, int jump_lines);

#endif
