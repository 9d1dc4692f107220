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


/* A program printed in parts (parallel.c): the functions of one part of a
 * program, each as print_program writes it inside the class, with the
 * names of the functions of the part it calls, and the pl.dynamic symbols
 * they mention.  print_join puts parts back together: the same text as
 * print_program of the whole, given the parts' functions have distinct
 * names, call no function of another part, and their symbols distinct
 * names. */
typedef struct PrintedFn {
	const char *name;
	size_t text_at, text_len; /* in the part's text */
	const char *text;         /* print_join's: the text itself */
	size_t callees_at;        /* in the part's callees, name order */
	int ncallees;
} PrintedFn;
typedef struct PrintedDyn {
	const char *name;
	unsigned id;              /* its Var's */
} PrintedDyn;
typedef struct PrintedPart {
	StrBuf text;
	PrintedFn *fns;           /* name order */
	int nfns;
	const char **callees;
	int ncallees;
	PrintedDyn *dyn;          /* name order */
	int ndyn;
} PrintedPart;
/* p's functions in parts; false (nothing kept) when two distinct symbols
 * share a name (the whole program's print would number them).  With a
 * sink the text streams there (part->text keeps only its last chunk until
 * sb_flush; the offsets count from the sink's first byte). */
bool print_part(PrintedPart *part, Program *p, FILE *sink);
void print_part_release(PrintedPart *part);
/* The program named name of the n functions fns (sorted by name, names
 * interned: equal names are one pointer, text set), their callees' names
 * in callees (interned), and the ndyn symbols dyn (sorted). */
void print_join(StrBuf *out, const char *name, const PrintedFn *fns, int n, const char *const *callees,
		const char *const *dyn, int ndyn);

#endif
