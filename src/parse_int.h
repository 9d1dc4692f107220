/* parse_int.h - what parse.c lends the parser's other files (parse_*.c).
 *
 * The Parser stays private to parse.c; the files beside it reach the token
 * stream, errors, expressions and bindings through these few calls.  An
 * error never returns: it reports FILE:LINE:COL and unwinds the parse. */
#ifndef PTOOPT_PARSE_INT_H
#define PTOOPT_PARSE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ptoopt/ir.h"
#include "ptoopt/lex.h"

typedef struct Parser Parser;

const Token *pp_peek(Parser *p, int k);      /* k-th token ahead (0: the current one) */
Token pp_next(Parser *p);                    /* consume the current token */
bool pp_accept(Parser *p, const char *op);   /* consume operator op when it is next */
void pp_expect(Parser *p, const char *op);   /* consume operator op, or an error */
_Noreturn void pp_error(Parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *pp_describe(const Token *t);     /* "'x'", "a number", ... for messages */
Expr *pp_expr(Parser *p);                    /* one expression */
Arena *pp_arena(Parser *p);
Var *pp_lookup(Parser *p, const char *name); /* the variable a name holds here, or NULL */
Var *pp_new_var(Parser *p, const char *name, Type *t, SrcPos pos);
Expr *pp_int(Parser *p, int64_t v, DType dt, SrcPos pos);         /* a shared constant */
Expr *pp_list(Parser *p, Expr **items, int n, SrcPos pos);        /* [a, b, ...] */
Expr *pp_op(Parser *p, const char *op, Expr **args, int n, SrcPos pos); /* a registry op call */
Expr *pp_binary(Parser *p, BinOp op, Expr *l, Expr *r, SrcPos pos);     /* a typed scalar expression */
bool pp_has_op(Parser *p, const char *op);                              /* the registry knows op */

/* ---- parse_memref.c */

/* The cursor after `pl.MemRef`: the arguments and an optional `[IDX]`.
 * Base names are looked up as the reference does: a three-argument form's
 * name is a variable when one is in scope; anything else is the function's
 * own Var of that name (bases, a PtrMap name -> Var, reset per function). */
MemRef *pp_memref(Parser *p, PtrMap *bases, SrcPos at);

/* The cursor at `pl` of `pl.tile.alloc(...)` / `pl.tensor.alloc(...)`
 * (pp_at_printed_alloc), the value of `name: pl.Ptr = ...`: the printer's
 * definition of a base Ptr, read as a raw call typed ptr_type. */
bool pp_at_printed_alloc(Parser *p);
Expr *pp_printed_alloc(Parser *p, Type *ptr_type);

/* ---- parse_subscript.c */

/* The cursor after the `[` of a subscript on value (a Tensor or Tile):
 * reads the indices and the `]`, and lowers them as the reference does
 * (tensor.read / tile.read for full-rank scalar indices, else
 * tensor.slice / tile.slice with drop_dims). */
Expr *pp_subscript(Parser *p, Expr *value, SrcPos at);

#endif
